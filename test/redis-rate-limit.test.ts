/**
 * A caller's rate limit shared by two `serveHttp` instances (A and B, one process, each its own `McpServer`) on one
 * real `redis-server`, through `redisStores(…).rateLimitStore`: with a bucket of four, four requests are admitted
 * across both instances together and the fifth is refused, on either instance, with the answer a single instance
 * gives (HTTP 200, JSON-RPC error 429 `Rate limit exceeded: retry in N ms`, `data.retryAfterMs`) — in the 2026-07-28
 * era (stateless POSTs) and on a 2025-11-25 session served by both (the handler's cluster option). When Redis dies
 * the limit fails open (requests admitted, one warning), and counts again once Redis is back. Without redis-server
 * the suite skips with one line naming the package.
 */
import type { Logger } from '@switchboard/jsonrpc';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer, rateLimitMiddleware } from '@switchboard/mcp/server';
import type { RateLimitStore } from '@switchboard/mcp/stores';
import { RedisRateLimitStore, redisStores, type RedisStores } from '@switchboard/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
/** A bucket of four that refills one token in 100 s: the fifth request within the test is always refused. */
const LIMIT = { requestsPerSecond: 0.01, burst: 4 };

interface Instance {
  readonly stores: RedisStores | undefined;
  readonly server: McpServer;
  readonly http: ServeHttpHandle;
  readonly url: string;
}

const lines: string[] = [];
const logger: Logger = {
  debug: () => undefined,
  info: (message) => void lines.push(`info: ${message}`),
  warn: (message) => void lines.push(`warn: ${message}`),
  error: () => undefined,
};

/**
 * An instance: `tools/call` limited per caller in one store, `ping` in another (two middlewares, two key prefixes),
 * on Redis when `redisUrl` is given, else in this instance's memory (the single-instance reference).
 */
async function instance(redisUrl: string | undefined, name: string): Promise<Instance> {
  const stores = redisUrl === undefined ? undefined : redisStores({ url: redisUrl, keyPrefix: 'limit:', instanceId: name });
  await stores?.ready;
  const server = new McpServer({ name: 'limited', version: '1' }, { ...stores?.serverOptions, logger });
  const pingStore: RateLimitStore | undefined = stores === undefined ? undefined : new RedisRateLimitStore({ redis: stores.redis, keyPrefix: 'limit:ping:' });
  server.use({ methods: ['tools/call'] }, rateLimitMiddleware({ ...LIMIT, ...(stores === undefined ? {} : { store: stores.rateLimitStore }) }));
  server.use({ methods: ['ping'] }, rateLimitMiddleware({ ...LIMIT, ...(pingStore === undefined ? {} : { store: pingStore }) }));
  server.tool('whoami', {}, () => ({ content: [{ type: 'text', text: name }] }));
  const http = await serveHttp({ server, ...stores?.httpOptions, logger });
  return { stores, server, http, url: `http://127.0.0.1:${http.port}/mcp` };
}

async function stop(instance: Instance | undefined): Promise<void> {
  await instance?.http.close();
  await instance?.server.close();
  await instance?.stores?.close();
}

let nextId = 1;

/** A 2026-07-28 `tools/call` of `whoami`: the HTTP status and the JSON-RPC response. */
async function modernCall(url: string): Promise<{ status: number; body: any }> {
  const id = nextId++;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });
  return { status: res.status, body: parse(await res.text(), res.headers.get('content-type')) };
}

/** The one JSON-RPC response of a body, JSON or SSE. */
function parse(text: string, contentType: string | null): any {
  if (!(contentType ?? '').startsWith('text/event-stream')) return text === '' ? undefined : JSON.parse(text);
  const data = text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.replace(/^data: ?/, '')).filter((d) => d !== '');
  return data.map((d) => JSON.parse(d)).find((m) => 'id' in m && !('method' in m));
}

function legacyHeaders(session?: string): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY, ...(session === undefined ? {} : { 'mcp-session-id': session }) };
}

/** A 2025-11-25 session opened on `url` (initialize, then notifications/initialized). */
async function openSession(url: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: legacyHeaders(), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) });
  await res.text();
  const session = res.headers.get('mcp-session-id') as string;
  await (await fetch(url, { method: 'POST', headers: legacyHeaders(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return session;
}

/** A `ping` on `session` through `url`: the HTTP status and the JSON-RPC response. */
async function sessionPing(url: string, session: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: legacyHeaders(session), body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'ping' }) });
  return { status: res.status, body: parse(await res.text(), res.headers.get('content-type')) };
}

/** An answer with its id and the refusal's milliseconds taken out, to compare the answers of two deployments. */
function shape(answer: { status: number; body: any }): unknown {
  const { id: _id, ...body } = answer.body as Record<string, unknown>;
  return JSON.parse(JSON.stringify({ status: answer.status, body }).replace(/retry in \d+ ms/, 'retry in N ms').replace(/"retryAfterMs":\d+/, '"retryAfterMs":"N"'));
}

function retryAfterMs(answer: { body: any }): number {
  return (answer.body as { error: { data: { retryAfterMs: number } } }).error.data.retryAfterMs;
}

describe.skipIf(REDIS_SERVER === undefined)("a caller's rate limit across two instances on one real redis-server", () => {
  let redis: RedisServer | undefined;
  let a: Instance | undefined;
  let b: Instance | undefined;
  let single: Instance | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    a = await instance(redis.url, 'A');
    b = await instance(redis.url, 'B');
    single = await instance(undefined, 'single');
  }, 30_000);

  afterAll(async () => {
    for (const one of [a, b, single]) await stop(one);
    await redis?.stop();
  });

  const A = () => (a as Instance).url;
  const B = () => (b as Instance).url;

  it('2026-07-28: four calls admitted across A and B together, the fifth refused on either, as one instance refuses it', async () => {
    const admitted = [await modernCall(A()), await modernCall(B()), await modernCall(A()), await modernCall(B())];
    expect(admitted.map((r) => [r.status, r.body.result?.content?.[0]?.text])).toEqual([[200, 'A'], [200, 'B'], [200, 'A'], [200, 'B']]);
    const refused = [await modernCall(A()), await modernCall(B())];

    const reference = [];
    for (let n = 0; n < 5; n++) reference.push(await modernCall((single as Instance).url));
    expect(reference.slice(0, 4).map((r) => r.body.result?.content?.[0]?.text)).toEqual(['single', 'single', 'single', 'single']);
    const expected = shape(reference[4]!);
    expect(expected).toEqual({ status: 200, body: { jsonrpc: '2.0', error: { code: 429, message: 'Rate limit exceeded: retry in N ms', data: { retryAfterMs: 'N' } } } });
    for (const answer of refused) {
      expect(shape(answer)).toEqual(expected);
      // A token comes back in 100 s at 0.01/s: each refusal says when, on Redis's clock as on the instance's.
      expect(retryAfterMs(answer)).toBeGreaterThan(90_000);
      expect(retryAfterMs(answer)).toBeLessThanOrEqual(100_000);
    }
    expect(retryAfterMs(reference[4]!)).toBeGreaterThan(90_000);
  });

  it('2025-11-25: the requests of one session served by both instances share the bucket too', async () => {
    const session = await openSession(A());
    const admitted = [await sessionPing(B(), session), await sessionPing(A(), session), await sessionPing(B(), session), await sessionPing(A(), session)];
    expect(admitted.map((r) => [r.status, r.body.result])).toEqual([[200, {}], [200, {}], [200, {}], [200, {}]]);
    const refused = await sessionPing(B(), session);
    expect(shape(refused)).toEqual({ status: 200, body: { jsonrpc: '2.0', error: { code: 429, message: 'Rate limit exceeded: retry in N ms', data: { retryAfterMs: 'N' } } } });
    expect(await (a as Instance).stores!.redis.keys('limit:*rl:*')).toEqual(expect.arrayContaining(['limit:rl:address:127.0.0.1', 'limit:ping:rl:address:127.0.0.1']));
  });

  it('fails open while Redis is down (one warning per instance), and counts again once it is back', async () => {
    lines.length = 0;
    await (redis as RedisServer).kill();
    const during = [];
    for (let n = 0; n < 6; n++) during.push(await modernCall(n % 2 === 0 ? A() : B()));
    expect(during.map((r) => r.body.result?.content?.[0]?.text)).toEqual(['A', 'B', 'A', 'B', 'A', 'B']);
    expect(lines.filter((line) => line.includes('Rate limit store'))).toEqual([
      'warn: Rate limit store failed: requests are admitted uncounted until it answers',
      'warn: Rate limit store failed: requests are admitted uncounted until it answers',
    ]); // one per instance
    await (redis as RedisServer).restart();
    const deadline = Date.now() + 10_000;
    while ((a as Instance).stores!.redis.status !== 'ready' || (b as Instance).stores!.redis.status !== 'ready') {
      if (Date.now() > deadline) throw new Error('the instances did not reconnect to Redis within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Redis restarted empty (no persistence): the bucket is full again, and shared again.
    const after = [await modernCall(B()), await modernCall(A()), await modernCall(B()), await modernCall(A()), await modernCall(B())];
    expect(after.map((r) => r.body.result?.content?.[0]?.text ?? r.body.error?.code)).toEqual(['B', 'A', 'B', 'A', 429]);
    expect(lines.filter((line) => line.includes('answers again'))).toEqual([
      'info: Rate limit store answers again: requests are counted',
      'info: Rate limit store answers again: requests are counted',
    ]);
  }, 30_000);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
