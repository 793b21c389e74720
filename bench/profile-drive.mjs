// Drives one bench row for a while with the server under --cpu-prof (see bench/README.md "profile it").
//   node bench/profile-drive.mjs <row key> <out dir> [ms] [payload bytes]
//   NODE_FLAGS='--trace-gc' node bench/profile-drive.mjs switchboard-modern-json /tmp/x 3000   # other flags (HTTP rows:
//   the server's stdout tail is printed at the end; GREP=Mark keeps only the lines containing it)
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROWS } from './matrix.mjs';
import { startServer } from './lib/measure.mjs';
import { drive } from './lib/loadgen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [key, dir, ms = '6000', payload = '64'] = process.argv.slice(2);
const row = ROWS.find((r) => r.key === key);
const s = await startServer({ ...row, script: join(here, 'servers', row.script) }, { nodeFlags: process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : ['--cpu-prof', `--cpu-prof-dir=${dir}`], sockets: 16 });
const m = await drive(s.client, { concurrency: 16, payloadBytes: Number(payload), durationMs: Number(ms), maxRequests: 1e7, record: false, nextId: 1 });
console.log(key, m.completed, 'requests', m.failures, 'failures');
if (process.env.NODE_FLAGS) console.log((s.h.stdoutTail ?? "").split("\n").filter((l) => !process.env.GREP || l.includes(process.env.GREP)).join("\n"));
await s.stop();
