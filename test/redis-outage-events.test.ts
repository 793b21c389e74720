/**
 * One SSE stream across a Redis outage: `redis-server` is killed (SIGKILL) while a tool call is running and sending
 * progress notifications, then started again, empty (no persistence). While Redis is down the event store fails at
 * once (a lost connection is known: its append does not wait for the reconnection), so the handler's progress goes
 * out promptly, without an event id (no history); the response still arrives. After the restart the event ids of the
 * same stream are above, and distinct from, every id issued before it: the seq counter starts from Redis's clock
 * when Redis lost it, as MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery" asks (event ids globally
 * unique within the session).
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { serveHttp } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { redisStores, type RedisStores } from '@switchboard/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
  readonly at: number;
}

/** Reads `body` as SSE, calling `onEvent` per event with data (priming events have none), until it ends. */
async function readSse(body: ReadableStream<Uint8Array>, onEvent: (event: SseEvent) => void): Promise<void> {
  const decoder = new TextDecoder();
  let text = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) !== -1) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0 && data.join('') !== '') onEvent({ id, data: data.join('\n'), at: Date.now() });
    }
  }
}

function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf('.') + 1));
}

describe.skipIf(REDIS_SERVER === undefined)('an SSE stream across a Redis outage (redis-server killed and restarted mid-call)', () => {
  let redis: RedisServer | undefined;
  let stores: RedisStores | undefined;

  afterAll(async () => {
    await stores?.close();
    await redis?.stop();
  });

  it('sends the progress of a running call promptly while Redis is down, and issues larger, distinct event ids after its restart', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    redis = await startRedisServer();
    stores = redisStores({ url: redis.url, keyPrefix: 'oe:', logger: silentLogger });
    await stores.ready;
    const gates = [gate(), gate()];
    const server = new McpServer({ name: 'outage-events', version: '1' }, { ...stores.serverOptions, logger: silentLogger });
    server.tool('work', {}, async (_args, ctx) => {
      for (let i = 1; i <= 3; i++) await ctx.progress(i);
      await gates[0]!.promise; // the test kills Redis
      for (let i = 4; i <= 8; i++) {
        await sleep(100);
        await ctx.progress(i);
      }
      await gates[1]!.promise; // the test restarts Redis
      for (let i = 9; i <= 11; i++) await ctx.progress(i);
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const http = await serveHttp({ server, ...stores.httpOptions, logger: silentLogger });
    try {
      const url = `http://127.0.0.1:${http.port}/mcp`;
      const init = await fetch(url, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
      });
      expect(init.status).toBe(200);
      await init.text();
      const session = { ...HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id') as string };
      expect((await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(202);

      const call = await fetch(url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'work', arguments: {}, _meta: { progressToken: 'p' } } }),
      });
      expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events: SseEvent[] = [];
      let arrived = () => {};
      const reading = readSse(call.body as ReadableStream<Uint8Array>, (event) => {
        events.push(event);
        arrived();
      });
      const until = async (count: number, timeoutMs: number): Promise<void> => {
        const deadline = Date.now() + timeoutMs;
        while (events.length < count && Date.now() < deadline) await Promise.race([new Promise<void>((resolve) => (arrived = resolve)), sleep(50)]);
      };
      await until(3, 10_000);
      expect(events.length).toBe(3);
      const before = events.map((e) => e.id as string);
      expect(before.every((id) => /\.\d+$/.test(id))).toBe(true);

      await redis.kill();
      const killedAt = Date.now();
      gates[0]!.resolve();
      await until(8, 10_000);
      // 5 notifications 100 ms apart: about 0.5 s; each waiting for ioredis's reconnection took seconds.
      expect(events.slice(3).map((e) => JSON.parse(e.data).params.progress)).toEqual([4, 5, 6, 7, 8]);
      expect(events[7]!.at - killedAt).toBeLessThan(1500);

      await redis.restart();
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !(await stores.sessionStore.count().then(() => true, () => false))) await sleep(50);
      gates[1]!.resolve();
      await reading;
      const after = events.slice(8, 11).map((e) => e.id as string);
      expect(events.slice(8).map((e) => JSON.parse(e.data).params?.progress ?? JSON.parse(e.data).result?.content?.[0]?.text)).toEqual([9, 10, 11, 'done']);
      // Same stream (the id up to its last '.'), every seq above every seq issued before the restart, all distinct.
      const stream = before[0]!.slice(0, before[0]!.lastIndexOf('.'));
      for (const id of [...before, ...after]) expect(id.slice(0, id.lastIndexOf('.'))).toBe(stream);
      expect(Math.min(...after.map(seqOf))).toBeGreaterThan(Math.max(...before.map(seqOf)));
      expect(new Set([...before, ...after]).size).toBe(6);
      for (const id of after) expect(Number.isSafeInteger(seqOf(id))).toBe(true);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await http.close({ drainMs: 0 });
    }
  }, 60_000);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
