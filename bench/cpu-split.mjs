// Where the time of a stdio or HTTP row goes, for both processes: the server's user and system CPU per request (from
// /proc/<pid>/stat) beside the load generator's own (this process), over a fixed number of requests after a warm-up.
// When req/s is far below what the CPU per request allows, the two processes are waiting on each other: CPU
// profiles and instruction counts (user space only) cannot show that, this can (README, Benchmarks, "stdio at 16
// in flight").
//
//   node bench/cpu-split.mjs switchboard-stdio                 C=16, 64 B, 100,000 warm-up + 300,000 measured
//   node bench/cpu-split.mjs raw-stdio --requests 200000 --concurrency 8
//
// Prints req/s, the server's user/system µs per request, the load generator's, and the share of the machine's cores
// the two processes kept busy. Rows are the keys of matrix.mjs; run the floor and a server one after the other (several
// times, alternating) and compare within the run.
import { availableParallelism } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROWS } from './matrix.mjs';
import { startServer } from './lib/measure.mjs';
import { drive } from './lib/loadgen.mjs';
import { cpuSplitMicros } from './lib/proc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : Number(argv[i + 1]);
};
const key = argv[0];
const row = ROWS.find((r) => r.key === key);
if (row === undefined) {
  console.error(`usage: node bench/cpu-split.mjs <row key> [--requests N] [--warmup N] [--concurrency C] [--payload B]; rows: ${ROWS.map((r) => r.key).join(', ')}`);
  process.exit(2);
}
const requests = value('--requests', 300_000);
const warmup = value('--warmup', 100_000);
const concurrency = value('--concurrency', 16);
const payloadBytes = value('--payload', 64);
const s = await startServer({ ...row, script: join(here, 'servers', row.script) }, { sockets: concurrency });
try {
  const warm = await drive(s.client, { concurrency, payloadBytes, durationMs: 1e9, maxRequests: warmup, record: false, nextId: 1 });
  const server0 = cpuSplitMicros(s.h.pid);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const run = await drive(s.client, { concurrency, payloadBytes, durationMs: 1e9, maxRequests: requests, record: false, nextId: warm.nextId });
  const elapsedUs = (performance.now() - t0) * 1000;
  const self = process.cpuUsage(self0);
  const server1 = cpuSplitMicros(s.h.pid);
  if (run.failures > 0) throw new Error(`${run.failures} failed requests: ${run.firstFailure}`);
  const n = run.completed;
  const per = (us) => (us / n).toFixed(2);
  const cores = availableParallelism();
  const busy = (server1.user - server0.user + server1.system - server0.system + self.user + self.system) / (cores * elapsedUs);
  console.log(
    `${key} C=${concurrency} ${payloadBytes} B: ${Math.round((n * 1e6) / elapsedUs)} req/s;` +
      ` server user ${per(server1.user - server0.user)} sys ${per(server1.system - server0.system)} µs/req;` +
      ` load generator user ${per(self.user)} sys ${per(self.system)} µs/req; both busy ${(busy * 100).toFixed(0)} % of ${cores} cores`,
  );
} finally {
  await s.stop();
}
