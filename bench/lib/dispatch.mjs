// In-process JSON-RPC dispatch micro-benchmark: @switchboard/jsonrpc Dispatcher vs json-rpc-2.0's
// JSONRPCServer, same method, same messages, text in → text out, full validation on both sides
// (json-rpc-2.0 checks the envelope in receive(); Switchboard's parseMessage classifies it). A third contender skips
// the JSON nesting pre-scan, to show what that cap costs on ordinary messages.
// Runs in its own process (spawned by run.mjs); alternates A B A B rounds; prints one JSON line.
//   node bench/lib/dispatch.mjs [--rounds 6] [--round-ms 400] [--payload 64]
import { performance } from 'node:perf_hooks';
import { JSONRPCServer } from 'json-rpc-2.0';
import { Dispatcher, classifyValue } from '@switchboard/jsonrpc';
import { stringifyReply } from '@switchboard/jsonrpc/internal';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const rounds = arg('--rounds', 6);
const roundMs = arg('--round-ms', 400);
const payload = arg('--payload', 64);

const text = 'x'.repeat(payload);
const MESSAGES = 1024;
const messages = Array.from({ length: MESSAGES }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'echo', params: { text } }));
const expected = messages.map((_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, result: { text } }));

const echo = (params) => ({ text: params.text });

const sb = new Dispatcher();
sb.register('echo', echo);
const jr = new JSONRPCServer();
jr.addMethod('echo', echo);

const contenders = {
  switchboard: (msg) => sb.handleText(msg, undefined),
  // The same path without the JSON nesting pre-scan of parseJson (JSON.parse straight away): what the cap costs.
  'switchboard-no-depth-scan': (msg) =>
    sb.handle(classifyValue(JSON.parse(msg)), undefined).then((reply) => (reply === undefined ? undefined : stringifyReply(reply))),
  'json-rpc-2.0': (msg) =>
    jr.receiveJSON(msg).then((reply) => (reply === null ? undefined : JSON.stringify(reply))),
};

// Same answers first (key order may differ; compare parsed).
for (const [name, run] of Object.entries(contenders)) {
  for (let i = 0; i < 4; i++) {
    const got = JSON.parse(await run(messages[i]));
    const want = JSON.parse(expected[i]);
    if (got.id !== want.id || got.result?.text !== want.result.text || got.jsonrpc !== '2.0') {
      console.log(JSON.stringify({ ok: false, error: `${name} answered ${JSON.stringify(got).slice(0, 200)}` }));
      process.exit(1);
    }
  }
}

async function round(run, ms) {
  const t0 = performance.now();
  const end = t0 + ms;
  let n = 0;
  let now = t0;
  while (now < end) {
    for (let i = 0; i < 256; i++) await run(messages[(n + i) & (MESSAGES - 1)]);
    n += 256;
    now = performance.now();
  }
  return n / ((now - t0) / 1000);
}

// warm-up
for (const run of Object.values(contenders)) await round(run, Math.min(500, roundMs));
const samples = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? Object.keys(contenders) : Object.keys(contenders).reverse();
  for (const name of order) samples[name].push(await round(contenders[name], roundMs));
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(JSON.stringify({ ok: true, payload, rounds, roundMs, opsPerSec: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])), samples }));
