/**
 * What a cacheable result's policy is (its freshness in milliseconds and who may keep it) and the one check of a
 * policy an author wrote. A data module: the options, the registry and the modern-era rules read it.
 *
 * @see MCP 2026-07-28 server/utilities/caching.mdx
 */
import { shownValue } from '@switchboard/jsonrpc/internal';

/** How long a result may be cached, and by whom (MCP 2026-07-28 server/utilities/caching.mdx). */
export interface CachePolicy {
  /** Milliseconds the result stays fresh (an integer ≥ 0; 0: stale at once). @default 0 */
  readonly ttlMs?: number;
  /** `public`: any cache may keep it; `private`: only one authorization context's. @default 'private' */
  readonly scope?: 'public' | 'private';
}


/**
 * Refuses a malformed cache policy.
 * @throws RangeError when `ttlMs` is not an integer ≥ 0 or `scope` is neither `public` nor `private`
 */
export function checkCachePolicy(policy: CachePolicy | undefined, what: string): void {
  if (policy === undefined) return;
  if (policy.ttlMs !== undefined && (!Number.isSafeInteger(policy.ttlMs) || policy.ttlMs < 0)) {
    throw new RangeError(`Invalid cache policy of ${what}: ttlMs must be an integer >= 0, got ${String(policy.ttlMs)}`);
  }
  if (policy.scope !== undefined && policy.scope !== 'public' && policy.scope !== 'private') {
    throw new RangeError(`Invalid cache policy of ${what}: scope must be "public" or "private", got ${shownValue(policy.scope)}`);
  }
}
