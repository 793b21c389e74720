#!/usr/bin/env node
// Switchboard's side-by-side benchmark. See bench/README.md.
//
//   node bench/run.mjs                 full matrix, 5 interleaved repetitions (≈ 50 min on 2 cores)
//   node bench/run.mjs --quick         every server, 1 repetition, short windows (< 2 min)
//   node bench/run.mjs --smoke         tiny N: every server in the matrix answers correctly (CI; exit 1 if not)
//   options: --only <regex>            only rows/scenarios whose "<scenario>/<row key>" matches
//            --reps <N>                repetitions (full default 5)
//            --update-readme           copy the results into bench/README.md and the project README (between their
//                                      bench:results markers) and the chart to bench/ratios.svg
//            --report <file.jsonl>     only re-render latest.md / ratios.svg from an earlier run
//
// The load generator runs in this process (bench/lib/loadgen.mjs); each measurement starts a fresh server
// process and stops it by its PID. Results: bench/results/<run>.jsonl (one JSON line per measurement),
// bench/results/latest.md, bench/results/ratios.svg.
import { mkdirSync, appendFileSync, readFileSync } from 'node:fs';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { ROWS, CELLS, SCENARIOS, MODES } from './matrix.mjs';
import { measureThroughput, measureIdleSessions, measureInflight, measureColdStart, startServer } from './lib/measure.mjs';
import { drive } from './lib/loadgen.mjs';
import { stopAll } from './lib/proc.mjs';
import { renderReport, updateReadme } from './lib/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');

// ------------------------------------------------------------------------------------------------ flags
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const known = new Set(['--quick', '--smoke', '--only', '--reps', '--update-readme', '--report', '--help', '-h']);
for (let i = 0; i < argv.length; i++) {
  if (!known.has(argv[i])) {
    console.error(`unknown argument ${argv[i]} (see the header of bench/run.mjs)`);
    process.exit(2);
  }
  if (['--only', '--reps', '--report'].includes(argv[i])) i++;
}
if (flag('--help') || flag('-h')) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 16).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}

mkdirSync(resultsDir, { recursive: true });

if (value('--report')) {
  const file = resolve(value('--report'));
  const { md } = await renderReport(file, resultsDir);
  if (flag('--update-readme')) updateReadme(here, resultsDir, md);
  console.log(md);
  process.exit(0);
}

const modeName = flag('--smoke') ? 'smoke' : flag('--quick') ? 'quick' : 'full';
const mode = { ...MODES[modeName] };
if (value('--reps')) mode.reps = mode.flatnessReps = mode.idleSessionReps = mode.inflightReps = Number(value('--reps'));
const only = value('--only') ? new RegExp(value('--only')) : undefined;
const selected = (scenario, key) => !only || only.test(`${scenario}/${key}`);

const rowsByKey = new Map(ROWS.map((r) => [r.key, { ...r, script: join(here, 'servers', r.script) }]));
const matrixRows = [...rowsByKey.values()].filter((r) => r.transport === 'stdio' || mode.responses.includes(r.response));

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const runId = `${stamp}-${modeName}`;
const out = join(resultsDir, `${runId}.jsonl`);
const emit = (rec) => appendFileSync(out, JSON.stringify({ run: runId, ...rec }) + '\n');

let gitCommit = '';
try {
  gitCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
} catch {
  /* not a checkout */
}
emit({
  kind: 'meta',
  mode: modeName,
  command: `node bench/run.mjs ${argv.join(' ')}`.trim(),
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  memGiB: Math.round(os.totalmem() / 2 ** 30),
  kernel: os.release(),
  loadavg: os.loadavg(),
  git: gitCommit,
  settings: mode,
});

let failures = 0;
const failed = [];
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s`;
const log = (s) => process.stdout.write(`${elapsed()}  ${s}\n`);
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const rowMeta = (r) => ({ row: r.key, label: r.label, transport: r.transport, response: r.response, protocol: r.protocol, role: r.role, targets: r.targets });

// A row marked `pending` (matrix.mjs) is expected to fail for the reason it gives: its failures are reported
// but do not fail the run; a pending row that answers correctly is reported so the mark can go.
const expectedFailures = new Set();
const pendingPassed = new Set();
function record(kind, r, extra, res) {
  if (!res.ok && r.pending) expectedFailures.add(`${r.key} (${r.pending})`);
  else if (!res.ok) {
    failures++;
    failed.push(`${kind} ${r.key} ${JSON.stringify(extra)}: ${res.firstFailure || res.error || 'failed'}`);
  } else if (r.pending) pendingPassed.add(r.key);
  emit({ kind, ...rowMeta(r), ...extra, ...res });
}

async function guarded(fn) {
  try {
    return await fn();
  } catch (err) {
    return { ok: false, failures: 1, firstFailure: err.message };
  }
}

/** Rotates the row order each repetition, so no server is always first or last (A B C, B C A, …). */
const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);

process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});

// ------------------------------------------------------------------------------------------------ smoke
if (modeName === 'smoke') {
  // One server process per row and variant; every cell's payload at both concurrencies; every reply checked.
  for (const r of matrixRows.filter((r) => selected('smoke', r.key))) {
    const res = await guarded(async () => {
      const s = await startServer(r, { sockets: 16 });
      try {
        let nextId = 1;
        let n = 0;
        for (const cell of CELLS) {
          const d = await drive(s.client, { concurrency: cell.concurrency, payloadBytes: cell.payloadBytes, durationMs: 10000, maxRequests: mode.maxRequests, record: false, nextId, drainTimeoutMs: 10000 });
          nextId = d.nextId;
          n += d.completed;
          if (d.failures) return { ok: false, failures: d.failures, firstFailure: `C=${cell.concurrency} ${cell.payloadBytes} B: ${d.firstFailure}` };
        }
        const bodies = s.client.stats;
        if (r.response && bodies && bodies[r.response === 'json' ? 'sse' : 'json'] > 0) {
          return { ok: false, failures: 1, firstFailure: `configured for ${r.response} bodies, got ${JSON.stringify(bodies)}` };
        }
        return { ok: true, failures: 0, requests: n, bodies };
      } finally {
        await s.stop();
      }
    });
    log(`${res.ok ? 'ok   ' : r.pending ? 'XFAIL' : 'FAIL '}  ${r.key.padEnd(28)} ${res.ok ? `${res.requests} calls checked` : res.firstFailure}`);
    record('smoke', r, {}, res);
  }
  // The middleware chain (bench/middleware.mjs): the same tool call with ten no-op middlewares, both eras, checked.
  if (selected('smoke', 'middleware')) {
    const child = spawnSync(process.execPath, [join(here, 'middleware.mjs'), '--smoke'], { encoding: 'utf8', timeout: 60000 });
    const res = child.status === 0 ? { ok: true, failures: 0 } : { ok: false, failures: 1, firstFailure: (child.stderr || child.stdout || String(child.error)).trim().split('\n').pop() };
    log(`${res.ok ? 'ok   ' : 'FAIL '}  ${'middleware'.padEnd(28)} ${res.ok ? 'ten no-op middlewares, both eras, calls checked' : res.firstFailure}`);
    record('smoke', { key: 'middleware' }, {}, res);
  }
  // The failure analytics (bench/analytics.mjs): the same tool call with attachAnalytics, both eras, answers and counts checked.
  if (selected('smoke', 'analytics')) {
    const child = spawnSync(process.execPath, [join(here, 'analytics.mjs'), '--smoke'], { encoding: 'utf8', timeout: 60000 });
    const res = child.status === 0 ? { ok: true, failures: 0 } : { ok: false, failures: 1, firstFailure: (child.stderr || child.stdout || String(child.error)).trim().split('\n').pop() };
    log(`${res.ok ? 'ok   ' : 'FAIL '}  ${'analytics'.padEnd(28)} ${res.ok ? 'attachAnalytics, both eras, calls and counts checked' : res.firstFailure}`);
    record('smoke', { key: 'analytics' }, {}, res);
  }
}

// ------------------------------------------------------------------------------------------- throughput
if (modeName !== 'smoke') {
  const rows = matrixRows.filter((r) => selected('throughput', r.key));
  for (const cell of CELLS) {
    // one interleaved group per transport and era: each row's floor (same transport, body type, era) is in it
    for (const [transport, modern] of [['stdio', false], ['http', false], ['stdio', true], ['http', true]]) {
      const group = rows.filter((r) => r.transport === transport && (r.protocol === '2026-07-28') === modern);
      if (!group.length) continue;
      for (let rep = 0; rep < mode.reps; rep++) {
        for (const r of rotate(group, rep)) {
          const res = await guarded(() => measureThroughput(r, { ...cell, warmupMs: mode.warmupMs, durationMs: mode.durationMs, maxRequests: mode.maxRequests }));
          if (res.ok && r.response && res.httpBodies && res.httpBodies[r.response === 'json' ? 'sse' : 'json'] > 0) {
            res.ok = false;
            res.firstFailure = `configured for ${r.response} bodies, got ${JSON.stringify(res.httpBodies)}`;
          }
          record('throughput', r, { cell, rep }, res);
          log(`${transport.padEnd(5)} C=${String(cell.concurrency).padEnd(2)} ${String(cell.payloadBytes).padStart(5)} B  rep ${rep + 1}/${mode.reps}  ${r.key.padEnd(26)} ${res.ok ? `${fmt(res.rps).padStart(6)} req/s  p99 ${fmt(res.p99Ms, 2).padStart(6)} ms  cpu ${fmt(res.cpuUsPerReq, 1).padStart(6)} µs/req  rss ${fmt(res.peakRssMiB).padStart(4)} MiB` : `FAIL ${res.firstFailure}`}`);
        }
      }
    }
  }
}

// --------------------------------------------------------------------------------------------- flatness
{
  const sc = SCENARIOS.flatness;
  const rows = (mode.flatnessRows ?? sc.rows).map((k) => rowsByKey.get(k)).filter((r) => r && selected('flatness', r.key));
  const reps = mode.flatnessReps;
  for (let rep = 0; rep < reps; rep++) {
    for (const r of rotate(rows, rep)) {
      // smoke: the 1-tool servers were checked above; only the --tools variant is new
      for (const tools of modeName === 'smoke' ? [sc.tools] : rep % 2 === 0 ? [1, sc.tools] : [sc.tools, 1]) {
        const res = await guarded(() =>
          modeName === 'smoke'
            ? smokeOnce(r, ['--tools', String(tools)])
            : measureThroughput(r, { ...sc.cell, warmupMs: mode.warmupMs, durationMs: mode.durationMs, maxRequests: mode.maxRequests, extraArgs: ['--tools', String(tools)] }),
        );
        record('flatness', r, { cell: sc.cell, tools, rep }, res);
        log(`flatness  ${r.key.padEnd(26)} tools=${String(tools).padEnd(4)} ${res.ok ? (modeName === 'smoke' ? 'ok' : `${fmt(res.rps).padStart(6)} req/s`) : `FAIL ${res.firstFailure}`}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------- idle sessions
{
  const sc = SCENARIOS.idleSessions;
  const sessions = mode.idleSessions ?? sc.sessions;
  const rows = sc.rows.map((k) => rowsByKey.get(k)).filter((r) => r && selected('idle-sessions', r.key));
  for (let rep = 0; rep < mode.idleSessionReps; rep++) {
    for (const r of rotate(rows, rep)) {
      const res = await guarded(() => measureIdleSessions(r, { sessions }));
      record('idle-sessions', r, { rep }, res);
      log(`idle      ${r.key.padEnd(26)} ${sessions} sessions  ${res.ok ? `${fmt(res.kibPerSession, 2)} KiB/session retained (heap ${fmt(res.heapBeforeMiB, 1)} → ${fmt(res.heapAfterMiB, 1)} MiB)` : `FAIL ${res.firstFailure}`}`);
    }
  }
}

// ------------------------------------------------------------------------------------ calls in flight
{
  const sc = SCENARIOS.inflight;
  const calls = mode.inflightCalls ?? sc.calls;
  const rows = sc.rows.map((k) => rowsByKey.get(k)).filter((r) => r && selected('inflight', r.key));
  for (let rep = 0; rep < mode.inflightReps; rep++) {
    for (const r of rotate(rows, rep)) {
      const res = await guarded(() => measureInflight(r, { calls, delayMs: mode.inflightDelayMs, extraArgs: sc.extraArgs[r.key] || [] }));
      record('inflight', r, { rep }, res);
      log(`inflight  ${r.key.padEnd(26)} ${calls} calls  ${res.ok ? `+${fmt(res.aboveIdleMiB, 1)} MiB above idle (${fmt(res.idleRssMiB)} → ${fmt(res.peakRssMiB)} MiB)${res.allInFlightAtOnce ? '' : '  [not all held at once]'}` : `FAIL ${res.firstFailure}`}`);
    }
  }
}

// ------------------------------------------------------------------------------------------ cold start
{
  const rows = SCENARIOS.coldStart.rows.map((k) => rowsByKey.get(k)).filter((r) => r && selected('cold-start', r.key));
  for (let rep = 0; rep < mode.coldStartReps; rep++) {
    for (const r of rotate(rows, rep)) {
      const res = await guarded(() => measureColdStart(r));
      record('cold-start', r, { rep }, res);
      log(`cold      ${r.key.padEnd(26)} ${res.ok ? `initialize ${fmt(res.initializeMs, 1)} ms, first call ${fmt(res.firstCallMs, 1)} ms` : `FAIL ${res.firstFailure}`}`);
    }
  }
}

// ------------------------------------------------------------------------------------------- dispatch
if (selected('dispatch', 'jsonrpc')) {
  const res = await guarded(
    () =>
      new Promise((resolveRes) => {
        const child = spawn(process.execPath, [join(here, 'lib', 'dispatch.mjs'), '--rounds', String(mode.dispatchRounds), '--round-ms', String(mode.dispatchRoundMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let so = '';
        let se = '';
        child.stdout.on('data', (c) => (so += c));
        child.stderr.on('data', (c) => (se += c));
        const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          try {
            resolveRes(JSON.parse(so.trim().split('\n').pop()));
          } catch {
            resolveRes({ ok: false, failures: 1, firstFailure: `dispatch exited ${code}: ${se.slice(-400)}` });
          }
        });
      }),
  );
  if (!res.ok && !res.firstFailure) res.firstFailure = res.error;
  record('dispatch', { key: 'jsonrpc-dispatch', label: 'Dispatcher vs json-rpc-2.0', transport: 'in-process', role: 'ours' }, {}, res);
  log(`dispatch  ${res.ok ? Object.entries(res.opsPerSec).map(([k, v]) => `${k} ${fmt(v)} ops/s`).join(', ') : `FAIL ${res.firstFailure}`}`);
}

async function smokeOnce(r, extraArgs) {
  const s = await startServer(r, { extraArgs, sockets: 4 });
  try {
    const d = await drive(s.client, { concurrency: 4, payloadBytes: 64, durationMs: 10000, maxRequests: mode.maxRequests, record: false, nextId: 1, drainTimeoutMs: 10000 });
    return { ok: d.failures === 0, failures: d.failures, firstFailure: d.firstFailure, requests: d.completed };
  } finally {
    await s.stop();
  }
}

// ------------------------------------------------------------------------------------------------ report
stopAll();
log(`results: ${out}`);
if (modeName !== 'smoke') {
  const { md } = await renderReport(out, resultsDir);
  if (flag('--update-readme')) updateReadme(here, resultsDir, md);
  console.log('\n' + md);
}
if (expectedFailures.size) console.log(`\nexpected failures (rows marked pending in bench/matrix.mjs):\n  ${[...expectedFailures].join('\n  ')}`);
if (pendingPassed.size) console.log(`\nrows marked pending that answered correctly (drop their \`pending\` mark): ${[...pendingPassed].join(', ')}`);
if (failures) {
  console.error(`\n${failures} measurement(s) failed:\n  ${failed.join('\n  ')}`);
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100);
} else {
  console.log(modeName === 'smoke' ? `\nsmoke: every server answered correctly${expectedFailures.size ? `, but for the ${expectedFailures.size} pending row(s) above` : ''} (${elapsed().trim()})` : `\ndone in ${elapsed().trim()}`);
  setTimeout(() => process.exit(0), 100);
}
