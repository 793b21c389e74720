/**
 * How the client serves one request in the modern era (2026-07-28), before and after the single wire request:
 * a fresh cached result answers a cacheable request without sending it (`responseCache.ts`); `tools/call`,
 * `prompts/get` and `resources/read` drive their input rounds (`inputRounds.ts`); each result received is offered
 * to the cache, which keeps only what it may (never a retry's result, never `input_required`). In the legacy era
 * the request is sent as it is.
 *
 * @see MCP 2026-07-28 server/utilities/caching.mdx; basic/patterns/mrtr.mdx
 */
import { McpError, McpErrorCode } from '../protocol/errors.js';
import type { ClientCore } from './clientCore.js';
import { INPUT_ROUND_METHODS, requestWithInputRounds } from './inputRounds.js';
import type { RequestOptions } from './options.js';
import type { ResponseCache } from './responseCache.js';

type Params = Record<string, unknown>;

/** Whether `error` is the server's -32602 (invalid params: an unknown tool, a cursor it no longer takes). */
function isInvalidParams(error: unknown): boolean {
  return error instanceof McpError && error.code === McpErrorCode.InvalidParams;
}

/** What a modern request needs: the client seam and its cache (`undefined`: `cache: false`). */
export interface ModernRequestHost {
  readonly core: Pick<ClientCore, 'era' | 'revision' | 'options' | 'send' | 'answerInput'>;
  readonly cache: ResponseCache | undefined;
}

/**
 * One request of the client's operations, served as the module comment says; the result as received (the caller
 * checks its `resultType`).
 * @throws the errors of `requestWithInputRounds` and of `ClientCore.send`
 */
export function modernRequest(host: ModernRequestHost, request: { readonly method: string; readonly params: Params | undefined }, options?: RequestOptions): Promise<unknown> {
  // A session: the request as it is (not wrapped in one more promise: this runs per call).
  if (host.core.era !== 'modern') return host.core.send<unknown>(request.method, request.params, options);
  return modern(host, request, options);
}

async function modern(host: ModernRequestHost, request: { readonly method: string; readonly params: Params | undefined }, options?: RequestOptions): Promise<unknown> {
  const { core } = host;
  const { method, params } = request;
  const cache = host.cache;
  const hit = await cache?.get(method, params);
  if (hit !== undefined) return hit;
  const store = cache === undefined ? undefined : (result: Params, sent: Params | undefined): Promise<void> => cache.store(method, sent, result);
  if (INPUT_ROUND_METHODS.has(method)) {
    return requestWithInputRounds<unknown>(core, { method, params, ...(store === undefined ? {} : { onResult: store }) }, options).catch((error: unknown) => {
      // A tool the server does not know (any more): the cached tool list is out of date (MCP 2026-07-28
      // server/utilities/caching.mdx: clients MAY re-fetch before the TTL after such an error).
      if (method === 'tools/call' && isInvalidParams(error)) cache?.forgetList('tools/list');
      throw error;
    });
  }
  let result: unknown;
  try {
    result = await core.send<unknown>(method, params, options);
  } catch (error) {
    // A refused cursor: every cached page of that list is suspect (the caching page's "Interaction with Pagination").
    if (params?.cursor !== undefined && isInvalidParams(error)) cache?.forgetList(method);
    throw error;
  }
  if (store !== undefined && typeof result === 'object' && result !== null && !Array.isArray(result)) await store(result as Params, params);
  return result;
}
