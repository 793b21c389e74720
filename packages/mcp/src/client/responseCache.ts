/**
 * The client's response cache for the 2026-07-28 cacheable results: `server/discover`, the four lists and
 * `resources/read` carry `ttlMs` (how long the result stays fresh) and `cacheScope` (`public`: any cache may keep
 * it; `private`: only this authorization context's).
 * - A result is fresh while `now < receivedAt + ttlMs`; an absent or negative `ttlMs` is 0, and a result that is
 *   never fresh is not stored.
 * - The key is the method and the params that affect the result (everything but `_meta`: the `uri` of
 *   `resources/read`, the `cursor` of a list page), as canonical JSON, so member order does not matter.
 * - A request that carries `inputResponses` or `requestState` (a multi round-trip retry) is never answered from
 *   the cache and its result never stored, nor is an `input_required` result.
 * - Each client has its own cache (bounded, least recently used first out); a `public` result may also go to an
 *   optional {@link SharedResponseStore} several clients share, keyed by the server it came from.
 * - A list-changed notification drops the entries of its list(s); `notifications/resources/updated` drops the
 *   reads of its URI.
 * Entries are copies: what a caller does with a result never reaches the cache.
 *
 * @see MCP 2026-07-28 server/utilities/caching.mdx "Cache Key", "Time-to-Live (TTL) Field", "Cache Scope Field",
 *   "Interaction with Notifications"
 */
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import { canonicalJson } from '../protocol/digest.js';
import { CACHEABLE_METHODS } from '../protocol/methods.js';

/** Default of the response cache's `maxEntries` (`McpClientOptions.cache`). */
export const DEFAULT_CACHE_ENTRIES = 256;

/** The methods whose complete results carry caching hints, as a set (MCP 2026-07-28 server/utilities/caching.mdx). */
const CACHEABLE: ReadonlySet<string> = new Set(CACHEABLE_METHODS);

/** The lists each list-changed notification invalidates. */
const INVALIDATED_BY: Readonly<Record<string, readonly string[]>> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  // A resource list change may change what the templates resolve to; both lists are fetched again.
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

/** One cached result. */
export interface CachedResponse {
  /** The result as received (a private copy). */
  readonly result: Record<string, unknown>;
  /** When it was received, in ms since the epoch (the cache's clock). */
  readonly receivedAtMs: number;
  /** How long it stays fresh after `receivedAtMs`, in ms (> 0). */
  readonly ttlMs: number;
}

/**
 * A store of `public` results shared by several clients (a host's process-wide cache, or one a gateway keeps).
 * Keys already name the server (see {@link ResponseCacheOptions.origin}); entries hold copies. A store that
 * answers asynchronously may return promises.
 */
export interface SharedResponseStore {
  get(key: string): CachedResponse | undefined | Promise<CachedResponse | undefined>;
  set(key: string, entry: CachedResponse): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** Options of {@link ResponseCache}. */
export interface ResponseCacheOptions {
  /** Most entries this client's cache holds; the least recently used goes first. @default 256 */
  readonly maxEntries?: number;
  /**
   * The server the results come from (the connector's `verdictKey`: the command line or the endpoint URL), part of
   * every shared key so a shared store never serves one server's result for another.
   */
  readonly origin: string;
  /** Where `public` results are also kept, for other clients of the same server. @default none */
  readonly shared?: SharedResponseStore;
  /** The clock, in ms since the epoch. @default `Date.now` */
  readonly now?: () => number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `ttlMs` of a result as the client reads it: absent, negative or not a number is 0. */
export function freshnessOf(result: Readonly<Record<string, unknown>>): number {
  const ttl = result.ttlMs;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
}

/**
 * The cache key of a request, or `undefined` when the request is not answered from (nor stored in) a cache: a
 * method that is not cacheable, or a multi round-trip retry (`inputResponses` or `requestState` in its params).
 */
export function cacheKeyOf(method: string, params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!CACHEABLE.has(method)) return undefined;
  if (params === undefined) return method;
  if (params.inputResponses !== undefined || params.requestState !== undefined) return undefined;
  const { _meta: _envelope, ...affecting } = params;
  return Object.keys(affecting).length === 0 ? method : `${method} ${canonicalJson(affecting)}`;
}

function copy(result: Record<string, unknown>): Record<string, unknown> {
  return structuredClone(result);
}

/** One client's response cache (see the module comment). */
export class ResponseCache {
  readonly #maxEntries: number;
  readonly #origin: string;
  readonly #shared: SharedResponseStore | undefined;
  readonly #now: () => number;
  /** In order of last use, oldest first (a `Map` keeps insertion order; a hit is re-inserted). */
  readonly #entries = new Map<string, CachedResponse>();

  /** @throws RangeError when `maxEntries` is not a positive integer (TypeError when not a number) */
  constructor(options: ResponseCacheOptions) {
    this.#maxEntries = checkCountOption('maxEntries', options.maxEntries ?? DEFAULT_CACHE_ENTRIES);
    this.#origin = options.origin;
    this.#shared = options.shared;
    this.#now = options.now ?? Date.now;
  }

  /** Entries held by this client's own cache (fresh or not yet evicted). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * A fresh result for the request, as a copy; `undefined` when there is none (or the request is never answered
   * from a cache). Looks in this client's cache, then in the shared store.
   */
  async get(method: string, params: Readonly<Record<string, unknown>> | undefined): Promise<Record<string, unknown> | undefined> {
    const key = cacheKeyOf(method, params);
    if (key === undefined) return undefined;
    const now = this.#now();
    const own = this.#entries.get(key);
    if (own !== undefined) {
      this.#entries.delete(key);
      if (now < own.receivedAtMs + own.ttlMs) {
        this.#entries.set(key, own);
        return copy(own.result);
      }
    }
    if (this.#shared === undefined) return undefined;
    const shared = await this.#shared.get(this.#sharedKey(key));
    if (shared === undefined || !(now < shared.receivedAtMs + shared.ttlMs)) return undefined;
    return copy(shared.result);
  }

  /**
   * Keeps `result` if it may be cached: a complete result of a cacheable request with `ttlMs` > 0; a `public`
   * one also goes to the shared store. Anything else is ignored.
   */
  async store(method: string, params: Readonly<Record<string, unknown>> | undefined, result: unknown): Promise<void> {
    if (!isRecord(result)) return;
    const key = cacheKeyOf(method, params);
    if (key === undefined) return;
    const resultType = result.resultType;
    // MCP 2026-07-28 server/utilities/caching.mdx: only "complete" results carry hints; input_required never.
    if (resultType !== undefined && resultType !== 'complete') return;
    const ttlMs = freshnessOf(result);
    if (ttlMs === 0) {
      this.#entries.delete(key);
      return;
    }
    const entry: CachedResponse = Object.freeze({ result: copy(result), receivedAtMs: this.#now(), ttlMs });
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    // "private" (the default when the server omits it) never leaves this client.
    if (result.cacheScope === 'public' && this.#shared !== undefined) await this.#shared.set(this.#sharedKey(key), entry);
  }

  /**
   * A server notification arrived: a list-changed one drops that list's pages, `notifications/resources/updated`
   * drops the reads of its `uri` (here and in the shared store). Other notifications change nothing.
   */
  async invalidate(notification: string, params: unknown): Promise<void> {
    const lists = INVALIDATED_BY[notification];
    const doomed: string[] = [];
    if (lists !== undefined) {
      for (const key of this.#entries.keys()) if (lists.includes(methodOf(key))) doomed.push(key);
      for (const key of doomed) this.#entries.delete(key);
      // Only the first page's key is known without the cursors; the other pages of the shared store age out.
      if (this.#shared !== undefined) for (const list of lists) await this.#shared.delete(this.#sharedKey(list));
    } else if (notification === 'notifications/resources/updated' && isRecord(params) && typeof params.uri === 'string') {
      const key = cacheKeyOf('resources/read', { uri: params.uri }) as string;
      this.#entries.delete(key);
      if (this.#shared !== undefined) await this.#shared.delete(this.#sharedKey(key));
    } else {
      return;
    }
    if (this.#shared === undefined) return;
    // Shared pages this client read are known by their own keys: drop those too.
    for (const key of doomed) await this.#shared.delete(this.#sharedKey(key));
  }

  /**
   * Forgets every page of `list` in this client's cache: a cursor the server no longer takes means the pages read
   * before may be gone too (MCP 2026-07-28 server/utilities/caching.mdx "Interaction with Pagination").
   */
  forgetList(list: string): void {
    for (const key of [...this.#entries.keys()]) if (methodOf(key) === list) this.#entries.delete(key);
  }

  /** Forgets every entry of this client's cache (the shared store is left alone). */
  clear(): void {
    this.#entries.clear();
  }

  #sharedKey(key: string): string {
    return `${this.#origin}\n${key}`;
  }
}

function methodOf(key: string): string {
  const space = key.indexOf(' ');
  return space === -1 ? key : key.slice(0, space);
}
