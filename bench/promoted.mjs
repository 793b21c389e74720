// What a bench row's server promotes to the old generation, by allocation site: the objects that outlived a young
// collection while the row runs at C=16 (V8's sampling heap profiler, see lib/promotedPreload.mjs). Garbage promoted
// per request is what makes a server's peak RSS grow between mark-compacts (README, Benchmarks, "Peak RSS").
//
//   node bench/promoted.mjs switchboard-legacy-sse                 # 64 B, 2.5 s warm-up, 3.5 s sampled
//   node bench/promoted.mjs switchboard-legacy-sse --payload 16384 --top 20 --no-inlining
//
// Prints the sampled bytes in all and the top sites as `function file:line < caller < caller's caller`, with the
// requests completed in the run. --no-inlining runs the server with `--no-turbo-inlining`, so a site is the function
// that made the object, not the one it was inlined into (slower; the sizes are then of a slower run). The warm-up is
// counted from the server's start. What is promoted depends on when the young collections fall: the total moves by
// 2x from one run to the next (the largest sites much less); compare builds in alternating runs, several each.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROWS } from './matrix.mjs';
import { startServer } from './lib/measure.mjs';
import { drive } from './lib/loadgen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : Number(argv[i + 1]);
};
const row = ROWS.find((r) => r.key === argv[0]);
if (row === undefined) {
  console.error(`usage: node bench/promoted.mjs <row key> [--payload B] [--top N] [--no-inlining]; rows: ${ROWS.map((r) => r.key).join(', ')}`);
  process.exit(2);
}
const payloadBytes = value('--payload', 64);
const top = value('--top', 12);
if (!(Number.isInteger(payloadBytes) && payloadBytes > 0) || !(Number.isInteger(top) && top > 0)) {
  console.error('--payload and --top take a positive integer');
  process.exit(2);
}
const afterMs = 2500;
const forMs = 3500;
const dir = mkdtempSync(join(tmpdir(), 'promoted-'));
const removeDir = () => rmSync(dir, { recursive: true, force: true });
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
  // process.exit runs the exit hooks that stop the server (lib/measure.mjs); the directory goes first.
  process.once(signal, () => {
    removeDir();
    process.exit(code);
  });
}
const out = join(dir, 'profile.json');
process.env.PROMOTED_OUT = out;
process.env.PROMOTED_AFTER_MS = String(afterMs);
process.env.PROMOTED_FOR_MS = String(forMs);
const nodeFlags = ['--import', join(here, 'lib', 'promotedPreload.mjs'), ...(argv.includes('--no-inlining') ? ['--no-turbo-inlining'] : [])];
let run;
let profile;
try {
  const s = await startServer({ ...row, script: join(here, 'servers', row.script) }, { nodeFlags, sockets: 16 });
  try {
    run = await drive(s.client, { concurrency: 16, payloadBytes, durationMs: afterMs + forMs + 1000, maxRequests: 1e7, record: false, nextId: 1 });
  } finally {
    await s.stop();
  }
  try {
    profile = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    console.error('no profile was written (the server ended before the sampling did)');
  }
} finally {
  removeDir();
}
if (profile === undefined) process.exit(1);
if (run.failures > 0) {
  console.error(`${run.failures} of the requests failed (first: ${run.firstFailure}): the profile is not of the row working`);
  process.exit(1);
}

const frameOf = (node) => {
  const f = node.callFrame;
  return `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
};
const stacks = new Map();
const walk = (node, stack) => {
  const frames = [frameOf(node), ...stack];
  stacks.set(node.id, frames);
  for (const child of node.children ?? []) walk(child, frames);
};
walk(profile.head, []);
const bySite = new Map();
let total = 0;
for (const sample of profile.samples ?? []) {
  total += sample.size;
  const site = (stacks.get(sample.nodeId) ?? ['(unknown)']).slice(0, 3).join(' < ');
  bySite.set(site, (bySite.get(site) ?? 0) + sample.size);
}
const mb = (bytes) => (bytes / 1e6).toFixed(2).padStart(6);
console.log(`${row.key}, ${payloadBytes} B, C=16: ${run.completed} requests in ${((afterMs + forMs + 1000) / 1000).toFixed(1)} s; promoted in the ${forMs / 1000} s sampled: ${mb(total)} MB`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${mb(bytes)} MB  ${site}`);
