// Where the slowest calls of an HTTP row lose their time, at one call in flight: before the server sees the request,
// in the server's handling (its 'request' event to the response's 'finish'), or after it wrote the answer; and how
// many of them a garbage collection of the server overlapped. The client's send and receipt and the server's events
// are read on one clock (the monotonic clock both processes share), so the split needs no clock alignment.
//
//   node bench/tail.mjs switchboard-modern-sse             2 s warm-up, then 3 s of 64-byte echo calls, one at a time
//   node bench/tail.mjs raw-http-sse-modern --seconds 5
//
// Prints, for bands of the latency distribution (p0-p90, p97-p98.5, p98.5-p99.5, p99.5 and over), the number of
// calls, the median total and its parts (µs), and the calls a collection overlapped. Run the floor and the server one
// after the other, several times (README, Benchmarks, "What the full run does not meet, and why").
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROWS } from './matrix.mjs';
import { startServer } from './lib/measure.mjs';
import { drive, echoText } from './lib/loadgen.mjs';
import { stopAll } from './lib/proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const key = argv[0];
const found = ROWS.find((r) => r.key === key && r.transport === 'http');
if (found === undefined) {
  console.error(`usage: node bench/tail.mjs <HTTP row key> [--seconds S]; rows: ${ROWS.filter((r) => r.transport === 'http').map((r) => r.key).join(', ')}`);
  process.exit(2);
}
const i = argv.indexOf('--seconds');
const seconds = i === -1 ? 3 : Number(argv[i + 1]);
if (!(seconds > 0 && seconds <= 600)) {
  console.error(`--seconds: expected a number of seconds in (0, 600], got ${argv[i + 1]}`);
  process.exit(2);
}
const row = { ...found, script: join(here, 'servers', found.script) };
const out = join(tmpdir(), `switchboard-tail-${process.pid}.txt`);
process.env.TAIL_OUT = out;
const removeFiles = () => {
  rmSync(out, { force: true });
  rmSync(`${out}.gc`, { force: true });
};
const server = await startServer(row, { sockets: 1, nodeFlags: ['--require', join(here, 'lib', 'tailPreload.cjs')] });
// Interrupted: the server is stopped by its PID and the preload's files go, as at the end of a run.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopAll();
    removeFiles();
    process.exit(130);
  });
}
const calls = [];
let handled;
let collections;
let stopped = false;
try {
  const warm = await drive(server.client, { concurrency: 1, payloadBytes: 64, durationMs: 2000, maxRequests: 1e7, record: false, nextId: 1 });
  let id = warm.nextId;
  const end = performance.now() + seconds * 1000;
  await new Promise((resolve, reject) => {
    const one = () => {
      const n = id++;
      const sent = process.hrtime.bigint();
      server.client.call(n, server.client.echoRequest(n, echoText(n, 64), 0), (error) => {
        if (error) return reject(error);
        calls.push([sent, process.hrtime.bigint()]);
        if (performance.now() < end) one();
        else resolve();
      });
    };
    one();
  });
  await new Promise((r) => setTimeout(r, 1200)); // the preload writes once a second
  await server.stop();
  stopped = true;
  const lines = (file) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
  handled = lines(out).map((l) => l.split(' ').map(BigInt));
  collections = lines(`${out}.gc`).map((l) => l.split(' ').map(Number));
} finally {
  delete process.env.TAIL_OUT;
  if (!stopped) await server.stop();
  removeFiles();
}

// One call in flight: each call's request is the first the server saw after the call was sent.
const rows = [];
let j = 0;
for (const [sent, received] of calls) {
  while (j < handled.length && handled[j][0] < sent) j++;
  if (j >= handled.length || handled[j][0] > received) continue;
  const [seen, finished] = handled[j];
  rows.push({ sent, received, total: Number(received - sent) / 1e3, before: Number(seen - sent) / 1e3, server: Number(finished - seen) / 1e3, after: Number(received - finished) / 1e3 });
}
rows.sort((a, b) => a.total - b.total);
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
console.log(`${key}: ${calls.length} calls (${rows.length} matched to the server's), ${collections.length} collections in the server`);
for (const [name, lo, hi] of [['p0-p90', 0, 0.9], ['p97-p98.5', 0.97, 0.985], ['p98.5-p99.5', 0.985, 0.995], ['p99.5-', 0.995, 1]]) {
  const band = rows.slice(Math.floor(lo * rows.length), Math.floor(hi * rows.length));
  const overlapped = band.filter((r) => collections.some(([at, ns]) => at < Number(r.received) && at + ns > Number(r.sent))).length;
  const part = (name) => median(band.map((r) => r[name])).toFixed(0);
  console.log(`  ${name.padEnd(12)} ${String(band.length).padStart(6)} calls  median ${part('total')} µs = before the server ${part('before')} + server ${part('server')} + after ${part('after')}; a collection overlapped ${overlapped}`);
}
