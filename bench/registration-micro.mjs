// A micro-measure of two costs the registration checks could raise, light enough for a shared machine (one
// process at a time, a few seconds in all), unlike `npm run bench`:
//
//   1. registering a 50-tool server (new McpServer + 50 × tool()): cold, in fresh processes (the first
//      registration pays for any lazily built checker), and warm, in one process;
//   2. the tools/call fast path: sequential calls of a small tool over the in-memory transport, rounds alternating
//      between the builds compared.
//
//   node bench/registration-micro.mjs [--dist <dir>] [--baseline <dir>]
//
// `--dist` is the @switchboard/mcp dist directory measured (default: this checkout's packages/mcp/dist);
// `--baseline` another one (e.g. a copy of dist built from main) measured in the same runs, so both see the
// same machine load.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import process from 'node:process';
import { createMemoryTransportPair } from '@switchboard/jsonrpc';

const here = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const defaultDist = fileURLToPath(new URL('../packages/mcp/dist', import.meta.url));

/** 50 tool schemas of the usual kinds: scalars, an enum, an array, a nested object, bounds. */
function schemaOf(i) {
  return {
    type: 'object',
    properties: {
      query: { type: 'string', description: `Query ${i}`, minLength: 1, maxLength: 200 },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      mode: { type: 'string', enum: ['fast', 'exact', 'fuzzy'] },
      tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, uniqueItems: true },
      filter: {
        type: 'object',
        properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' } },
        additionalProperties: false,
      },
    },
    required: ['query'],
    additionalProperties: false,
  };
}
const text = (t) => ({ content: [{ type: 'text', text: t }] });

async function load(dir) {
  return import(pathToFileURL(`${dir}/server.js`).href);
}

function register50({ McpServer }) {
  const server = new McpServer({ name: 'micro', version: '1.0.0' }, { logger: { debug() {}, info() {}, warn() {}, error() {} } });
  for (let i = 0; i < 50; i++) server.tool(`tool_${i}`, { description: `Tool ${i}`, inputSchema: schemaOf(i) }, ({ query }) => text(query));
  return server;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (argv.includes('--cold-child')) {
  // One cold sample: the module is loaded, then the first 50-tool registration of the process is timed.
  const mod = await load(option('--dist'));
  const t0 = performance.now();
  register50(mod);
  process.stderr.write(`${performance.now() - t0}\n`);
  process.exit(0);
}

const builds = [['current', option('--dist') ?? defaultDist]];
if (option('--baseline') !== undefined) builds.push(['baseline', option('--baseline')]);

// 1a. Cold registration: fresh processes, interleaved between builds.
const cold = new Map(builds.map(([name]) => [name, []]));
for (let run = 0; run < 11; run++) {
  // Alternate which build goes first: the first process of a pair is measurably slower on a loaded machine.
  for (const [name, dir] of run % 2 === 0 ? builds : [...builds].reverse()) {
    const child = spawnSync(process.execPath, [here, '--cold-child', '--dist', dir], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`cold sample failed: ${child.stderr}`);
    cold.get(name).push(Number(child.stderr.trim()));
  }
}

// 1b. Warm registration and 2. the tools/call path, in this process.
const modules = await Promise.all(builds.map(async ([name, dir]) => [name, await load(dir)]));
const warm = new Map(builds.map(([name]) => [name, []]));
for (let round = 0; round < 10; round++) {
  for (const [name, mod] of round % 2 === 0 ? modules : [...modules].reverse()) {
    const t0 = performance.now();
    for (let k = 0; k < 20; k++) register50(mod);
    warm.get(name).push((performance.now() - t0) / 20);
  }
}

async function callClient(mod) {
  const server = new mod.McpServer({ name: 'micro', version: '1.0.0' });
  server.tool('echo', { inputSchema: schemaOf(0) }, ({ query }) => text(query));
  const [client, serverSide] = createMemoryTransportPair();
  let resolveNext;
  client.onmessage = (inbound) => resolveNext(inbound);
  await server.connect(serverSide);
  await client.start();
  const next = () => new Promise((resolve) => (resolveNext = resolve));
  let id = 0;
  const request = async (method, params) => {
    const reply = next();
    await client.send({ jsonrpc: '2.0', id: ++id, method, params });
    return reply;
  };
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'micro', version: '1' } });
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return async (n) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const reply = await request('tools/call', { name: 'echo', arguments: { query: 'q', limit: 5, tags: ['a'] } });
      if (reply.message?.result?.content?.[0]?.text !== 'q') throw new Error(`unexpected reply: ${JSON.stringify(reply)}`);
    }
    return ((performance.now() - t0) * 1000) / n;
  };
}
const callers = await Promise.all(modules.map(async ([name, mod]) => [name, await callClient(mod)]));
const calls = new Map(builds.map(([name]) => [name, []]));
for (const [, call] of callers) await call(5000); // warm-up
for (let round = 0; round < 12; round++) {
  for (const [name, call] of round % 2 === 0 ? callers : [...callers].reverse()) calls.get(name).push(await call(5000));
}

const rows = builds.map(([name]) => ({
  build: name,
  'cold register 50 tools ms (median of 11 processes)': median(cold.get(name)).toFixed(2),
  'warm register 50 tools ms (median of 10 rounds)': median(warm.get(name)).toFixed(3),
  'tools/call µs/call (median of 12 rounds × 5000)': median(calls.get(name)).toFixed(2),
}));
console.table(rows);
