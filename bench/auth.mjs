// What the resource-server kit adds to a protected tools/call, in process, on the built package (plain Node):
//
//   node bench/auth.mjs                 rounds of sequential 2026-07-28 tools/call POSTs through the Web handler
//   node bench/auth.mjs --rounds 21 --calls 5000
//   node bench/auth.mjs --smoke         a few checked calls per handler, no timing
//
// Three handlers over the same server and tool: `open` (no `auth`), `cached` (`auth` with `jwtVerifier` on a local
// key set; the client sends the same ES256 JWT every time, so after the first call the verdict comes from the
// verifier's cache: the issue's "cached JWT validation"), and `uncached` (the same with `cacheMaxAgeMs: 0`: a
// signature check per call, for information). Each round times `--calls` sequential POSTs on each handler, the order
// rotating between rounds, so all see the same load; the figure is the median over rounds of the per-round
// difference (cached − open) in µs per call. Target (issue 25): ≤ 60 µs. `--gate` exits 1 when it is missed.
import { costFlags, median, silent } from './lib/inprocess.mjs';
import process from 'node:process';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { McpServer } from '@switchboard/mcp/server';
import { createMcpHttpHandler, jwtVerifier } from '@switchboard/mcp/http';

const { smoke, gate, rounds, calls } = costFlags({ calls: 3000, smokeCalls: 20 });
const TARGET_US = 60;
const RESOURCE = 'http://localhost/mcp';
const ISSUER = 'https://auth.bench.example';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const pair = await generateKeyPair('ES256', { extractable: true });
const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'bench', alg: 'ES256' };
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ scope: 'tools:call', client_id: 'bench' })
  .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
  .setIssuer(ISSUER)
  .setAudience(RESOURCE)
  .setIssuedAt(now)
  .setExpirationTime(now + 3600)
  .sign(pair.privateKey);

function makeServer() {
  const server = new McpServer({ name: 'bench-auth', version: '1.0.0' }, { logger: silent });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

const auth = (cacheMaxAgeMs) => ({ authorizationServers: [ISSUER], verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [jwk] }, ...(cacheMaxAgeMs === undefined ? {} : { cacheMaxAgeMs }) }) });
const handlers = [
  ['open', createMcpHttpHandler({ server: makeServer(), logger: silent, responseMode: 'json' }), false],
  ['cached', createMcpHttpHandler({ server: makeServer(), logger: silent, responseMode: 'json', auth: auth(undefined) }), true],
  ['uncached', createMcpHttpHandler({ server: makeServer(), logger: silent, responseMode: 'json', auth: auth(0) }), true],
];

function request(id, withToken) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
  if (withToken) headers.authorization = `Bearer ${token}`;
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` }, _meta: META } });
  return new Request(RESOURCE, { method: 'POST', headers, body });
}

/** µs per call of `count` sequential calls; throws on a wrong answer. */
async function time(handler, withToken, count, firstId) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const response = await handler.fetch(request(id, withToken));
    const body = await response.json();
    if (body?.result?.content?.[0]?.text !== `call ${id}`) throw new Error(`wrong answer to call ${id}: ${response.status} ${JSON.stringify(body)}`);
  }
  return ((performance.now() - started) * 1000) / count;
}

let nextId = 1;
console.log(smoke ? 'auth smoke: checked calls per handler' : `auth cost: a protected 2026-07-28 tools/call (jwtVerifier, cached) vs an open one, Web handler, ${rounds} rounds × ${calls} sequential calls, interleaved`);
if (!smoke) {
  for (const [, handler, withToken] of handlers) await time(handler, withToken, calls, nextId);
  nextId += calls;
}
const perHandler = new Map(handlers.map(([name]) => [name, []]));
const deltas = [];
const uncachedDeltas = [];
for (let round = 0; round < rounds; round++) {
  const order = [...handlers.slice(round % handlers.length), ...handlers.slice(0, round % handlers.length)];
  const us = {};
  for (const [name, handler, withToken] of order) {
    us[name] = await time(handler, withToken, calls, nextId);
    nextId += calls;
    perHandler.get(name).push(us[name]);
  }
  deltas.push(us.cached - us.open);
  uncachedDeltas.push(us.uncached - us.open);
}
if (smoke) {
  console.log(`ok     ${rounds * calls} calls per handler answered`);
  process.exit(0);
}
const delta = median(deltas);
const ok = delta <= TARGET_US;
const m = (name) => median(perHandler.get(name)).toFixed(2);
console.log(`${ok ? '✓' : '✗'} cached JWT: +${delta.toFixed(2)} µs per call (target ≤ ${TARGET_US} µs): open ${m('open')} µs, cached ${m('cached')} µs`);
console.log(`  uncached (a signature check per call): +${median(uncachedDeltas).toFixed(2)} µs per call, ${m('uncached')} µs`);
if (!ok && gate) process.exit(1);
