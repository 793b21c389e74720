// What the failure analytics add to a call, in process, on the built package (plain Node, no build step):
//
//   node bench/analytics.mjs                 rounds of sequential tools/call through McpServer.handle, both eras
//   node bench/analytics.mjs --rounds 21 --calls 20000 --gate
//   node bench/analytics.mjs --smoke         a few checked calls per server and era, and the counts checked; no timing
//
// Two servers, the same tool: `off` has no analytics, `on` has `attachAnalytics` (its middleware and refusal
// listener). Each round times `--calls` sequential calls (distinct arguments; every other call from another
// client and user, every tenth an isError result) on each server, the order alternating between rounds, so both
// see the same machine load; the figure is the median over rounds of the per-round difference (on − off) in µs per
// call, and the ratio of the medians. Target (issue #24): ≤ 2 µs per call. `--gate` exits 1 when it is missed;
// without it the verdict is printed only, since a loaded machine can move any timing.
import { costFlags, median, silent } from './lib/inprocess.mjs';
import process from 'node:process';
import { attachAnalytics } from '@switchboard/mcp/analytics';
import { McpServer } from '@switchboard/mcp/server';

const { smoke, gate, rounds, calls } = costFlags({ calls: 10_000, smokeCalls: 50 });
const TARGET_US = 2;

const meta = (client) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: client, version: '1' } });
const METAS = [meta('bench-a'), meta('bench-b')];
const facts = (client, subject) => ({ protocolVersion: '2025-11-25', clientInfo: { name: client, version: '1' }, clientCapabilities: {}, serverCapabilities: undefined, logLevelRank: 0, authInfo: { subject } });
const OPTIONS = [{ facts: facts('bench-a', 'alice') }, { facts: facts('bench-b', 'bob') }];

function makeServer(analytics, noop = false) {
  const server = new McpServer({ name: 'bench-analytics', version: '1.0.0' }, { logger: silent });
  const attached = analytics ? attachAnalytics(server, { serverVersion: '1.0.0' }).analytics : undefined;
  if (noop) server.use((_call, next) => next());
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' }, fail: { type: 'boolean' } }, required: ['text'] } }, ({ text, fail }) => ({ content: [{ type: 'text', text }], ...(fail ? { isError: true } : {}) }));
  return { server, analytics: attached };
}

// `noop` (one `(call, next) => next()`) splits the figure: what any first middleware costs (the chain turns the
// handler's answer into a promise), and what the analytics' own counting adds on top.
const servers = [
  ['off', makeServer(false)],
  ['on', makeServer(true)],
  ['noop', makeServer(false, true)],
];

const message = (id, modern) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: `call ${id}`, fail: id % 10 === 0 }, ...(modern ? { _meta: METAS[id & 1] } : {}) },
});

/** µs per call of `count` sequential calls; throws on a wrong answer. */
async function time(server, modern, count, firstId) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const response = await server.handle(message(id, modern), modern ? undefined : OPTIONS[id & 1]);
    const text = response?.result?.content?.[0]?.text;
    if (text !== `call ${id}`) throw new Error(`wrong answer to call ${id}: ${JSON.stringify(response)}`);
  }
  return ((performance.now() - started) * 1000) / count;
}


let missed = 0;
let nextId = 1;
let timed = 0;
console.log(smoke ? 'analytics smoke: checked calls per server and era' : `analytics cost: attachAnalytics vs none, McpServer.handle, ${rounds} rounds × ${calls} sequential calls, interleaved`);
for (const [era, modern] of [['2025-11-25 (legacy)', false], ['2026-07-28 (modern)', true]]) {
  if (!smoke) {
    // Warm-up: both servers' paths optimized before anything is counted.
    for (const [, { server }] of servers) await time(server, modern, calls, nextId);
    nextId += calls;
    timed += calls;
  }
  const perServer = new Map(servers.map(([name]) => [name, []]));
  const deltas = [];
  const chainDeltas = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse(); // alternating
    const us = {};
    for (const [name, { server }] of order) {
      us[name] = await time(server, modern, calls, nextId);
      nextId += calls;
      perServer.get(name).push(us[name]);
    }
    timed += calls;
    deltas.push(us.on - us.off);
    chainDeltas.push(us.noop - us.off);
  }
  if (smoke) {
    console.log(`ok     ${era}: ${rounds * calls} calls per server answered`);
    continue;
  }
  const delta = median(deltas);
  const off = median(perServer.get('off'));
  const on = median(perServer.get('on'));
  const ok = delta <= TARGET_US;
  if (!ok) missed++;
  console.log(`${ok ? '✓' : '✗'} ${era.padEnd(20)} +${delta.toFixed(2)} µs per call with analytics (target ≤ ${TARGET_US} µs): off ${off.toFixed(2)} µs, on ${on.toFixed(2)} µs, ratio ${(on / off).toFixed(3)}×; of which any first middleware (one no-op) +${median(chainDeltas).toFixed(2)} µs`);
}
// The analytics counted every call the `on` server answered, each in its class.
const snap = servers[1][1].analytics.snapshot();
const counted = snap.total.classes.ok + snap.total.classes.tool_error;
if (snap.total.count !== timed || counted !== timed || snap.byClient.length !== 2 || snap.byUser.length !== 2) {
  console.error(`the analytics counted ${snap.total.count} calls (${JSON.stringify(snap.total.classes)}), expected ${timed}`);
  process.exit(1);
}
if (missed > 0 && gate) process.exit(1);
