/**
 * Where `rateLimitMiddleware` counts each caller's requests: a token bucket per key. The in-memory store (the
 * middleware's default) counts for one process; a shared store (`RedisRateLimitStore` of `@switchboard/redis`)
 * counts for every instance behind one endpoint, so a caller's limit is the deployment's, not each instance's.
 *
 * The bucket: it holds at most `burst` tokens and starts full; it refills continuously at `requestsPerSecond`
 * tokens a second; each admitted request takes one token; a request that finds less than one token is refused and
 * takes nothing, and is told how long until one token is there (rounded up to a whole millisecond, at least 1).
 */
import { checkCountOption } from '@switchboard/jsonrpc/internal';

/** The limit a bucket is taken from (checked by the middleware: a positive rate, a positive integer burst). */
export interface RateLimit {
  /** Tokens added per second, continuously: the sustained rate. */
  readonly requestsPerSecond: number;
  /** The bucket's size: requests admitted at once after an idle time. */
  readonly burst: number;
}

/**
 * A token bucket per key. `take` is synchronous for a store in memory (the middleware then adds no promise to the
 * request path) and asynchronous for a shared one.
 */
export interface RateLimitStore {
  /**
   * Takes one token from `key`'s bucket, as one atomic step (concurrent takes of one key on any instance never
   * admit more than the bucket holds).
   * @param key the caller's bucket (any string, `''` included; keys are compared exactly)
   * @param limit the bucket's rate and size; every take of one key is expected to name the same limit
   * @returns `0` when a token was taken (the request is admitted), else the milliseconds until the bucket holds one
   *   token (an integer ≥ 1; nothing was taken)
   * @throws (or rejects) when a shared store cannot answer; the middleware then applies its `onStoreError` policy
   */
  take(key: string, limit: RateLimit): number | Promise<number>;
}

/** Options of {@link InMemoryRateLimitStore}. */
export interface InMemoryRateLimitStoreOptions {
  /**
   * Keys whose buckets are kept (an integer ≥ 1). Past it the key seen least recently is forgotten: its next take
   * starts with a full bucket, which an idle caller's has refilled to anyway after `burst ÷ requestsPerSecond`
   * seconds. About 100 bytes each plus the key. @default 10000
   */
  readonly maxKeys?: number;
  /** The clock, in milliseconds (tests). @default `performance.now` */
  readonly now?: () => number;
}

/** Default for {@link InMemoryRateLimitStoreOptions.maxKeys} (exported by the server entry as `DEFAULT_RATE_LIMIT_MAX_CALLERS`). */
export const DEFAULT_MAX_KEYS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** The milliseconds until a bucket holding `tokens` (< 1) holds one, at `perMs` tokens a millisecond. */
export function msUntilToken(tokens: number, perMs: number): number {
  // Rounded up, less a hair of floating-point error (0.998 tokens at 2/s is 1 ms, not 1.0000000000000009).
  return Math.max(1, Math.ceil((1 - tokens) / perMs - 1e-9));
}

/**
 * The default {@link RateLimitStore}: one process's buckets in a map bounded by `maxKeys` (the least recently seen
 * key is forgotten first). Synchronous.
 */
export class InMemoryRateLimitStore implements RateLimitStore {
  // Insertion order is recency: a key is moved to the end at each take, so the first is the least recent.
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  /** @throws RangeError when `maxKeys` is not a positive integer (TypeError when not a number) */
  constructor(options: InMemoryRateLimitStoreOptions = {}) {
    this.#maxKeys = checkCountOption('maxKeys', options.maxKeys ?? DEFAULT_MAX_KEYS);
    this.#now = options.now ?? (() => performance.now());
  }

  /** Buckets kept now. */
  get size(): number {
    return this.#buckets.size;
  }

  take(key: string, limit: RateLimit): number {
    const perMs = limit.requestsPerSecond / 1000;
    const t = this.#now();
    const buckets = this.#buckets;
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: limit.burst, at: t };
      if (buckets.size >= this.#maxKeys) {
        const oldest = buckets.keys().next();
        if (oldest.done !== true) buckets.delete(oldest.value);
      }
    } else {
      buckets.delete(key);
      bucket.tokens = Math.min(limit.burst, bucket.tokens + Math.max(0, t - bucket.at) * perMs);
      bucket.at = t;
    }
    buckets.set(key, bucket);
    if (bucket.tokens < 1) return msUntilToken(bucket.tokens, perMs);
    bucket.tokens -= 1;
    return 0;
  }
}
