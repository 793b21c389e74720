/**
 * `RedisLeaseStore`: leases (instance heartbeats, work records) in Redis, so every instance sees who is alive and who
 * holds what. A lease is a hash `<P>ls:<key>` (`holder`, `expiresAt`, `value` as JSON) whose key expires with the
 * lease: an expired lease is never read. `acquire` and `release` are Lua scripts (atomic: of racing acquires of a
 * free key exactly one wins; only the holder releases); `expiresAt` is computed on the Redis clock.
 */
import type { Lease, LeaseRequest, LeaseStore } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, LuaScript } from './connection.js';

/** Options of {@link RedisLeaseStore}. */
export interface RedisLeaseStoreOptions {
  /** The connection (see `connectRedis`); the store does not close it. */
  readonly redis: Redis;
  /** Prefix of every key. @default 'switchboard:' */
  readonly keyPrefix?: string;
}

/** ARGV: key, holder, ttlMs, value → 1 taken or renewed, 0 held by another. */
const ACQUIRE = new LuaScript(`
local key, holder, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local current = redis.call('HGET', key, 'holder')
if current and current ~= holder then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('DEL', key)
redis.call('HSET', key, 'holder', holder, 'expiresAt', string.format('%d', now + ttl), 'value', ARGV[4])
redis.call('PEXPIRE', key, ttl)
return 1
`);

/** ARGV: key, holder. */
const RELEASE = new LuaScript(`
if redis.call('HGET', ARGV[1], 'holder') == ARGV[2] then redis.call('DEL', ARGV[1]) end
return 1
`);

/** A {@link LeaseStore} in Redis (see the file's description). Rejects with a `RedisStoreError` while Redis is unreachable. */
export class RedisLeaseStore implements LeaseStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(options: RedisLeaseStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}ls:`;
  }

  /** @throws RangeError (rejection) when `ttlMs` is below 1 */
  acquire(key: string, request: LeaseRequest): Promise<boolean> {
    if (!(request.ttlMs >= 1)) return Promise.reject(new RangeError(`Invalid lease TTL: expected at least 1 ms, got ${String(request.ttlMs)}`));
    return guarded(this.#redis, 'RedisLeaseStore.acquire', async () => (await ACQUIRE.run(this.#redis, [this.#prefix + key, request.holder, Math.ceil(request.ttlMs), JSON.stringify(request.value ?? null)])) === 1);
  }

  get(key: string): Promise<Lease | undefined> {
    return guarded(this.#redis, 'RedisLeaseStore.get', async () => {
      const [holder, expiresAt, value] = await this.#redis.hmget(this.#prefix + key, 'holder', 'expiresAt', 'value');
      if (typeof holder !== 'string' || typeof expiresAt !== 'string') return undefined;
      return { holder, expiresAt: Number(expiresAt), value: typeof value === 'string' ? (JSON.parse(value) as unknown) : null };
    });
  }

  release(key: string, holder: string): Promise<void> {
    return guarded(this.#redis, 'RedisLeaseStore.release', async () => {
      await RELEASE.run(this.#redis, [this.#prefix + key, holder]);
    });
  }
}
