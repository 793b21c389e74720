#!/usr/bin/env node
// Instructions per request: the one server-cost figure that does not move with the machine's load.
//
//   node bench/instructions.mjs                          every row below, C=16 64 B, 3,000 warm-up + 2,000 counted
//                                                        (quick; the compiler still runs then: --warmup 60000 for the
//                                                        steady state, see bench/README.md "Steady state")
//   node bench/instructions.mjs --only 'modern' --requests 4000 --warmup 3000 --payload 16384 --concurrency 16
//   node bench/instructions.mjs --only '^switchboard-stdio' --concurrency 1 --warmup 8000 --keep /tmp/cg
//                                                        (then: callgrind_annotate /tmp/cg/<row>.callgrind)
//
// Each row's server runs under `valgrind --tool=callgrind` (every thread of the process: the JIT's and the
// GC's background threads count too). The load generator (bench/lib/loadgen.mjs, the same client as
// bench/run.mjs) opens the row's era, sends the warm-up requests (so the hot path is optimized, as in a long
// run), then `callgrind_control -z` zeroes the counters, the counted requests run, and `callgrind_control -d`
// dumps them: instructions ÷ requests. Valgrind runs one thread at a time and V8 tiers up by call counts, so
// two runs agree to about 1 %; the figures are ratios between rows (Switchboard ÷ raw floor of the same era
// and transport; 2026-07-28 ÷ legacy session of the same transport), never times. Slow: ≈ 1 min a row.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROWS } from './matrix.mjs';
import { startServer } from './lib/measure.mjs';
import { drive } from './lib/loadgen.mjs';
import { stopAll } from './lib/proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name, d) => {
  const i = argv.indexOf(name);
  return i === -1 ? d : argv[i + 1];
};
const only = value('--only') ? new RegExp(value('--only')) : undefined;
const requests = Number(value('--requests', 2000));
const warmup = Number(value('--warmup', 3000));
const payloadBytes = Number(value('--payload', 64));
const concurrency = Number(value('--concurrency', 16));
/** `--keep <dir>`: keep each row's callgrind dump there (`<row>.callgrind`) for `callgrind_annotate`. */
const keep = value('--keep');

/** The rows counted by default: the floor and Switchboard, both eras, stdio and JSON-bodied HTTP. */
const KEYS = [
  'raw-stdio', 'switchboard-stdio', 'raw-stdio-modern', 'switchboard-stdio-modern',
  'raw-http-json', 'switchboard-legacy-json', 'raw-http-json-modern', 'switchboard-modern-json',
  'raw-http-sse', 'switchboard-legacy-sse', 'raw-http-sse-modern', 'switchboard-modern-sse',
];
const rows = ROWS.filter((r) => (only ? only.test(r.key) : KEYS.includes(r.key))).map((r) => ({ ...r, script: join(here, 'servers', r.script) }));

function callgrindControl(args) {
  execFileSync('callgrind_control', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60000 });
}

async function count(row) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-callgrind-'));
  const wrapper = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg.out')}`, '--dump-instr=no', '--dump-line=no'];
  // --single-threaded: no concurrent JIT or GC threads whose progress depends on timing (V8 flag), so two runs
  // execute the same work; the same flag for every row.
  const s = await startServer(row, { wrapper, nodeFlags: ['--single-threaded'], sockets: concurrency, readyTimeoutMs: 300000 });
  try {
    const warm = await drive(s.client, { concurrency, payloadBytes, durationMs: 1e9, maxRequests: warmup, record: false, nextId: 1 });
    if (warm.failures > 0) throw new Error(`warm-up: ${warm.firstFailure}`);
    callgrindControl(['-z', String(s.h.pid)]);
    const m = await drive(s.client, { concurrency, payloadBytes, durationMs: 1e9, maxRequests: requests, record: false, nextId: warm.nextId, drainTimeoutMs: 120000 });
    if (m.failures > 0) throw new Error(`counted: ${m.firstFailure}`);
    callgrindControl(['-d', String(s.h.pid)]);
    const dumps = readdirSync(dir).filter((f) => /\.\d+$/.test(f));
    if (dumps.length !== 1) throw new Error(`expected one dump, found ${dumps.join(', ') || 'none'}`);
    const text = readFileSync(join(dir, dumps[0]), 'utf8');
    if (keep !== undefined) {
      mkdirSync(keep, { recursive: true });
      copyFileSync(join(dir, dumps[0]), join(keep, `${row.key}.callgrind`));
    }
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1]);
    return { instructions: total, requests: m.completed };
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = new Map();
console.log(`instructions per request: C=${concurrency}, ${payloadBytes} B, ${warmup} warm-up + ${requests} counted requests, server under callgrind`);
try {
  for (const row of rows) {
    try {
      // Under valgrind a keep-alive socket can be closed by the server as the client reuses it (ECONNRESET in the
      // warm-up, before anything is counted): such a row is tried once more.
      const r = await count(row).catch((err) => (/warm-up: .*ECONNRESET/.test(err.message) ? count(row) : Promise.reject(err)));
      const per = r.instructions / r.requests;
      results.set(row.key, per);
      console.log(`${row.key.padEnd(28)} ${Math.round(per).toLocaleString('en-US').padStart(10)} instructions/request`);
    } catch (err) {
      console.log(`${row.key.padEnd(28)} failed: ${err.message.slice(0, 300)}`);
    }
  }
} finally {
  stopAll();
}

// Ratios: Switchboard ÷ the floor of its group; modern ÷ legacy of the same transport and body.
const floorOf = (r) => rows.find((x) => x.role === 'raw' && x.transport === r.transport && x.response === r.response && x.protocol === r.protocol);
const legacyOf = (r) => rows.find((x) => x.role === r.role && x.script === r.script && x.transport === r.transport && x.response === r.response && !x.protocol && x.key !== r.key && !x.key.includes('both') && !x.key.includes('nostore'));
console.log('\nrow                          ÷ floor   2026-07-28 ÷ session');
for (const r of rows) {
  const v = results.get(r.key);
  if (v === undefined || r.role === 'raw') continue;
  const f = floorOf(r);
  const l = r.protocol ? legacyOf(r) : undefined;
  const vf = f && results.get(f.key) ? (v / results.get(f.key)).toFixed(2) : '—';
  const vl = l && results.get(l.key) ? (v / results.get(l.key)).toFixed(2) : '';
  console.log(`${r.key.padEnd(28)} ${vf.padStart(7)}   ${vl}`);
}
