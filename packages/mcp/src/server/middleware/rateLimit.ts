/**
 * `rateLimitMiddleware`: a token bucket per caller, in a {@link RateLimitStore} (a bounded map of callers by default,
 * or one shared by every instance of a deployment), and the error a refused request is
 * answered with ({@link RateLimitedError}, code 429).
 *
 * The code: JSON-RPC 2.0 §5.1 leaves every code outside -32768…-32000 to the application; MCP 2026-07-28
 * basic/index.mdx "Error Codes" reserves -32020…-32099 for codes the specification defines (implementations MUST
 * NOT emit others from it), tells implementations not to use -32000…-32019 for new codes, and says new codes SHOULD
 * be allocated outside -32768…-32000; no MCP revision defines a rate-limit code. 429 mirrors
 * HTTP 429 Too Many Requests (RFC 6585 §4), the code a gateway already sends for this (stacklok/toolhive PR#6120
 * moved its rate-limit code from -32029 to 429 for these reasons), and is valid in both eras with no branching.
 *
 * Over HTTP the refusal is in-band (HTTP 200 with the JSON-RPC error), like every handler-produced error but
 * -32021: the transport gives statuses to the protocol's own refusals only, and a session's answer may already be
 * on an open SSE stream. Throttle at the HTTP edge (a reverse proxy) when status-level 429s are wanted.
 */
import { echo } from '@switchboard/jsonrpc';
import { McpError } from '../../protocol/errors.js';
import { DEFAULT_MAX_KEYS, InMemoryRateLimitStore, type RateLimit, type RateLimitStore } from '../../stores/rateLimitStore.js';
import type { Middleware, MiddlewareCall } from './call.js';

/** The JSON-RPC code of {@link RateLimitedError} (see the module comment). */
export const RATE_LIMITED_CODE = 429;

/**
 * A request refused by {@link rateLimitMiddleware}: code 429, message `Rate limit exceeded: retry in N ms`,
 * `data: { retryAfterMs }` (when the caller's next request would be admitted).
 */
export class RateLimitedError extends McpError {
  /** Milliseconds until the caller's bucket holds a token again; sent as `data.retryAfterMs`. */
  readonly retryAfterMs: number;

  constructor(retryAfterMs: number) {
    super(RATE_LIMITED_CODE, `Rate limit exceeded: retry in ${retryAfterMs} ms`, { retryAfterMs });
    this.name = 'RateLimitedError';
    this.retryAfterMs = retryAfterMs;
  }
}

/** Options of {@link rateLimitMiddleware}. */
export interface RateLimitMiddlewareOptions {
  /** Requests a caller may make per second, sustained: its bucket's refill rate. @default 10 */
  readonly requestsPerSecond?: number;
  /** Requests a caller may make at once after being idle: its bucket's size (an integer ≥ 1). @default 20 */
  readonly burst?: number;
  /**
   * Where the buckets are kept. A shared store (`redisStores(…).rateLimitStore` of `@switchboard/redis`) makes the
   * limit the deployment's: a caller gets `requestsPerSecond` across every instance together, not on each. Give
   * each rate-limit middleware a store (or key prefix) of its own: two middlewares on one store share buckets.
   * @default a new `InMemoryRateLimitStore` of `maxCallers` buckets on the clock `now` (this process's limit)
   */
  readonly store?: RateLimitStore;
  /**
   * What a request gets when `store` fails to answer (a shared store whose server is unreachable): `'admit'` lets
   * it through uncounted (fail open: the limit protects against abuse, not the service's correctness), `'refuse'`
   * answers it with {@link RateLimitedError} and `retryAfterMs` {@link RATE_LIMIT_STORE_FAILED_RETRY_MS} (fail closed).
   * Either way one warning is logged when the store starts failing and one line when it answers again, not one
   * per request. @default 'admit'
   */
  readonly onStoreError?: 'admit' | 'refuse';
  /**
   * Callers whose buckets are kept by the default in-memory store (an integer ≥ 1; unused with `store`). Past it
   * the caller seen least recently is forgotten: its next request starts with a full bucket, which an idle caller's
   * has refilled to anyway after `burst ÷ requestsPerSecond` seconds. About 100 bytes each plus the key.
   * @default 10000
   */
  readonly maxCallers?: number;
  /**
   * The bucket a request counts against, or `undefined` to let it through uncounted.
   * @default `call.caller` (the authenticated client, else the remote address over HTTP; see `MiddlewareCall.caller`),
   *   else one bucket shared by every request that names no caller (stdio, whose process serves one client)
   */
  readonly key?: (call: MiddlewareCall) => string | undefined;
  /** The clock of the default in-memory store, in milliseconds (tests; unused with `store`). @default `performance.now` */
  readonly now?: () => number;
}

/** Default for {@link RateLimitMiddlewareOptions.requestsPerSecond}. */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 10;
/** Default for {@link RateLimitMiddlewareOptions.burst}. */
export const DEFAULT_RATE_LIMIT_BURST = 20;
/** Default for {@link RateLimitMiddlewareOptions.maxCallers}. */
export const DEFAULT_RATE_LIMIT_MAX_CALLERS = DEFAULT_MAX_KEYS;
/** The `retryAfterMs` of a request refused because the store failed, under `onStoreError: 'refuse'`. */
export const RATE_LIMIT_STORE_FAILED_RETRY_MS = 1000;

/** The key of the requests that name no caller. */
const UNNAMED = '';

function positive(name: string, value: number, integer: boolean): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new RangeError(`Invalid ${name}: expected a ${integer ? 'positive integer' : 'positive finite number'}, got ${String(value)}`);
  }
  return value;
}

/**
 * A middleware that admits each caller's requests at `requestsPerSecond` with bursts of `burst` (a token bucket per
 * caller, in `store`) and answers the others with {@link RateLimitedError} (429, `data.retryAfterMs`) without
 * running them. Notifications always pass and count nothing: refusing `notifications/cancelled` or
 * `notifications/initialized` would only hurt. Install it first (outermost) so refused requests cost least, or with
 * `{ methods: ['tools/call'] }` to count tool calls alone. With the default store the check is synchronous; a shared
 * store costs one round trip per counted request.
 *
 * @throws RangeError when an option is out of range
 * @example
 * server.use({ methods: ['tools/call'] }, rateLimitMiddleware({ requestsPerSecond: 5, burst: 10 }));
 * // One limit for the whole deployment:
 * server.use(rateLimitMiddleware({ requestsPerSecond: 5, burst: 10, store: stores.rateLimitStore }));
 */
export function rateLimitMiddleware(options: RateLimitMiddlewareOptions = {}): Middleware {
  const limit: RateLimit = {
    requestsPerSecond: positive('requestsPerSecond', options.requestsPerSecond ?? DEFAULT_RATE_LIMIT_PER_SECOND, false),
    burst: positive('burst', options.burst ?? DEFAULT_RATE_LIMIT_BURST, true),
  };
  const maxCallers = positive('maxCallers', options.maxCallers ?? DEFAULT_RATE_LIMIT_MAX_CALLERS, true);
  const onStoreError = options.onStoreError ?? 'admit';
  if (onStoreError !== 'admit' && onStoreError !== 'refuse') throw new RangeError(`Invalid onStoreError: expected 'admit' or 'refuse', got ${String(onStoreError)}`);
  const keyOf = options.key ?? ((call: MiddlewareCall) => call.caller ?? UNNAMED);
  const store = options.store ?? new InMemoryRateLimitStore({ maxKeys: maxCallers, ...(options.now === undefined ? {} : { now: options.now }) });
  let failing = false;

  /** Throws the refusal unless `retryAfterMs` is 0 (admitted). */
  const judge = (call: MiddlewareCall, key: string, retryAfterMs: number): void => {
    if (failing) {
      failing = false;
      call.logger.info('Rate limit store answers again: requests are counted');
    }
    if (retryAfterMs === 0) return;
    call.logger.debug('Request refused by the rate limit', { method: echo(call.method), caller: echo(key), retryAfterMs });
    throw new RateLimitedError(retryAfterMs);
  };
  /** Applies `onStoreError`: returns (admit) or throws the refusal; logs once per outage. */
  const storeFailed = (call: MiddlewareCall, error: unknown): void => {
    if (!failing) {
      failing = true;
      call.logger.warn(`Rate limit store failed: requests are ${onStoreError === 'admit' ? 'admitted uncounted' : 'refused'} until it answers`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    if (onStoreError === 'refuse') throw new RateLimitedError(RATE_LIMIT_STORE_FAILED_RETRY_MS);
  };

  return (call, next) => {
    if (call.isNotification) return next();
    const key = keyOf(call);
    if (key === undefined) return next();
    let taken: number | Promise<number>;
    try {
      taken = store.take(key, limit);
    } catch (error) {
      storeFailed(call, error);
      return next();
    }
    if (typeof taken === 'number') {
      judge(call, key, taken);
      return next();
    }
    return taken.then(
      (retryAfterMs) => {
        judge(call, key, retryAfterMs);
        return next();
      },
      (error: unknown) => {
        storeFailed(call, error);
        return next();
      },
    );
  };
}
