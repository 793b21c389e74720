// The gateway's hop cost: the same load generator (lib/loadgen.mjs) against an echo server directly and through
// `createProxyServer` (bench/servers/proxy.js), in the same run, interleaved cell by cell.
//
//   node bench/gateway.mjs            # both scenarios, both eras, C = 1, 8, 32; 3 interleaved repetitions (≈ 8 min)
//   node bench/gateway.mjs --smoke    # tiny N: every path answers correctly, exit 1 otherwise (CI, ≈ 20 s)
//   node bench/gateway.mjs --reps 5 --duration-ms 3000
//   node bench/gateway.mjs --instructions   # the proxy's own cost in instructions per call (callgrind), both eras (slow:
//                                           # ≈ 10 min an era on an idle machine, far more on a loaded one; --era legacy|modern,
//                                           # --proxy-only, --keep-callgrind, --warmup N calls before counting (3000;
//                                           # 15000 for the steady state), --calls N counted (2000))
//   node bench/gateway.mjs --warmup-ms 1500 --era-warmup-ms 6000   # each cell's warm-up, and each era's first one
//   node bench/gateway.mjs --scenario stdio|http --era legacy|modern --concurrency 1,8   # a subset of the cells
//   node bench/gateway.mjs --proxy-script <file>   # another proxy script (an A/B build), same flags as servers/proxy.js
//   node bench/gateway.mjs --ab <file>             # a second proxy script measured beside the first as a fourth side,
//                                                  # same run, interleaved: its p50, throughput and CPU ÷ the proxy's
//   node bench/gateway.mjs --fresh                 # every side restarted (and warmed up) at every repetition: medians
//                                                  # over processes, not one process's luck (≈ 10 min)
//
// Scenarios (the front is Streamable HTTP on 127.0.0.1 in both; the client speaks the row's era to it, the proxy
// speaks the session-based era upstream — the era bridge's case for a 2026-07-28 client):
//   stdio→http  the upstream is bench/servers/switchboard.js over stdio, the proxy's child; "direct" is the same
//               server on Streamable HTTP (what a client would reach without the proxy, on the same transport)
//   http→http   the upstream is bench/servers/switchboard.js on Streamable HTTP; "direct" is that very server
// A third side, the floor: bench/servers/raw-relay.js, the least a Node process can do between the client and the
// same upstream (HTTP: the bytes copied through a keep-alive agent, nothing parsed; stdio: ids rewritten, one line
// per message), so the hop's cost splits into what any Node relay pays here and what the proxy adds on top.
// Each era starts with every side warmed up at C=8 (--era-warmup-ms, 6 s; with --fresh, every repetition does). Each cell: C calls in flight (distinct
// arguments: each text starts with its id, so no cache can answer), a warm-up, then a measured window; the sides
// (three, four with --ab) in a rotated order every repetition. Printed per scenario, era and C: p50 direct / proxied and the p50 the
// hop adds, throughput proxied ÷ direct, the proxy process's own CPU per call (utime+stime from /proc, its upstream
// child excluded), and the same three for the raw relay. The gates of issue #23 (on the proxy): added p50 ≤ 100 µs
// at C=1, throughput ≥ 0.55× at every C. Timing on a loaded shared machine is noise: read the ratios, measured
// interleaved in the same run. `--instructions` gives the one figure load does not move: the proxy process's
// instructions per call under `valgrind --tool=callgrind` (its stdio upstream child not traced), beside the echo
// server's own on Streamable HTTP (bench/instructions.mjs' method).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { HttpClient, PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, drive, percentile } from './lib/loadgen.mjs';
import { cpuMicros, spawnServer, stopAll } from './lib/proc.mjs';

const DIR = path.dirname(fileURLToPath(import.meta.url));
const ECHO = path.join(DIR, 'servers', 'switchboard.js');
const RELAY = path.join(DIR, 'servers', 'raw-relay.js');

const argv0 = process.argv.slice(2);
// `--proxy-script <file>`: another proxy server script (an A/B build: the same flags, BENCH_READY on stderr).
const PROXY = argv0.includes('--proxy-script') ? path.resolve(argv0[argv0.indexOf('--proxy-script') + 1]) : path.join(DIR, 'servers', 'proxy.js');

const argv = process.argv.slice(2);
// `--ab <file>`: a second proxy script (same flags) measured as a fourth side of every cell, for an A/B in one run.
const PROXY_B = argv.includes('--ab') ? path.resolve(argv[argv.indexOf('--ab') + 1]) : undefined;
const smoke = argv.includes('--smoke');
// `--fresh`: new processes for every side at every repetition (each warmed up), instead of one per side per scenario.
const FRESH = argv.includes('--fresh');
const numberFlag = (name, fallback) => {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} takes a number (e.g. ${name} ${fallback}), not "${argv[at + 1] ?? ''}"`);
  return value;
};
// With `--ab` the four sides take every position of the rotation once in four repetitions.
const REPS = numberFlag('--reps', smoke ? 1 : PROXY_B === undefined ? 3 : 4);
const WARMUP_MS = numberFlag('--warmup-ms', smoke ? 150 : 1500);
// Before the first cell of each era, both sides run this long at C=8 unmeasured: the proxy's code path (front
// server, client, gateway) is several times the echo server's and is still being optimized by V8 after thousands
// of calls, so without it the first cells (C=1, the p50 gate) would measure the JIT's warm-up rather than the hop.
const ERA_WARMUP_MS = numberFlag('--era-warmup-ms', smoke ? 0 : 6000);
const DURATION_MS = numberFlag('--duration-ms', smoke ? 200 : 2000);
const MAX_REQUESTS = smoke ? 300 : 200_000;
// `--concurrency 1,8`: those levels only; `--scenario stdio|http`: one scenario only.
const CONCURRENCY = argv.includes('--concurrency') ? argv[argv.indexOf('--concurrency') + 1].split(',').map(Number) : smoke ? [1, 8] : [1, 8, 32];
const SCENARIO_FLAG = argv.includes('--scenario') ? argv[argv.indexOf('--scenario') + 1] : undefined;
// `--era legacy|modern`: one era only.
const ERA_FLAG = argv.includes('--era') ? argv[argv.indexOf('--era') + 1] : undefined;
const ERAS = [PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION].filter((p) => ERA_FLAG === undefined || (ERA_FLAG === 'modern') === (p === MODERN_PROTOCOL_VERSION));
// `--proxy-only`: instructions of the proxy alone (the echo server's own count skipped); `--keep-callgrind`: the
// callgrind output left in its temporary directory (printed) for callgrind_annotate.
const PROXY_ONLY = argv.includes('--proxy-only');
const KEEP_DUMP = argv.includes('--keep-callgrind');
const PAYLOAD_BYTES = 64;
// `--warmup N` / `--calls N` of `--instructions`: calls made before the counters are zeroed, and calls counted.
const CG_WARMUP = numberFlag('--warmup', 3000);
const CG_CALLS = numberFlag('--calls', 2000);
const ADDED_P50_TARGET_US = 100;
const THROUGHPUT_TARGET = 0.55;

async function start(script, args) {
  const h = spawnServer({ script, args });
  h.child.stdout.on('data', () => {});
  const url = await h.waitLine('BENCH_READY ', 30_000);
  return { h, url: url.trim() };
}

/** One measured cell against `url`: warm-up, then the window; the CPU of `pid` over the window. */
async function measure(url, { protocol, concurrency, pid, nextId }) {
  const client = new HttpClient(url, { sockets: concurrency, protocol });
  try {
    await client.handshake();
    const warm = await drive(client, { concurrency, payloadBytes: PAYLOAD_BYTES, durationMs: WARMUP_MS, maxRequests: MAX_REQUESTS, record: false, nextId });
    if (warm.failures > 0) throw new Error(`warm-up failed: ${warm.firstFailure}`);
    const cpuBefore = cpuMicros([pid]);
    const run = await drive(client, { concurrency, payloadBytes: PAYLOAD_BYTES, durationMs: DURATION_MS, maxRequests: MAX_REQUESTS, nextId: warm.nextId });
    const cpuAfter = cpuMicros([pid]);
    if (run.failures > 0) throw new Error(`${run.failures} failed calls: ${run.firstFailure}`);
    const sorted = Float64Array.from(run.latencies).sort();
    return { p50Us: percentile(sorted, 0.5) * 1000, rps: (run.completed / run.elapsedMs) * 1000, cpuUsPerCall: (cpuAfter - cpuBefore) / run.completed, completed: run.completed, nextId: run.nextId };
  } finally {
    await Promise.race([client.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
  }
}

/** `ERA_WARMUP_MS` of calls at C=8 against `url`, unmeasured; returns the next free id. */
async function warmUp(url, { protocol, nextId }) {
  const client = new HttpClient(url, { sockets: 8, protocol });
  try {
    await client.handshake();
    const run = await drive(client, { concurrency: 8, payloadBytes: PAYLOAD_BYTES, durationMs: ERA_WARMUP_MS, maxRequests: 10_000_000, record: false, nextId });
    if (run.failures > 0) throw new Error(`era warm-up failed: ${run.firstFailure}`);
    return run.nextId;
  } finally {
    await Promise.race([client.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};

/** The sides of a cell, rotated every repetition (A B C, B C A, C A B) so drift hits all of them alike. */
const SIDES = PROXY_B === undefined ? ['direct', 'proxied', 'relay'] : ['direct', 'proxied', 'relay', 'proxyB'];

/** Starts every side of scenario `name`: the echo server (direct), the proxy, the raw relay, and proxy B with `--ab`. */
async function startSides(name) {
  const direct = await start(ECHO, ['--port', '0']);
  const upstreamArgs = name === 'stdio→http' ? ['--port', '0', '--upstream-stdio'] : ['--port', '0', '--upstream-url', direct.url];
  const proxied = await start(PROXY, upstreamArgs);
  const relay = await start(RELAY, upstreamArgs);
  const proxyB = PROXY_B === undefined ? undefined : await start(PROXY_B, upstreamArgs);
  return { direct, proxied, relay, proxyB };
}

async function stopSides(sides) {
  // The fronts before the echo server they may forward to.
  for (const side of [sides.proxyB, sides.relay, sides.proxied, sides.direct]) await side?.h.stop(3000);
}

/**
 * Each era: every repetition measures every cell (C = 1, 8, 32) on every side, the sides rotated. Without `--fresh`
 * the processes run for the whole scenario and warm up once per era; with it every repetition starts them anew and
 * warms them up, so a process's luck (its JIT's choices, the cores it lands on) is one sample among the
 * repetitions instead of the whole figure.
 */
async function scenario(name) {
  const rows = [];
  let nextId = 1;
  let sides = FRESH ? undefined : await startSides(name);
  try {
    for (const protocol of ERAS) {
      const samples = new Map(CONCURRENCY.map((c) => [c, { direct: [], proxied: [], relay: [], proxyB: [] }]));
      for (let rep = 0; rep < REPS; rep++) {
        if (sides === undefined) sides = await startSides(name);
        const targets = sides;
        if (ERA_WARMUP_MS > 0 && (FRESH || rep === 0)) {
          for (const side of SIDES) nextId = await warmUp(targets[side].url, { protocol, nextId });
        }
        for (const concurrency of CONCURRENCY) {
          const order = [...SIDES.slice(rep % SIDES.length), ...SIDES.slice(0, rep % SIDES.length)];
          for (const side of order) {
            const target = targets[side];
            const result = await measure(target.url, { protocol, concurrency, pid: target.h.pid, nextId });
            nextId = result.nextId;
            samples.get(concurrency)[side].push(result);
          }
        }
        if (FRESH) {
          await stopSides(sides);
          sides = undefined;
        }
      }
      for (const concurrency of CONCURRENCY) {
        const cell = samples.get(concurrency);
        const pick = (side, key) => median(cell[side].map((s) => s[key]));
        const row = {
          scenario: name,
          era: protocol === MODERN_PROTOCOL_VERSION ? 'modern' : 'legacy',
          concurrency,
          directP50Us: pick('direct', 'p50Us'),
          proxiedP50Us: pick('proxied', 'p50Us'),
          directRps: pick('direct', 'rps'),
          proxiedRps: pick('proxied', 'rps'),
          proxyCpuUsPerCall: pick('proxied', 'cpuUsPerCall'),
          directCpuUsPerCall: pick('direct', 'cpuUsPerCall'),
          relayP50Us: pick('relay', 'p50Us'),
          relayRps: pick('relay', 'rps'),
          relayCpuUsPerCall: pick('relay', 'cpuUsPerCall'),
          calls: cell.proxied.reduce((n, s) => n + s.completed, 0),
          ...(PROXY_B === undefined ? {} : { bP50Us: pick('proxyB', 'p50Us'), bRps: pick('proxyB', 'rps'), bCpuUsPerCall: pick('proxyB', 'cpuUsPerCall') }),
        };
        rows.push(row);
        printRow(row);
      }
    }
  } finally {
    if (sides !== undefined) await stopSides(sides);
  }
  return rows;
}

function printRow(row) {
  const added = row.proxiedP50Us - row.directP50Us;
  const ratio = row.proxiedRps / row.directRps;
  const gateP50 = row.concurrency !== 1 ? ' ' : added <= ADDED_P50_TARGET_US ? '✓' : '✗';
  const gateRatio = ratio >= THROUGHPUT_TARGET ? '✓' : '✗';
  console.log(
    `${row.scenario.padEnd(11)} ${row.era.padEnd(6)} C=${String(row.concurrency).padEnd(3)}` +
      ` p50 ${row.directP50Us.toFixed(0).padStart(5)} → ${row.proxiedP50Us.toFixed(0).padStart(5)} µs (added ${added.toFixed(0).padStart(5)} µs ${gateP50})` +
      ` throughput ${row.directRps.toFixed(0).padStart(6)} → ${row.proxiedRps.toFixed(0).padStart(6)} req/s (${ratio.toFixed(2)}× ${gateRatio})` +
      ` proxy CPU ${row.proxyCpuUsPerCall.toFixed(0).padStart(4)} µs/call (upstream alone ${row.directCpuUsPerCall.toFixed(0)} µs/call)` +
      ` | raw relay: added ${(row.relayP50Us - row.directP50Us).toFixed(0).padStart(5)} µs, ${(row.relayRps / row.directRps).toFixed(2)}×, CPU ${row.relayCpuUsPerCall.toFixed(0).padStart(4)} µs/call`,
  );
  if (row.bRps !== undefined) {
    console.log(
      `${''.padEnd(22)} B (${path.basename(PROXY_B)}): added ${(row.bP50Us - row.directP50Us).toFixed(0).padStart(5)} µs, throughput ${(row.bRps / row.directRps).toFixed(2)}× direct,` +
        ` CPU ${row.bCpuUsPerCall.toFixed(0).padStart(4)} µs/call; B ÷ proxy: throughput ${(row.bRps / row.proxiedRps).toFixed(2)}×, CPU ${(row.bCpuUsPerCall / row.proxyCpuUsPerCall).toFixed(2)}×`,
    );
  }
}

/** Instructions per call of the process `script` runs in (under callgrind), driven at C=8 with 64-byte echoes. */
async function instructionsPerCall(script, args, protocol) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-gateway-callgrind-'));
  const wrapper = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'cg.out')}`, '--dump-instr=no', '--dump-line=no'];
  const h = spawnServer({ script, args, nodeFlags: ['--single-threaded'], wrapper });
  h.child.stdout.on('data', () => {});
  try {
    const url = (await h.waitLine('BENCH_READY ', 300_000)).trim();
    const client = new HttpClient(url, { sockets: 8, protocol });
    await client.handshake();
    const warm = await drive(client, { concurrency: 8, payloadBytes: PAYLOAD_BYTES, durationMs: 1e9, maxRequests: CG_WARMUP, record: false, nextId: 1 });
    if (warm.failures > 0) throw new Error(`warm-up: ${warm.firstFailure}`);
    execFileSync('callgrind_control', ['-z', String(h.pid)], { stdio: 'ignore', timeout: 60_000 });
    const counted = await drive(client, { concurrency: 8, payloadBytes: PAYLOAD_BYTES, durationMs: 1e9, maxRequests: CG_CALLS, record: false, nextId: warm.nextId, drainTimeoutMs: 120_000 });
    if (counted.failures > 0) throw new Error(`counted: ${counted.firstFailure}`);
    execFileSync('callgrind_control', ['-d', String(h.pid)], { stdio: 'ignore', timeout: 60_000 });
    await client.close();
    const dump = readdirSync(dir).find((f) => /\.\d+$/.test(f));
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(path.join(dir, dump ?? 'none'), 'utf8'))?.[1]);
    return total / counted.completed;
  } finally {
    await h.stop(5000);
    if (KEEP_DUMP) console.log(`callgrind output kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

async function instructionsReport() {
  console.log(`instructions per call (callgrind, C=8, 64-byte echo, ${CG_WARMUP.toLocaleString('en-US')} warm-up + ${CG_CALLS.toLocaleString('en-US')} counted; the proxy process alone, its stdio upstream not traced)`);
  for (const protocol of ERAS) {
    const era = protocol === MODERN_PROTOCOL_VERSION ? 'modern' : 'legacy';
    const proxied = await instructionsPerCall(PROXY, ['--port', '0', '--upstream-stdio'], protocol);
    if (PROXY_ONLY) {
      console.log(`${era.padEnd(6)} proxy (HTTP front, stdio upstream) ${Math.round(proxied).toLocaleString('en-US').padStart(9)}`);
      continue;
    }
    const direct = await instructionsPerCall(ECHO, ['--port', '0'], protocol);
    console.log(`${era.padEnd(6)} echo server on HTTP ${Math.round(direct).toLocaleString('en-US').padStart(9)}   proxy (HTTP front, stdio upstream) ${Math.round(proxied).toLocaleString('en-US').padStart(9)}   ratio ${(proxied / direct).toFixed(2)}×`);
  }
}

let failed = false;
try {
  if (argv.includes('--instructions')) {
    await instructionsReport();
    stopAll();
    process.exit(0);
  }
  console.log(`gateway hop (load ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores): ${smoke ? 'smoke' : `${REPS} interleaved repetitions${FRESH ? ', fresh processes each' : ''}`}, era warm-up ${ERA_WARMUP_MS} ms at C=8, cell warm-up ${WARMUP_MS} ms, window ${DURATION_MS} ms, ${PAYLOAD_BYTES}-byte echo, Node ${process.version}`);
  const rows = [];
  if (SCENARIO_FLAG === undefined || SCENARIO_FLAG === 'stdio') rows.push(...(await scenario('stdio→http')));
  if (SCENARIO_FLAG === undefined || SCENARIO_FLAG === 'http') rows.push(...(await scenario('http→http')));
  if (!smoke) {
    const c1 = rows.filter((r) => r.concurrency === 1).map((r) => r.proxiedP50Us - r.directP50Us);
    const ratios = rows.map((r) => r.proxiedRps / r.directRps);
    const relayC1 = rows.filter((r) => r.concurrency === 1).map((r) => r.relayP50Us - r.directP50Us);
    const relayRatios = rows.map((r) => r.relayRps / r.directRps);
    const range = (values) => `${Math.min(...values).toFixed(2)}…${Math.max(...values).toFixed(2)}×`;
    console.log(`added p50 at C=1: ${c1.map((v) => v.toFixed(0)).join(', ')} µs (target ≤ ${ADDED_P50_TARGET_US}); throughput ratios ${range(ratios)} (target ≥ ${THROUGHPUT_TARGET})`);
    console.log(`the raw relay, same run: added p50 at C=1 ${relayC1.map((v) => v.toFixed(0)).join(', ')} µs; throughput ratios ${range(relayRatios)}`);
  }
  console.log(smoke ? 'gateway smoke: every path answered correctly' : 'gateway bench: done');
} catch (error) {
  failed = true;
  console.error(`gateway bench failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  stopAll();
}
process.exit(failed ? 1 : 0);
