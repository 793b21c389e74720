#!/usr/bin/env node
// The client benchmark: MCP clients side by side against the raw floor server. See bench/README.md "Clients".
//
//   node bench/client.mjs                 full form: 5 interleaved repetitions, medians (≈ 14 min on 2 cores)
//   node bench/client.mjs --quick         1 repetition, short windows (≈ 1 min)
//   node bench/client.mjs --smoke         a few checked calls per client and transport (CI; exit 1 if one fails)
//   options: --only <regex>               only clients/cells whose "<transport>/<client key>" matches
//            --reps <N>                   repetitions
//            --update-readme              copy the tables into bench/README.md (between the client markers)
//            --report <file.jsonl>        only re-render bench/results/client-latest.md from an earlier run
//
// Each measurement is one fresh client process (bench/clients/<name>.mjs) and, on HTTP, one fresh
// bench/servers/raw-http.js; on stdio the client spawns bench/servers/raw-stdio.js itself. The figure is the
// client process's own utime+stime from /proc/<pid>/stat over the measured window, per call.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import os from 'node:os';
import process from 'node:process';
import { CLIENT_ROWS, CLIENT_CELLS, CLIENT_MODES, SERVERS } from './clients/_matrix.mjs';
import { measureClient, smokeClient, stopAllClients } from './clients/_measure.mjs';
import { renderClientReport, updateClientReadme } from './clients/_report.mjs';
import { stopAll } from './lib/proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const known = new Set(['--quick', '--smoke', '--only', '--reps', '--update-readme', '--report', '--help', '-h']);
for (let i = 0; i < argv.length; i++) {
  if (!known.has(argv[i])) {
    console.error(`unknown argument ${argv[i]} (see the header of bench/client.mjs)`);
    process.exit(2);
  }
  if (['--only', '--reps', '--report'].includes(argv[i])) i++;
}
if (flag('--help') || flag('-h')) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 15).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}
mkdirSync(resultsDir, { recursive: true });

if (value('--report')) {
  const md = renderClientReport(resolve(value('--report')), resultsDir);
  if (flag('--update-readme')) updateClientReadme(join(here, 'README.md'), md);
  console.log(md);
  process.exit(0);
}

const modeName = flag('--smoke') ? 'smoke' : flag('--quick') ? 'quick' : 'full';
const mode = { ...CLIENT_MODES[modeName] };
if (value('--reps')) mode.reps = Number(value('--reps'));
const only = value('--only') ? new RegExp(value('--only')) : undefined;
const selected = (transport, key) => !only || only.test(`${transport}/${key}`);
const servers = { stdio: join(here, 'servers', SERVERS.stdio), http: join(here, 'servers', SERVERS.http) };

// A client whose package is not built or not on this branch yet is listed as pending, not failed.
const require = createRequire(import.meta.url);
const rows = CLIENT_ROWS.map((r) => {
  let pending;
  if (r.needs) {
    try {
      require.resolve(r.needs);
    } catch {
      pending = `${r.needs} does not resolve (not built, or not on this branch)`;
    }
  }
  return { ...r, script: join(here, 'clients', r.script), pending };
});

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const runId = `${stamp}-client-${modeName}`;
const out = join(resultsDir, `${runId}.jsonl`);
const emit = (rec) => appendFileSync(out, JSON.stringify({ run: runId, ...rec }) + '\n');
let gitCommit = '';
try {
  gitCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
} catch {
  /* not a checkout */
}
const metaRec = { kind: 'meta', mode: modeName, command: `node bench/client.mjs ${argv.join(' ')}`.trim(), date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, kernel: os.release(), loadavg: os.loadavg(), git: gitCommit, settings: mode };

const t0 = Date.now();
const log = (s) => process.stdout.write(`${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s  ${s}\n`);
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);
const failed = [];
const skipped = new Set();

process.on('SIGINT', () => {
  stopAllClients();
  stopAll();
  process.exit(130);
});

const records = [];
const record = (r, extra, res) => {
  if (!res.ok) failed.push(`${r.key} ${extra.cell ? `${extra.cell.transport} C=${extra.cell.concurrency}` : extra.transport}: ${res.firstFailure}`);
  records.push({ kind: 'client', row: r.key, label: r.label, role: r.role, ...extra, ...res, loadavg1: os.loadavg()[0] });
};

if (modeName === 'smoke') {
  for (const transport of ['stdio', 'http']) {
    for (const r of rows.filter((r) => r.transports.includes(transport) && selected(transport, r.key))) {
      if (r.pending) {
        skipped.add(`${r.key} (${r.pending})`);
        continue;
      }
      const res = await smokeClient(r, transport, { servers, calls: mode.smokeCalls });
      log(`${res.ok ? 'ok  ' : 'FAIL'}  ${transport.padEnd(5)} ${r.key.padEnd(12)} ${res.ok ? `${res.calls} calls checked (${res.info.protocolVersion ?? '?'})` : res.firstFailure}`);
      record(r, { transport, cell: { transport, concurrency: 16, payloadBytes: 64 }, rep: 0 }, res);
    }
  }
} else {
  for (const cell of CLIENT_CELLS) {
    const group = rows.filter((r) => r.transports.includes(cell.transport) && selected(cell.transport, r.key));
    for (const r of group.filter((r) => r.pending)) skipped.add(`${r.key} (${r.pending})`);
    const live = group.filter((r) => !r.pending);
    if (!live.length) continue;
    for (let rep = 0; rep < mode.reps; rep++) {
      for (const r of rotate(live, rep)) {
        const res = await measureClient(r, cell, { servers, warmupMs: mode.warmupMs, durationMs: mode.durationMs, maxCalls: mode.maxCalls });
        record(r, { cell, rep }, res);
        log(`${cell.transport.padEnd(5)} C=${String(cell.concurrency).padEnd(2)} rep ${rep + 1}/${mode.reps}  ${r.key.padEnd(12)} ${res.ok ? `${fmt(res.callsPerSec).padStart(6)} calls/s  client ${fmt(res.cpuUsPerCall, 1).padStart(6)} µs/call  server ${fmt(res.serverCpuUsPerCall, 1).padStart(5)} µs/call  p99 ${fmt(res.p99Ms, 2)} ms` : `FAIL ${res.firstFailure}`}`);
      }
    }
  }
}

emit({ ...metaRec, loadavgEnd: os.loadavg() });
for (const rec of records) emit(rec);
log(`results: ${out}`);
if (modeName !== 'smoke') {
  const md = renderClientReport(out, resultsDir);
  if (flag('--update-readme')) updateClientReadme(join(here, 'README.md'), md);
  console.log('\n' + md);
}
if (skipped.size) console.log(`\nnot run (pending):\n  ${[...skipped].join('\n  ')}`);
stopAll();
if (failed.length) {
  console.error(`\n${failed.length} measurement(s) failed:\n  ${failed.join('\n  ')}`);
  process.exit(1);
}
console.log(modeName === 'smoke' ? `\nsmoke: every client answered correctly (${((Date.now() - t0) / 1000).toFixed(0)} s)` : `\ndone in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
process.exit(0);
