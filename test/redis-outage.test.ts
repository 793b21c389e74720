/**
 * A lost Redis connection is a clear error window, with bounded retries and no crash: `redis-server` is killed
 * (SIGKILL) mid-test and started again on the same port. While it is down every store operation fails with a
 * `RedisStoreError` naming the operation within a bounded time, the bus still delivers locally, an HTTP instance
 * on the stores answers (a refused `initialize`: 503 + Retry-After, its other sessions untouched) and nothing rejects unhandled; one
 * line is logged for the loss. Once it is back, the same store objects work again (the Lua scripts are loaded again:
 * the restarted server has none), the session opened before the outage is written again by the instance that holds it
 * (the restarted Redis came back empty), and the bus carries messages between instances again.
 */
import { silentLogger, type Logger } from '@switchboard/jsonrpc';
import { serveHttp } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import type { BusMessage } from '@switchboard/mcp/stores';
import { RedisStoreError, redisStores, type RedisStores } from '@switchboard/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function recordingLogger(lines: string[]): Logger {
  const log = (message: string) => void lines.push(message);
  return { debug: () => undefined, info: log, warn: log, error: log };
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await sleep(50);
  }
  return false;
}

function initialize(url: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
  });
}

describe.skipIf(REDIS_SERVER === undefined)('a Redis outage (redis-server killed and restarted mid-test)', () => {
  let redis: RedisServer | undefined;
  const opened: RedisStores[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    for (const stores of opened) await stores.close();
    await redis?.stop();
  });

  it('fails each operation with a RedisStoreError while Redis is down, and works again once it is back', async () => {
    process.on('unhandledRejection', onUnhandled);
    redis = await startRedisServer();
    const lines: string[] = [];
    const a = redisStores({ url: redis.url, keyPrefix: 'out:', logger: recordingLogger(lines), sessions: { heartbeatMs: 100 } });
    const b = redisStores({ url: redis.url, keyPrefix: 'out:', logger: silentLogger });
    opened.push(a, b);
    await Promise.all([a.ready, b.ready]);
    const server = new McpServer({ name: 'outage', version: '1' }, { ...a.serverOptions, logger: silentLogger });
    server.tool('ping', {}, () => ({ content: [{ type: 'text', text: 'pong' }] }));
    const http = await serveHttp({ server, ...a.httpOptions, logger: silentLogger });
    try {
      const url = `http://127.0.0.1:${http.port}/mcp`;
      expect((await initialize(url)).status).toBe(200);
      await a.taskStore.create({ taskId: 'before', ttlMs: 60_000 });

      await redis.kill();
      const started = Date.now();
      const failures = await Promise.allSettled([
        a.sessionStore.count(),
        a.eventStore.storeEvent('tok.1', { jsonrpc: '2.0', method: 'notifications/message', params: {} }),
        a.taskStore.get('before'),
        a.requestStateStore.claim('s0000000000000000000001', Date.now() + 60_000),
      ]);
      const waitedMs = Date.now() - started;
      expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
      for (const failure of failures) expect((failure as PromiseRejectedResult).reason).toBeInstanceOf(RedisStoreError);
      expect(((failures[0] as PromiseRejectedResult).reason as RedisStoreError).message).toMatch(/^Redis store failed: RedisSessionStore\.count: /);
      expect(waitedMs).toBeLessThan(15_000); // bounded retries (not a speed figure: a bound on waiting forever)
      // The bus still delivers on its own instance, and publish does not reject.
      const heard: BusMessage[] = [];
      const stop = a.bus.subscribe((m) => void heard.push(m));
      await a.bus.publish({ type: 'list_changed', capability: 'tools' });
      expect(heard).toEqual([{ type: 'list_changed', capability: 'tools' }]);
      stop();
      // The HTTP instance answers: a new session cannot be admitted (its record cannot be stored): 503 + Retry-After
      // (RFC 9110 §15.6.4, temporary), with the initialize id (JSON-RPC 2.0 §5).
      const refused = await initialize(url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 0, error: { code: -32000 } });
      expect(lines.filter((l) => l.startsWith('Redis connection lost')).length).toBeGreaterThanOrEqual(1);

      await redis.restart();
      expect(await eventually(async () => (await a.sessionStore.count()) >= 0, 10_000)).toBe(true);
      expect(lines).toContain('Redis connection restored');
      // The restarted server is empty (no persistence) and has no scripts: they are loaded again on first use. The
      // session opened before the outage is written again by its instance (the store's epoch key was lost).
      expect(await eventually(async () => (await b.sessionStore.count()) === 1, 10_000)).toBe(true);
      expect(await a.taskStore.get('before')).toBeUndefined();
      expect((await a.taskStore.create({ taskId: 'after', ttlMs: 60_000 })).status).toBe('working');
      expect((await b.taskStore.get('after'))?.status).toBe('working');
      expect(await a.eventStore.storeEvent('tok.1', {})).toMatch(/^tok\.1\.\d+$/);
      expect((await initialize(url)).status).toBe(200);
      expect(await b.sessionStore.count()).toBe(2); // the refused one left nothing behind
      // The subscribers reconnected and resubscribed: B hears A again.
      const fromA: BusMessage[] = [];
      b.bus.subscribe((m) => void fromA.push(m));
      expect(await eventually(async () => {
        await a.bus.publish({ type: 'resource_updated', uri: 'file:///x' });
        return fromA.length > 0;
      }, 10_000)).toBe(true);
      expect(unhandled).toEqual([]);
    } finally {
      await http.close();
    }
  }, 60_000);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
