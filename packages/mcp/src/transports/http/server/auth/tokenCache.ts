/**
 * The verdicts of the built-in verifiers kept for the tokens they accepted, so a client's next request with the
 * same token costs a map lookup instead of a signature check or an introspection round trip. Bounded in count
 * (least recently used goes first) and in time: an entry lives until the token's own `exp` or `maxAgeMs` after it was
 * verified, whichever is first — never past `exp` (RFC 7662 §4: a cached introspection answer must not outlive the
 * token's validity). Refusals are not kept (a garbage token costs its check every time, but fills no memory).
 */
import { checkCountOption, checkMsOption } from '@switchboard/jsonrpc/internal';
import type { AuthInfo } from '../../../../protocol/auth/authInfo.js';

/** Default `cacheMaxEntries` of the built-in verifiers. */
export const DEFAULT_TOKEN_CACHE_MAX_ENTRIES = 1000;

interface Entry {
  readonly info: AuthInfo;
  /** ms since the epoch after which the entry is not used. */
  readonly until: number;
}

/** @internal A bounded map of accepted tokens to their {@link AuthInfo}. */
export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;

  /** @param limits `maxEntries` (0: no cache), `maxAgeMs` (0: no cache) */
  constructor(limits: { readonly maxEntries: number; readonly maxAgeMs: number }) {
    this.#maxEntries = limits.maxAgeMs > 0 ? limits.maxEntries : 0;
    this.#maxAgeMs = limits.maxAgeMs;
  }

  /** The kept verdict of `token`, or `undefined` (never kept, evicted, or past its time). */
  get(token: string): AuthInfo | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    this.#entries.delete(token);
    if (Date.now() >= entry.until) return undefined;
    // Most recently used last: the map's insertion order is the eviction order.
    this.#entries.set(token, entry);
    return entry.info;
  }

  /** Keeps `info` for `token` (see the module comment for how long). */
  set(token: string, info: AuthInfo): void {
    if (this.#maxEntries === 0) return;
    const now = Date.now();
    const expiry = info.expiresAt === undefined ? Infinity : info.expiresAt * 1000;
    const until = Math.min(expiry, now + this.#maxAgeMs);
    if (until <= now) return;
    this.#entries.delete(token);
    this.#entries.set(token, { info, until });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** How many verdicts are kept. */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Checks a verifier's cache limits.
 * @throws RangeError when `cacheMaxEntries` is not an integer of 0 or more, or `cacheMaxAgeMs` is negative or NaN
 * @throws TypeError when either is not a number
 */
export function checkCacheLimits(owner: string, limits: { readonly cacheMaxEntries?: number; readonly cacheMaxAgeMs?: number }): void {
  const { cacheMaxEntries, cacheMaxAgeMs } = limits;
  checkCountOption(`${owner}.cacheMaxEntries`, cacheMaxEntries, { min: 0 });
  checkMsOption(`${owner}.cacheMaxAgeMs`, cacheMaxAgeMs, { max: Infinity });
}
