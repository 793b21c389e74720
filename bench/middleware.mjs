// What ten no-op middlewares add to a call, in process, on the built package (plain Node, no build step):
//
//   node bench/middleware.mjs                 rounds of sequential tools/call through McpServer.handle, both eras
//   node bench/middleware.mjs --rounds 21 --calls 20000
//   node bench/middleware.mjs --smoke         a few checked calls per server and era, no timing (run by `npm run bench -- --smoke`)
//
// Two servers, the same tool: `none` has no middleware, `ten` has ten `(call, next) => next()` (the chain of the
// issue's target). Each round times `--calls` sequential calls (distinct arguments each) on each server, the order
// alternating between rounds, so both see the same machine load; the figure is the median over rounds of the
// per-round difference (ten − none) in µs per call, and the ratio of the medians. Target: ≤ 5 µs per call
// (mcp-proxy's loaded stack adds about 5 µs). `--gate` exits 1 when a target is missed; without it the verdict is
// printed only, since a loaded machine can move any timing.
import { costFlags, median, silent } from './lib/inprocess.mjs';
import process from 'node:process';
import { McpServer } from '@switchboard/mcp/server';

const { smoke, gate, rounds, calls } = costFlags({ calls: 10_000, smokeCalls: 50 });
const TARGET_US = 5;
const MIDDLEWARES = 10;

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
const FACTS = { protocolVersion: '2025-11-25', clientInfo: { name: 'bench', version: '1' }, clientCapabilities: {}, serverCapabilities: undefined, logLevelRank: 0 };

let seen = 0;
function makeServer(middlewares) {
  const server = new McpServer({ name: 'bench-middleware', version: '1.0.0' }, { logger: silent });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  for (let i = 0; i < middlewares; i++) {
    server.use((call, next) => {
      seen++;
      return next();
    });
  }
  return server;
}

const servers = [
  ['none', makeServer(0)],
  ['ten', makeServer(MIDDLEWARES)],
];

const message = (id, modern) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` }, ...(modern ? { _meta: META } : {}) } });
const handleOptions = { facts: FACTS };

/** µs per call of `count` sequential calls; throws on a wrong answer. */
async function time(server, modern, count, firstId) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const response = await server.handle(message(id, modern), modern ? undefined : handleOptions);
    const text = response?.result?.content?.[0]?.text;
    if (text !== `call ${id}`) throw new Error(`wrong answer to call ${id}: ${JSON.stringify(response)}`);
  }
  return ((performance.now() - started) * 1000) / count;
}


let missed = 0;
let nextId = 1;
console.log(smoke ? 'middleware smoke: checked calls per server and era' : `middleware cost: ${MIDDLEWARES} no-op middlewares vs none, McpServer.handle, ${rounds} rounds × ${calls} sequential calls, interleaved`);
for (const [era, modern] of [['2025-11-25 (legacy)', false], ['2026-07-28 (modern)', true]]) {
  if (!smoke) {
    // Warm-up: both servers' paths optimized before anything is counted.
    for (const [, server] of servers) await time(server, modern, calls, nextId);
    nextId += calls;
  }
  const perServer = new Map(servers.map(([name]) => [name, []]));
  const deltas = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    const us = {};
    for (const [name, server] of order) {
      us[name] = await time(server, modern, calls, nextId);
      nextId += calls;
      perServer.get(name).push(us[name]);
    }
    deltas.push(us.ten - us.none);
  }
  if (smoke) {
    console.log(`ok     ${era}: ${rounds * calls} calls per server answered`);
    continue;
  }
  const delta = median(deltas);
  const none = median(perServer.get('none'));
  const ten = median(perServer.get('ten'));
  const ok = delta <= TARGET_US;
  if (!ok) missed++;
  console.log(
    `${ok ? '✓' : '✗'} ${era.padEnd(20)} +${delta.toFixed(2)} µs per call with ${MIDDLEWARES} middlewares (target ≤ ${TARGET_US} µs): ` +
      `none ${none.toFixed(2)} µs, ten ${ten.toFixed(2)} µs, ratio ${(ten / none).toFixed(3)}×; per middleware ${(delta / MIDDLEWARES).toFixed(3)} µs`,
  );
}
const expected = MIDDLEWARES * rounds * calls * 2 + (smoke ? 0 : MIDDLEWARES * calls * 2);
if (seen !== expected) {
  console.error(`the middlewares ran ${seen} times, expected ${expected}`);
  process.exit(1);
}
if (missed > 0 && gate) process.exit(1);
