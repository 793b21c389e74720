/**
 * `rateLimitMiddleware`: a token bucket per caller, in a bounded map of callers, and the error a refused request is
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
   * Callers whose buckets are kept (an integer ≥ 1). Past it the caller seen least recently is forgotten: its next
   * request starts with a full bucket, which an idle caller's has refilled to anyway after `burst ÷ requestsPerSecond`
   * seconds. About 100 bytes each plus the key. @default 10000
   */
  readonly maxCallers?: number;
  /**
   * The bucket a request counts against, or `undefined` to let it through uncounted.
   * @default `call.caller` (the authenticated client, else the remote address over HTTP; see `MiddlewareCall.caller`),
   *   else one bucket shared by every request that names no caller (stdio, whose process serves one client)
   */
  readonly key?: (call: MiddlewareCall) => string | undefined;
  /** The clock, in milliseconds (tests). @default `performance.now` */
  readonly now?: () => number;
}

/** Default for {@link RateLimitMiddlewareOptions.requestsPerSecond}. */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 10;
/** Default for {@link RateLimitMiddlewareOptions.burst}. */
export const DEFAULT_RATE_LIMIT_BURST = 20;
/** Default for {@link RateLimitMiddlewareOptions.maxCallers}. */
export const DEFAULT_RATE_LIMIT_MAX_CALLERS = 10_000;

/** The key of the requests that name no caller. */
const UNNAMED = '';

interface Bucket {
  tokens: number;
  at: number;
}

function positive(name: string, value: number, integer: boolean): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new RangeError(`Invalid ${name}: expected a ${integer ? 'positive integer' : 'positive finite number'}, got ${String(value)}`);
  }
  return value;
}

/**
 * A middleware that admits each caller's requests at `requestsPerSecond` with bursts of `burst` (a token bucket per
 * caller) and answers the others with {@link RateLimitedError} (429, `data.retryAfterMs`) without running them.
 * Notifications always pass and count nothing: refusing `notifications/cancelled` or `notifications/initialized`
 * would only hurt. Install it first (outermost) so refused requests cost least, or with `{ methods: ['tools/call'] }`
 * to count tool calls alone.
 *
 * @throws RangeError when an option is out of range
 * @example
 * server.use({ methods: ['tools/call'] }, rateLimitMiddleware({ requestsPerSecond: 5, burst: 10 }));
 */
export function rateLimitMiddleware(options: RateLimitMiddlewareOptions = {}): Middleware {
  const perMs = positive('requestsPerSecond', options.requestsPerSecond ?? DEFAULT_RATE_LIMIT_PER_SECOND, false) / 1000;
  const burst = positive('burst', options.burst ?? DEFAULT_RATE_LIMIT_BURST, true);
  const maxCallers = positive('maxCallers', options.maxCallers ?? DEFAULT_RATE_LIMIT_MAX_CALLERS, true);
  const keyOf = options.key ?? ((call: MiddlewareCall) => call.caller ?? UNNAMED);
  const now = options.now ?? (() => performance.now());
  // Insertion order is recency: a caller is moved to the end at each request, so the first is the least recent.
  const buckets = new Map<string, Bucket>();
  return (call, next) => {
    if (call.isNotification) return next();
    const key = keyOf(call);
    if (key === undefined) return next();
    const t = now();
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: burst, at: t };
      if (buckets.size >= maxCallers) {
        const oldest = buckets.keys().next();
        if (oldest.done !== true) buckets.delete(oldest.value);
      }
    } else {
      buckets.delete(key);
      bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, t - bucket.at) * perMs);
      bucket.at = t;
    }
    buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      // Rounded up, less a hair of floating-point error (0.998 tokens at 2/s is 1 ms, not 1.0000000000000009).
      const retryAfterMs = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs - 1e-9));
      call.logger.debug('Request refused by the rate limit', { method: echo(call.method), caller: echo(key), retryAfterMs });
      throw new RateLimitedError(retryAfterMs);
    }
    bucket.tokens -= 1;
    return next();
  };
}
