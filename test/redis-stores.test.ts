/**
 * The Redis stores against a real `redis-server` (started here on 127.0.0.1 on a port the test picks, no
 * persistence, stopped by its PID): every store passes the store conformance kit, as the in-memory ones do, with
 * a key prefix per space; then what only a shared store has — session records expire when the instance holding them
 * is gone, and not while it runs; the key names the README documents. Without redis-server the suite skips with one
 * line naming the package.
 */
import { describeStoreConformance } from '@switchboard/mcp/testing';
import { connectRedis, RedisClusterBus, RedisEventStore, RedisLeaseStore, RedisNotificationBus, RedisRateLimitStore, RedisRequestStateStore, RedisSessionStore, RedisTaskStore, redisStores } from '@switchboard/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(REDIS_SERVER === undefined)('the Redis stores (a real redis-server)', () => {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = connectRedis({ url: server.url });
  });

  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  const on = () => redis as Redis;

  describeStoreConformance('pass the store conformance kit', {
    sessionStore: ({ space }) => new RedisSessionStore({ redis: on(), keyPrefix: `${space}:` }),
    eventStore: ({ space, limits }) => new RedisEventStore({ ...limits, redis: on(), keyPrefix: `${space}:` }),
    taskStore: ({ space, limits }) => new RedisTaskStore({ ...limits, redis: on(), keyPrefix: `${space}:` }),
    notificationBus: async ({ space }) => {
      const bus = new RedisNotificationBus({ redis: on(), keyPrefix: `${space}:` });
      await bus.ready;
      return bus;
    },
    requestStateStore: ({ space }) => new RedisRequestStateStore({ redis: on(), keyPrefix: `${space}:` }),
    clusterBus: ({ space }) => new RedisClusterBus({ redis: on(), keyPrefix: `${space}:` }),
    leaseStore: ({ space }) => new RedisLeaseStore({ redis: on(), keyPrefix: `${space}:` }),
    rateLimitStore: ({ space }) => new RedisRateLimitStore({ redis: on(), keyPrefix: `${space}:` }),
  }, { describe, it });

  it('a session record expires by its TTL once the instance holding it is gone, and not while it runs', async () => {
    const keyPrefix = 'ttl:';
    const holder = new RedisSessionStore({ redis: on(), keyPrefix, heartbeatMs: 50 });
    const other = new RedisSessionStore({ redis: on(), keyPrefix });
    const record = { transport: 'streamable-http', caller: 'alice', createdAt: Date.now(), lastActivity: Date.now(), phase: 'active', ttlMs: 300, streamPrefix: 't.', protocolVersion: '2025-11-25' } as const;
    await holder.create({ ...record, sessionId: 'held' });
    await other.create({ ...record, sessionId: 'orphan' });
    other.close(); // as if its instance died: nothing extends "orphan" any more
    await sleep(700);
    expect(await other.count()).toBe(1);
    expect((await other.get('held'))?.sessionId).toBe('held');
    expect(await other.get('orphan')).toBeUndefined();
    expect(await other.count({ caller: 'alice' })).toBe(1);
    holder.close();
    await sleep(700);
    expect([await other.count(), await other.count({ caller: 'alice' })]).toEqual([0, 0]);
    expect(await on().keys(`${keyPrefix}*`)).toEqual([`${keyPrefix}ss:epoch`]); // the store's epoch: one key, not per session
  });

  it("an idle stream's SSE history lives as long as its session is held, then expires by its TTL", async () => {
    const keyPrefix = 'idle:';
    const sessions = new RedisSessionStore({ redis: on(), keyPrefix, heartbeatMs: 50, eventsTtlMs: 300 });
    const events = new RedisEventStore({ redis: on(), keyPrefix, streamTtlMs: 300 });
    const other = new RedisEventStore({ redis: on(), keyPrefix: 'idle-other:', streamTtlMs: 300 });
    await sessions.create({ sessionId: 'S', transport: 'streamable-http', caller: null, createdAt: Date.now(), lastActivity: Date.now(), phase: 'active', ttlMs: 60_000, streamPrefix: 'tok.', protocolVersion: '2025-11-25' });
    const priming = await events.storeEvent('tok.1', {});
    const unheld = await other.storeEvent('tok.1', {});
    await sleep(800);
    expect(await events.getStreamIdForEventId(priming)).toBe('tok.1'); // the heartbeat extended it
    expect(await other.getStreamIdForEventId(unheld)).toBeUndefined(); // no session holds it: expired
    sessions.close();
    await sleep(800);
    expect(await events.getStreamIdForEventId(priming)).toBeUndefined();
  });

  it("a request's touch writes lastActivity and both indexes, and keeps the keys within a second of their TTL", async () => {
    const keyPrefix = 'touch:';
    const store = new RedisSessionStore({ redis: on(), keyPrefix });
    const r = on();
    const state = { protocolVersion: '2025-11-25', clientCapabilities: {}, serverCapabilities: {}, logLevelRank: 0, subscriptions: [], initializeRequestId: 0, initialized: true };
    try {
      await store.create({ sessionId: 'S', transport: 'streamable-http', caller: 'alice', createdAt: 1, lastActivity: 1, phase: 'opened', ttlMs: 60_000, streamPrefix: 'tok.', protocolVersion: '2025-11-25', state });
      // As if the record had been idle for 30 s: a request's touch extends both keys and the expiry index again.
      await r.pexpire('touch:ss:r:S', 30_000);
      await r.pexpire('touch:ss:st:S', 30_000);
      const before = Date.now();
      expect(await store.touch('S', { at: 1000 })).toBe(true);
      for (const key of ['touch:ss:r:S', 'touch:ss:st:S']) expect(await r.pttl(key)).toBeGreaterThan(59_000);
      expect(Number(await r.zscore('touch:ss:exp', 'S'))).toBeGreaterThanOrEqual(before + 59_000);
      // A second touch at once gains less than a second: it need not extend them, and they stay within a second.
      expect(await store.touch('S', { at: 2000 })).toBe(true);
      for (const key of ['touch:ss:r:S', 'touch:ss:st:S']) expect(await r.pttl(key)).toBeGreaterThan(58_000);
      expect((await store.get('S'))?.lastActivity).toBe(2000);
      expect(await r.zscore('touch:ss:idx', 'S')).toBe('2000');
      expect(await r.zscore('touch:ss:c:alice', 'S')).toBe('2000');
      // Any other write (here a shorter TTL) sets the expiry from it, whatever the keys had left.
      expect(await store.touch('S', { at: 3000, phase: 'active', ttlMs: 10_000 })).toBe(true);
      expect(await r.pttl('touch:ss:r:S')).toBeLessThanOrEqual(10_000);
      expect(await r.pttl('touch:ss:st:S')).toBeLessThanOrEqual(10_000);
      expect(await store.get('S')).toMatchObject({ lastActivity: 3000, phase: 'active', ttlMs: 10_000, caller: 'alice', state });
      await store.delete('S');
      expect(await store.touch('S', { at: 4000 })).toBe(false);
    } finally {
      store.close();
    }
  });

  it('keeps its keys under the prefix, with the documented names', async () => {
    const stores = redisStores({ url: (server as RedisServer).url, keyPrefix: 'doc:' });
    try {
      await stores.ready;
      await stores.sessionStore.create({ sessionId: 'S', transport: 'streamable-http', caller: 'alice', createdAt: 1, lastActivity: 1, phase: 'opened', ttlMs: 60_000, streamPrefix: 'tok.', protocolVersion: null, state: { protocolVersion: '2025-11-25', clientCapabilities: {}, serverCapabilities: {}, logLevelRank: 0, subscriptions: [], initializeRequestId: 0, initialized: false } });
      await stores.eventStore.storeEvent('tok.1', { jsonrpc: '2.0', method: 'notifications/message', params: {} }, 60);
      await stores.taskStore.create({ taskId: 'T', ttlMs: 60_000, owner: 'alice', caller: 'address:1' });
      await stores.requestStateStore.claim('R', Date.now() + 60_000);
      expect(await stores.rateLimitStore.take('address:1', { requestsPerSecond: 0.001, burst: 2 })).toBe(0);
      expect((await stores.redis.keys('doc:*')).sort()).toEqual([
        'doc:ev:all', 'doc:ev:b:tok', 'doc:ev:o:tok', 'doc:ev:s:tok.1', 'doc:ev:seq',
        'doc:rl:address:1',
        'doc:rs:R',
        'doc:ss:c:alice', 'doc:ss:epoch', 'doc:ss:exp', 'doc:ss:idx', 'doc:ss:r:S', 'doc:ss:st:S', 'doc:ss:who',
        'doc:tk:all', 'doc:tk:c:address:1', 'doc:tk:exp', 'doc:tk:o:alice', 'doc:tk:seq', 'doc:tk:t:T', 'doc:tk:who',
      ]);
      expect(await stores.redis.pttl('doc:ss:r:S')).toBeGreaterThan(50_000);
      expect(await stores.redis.pttl('doc:ss:st:S')).toBeGreaterThan(50_000);
      expect(await stores.redis.call('OBJECT', 'ENCODING', 'doc:ss:r:S')).toBe('listpack'); // compact: the state is not in it
      expect(await stores.redis.pttl('doc:ev:s:tok.1')).toBeGreaterThan(7_000_000);
      // A bucket's key lives until it would be full again: one token short at 0.001/s is 1,000 s.
      expect(await stores.redis.pttl('doc:rl:address:1')).toBeGreaterThan(990_000);
      expect(await stores.redis.pttl('doc:rl:address:1')).toBeLessThanOrEqual(1_000_000);
    } finally {
      await stores.close();
    }
    expect(() => redisStores({ url: 'http://127.0.0.1:6379' })).toThrow('Invalid Redis URL: expected redis://host:port or rediss://host:port, got "http://127.0.0.1:6379"');
  });
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
