/**
 * What crosses instances of a cluster on one real `redis-server` (`redisStores`, the handler's `cluster` option),
 * each request sent by the test to the instance it names (no load balancer: deterministic routing):
 * - a POST stream closed on purpose on A (2025-11-25 "SSE polling") and resumed with GET + Last-Event-ID on B gets,
 *   on B, every event A stores afterwards (a log line, the response), in order, once, and then ends — through the
 *   cluster bus's word, and through B's periodic read when B never hears the word (C: an instance whose bus is its
 *   own, so nothing A publishes reaches it);
 * - after DELETE on A, a request of the session on C, which still holds a copy and never hears of the end on the bus,
 *   is 404 (2025-11-25 basic/transports.mdx "Session Management" item 5), and so is a DELETE there.
 * Without redis-server the suite skips with one line naming the package.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { closeRequestSseStream } from '@switchboard/mcp/http';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { InMemoryClusterBus } from '@switchboard/mcp/stores';
import { redisStores, type RedisStores } from '@switchboard/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const REVISION = '2025-11-25';

interface Instance {
  readonly stores: RedisStores;
  readonly http: ServeHttpHandle;
  readonly url: string;
}

/** Gates the `poll` tool waits on (by name), released by the test. */
const gates = new Map<string, () => void>();
const gate = (name: string): Promise<void> => new Promise((resolve) => gates.set(name, resolve));
async function release(name: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!gates.has(name) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  gates.get(name)?.();
}

/** `partitioned`: the instance's cluster bus is its own (it hears nothing the others publish). */
async function instance(url: string, name: string, partitioned = false): Promise<Instance> {
  const stores = redisStores({ url, keyPrefix: 'cross:', instanceId: name });
  await stores.ready;
  const server = new McpServer({ name: 'cross', version: '1' }, { ...stores.serverOptions, logger: silentLogger });
  server.tool('whoami', {}, () => ({ content: [{ type: 'text', text: name }] }));
  server.tool('poll', { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } }, async (args, ctx) => {
    const tag = String((args as { tag?: unknown }).tag);
    closeRequestSseStream(ctx, { retryMs: 20 });
    await gate(`${tag}-1`);
    await ctx.log('info', `one from ${name}`);
    await gate(`${tag}-2`);
    await ctx.log('info', `two from ${name}`);
    return { content: [{ type: 'text', text: `done on ${name}` }] };
  });
  const options = stores.httpOptions;
  const cluster = options.cluster === undefined || !partitioned ? options.cluster : { ...options.cluster, bus: new InMemoryClusterBus() };
  const http = await serveHttp({ server, ...options, cluster, logger: silentLogger });
  return { stores, http, url: `http://127.0.0.1:${http.port}/mcp` };
}

function headers(session?: string): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, ...(session === undefined ? {} : { 'mcp-session-id': session }) };
}

interface SseEvent {
  readonly id: string | undefined;
  readonly data: any;
}

/** Parses SSE text into events (`id`, parsed `data`; `undefined` data for a priming event). */
function events(text: string): SseEvent[] {
  return text.split('\n\n').filter((block) => /^(data|id):/m.test(block)).map((block) => {
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n');
    return { id, data: data === '' ? undefined : JSON.parse(data) };
  });
}

async function open(url: string): Promise<string> {
  const init = await fetch(url, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) });
  await init.text();
  const session = init.headers.get('mcp-session-id') as string;
  await (await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return session;
}

/** Reads an SSE body, event by event, each read bounded in time. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  return {
    get ended() {
      return ended;
    },
    /** Reads until `done(events)` holds, the body ends, or `ms` pass; resolves with the events so far. */
    async until(done: (seen: SseEvent[]) => boolean, ms = 5000): Promise<SseEvent[]> {
      const deadline = Date.now() + ms;
      while (!ended && !done(events(text.slice(0, text.lastIndexOf('\n\n') + 2)))) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const chunk = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(resolve, left))]);
        if (chunk === undefined) break;
        if (chunk.done) ended = true;
        else text += decoder.decode(chunk.value, { stream: true });
      }
      return events(text.slice(0, text.lastIndexOf('\n\n') + 2));
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

const messagesOf = (seen: SseEvent[]) => seen.map((e) => e.data).filter((m) => m !== undefined);

describe.skipIf(REDIS_SERVER === undefined)('a cluster on one Redis: resumed streams and ended sessions cross instances', () => {
  let redis: RedisServer | undefined;
  let a: Instance;
  let b: Instance;
  let c: Instance;

  beforeAll(async () => {
    redis = await startRedisServer();
    a = await instance(redis.url, 'A');
    b = await instance(redis.url, 'B');
    c = await instance(redis.url, 'C', true);
  });

  afterAll(async () => {
    for (const open of gates.values()) open();
    for (const one of [a, b, c]) {
      if (one === undefined) continue;
      await one.http.close();
      await one.stores.close();
    }
    await redis?.stop();
  });

  /** Calls `poll` on A, reads its POST stream to its close after the priming event, resumes on `on`. */
  async function pollOnAResumedOn(on: Instance, tag: string) {
    const session = await open(a.url);
    const post = await fetch(a.url, { method: 'POST', headers: { ...headers(session), accept: 'text/event-stream, application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'poll', arguments: { tag } } }) });
    expect(post.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = sseReader(post.body!);
    const primed = await first.until(() => false, 5000);
    // Closed on purpose after the priming event (an id, no data), once the asynchronous store gave it its id.
    expect(first.ended).toBe(true);
    expect(primed).toEqual([{ id: expect.stringMatching(/\.A-\d+\.\d+$/), data: undefined }]);
    const resumed = await fetch(on.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': session, 'last-event-id': primed[0]!.id! } });
    expect(resumed.status).toBe(200);
    return sseReader(resumed.body!);
  }

  async function expectTheRest(stream: ReturnType<typeof sseReader>, tag: string): Promise<void> {
    try {
      // Nothing was stored yet: the replay is empty; what A stores from now on arrives on this connection.
      await release(`${tag}-1`);
      const one = await stream.until((seen) => messagesOf(seen).length >= 1);
      expect(messagesOf(one)).toEqual([expect.objectContaining({ method: 'notifications/message', params: expect.objectContaining({ data: 'one from A' }) })]);
      await release(`${tag}-2`);
      const all = await stream.until(() => false);
      expect(messagesOf(all)).toEqual([
        expect.objectContaining({ method: 'notifications/message', params: expect.objectContaining({ data: 'one from A' }) }),
        expect.objectContaining({ method: 'notifications/message', params: expect.objectContaining({ data: 'two from A' }) }),
        { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'done on A' }] } },
      ]);
      // Each event once, with its stored id, in the order stored.
      const ids = all.map((e) => e.id!);
      expect(new Set(ids).size).toBe(3);
      const seq = ids.map((id) => Number(id.slice(id.lastIndexOf('.') + 1)));
      expect(seq).toEqual([...seq].sort((x, y) => x - y));
      // Ended after the response, as a resumed POST stream ends.
      expect(stream.ended).toBe(true);
    } finally {
      await stream.cancel();
    }
  }

  it('a stream closed on purpose on A and resumed on B delivers on B what A stores afterwards, then ends', async () => {
    const stream = await pollOnAResumedOn(b, 'bus');
    await expectTheRest(stream, 'bus');
  });

  it('the same on C, which never hears the bus word: its periodic read of the store delivers it', async () => {
    const stream = await pollOnAResumedOn(c, 'poll');
    await expectTheRest(stream, 'poll');
  });

  it('after DELETE on A, a request on C (which holds a copy and hears nothing of it) is 404', async () => {
    const session = await open(a.url);
    const call = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    const onC = await fetch(c.url, { method: 'POST', headers: headers(session), body: call(1) });
    expect(await onC.json()).toMatchObject({ id: 1, result: { content: [{ text: 'C' }] } });
    // C holds a copy (besides those of earlier tests' sessions).
    const held = c.http.handler.sessionCount;
    const deleted = await fetch(a.url, { method: 'DELETE', headers: headers(session) });
    expect(deleted.status).toBe(200);
    const after = await fetch(c.url, { method: 'POST', headers: headers(session), body: call(2) });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32001 } });
    // Its copy there is gone, and the id stays unknown: a GET and a DELETE are 404 too.
    expect(c.http.handler.sessionCount).toBe(held - 1);
    const get = await fetch(c.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': session } });
    expect(get.status).toBe(404);
    await get.text();
    const again = await fetch(c.url, { method: 'DELETE', headers: headers(session) });
    expect(again.status).toBe(404);
    await again.text();
  });

  it('a DELETE on C of a session A ended is 404, and its copy on C closes', async () => {
    const session = await open(a.url);
    const onC = await fetch(c.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect(onC.status).toBe(200);
    await onC.text();
    const held = c.http.handler.sessionCount;
    expect((await fetch(a.url, { method: 'DELETE', headers: headers(session) })).status).toBe(200);
    const again = await fetch(c.url, { method: 'DELETE', headers: headers(session) });
    expect(again.status).toBe(404);
    await again.text();
    expect(c.http.handler.sessionCount).toBe(held - 1);
  });
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
