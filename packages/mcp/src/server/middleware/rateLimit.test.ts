import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer } from '../mcpServer.js';
import { connectRawClient } from '../../testing/index.js';
import { RATE_LIMITED_CODE, RateLimitedError, rateLimitMiddleware } from './rateLimit.js';

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
});
