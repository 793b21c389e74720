import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer } from '../mcpServer.js';
import { connectRawClient } from '../../testing/index.js';
import { InMemoryRateLimitStore, type RateLimit, type RateLimitStore } from '../../stores/rateLimitStore.js';
import { RATE_LIMIT_STORE_FAILED_RETRY_MS, RATE_LIMITED_CODE, RateLimitedError, rateLimitMiddleware } from './rateLimit.js';

const ping = (id: number): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'ping' });

/** A server whose rate limit runs on a clock the test moves. */
function limited(options: { requestsPerSecond?: number; burst?: number; maxCallers?: number } = {}): { server: McpServer; clock: { t: number } } {
  const clock = { t: 0 };
  const server = new McpServer({ name: 'limited', version: '1' }, { logger: silentLogger });
  server.use(rateLimitMiddleware({ ...options, now: () => clock.t }));
  return { server, clock };
}

const from = (caller: string) => ({ extra: { caller } });

describe('rateLimitMiddleware', () => {
  it('admits a burst, then refuses with 429 and data.retryAfterMs until the bucket refills', async () => {
    const { server, clock } = limited({ requestsPerSecond: 2, burst: 3 });
    for (let id = 1; id <= 3; id++) expect(await server.handle(ping(id), from('address:198.51.100.1'))).toEqual({ jsonrpc: '2.0', id, result: {} });
    expect(await server.handle(ping(4), from('address:198.51.100.1'))).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: RATE_LIMITED_CODE, message: 'Rate limit exceeded: retry in 500 ms', data: { retryAfterMs: 500 } },
    });
    clock.t = 499;
    expect(await server.handle(ping(5), from('address:198.51.100.1'))).toMatchObject({ error: { code: 429, data: { retryAfterMs: 1 } } });
    clock.t = 500;
    expect(await server.handle(ping(6), from('address:198.51.100.1'))).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
  });

  it('keeps one bucket per caller: one caller at its limit does not slow another', async () => {
    const { server } = limited({ burst: 1 });
    expect(await server.handle(ping(1), from('client:a'))).toMatchObject({ result: {} });
    expect(await server.handle(ping(2), from('client:a'))).toMatchObject({ error: { code: 429 } });
    expect(await server.handle(ping(3), from('client:b'))).toMatchObject({ result: {} });
  });

  it('keys an authenticated caller by its client id when the transport names no caller', async () => {
    const { server } = limited({ burst: 1 });
    const auth = (clientId: string) => ({ extra: { authInfo: { clientId } } });
    expect(await server.handle(ping(1), auth('one'))).toMatchObject({ result: {} });
    expect(await server.handle(ping(2), auth('one'))).toMatchObject({ error: { code: 429 } });
    expect(await server.handle(ping(3), auth('two'))).toMatchObject({ result: {} });
  });

  it('keeps at most maxCallers buckets: the caller seen least recently is forgotten and starts full again', async () => {
    const { server } = limited({ burst: 1, maxCallers: 2 });
    await server.handle(ping(1), from('client:a'));
    await server.handle(ping(2), from('client:b'));
    expect(await server.handle(ping(3), from('client:a'))).toMatchObject({ error: { code: 429 } }); // a is now the most recent
    await server.handle(ping(4), from('client:c')); // evicts b, the least recent
    expect(await server.handle(ping(5), from('client:b'))).toMatchObject({ result: {} }); // b starts full, evicting a
    expect(await server.handle(ping(6), from('client:c'))).toMatchObject({ error: { code: 429 } }); // c was kept
  });

  it('never counts or refuses notifications, and shares one bucket among requests that name no caller (stdio)', async () => {
    const { server } = limited({ burst: 2 });
    const raw = await connectRawClient(server);
    await raw.initialize(); // initialize counts: one token left
    await raw.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(await raw.request(1, 'ping')).toMatchObject({ result: {} });
    expect(await raw.request(2, 'ping')).toMatchObject({ error: { code: 429 } });
    await raw.close();
  });

  it('lets a request through uncounted when the key function returns undefined', async () => {
    const server = new McpServer({ name: 'limited', version: '1' }, { logger: silentLogger });
    server.use(rateLimitMiddleware({ burst: 1, now: () => 0, key: (call) => (call.method === 'ping' ? undefined : 'all') }));
    for (let id = 1; id <= 5; id++) expect(await server.handle(ping(id))).toMatchObject({ result: {} });
    expect(await server.handle({ jsonrpc: '2.0', id: 6, method: 'tools/list' })).toMatchObject({ error: { code: -32601 } });
  });

  it('is a typed McpError and refuses options out of range', () => {
    const error = new RateLimitedError(250);
    expect(error.toJSON()).toEqual({ code: 429, message: 'Rate limit exceeded: retry in 250 ms', data: { retryAfterMs: 250 } });
    expect(() => rateLimitMiddleware({ requestsPerSecond: 0 })).toThrow(RangeError);
    expect(() => rateLimitMiddleware({ burst: 1.5 })).toThrow(/positive integer/);
    expect(() => rateLimitMiddleware({ maxCallers: -1 })).toThrow(RangeError);
  });

  it('counts in the store given: two servers on one store share each caller\'s bucket (a store answering later, too)', async () => {
    const clock = { t: 0 };
    const shared = new InMemoryRateLimitStore({ now: () => clock.t });
    /** The same buckets, answered on a later turn (as a store over a network does). */
    const later: RateLimitStore = { take: (key: string, limit: RateLimit) => new Promise((resolve) => setTimeout(() => resolve(shared.take(key, limit)), 1)) };
    const servers = [shared, later].map((store) => {
      const server = new McpServer({ name: 'limited', version: '1' }, { logger: silentLogger });
      server.use(rateLimitMiddleware({ requestsPerSecond: 2, burst: 3, store }));
      return server;
    });
    const answers = [];
    for (let id = 1; id <= 4; id++) answers.push(await servers[id % 2]!.handle(ping(id), from('client:a')));
    expect(answers.map((a) => ('result' in a! ? 'ok' : a!.error))).toEqual(['ok', 'ok', 'ok', { code: 429, message: 'Rate limit exceeded: retry in 500 ms', data: { retryAfterMs: 500 } }]);
    expect(await servers[1]!.handle(ping(5), from('client:b'))).toMatchObject({ result: {} });
  });

  it('when the store fails: admits (or refuses, as asked) and logs one line per outage, not one per request', async () => {
    const lines: string[] = [];
    const logger = { ...silentLogger, warn: (m: string) => void lines.push(`warn: ${m}`), info: (m: string) => void lines.push(`info: ${m}`) };
    let down = true;
    const buckets = new InMemoryRateLimitStore({ now: () => 0 });
    const flaky: RateLimitStore = { take: async (key, limit) => (down ? Promise.reject(new Error('connection lost')) : buckets.take(key, limit)) };
    const make = (onStoreError?: 'admit' | 'refuse') => {
      const server = new McpServer({ name: 'limited', version: '1' }, { logger });
      server.use(rateLimitMiddleware({ burst: 1, store: flaky, ...(onStoreError === undefined ? {} : { onStoreError }) }));
      return server;
    };
    const open = make();
    for (let id = 1; id <= 3; id++) expect(await open.handle(ping(id), from('client:a'))).toMatchObject({ result: {} });
    expect(lines).toEqual(['warn: Rate limit store failed: requests are admitted uncounted until it answers']);
    down = false;
    expect(await open.handle(ping(4), from('client:a'))).toMatchObject({ result: {} });
    expect(await open.handle(ping(5), from('client:a'))).toMatchObject({ error: { code: 429 } });
    expect(lines.slice(1)).toEqual(['info: Rate limit store answers again: requests are counted']);
    down = true;
    lines.length = 0;
    const closed = make('refuse');
    for (let id = 1; id <= 2; id++) {
      expect(await closed.handle(ping(id), from('client:b'))).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: 429, message: `Rate limit exceeded: retry in ${RATE_LIMIT_STORE_FAILED_RETRY_MS} ms`, data: { retryAfterMs: RATE_LIMIT_STORE_FAILED_RETRY_MS } },
      });
    }
    expect(lines).toEqual(['warn: Rate limit store failed: requests are refused until it answers']);
    expect(() => rateLimitMiddleware({ onStoreError: 'maybe' as never })).toThrow(RangeError);
  });
});
