/**
 * `RedisRateLimitStore`: the rate limit's token buckets in Redis, so a caller's limit holds across every instance of
 * a deployment (N requests admitted in all, not N per instance). One take is one Lua script (`EVALSHA`, one round
 * trip) that refills the bucket on Redis's own clock (`TIME`: the instances' clocks never disagree), takes a token or
 * says when one is there, and sets the bucket's key to expire when it would be full again — a missing key is a full
 * bucket, so an idle caller costs nothing and the keys are bounded by the callers of the last `burst ÷ rate` seconds.
 * The arithmetic is the in-memory store's, in the same double-precision numbers, so both answer alike.
 */
import type { RateLimit, RateLimitStore } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, LuaScript } from './connection.js';

/** Options of {@link RedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** The connection (see `connectRedis`); the store does not close it. */
  readonly redis: Redis;
  /**
   * Prefix of every key (`<prefix>rl:<caller>`). Two rate-limit middlewares need two prefixes, or they share
   * buckets. @default 'switchboard:'
   */
  readonly keyPrefix?: string;
}

// ARGV: the bucket's key, tokens per ms, burst. Returns 0 (a token taken) or the whole ms until one is there.
// The bucket is a hash { tk: tokens, at: ms on Redis's clock }, written only when a token is taken (a refused take
// changes nothing: the refill is linear and below burst, so writing the refilled state would change no answer).
const TAKE = new LuaScript(`
local key = ARGV[1]
local perMs = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local tokens = burst
local state = redis.call('HMGET', key, 'tk', 'at')
if state[1] then
  tokens = math.min(burst, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * perMs)
end
if tokens < 1 then
  return math.max(1, math.ceil((1 - tokens) / perMs - 1e-9))
end
tokens = tokens - 1
redis.call('HSET', key, 'tk', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
redis.call('PEXPIRE', key, math.max(1, math.ceil((burst - tokens) / perMs)))
return 0
`);

/**
 * A `RateLimitStore` in Redis (see the module comment), for `rateLimitMiddleware({ store })`. While a lost
 * connection is being re-established, `take` rejects at once with a `RedisStoreError` (it does not wait for the
 * reconnection; see `guarded`), so the middleware's `onStoreError` policy answers without delay; before the first connection it
 * waits for it, and a command sent on a live connection is bounded by `connectRedis`'s `commandTimeoutMs` and
 * `maxRetriesPerRequest`.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(options: RedisRateLimitStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}rl:`;
  }

  async take(key: string, limit: RateLimit): Promise<number> {
    return guarded(this.#redis, 'RedisRateLimitStore.take', async () => {
      const answer = await TAKE.run(this.#redis, [`${this.#prefix}${key}`, limit.requestsPerSecond / 1000, limit.burst]);
      return Number(answer);
    });
  }
}
