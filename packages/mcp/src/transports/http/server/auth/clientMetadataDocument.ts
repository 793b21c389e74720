/**
 * `clientMetadataFetcher`: for a server that is its own authorization server, the fetch of a Client ID Metadata
 * Document (CIMD: a client id that is an HTTPS URL naming a JSON document of the client's metadata), hardened
 * against what a URL chosen by any client can do to the server that fetches it: https only; no userinfo,
 * fragment, dot segments or root path; no private, loopback or link-local address (a literal one, a `localhost`
 * name, and — through `resolveAddresses` — what the name resolves to) unless `allowPrivateNetworks`; no redirects;
 * bounded in time and bytes; the document's `client_id` must equal the URL; answers (and failures) kept a while, so a
 * client id used in a burst costs one fetch.
 *
 * @see MCP 2026-07-28 basic/authorization/client-registration.mdx "Client ID Metadata Documents" (the AS "MUST
 *   validate" the fetched document's `client_id` and redirect URIs; SSRF care); draft-ietf-oauth-client-id-metadata-
 *   document-00 §3 (the URL), §4.1 (the document: no `client_secret`, no symmetric client authentication), §6 (SSRF)
 */
import { checkCountOption, checkMsOption } from '@switchboard/jsonrpc/internal';
import { readBoundedText } from '../../boundedBody.js';

/** Default {@link ClientMetadataFetcherOptions.timeoutMs}. */
export const DEFAULT_CIMD_TIMEOUT_MS = 5000;
/** Default {@link ClientMetadataFetcherOptions.maxBytes}: 16 KiB. */
export const DEFAULT_CIMD_MAX_BYTES = 16 * 1024;
/** Default {@link ClientMetadataFetcherOptions.cacheTtlMs}: 5 minutes. */
export const DEFAULT_CIMD_CACHE_TTL_MS = 300_000;

/** A client's metadata document, as fetched (RFC 7591 §2 fields; others kept). */
export interface FetchedClientMetadata {
  readonly client_id: string;
  readonly redirect_uris?: readonly string[];
  readonly client_name?: string;
  readonly token_endpoint_auth_method?: string;
  readonly [field: string]: unknown;
}

/** Options of {@link clientMetadataFetcher}. */
export interface ClientMetadataFetcherOptions {
  /** The `fetch` used (it must not follow redirects on its own: `redirect: 'manual'` is passed). @default globalThis.fetch */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * The addresses a host name resolves to (Node: `dns.promises.lookup(host, { all: true })`), each checked like a
   * literal address. Without it only literal addresses and `localhost` names are refused: a name that resolves to
   * a private address is then fetched.
   * @default none
   */
  readonly resolveAddresses?: (hostname: string) => Promise<readonly string[]>;
  /** Allow private, loopback and link-local addresses (a development setup). @default false */
  readonly allowPrivateNetworks?: boolean;
  /** How long a fetch may take, in ms. @default 5000 */
  readonly timeoutMs?: number;
  /** The largest document read, in bytes. @default 16384 */
  readonly maxBytes?: number;
  /** How long a document (or a failure) is kept, in ms; 0: not kept. @default 300_000 */
  readonly cacheTtlMs?: number;
  /** Documents kept at most (least recently used first out). @default 1000 */
  readonly cacheMaxEntries?: number;
}

/** A client id that cannot be used as a metadata document URL, or whose document is unusable. */
export class ClientMetadataError extends Error {
  override readonly name = 'ClientMetadataError';
}

/** Whether an IPv4 address (dotted quad) is private, loopback, link-local, CGNAT, unspecified or multicast/reserved. */
function privateIpv4(address: string): boolean {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return false;
  const [a, b] = parts as [number, number, number, number];
  return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
}

/** Whether an address (IPv4, or IPv6 without brackets) is one a fetch must not reach (RFC 6890 special-purpose ranges). */
export function isPrivateAddress(address: string): boolean {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  if (!lower.includes(':')) return privateIpv4(lower);
  if (lower === '::' || lower === '::1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped !== null) return privateIpv4(mapped[1] as string);
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast.
  return /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
}

/**
 * Why `clientId` cannot be a metadata document URL, or `undefined` (draft-ietf-oauth-client-id-metadata-document-00
 * §3: `https`, a path, no fragment, no user info, no dot segments).
 */
export function clientIdUrlProblem(clientId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'the client id is not a URL';
  }
  if (url.protocol !== 'https:') return 'the client id URL is not https';
  if (url.username !== '' || url.password !== '') return 'the client id URL holds user info';
  if (clientId.includes('#')) return 'the client id URL has a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'the client id URL has no path';
  if (/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length)) || /%2e/i.test(url.pathname)) return 'the client id URL has dot segments';
  return undefined;
}

async function boundedJson(response: Response, maxBytes: number): Promise<unknown> {
  if (response.body === null) throw new ClientMetadataError('the metadata document is empty');
  const { text, complete } = await readBoundedText(response, maxBytes);
  if (!complete) throw new ClientMetadataError(`the metadata document is larger than ${maxBytes} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ClientMetadataError('the metadata document is not JSON');
  }
}

/** Checks a fetched document (draft §4.1, MCP: `client_id` equal to the URL). */
function checkDocument(clientId: string, value: unknown): FetchedClientMetadata {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ClientMetadataError('the metadata document is not a JSON object');
  const doc = value as Record<string, unknown>;
  if (doc.client_id !== clientId) throw new ClientMetadataError('the metadata document\'s client_id is not its URL');
  if (doc.redirect_uris !== undefined && (!Array.isArray(doc.redirect_uris) || !doc.redirect_uris.every((u) => typeof u === 'string'))) {
    throw new ClientMetadataError('the metadata document\'s redirect_uris is not an array of strings');
  }
  if ('client_secret' in doc) throw new ClientMetadataError('the metadata document holds a client_secret');
  const method = doc.token_endpoint_auth_method;
  if (typeof method === 'string' && method.startsWith('client_secret_')) throw new ClientMetadataError(`the metadata document asks for ${method} (a shared secret)`);
  return doc as FetchedClientMetadata;
}

/**
 * A hardened fetcher of Client ID Metadata Documents (see the module comment). The function it returns resolves
 * the document of a URL client id, or rejects with {@link ClientMetadataError} saying why it cannot be used (a bad
 * URL, a private address, a redirect, a non-200 answer, too large, too slow, not JSON, a `client_id` other than
 * the URL).
 * @throws RangeError on a non-positive `timeoutMs` or `maxBytes`, or a negative cache setting (durations at most
 *   2^31 − 1 ms, counts whole); TypeError for a value that is no number
 * @example
 * import { lookup } from 'node:dns/promises';
 * const clientMetadata = clientMetadataFetcher({
 *   resolveAddresses: async (host) => (await lookup(host, { all: true })).map((a) => a.address),
 * });
 * const client = await clientMetadata('https://app.example.com/oauth/client.json');
 */
export function clientMetadataFetcher(options: ClientMetadataFetcherOptions = {}): (clientId: string) => Promise<FetchedClientMetadata> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CIMD_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_CIMD_MAX_BYTES;
  const ttlMs = options.cacheTtlMs ?? DEFAULT_CIMD_CACHE_TTL_MS;
  const maxEntries = options.cacheMaxEntries ?? 1000;
  checkMsOption('clientMetadataFetcher.timeoutMs', timeoutMs, { min: 1 });
  checkCountOption('clientMetadataFetcher.maxBytes', maxBytes);
  checkMsOption('clientMetadataFetcher.cacheTtlMs', ttlMs, { max: Infinity }); // compared with the clock, no timer
  checkCountOption('clientMetadataFetcher.cacheMaxEntries', maxEntries, { min: 0 });
  const cache = new Map<string, { readonly until: number; readonly result: Promise<FetchedClientMetadata> }>();
  const fetchOnce = async (clientId: string): Promise<FetchedClientMetadata> => {
    const problem = clientIdUrlProblem(clientId);
    if (problem !== undefined) throw new ClientMetadataError(problem);
    const host = new URL(clientId).hostname.replace(/^\[|\]$/g, '');
    if (options.allowPrivateNetworks !== true) {
      if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) throw new ClientMetadataError('the client id URL names a private or loopback host');
      const addresses = options.resolveAddresses === undefined ? [] : await options.resolveAddresses(host);
      if (addresses.some(isPrivateAddress)) throw new ClientMetadataError('the client id URL resolves to a private or loopback address');
    }
    const fetchImpl = options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await fetchImpl(clientId, { method: 'GET', redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    } catch {
      throw new ClientMetadataError('the metadata document could not be fetched (network or time limit)');
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new ClientMetadataError(response.status >= 300 && response.status < 400 ? 'the metadata document URL redirects (not followed)' : `the metadata document URL answered HTTP ${response.status}`);
    }
    return checkDocument(clientId, await boundedJson(response, maxBytes));
  };
  return (clientId: string) => {
    const now = Date.now();
    const kept = cache.get(clientId);
    if (kept !== undefined && kept.until > now) return kept.result;
    const result = fetchOnce(clientId);
    if (ttlMs > 0 && maxEntries > 0) {
      cache.delete(clientId);
      cache.set(clientId, { until: now + ttlMs, result });
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      // A rejection kept in the cache is observed here, so it is never an unhandled rejection.
      result.catch(() => undefined);
    }
    return result;
  };
}
