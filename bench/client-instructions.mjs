#!/usr/bin/env node
// Instructions per call of an MCP client: the client-side twin of bench/instructions.mjs.
//
//   node bench/client-instructions.mjs [--clients switchboard,raw,sdk-v1] [--transport stdio|http] [--warmup 8000] [--calls 2000]
//   node bench/client-instructions.mjs --keep /tmp/cg     (keeps <client>-<transport>.callgrind there for callgrind_annotate)
//
// Each client runs in a process of its own under `valgrind --tool=callgrind --single-threaded` (the server it talks
// to, bench/servers/raw-stdio.js spawned by the client or raw-http.js started here, is not traced), makes the
// warm-up calls one at a time (C=1), zeroes the counters (`callgrind_control -z` on itself), makes the counted
// calls, and dumps them (`-d`): instructions ÷ calls, every thread of the client process counted. The adapters are
// the ones bench/client.mjs measures (bench/clients/*.mjs, run with `--callgrind`).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name, d) => {
  const i = argv.indexOf(name);
  return i === -1 ? d : argv[i + 1];
};
const clients = value('--clients', 'raw,switchboard,sdk-v1').split(',');
const transport = value('--transport', 'stdio');
const warmup = Number(value('--warmup', 8000));
const calls = Number(value('--calls', 2000));
/** `--keep <dir>`: keep each client's callgrind dump there (`<client>-<transport>.callgrind`). */
const keep = value('--keep');

async function httpServer() {
  const child = spawn(process.execPath, [join(here, 'servers', 'raw-http.js'), '--port', '0', '--response', 'json'], { stdio: ['ignore', 'ignore', 'pipe'] });
  // The server names its URL on stderr (bench/servers/_common.js).
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      out += chunk;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error('raw-http.js exited')));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function count(client, target) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-client-cg-'));
  const args = ['--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg.out')}`, '--dump-instr=no', '--dump-line=no', process.execPath, '--single-threaded', join(here, 'clients', `${client}.mjs`), '--transport', transport, ...target, '--callgrind', `${warmup}:${calls}`];
  const child = spawn('valgrind', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  try {
    if (code !== 0 || !/CALLGRIND_DONE/.test(out)) throw new Error(`${client}: exit ${code}: ${(out + err).slice(-600)}`);
    const dumps = readdirSync(dir).filter((f) => /\.\d+$/.test(f));
    if (dumps.length !== 1) throw new Error(`${client}: expected one dump, found ${dumps.join(', ') || 'none'}`);
    const text = readFileSync(join(dir, dumps[0]), 'utf8');
    if (keep !== undefined) {
      mkdirSync(keep, { recursive: true });
      copyFileSync(join(dir, dumps[0]), join(keep, `${client}-${transport}.callgrind`));
    }
    return Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1]) / calls;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const server = transport === 'http' ? await httpServer() : undefined;
const target = transport === 'http' ? ['--url', server.url] : ['--server', join(here, 'servers', 'raw-stdio.js')];
console.log(`client instructions per call: ${transport}, C=1, 64 B, ${warmup} warm-up + ${calls} counted calls, client under callgrind`);
const results = {};
try {
  for (const client of clients) {
    try {
      results[client] = await count(client, target);
      console.log(`${client.padEnd(14)} ${Math.round(results[client]).toLocaleString('en-US').padStart(10)} instructions/call`);
    } catch (error) {
      console.log(`${client.padEnd(14)} failed: ${error.message}`);
    }
  }
} finally {
  server?.stop();
}
if (results.switchboard && results['sdk-v1']) console.log(`switchboard ÷ sdk-v1: ${(results.switchboard / results['sdk-v1']).toFixed(2)}`);
if (results.switchboard && results.raw) console.log(`switchboard ÷ raw: ${(results.switchboard / results.raw).toFixed(2)}`);
