// The cluster rows of issue 26: what Redis stores and a round-robin nginx cost per request, both eras, same run.
//
//   node bench/cluster.mjs             3 interleaved repetitions, medians (≈ 3 min)
//   node bench/cluster.mjs --reps 5 --window-ms 3000 --warmup-ms 2000 --concurrency 16
//   node bench/cluster.mjs --smoke     tiny windows, 1 repetition: every row answers correctly, else exit 1 (CI)
//
// Rows (bench/servers/switchboard.js, the `echo` tool, HTTP, started by scripts/cluster.mjs; every process by its PID):
//   memory        one instance, in-memory stores (the embedded default)
//   memory (A/A)  the same again, measured as a separate row: the control. Its ratio to `memory` is the noise of
//                 the run, the band within which "the in-memory path is unchanged" can be read
//   redis ×1      one instance on Redis stores (SWITCHBOARD_REDIS_URL: examples/launcher.js)
//   redis ×3 nginx three instances on one Redis behind nginx round-robin (no stickiness): the session-based row's
//                 one session is served by all three
// Eras: 2025-11-25 (initialize, then C requests in flight in that one session) and 2026-07-28 (no session; the
// `_meta` envelope and request headers on every request). One measurement = fresh processes: start, handshake,
// warm-up, a measured window of C calls in flight (bench/lib/loadgen.mjs, every reply checked), stop. Each
// repetition runs every row of an era back to back in a rotated order.
//
// Columns: req/s and p50/p99 ms of the window; CPU µs/req of all instances summed (utime+stime from /proc, after −
// before the window, ÷ calls); nginx's CPU µs/req; Redis's own cost, from one `INFO stats cpu commandstats` before
// and after the window (the probe's own read and INFO left out), ÷ calls: round trips (INFO stats
// total_reads_processed: the socket reads Redis served, one per pipelined batch a client sent), Lua scripts run
// (evalsha/eval calls), commands (every commandstats call, those a script runs included) and redis-server CPU µs
// (INFO cpu used_cpu_user + used_cpu_sys).
// Background work in the window (session heartbeats, lease renewals) is counted too. The machine is shared: read the
// ratios (× memory, same era, same run), not the absolute figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { connectRedis } from '@switchboard/redis';
import { startCluster } from '../scripts/cluster.mjs';
import { missingClusterTools } from '../scripts/lib/install.mjs';
import { HttpClient, MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION, drive, percentile } from './lib/loadgen.mjs';
import { cpuMicros, processTree } from './lib/proc.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER = path.join(HERE, 'servers', 'switchboard.js');

const ROWS = [
  { key: 'memory', label: 'one instance, in-memory stores', instances: 1, redis: false, nginx: false },
  { key: 'memory-aa', label: 'the same again (A/A control)', instances: 1, redis: false, nginx: false },
  { key: 'redis-1', label: 'one instance, Redis stores', instances: 1, redis: true, nginx: false },
  { key: 'redis-3-nginx', label: 'three instances on Redis behind nginx', instances: 3, redis: true, nginx: true },
];
const ERAS = [
  { key: 'legacy', label: 'session (2025-11-25)', protocol: PROTOCOL_VERSION },
  { key: 'modern', label: 'stateless (2026-07-28)', protocol: MODERN_PROTOCOL_VERSION },
];

function parseArgs(argv) {
  const opts = { reps: 3, windowMs: 2000, warmupMs: 1500, concurrency: 16, payload: 64, smoke: false, out: path.join(HERE, 'results') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => Number(argv[++i]);
    if (a === '--smoke') opts.smoke = true;
    else if (a === '--reps') opts.reps = num();
    else if (a === '--window-ms') opts.windowMs = num();
    else if (a === '--warmup-ms') opts.warmupMs = num();
    else if (a === '--concurrency') opts.concurrency = num();
    else if (a === '--payload') opts.payload = num();
    else {
      console.error(`cluster bench: unknown argument ${a}\nusage: node bench/cluster.mjs [--smoke] [--reps N] [--window-ms N] [--warmup-ms N] [--concurrency N] [--payload BYTES]`);
      process.exit(2);
    }
  }
  if (opts.smoke) Object.assign(opts, { reps: 1, windowMs: 300, warmupMs: 200, concurrency: 4 });
  return opts;
}

/** Redis's counters, from one INFO (so the probe costs one read): reads, scripts, commands (INFO left out), CPU µs. */
async function redisCounters(redis) {
  const info = await redis.call('INFO', 'stats', 'cpu', 'commandstats');
  let calls = 0;
  let scripts = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] === 'info') continue;
    calls += Number(m[2]);
    if (m[1] === 'evalsha' || m[1] === 'eval') scripts += Number(m[2]);
  }
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return { reads: field('total_reads_processed'), scripts, calls, cpuMicros: (field('used_cpu_user') + field('used_cpu_sys')) * 1e6 };
}

/** One measurement of `row` in `era`: fresh processes, handshake, warm-up, window, stop. */
async function measure(row, era, opts) {
  const cluster = await startCluster({ script: SERVER, instances: row.instances, redis: row.redis, nginx: row.nginx });
  const client = new HttpClient(cluster.url, { sockets: opts.concurrency, protocol: era.protocol });
  const redis = cluster.redisUrl === undefined ? undefined : connectRedis({ url: cluster.redisUrl });
  try {
    await client.handshake();
    let nextId = 1;
    const warm = await drive(client, { concurrency: opts.concurrency, payloadBytes: opts.payload, durationMs: opts.warmupMs, maxRequests: 1e7, record: false, nextId });
    if (warm.failures > 0) throw new Error(`warm-up: ${warm.failures} failed (${warm.firstFailure})`);
    nextId = warm.nextId + warm.issued;
    const instancePids = cluster.instances.flatMap((p) => processTree(p.pid));
    const nginxPids = cluster.nginx === undefined ? [] : processTree(cluster.nginx.pid);
    const cpu0 = cpuMicros(instancePids);
    const ng0 = cpuMicros(nginxPids);
    const r0 = redis === undefined ? undefined : await redisCounters(redis);
    const run = await drive(client, { concurrency: opts.concurrency, payloadBytes: opts.payload, durationMs: opts.windowMs, maxRequests: 1e7, nextId });
    const cpu1 = cpuMicros(instancePids);
    const ng1 = cpuMicros(nginxPids);
    const r1 = redis === undefined ? undefined : await redisCounters(redis);
    if (run.failures > 0) throw new Error(`${run.failures} failed (${run.firstFailure})`);
    const sorted = Float64Array.from(run.latencies).sort();
    const n = run.completed;
    return {
      reqPerSec: (n * 1000) / run.elapsedMs,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      cpuPerReq: (cpu1 - cpu0) / n,
      nginxCpuPerReq: cluster.nginx === undefined ? undefined : (ng1 - ng0) / n,
      redisRoundTripsPerReq: r0 === undefined ? undefined : (r1.reads - r0.reads - 1) / n,
      redisScriptsPerReq: r0 === undefined ? undefined : (r1.scripts - r0.scripts) / n,
      redisCommandsPerReq: r0 === undefined ? undefined : (r1.calls - r0.calls) / n,
      redisCpuPerReq: r0 === undefined ? undefined : (r1.cpuMicros - r0.cpuMicros) / n,
      requests: n,
    };
  } finally {
    await client.close().catch(() => {});
    await redis?.quit().catch(() => redis.disconnect());
    await cluster.stop();
  }
}

function median(values) {
  const v = values.filter((x) => x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

const fmt = (x, digits = 0) => (x === undefined ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const ratio = (x, base) => (x === undefined || base === undefined || base === 0 ? '—' : `${(x / base).toFixed(2)}×`);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const missing = missingClusterTools();
  if (missing !== undefined) {
    console.error(`cluster bench: skipped: ${missing}`);
    return;
  }
  /** results[era][row] = measurements */
  const results = new Map(ERAS.map((e) => [e.key, new Map(ROWS.map((r) => [r.key, []]))]));
  const failures = [];
  const started = Date.now();
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const era of ERAS) {
      const order = ROWS.map((_, i) => ROWS[(i + rep) % ROWS.length]);
      for (const row of order) {
        try {
          const m = await measure(row, era, opts);
          results.get(era.key).get(row.key).push(m);
          console.error(`cluster bench: rep ${rep + 1}/${opts.reps} ${era.key} ${row.key}: ${fmt(m.reqPerSec)} req/s, ${fmt(m.cpuPerReq)} µs CPU/req${m.redisRoundTripsPerReq === undefined ? '' : `, ${fmt(m.redisRoundTripsPerReq, 2)} Redis round trips/req`}`);
        } catch (error) {
          failures.push(`${era.key} ${row.key}: ${error instanceof Error ? error.message : String(error)}`);
          console.error(`cluster bench: rep ${rep + 1} ${era.key} ${row.key} FAILED: ${failures.at(-1)}`);
        }
      }
    }
  }
  const lines = [
    `Cluster rows (bench/cluster.mjs): C=${opts.concurrency}, ${opts.payload} B echo over HTTP, ${opts.reps} interleaved repetition(s), medians; ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`,
    '',
    '| era | row | req/s | × memory | p50 ms | p99 ms | instances CPU µs/req | × memory | nginx CPU µs/req | Redis round trips/req | Lua scripts/req | Redis commands/req (in scripts too) | Redis CPU µs/req |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const summary = [];
  for (const era of ERAS) {
    const rows = results.get(era.key);
    const med = (key, field) => median(rows.get(key).map((m) => m[field]));
    const baseRps = med('memory', 'reqPerSec');
    const baseCpu = med('memory', 'cpuPerReq');
    for (const row of ROWS) {
      const get = (field) => med(row.key, field);
      lines.push(`| ${era.label} | ${row.label} | ${fmt(get('reqPerSec'))} | ${ratio(get('reqPerSec'), baseRps)} | ${fmt(get('p50'), 2)} | ${fmt(get('p99'), 2)} | ${fmt(get('cpuPerReq'))} | ${ratio(get('cpuPerReq'), baseCpu)} | ${fmt(get('nginxCpuPerReq'))} | ${fmt(get('redisRoundTripsPerReq'), 2)} | ${fmt(get('redisScriptsPerReq'), 2)} | ${fmt(get('redisCommandsPerReq'), 2)} | ${fmt(get('redisCpuPerReq'))} |`);
      summary.push({ era: era.key, row: row.key, runs: rows.get(row.key).length, ...Object.fromEntries(['reqPerSec', 'p50', 'p99', 'cpuPerReq', 'nginxCpuPerReq', 'redisRoundTripsPerReq', 'redisScriptsPerReq', 'redisCommandsPerReq', 'redisCpuPerReq'].map((f) => [f, get(f)])) });
    }
  }
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  if (!opts.smoke) {
    mkdirSync(opts.out, { recursive: true });
    const file = path.join(opts.out, `cluster-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
    writeFileSync(file, [JSON.stringify({ meta: { opts, cores: os.cpus().length, node: process.version } }), ...summary.map((s) => JSON.stringify(s))].join('\n') + '\n');
    console.error(`cluster bench: ${path.relative(process.cwd(), file)}`);
  }
  console.error(`cluster bench: ${Math.round((Date.now() - started) / 1000)} s`);
  if (failures.length > 0) {
    console.error(`cluster bench FAILED: ${failures.length} measurement(s) failed:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

// A signal exits through process.exit, so scripts/cluster.mjs's exit hook stops what is running by PID.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
await main();
