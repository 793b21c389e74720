/**
 * Discovery of an MCP server's authorization: its protected resource metadata (RFC 9728) from the challenge's
 * `resource_metadata` or the two well-known forms, then its authorization server's metadata (RFC 8414 or OpenID
 * Connect Discovery) in the order the spec gives, each document checked before anything in it is used.
 *
 * @see MCP 2025-11-25 basic/authorization.mdx "Authorization Server Discovery"
 * @see MCP 2026-07-28 basic/authorization/authorization-server-discovery.mdx
 */
import { parseJson } from '@switchboard/jsonrpc';
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import {
  authorizationServerMetadataUrls,
  authorizationServerUrlProblem,
  protectedResourceMetadataUrls,
  readAuthorizationServerMetadata,
  readProtectedResourceMetadata,
  resourceCovers,
  type AuthorizationServerMetadata,
  type ProtectedResourceMetadata,
} from '../../../../protocol/auth/metadata.js';
import { readBoundedText } from '../../boundedBody.js';
import { fetchFailure, isStaleSocket, type FetchLike } from '../clientHttp.js';

/** Bound (bytes) of one metadata document or token endpoint answer read: 256 KiB. */
export const MAX_OAUTH_DOCUMENT_BYTES = 256 * 1024;

/** How the OAuth client calls authorization servers and metadata endpoints. */
export interface OAuthHttp {
  readonly fetch: FetchLike;
  /** Bound (ms) of each call. */
  readonly timeoutMs: number;
}

/** A JSON answer: its status and parsed body (`undefined` when the body is not JSON). */
export interface JsonAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/**
 * One HTTP call whose answer is JSON, bounded in time and size; redirects are not followed (`redirect: 'manual'`:
 * a 3xx is an answer like any other).
 * @throws AuthorizationError (`reason`) when the call fails at the transport level
 */
export async function callJson(http: OAuthHttp, call: { readonly url: URL; readonly init: RequestInit; readonly reason: string }): Promise<JsonAnswer> {
  const { url, init, reason } = call;
  const signal = AbortSignal.timeout(http.timeoutMs);
  let response: Response | undefined;
  for (let attempt = 0; response === undefined; attempt++) {
    try {
      response = await http.fetch(url, { ...init, redirect: 'manual', signal });
    } catch (error) {
      // A kept-alive connection the server closed as the request went out (seen on a loaded machine: the
      // authorization server's idle timeout) carried nothing: sent once more on a fresh one.
      if (attempt === 0 && !signal.aborted && isStaleSocket(error)) continue;
      throw new AuthorizationError({ reason, message: `${init.method ?? 'GET'} ${url.href} failed: ${fetchFailure(error)}`, cause: error });
    }
  }
  let text: string;
  try {
    text = (await readBoundedText(response, MAX_OAUTH_DOCUMENT_BYTES)).text;
  } catch (error) {
    throw new AuthorizationError({ reason, message: `reading the answer of ${url.href} failed: ${fetchFailure(error)}`, cause: error });
  }
  const parsed = text.trim() === '' ? undefined : parseJson(text);
  return { status: response.status, headers: response.headers, body: parsed?.ok === true ? parsed.value : undefined };
}

/** Protected resource metadata and where it came from. */
export interface DiscoveredResource {
  readonly metadata: ProtectedResourceMetadata;
  readonly url: URL;
}

/**
 * Fetches the protected resource metadata of `serverUrl`: from `resourceMetadataUrl` (the challenge's
 * `resource_metadata`) when given, else the path-inserted well-known URL, then the root one. The document's
 * `resource` must cover the server (same origin, its path or a parent of it) — MCP 2026-07-28
 * basic/authorization/authorization-server-discovery.mdx: the client MUST check it and refuse otherwise.
 * @returns `undefined` when no well-known URL answered a document (a 2025-03-26 server, authorized at its origin)
 * @throws AuthorizationError `resource_mismatch` when the document names another resource; `discovery` when the
 *   challenge's URL does not answer a valid document
 */
export async function discoverResource(http: OAuthHttp, serverUrl: URL, resourceMetadataUrl: string | undefined): Promise<DiscoveredResource | undefined> {
  let candidates: URL[];
  if (resourceMetadataUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(resourceMetadataUrl, serverUrl);
    } catch {
      throw new AuthorizationError({ reason: 'discovery', message: `the challenge's resource_metadata "${resourceMetadataUrl.slice(0, 200)}" is not a URL` });
    }
    candidates = [url];
  } else {
    candidates = protectedResourceMetadataUrls(serverUrl);
  }
  for (const url of candidates) {
    const answer = await callJson(http, { url, init: { method: 'GET', headers: { Accept: 'application/json' } }, reason: 'discovery' });
    if (answer.status < 200 || answer.status > 299) {
      if (resourceMetadataUrl !== undefined) throw new AuthorizationError({ reason: 'discovery', message: `${url.href} answered HTTP ${answer.status}` });
      continue;
    }
    const metadata = readProtectedResourceMetadata(answer.body);
    if (typeof metadata === 'string') {
      if (resourceMetadataUrl !== undefined) throw new AuthorizationError({ reason: 'discovery', message: `${url.href}: ${metadata}` });
      continue;
    }
    if (!resourceCovers(metadata.resource, serverUrl)) {
      throw new AuthorizationError({
        reason: 'resource_mismatch',
        message: `the protected resource metadata at ${url.href} is for "${metadata.resource.slice(0, 200)}", not for ${serverUrl.href}; no token is requested for it (RFC 9728 §3.3)`,
      });
    }
    return { metadata, url };
  }
  return undefined;
}

/**
 * The endpoint fields of authorization server metadata checked by {@link discoverAuthorizationServer}: every string
 * field named `…_endpoint` (RFC 8414 §2 and its extensions: authorization, token, registration, revocation,
 * introspection, pushed authorization requests, device authorization, OpenID userinfo and end session) and
 * `jwks_uri`. The `authorization_endpoint` is checked here too, so the `authorize` callback (a browser, `xdg-open`)
 * is only ever handed an https (or loopback http) URL — never `file:` or `javascript:`.
 */
function endpointFields(metadata: AuthorizationServerMetadata): [string, string][] {
  return Object.entries(metadata).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && (entry[0] === 'jwks_uri' || entry[0].endsWith('_endpoint')));
}

/**
 * Refuses an authorization server URL that is not https (loopback http excepted): MCP 2025-11-25
 * basic/authorization.mdx "Communication Security": "All authorization server endpoints MUST be served over HTTPS"
 * (OAuth 2.1 §1.5). Checked before anything is sent to it — registration, a PKCE verifier or a refresh token.
 * @throws AuthorizationError `insecure_endpoint`
 */
function requireSecure(what: string, value: string): void {
  const problem = authorizationServerUrlProblem(value);
  if (problem !== undefined) throw new AuthorizationError({ reason: 'insecure_endpoint', message: `${what} "${value.slice(0, 200)}" ${problem}; nothing is sent to it` });
}

/**
 * Fetches an authorization server's metadata from the well-known URLs built from its issuer identifier, in the
 * spec's order, and checks it: the issuer and every endpoint https, or http on a loopback host (MCP 2025-11-25
 * basic/authorization.mdx "Communication Security"), `issuer` identical to the identifier the URL was built from
 * (RFC 8414 §3.3), and PKCE `S256` in `code_challenge_methods_supported` (MCP 2025-11-25 basic/authorization.mdx
 * "Authorization Code Protection": "MCP clients MUST verify PKCE support ... If code_challenge_methods_supported is
 * absent, the authorization server does not support PKCE and MCP clients MUST refuse to proceed") when `requirePkce`.
 * @throws AuthorizationError `insecure_endpoint` (the issuer, before any request, or an endpoint), `discovery` (no
 *   document), `issuer_mismatch`, `pkce_unsupported`
 */
export async function discoverAuthorizationServer(http: OAuthHttp, issuer: string, requirePkce: boolean): Promise<AuthorizationServerMetadata> {
  let urls: { readonly url: URL; readonly openid: boolean }[];
  try {
    urls = authorizationServerMetadataUrls(issuer);
  } catch {
    throw new AuthorizationError({ reason: 'discovery', message: `the authorization server "${issuer.slice(0, 200)}" is not a URL` });
  }
  requireSecure('the authorization server', issuer);
  for (const { url } of urls) {
    const answer = await callJson(http, { url, init: { method: 'GET', headers: { Accept: 'application/json' } }, reason: 'discovery' });
    if (answer.status < 200 || answer.status > 299) continue;
    const metadata = readAuthorizationServerMetadata(answer.body);
    if (typeof metadata === 'string') continue;
    if (metadata.issuer !== issuer) {
      throw new AuthorizationError({
        reason: 'issuer_mismatch',
        message: `the metadata at ${url.href} names the issuer "${metadata.issuer.slice(0, 200)}", not "${issuer.slice(0, 200)}" (RFC 8414 §3.3: they MUST be identical)`,
      });
    }
    for (const [field, value] of endpointFields(metadata)) requireSecure(`the ${field} of ${issuer.slice(0, 200)}`, value);
    if (requirePkce && !(metadata.code_challenge_methods_supported ?? []).includes('S256')) {
      throw new AuthorizationError({ reason: 'pkce_unsupported', message: `the authorization server ${issuer} does not list S256 in code_challenge_methods_supported, so MCP clients refuse to proceed` });
    }
    return metadata;
  }
  throw new AuthorizationError({ reason: 'discovery', message: `no authorization server metadata at ${urls.map((u) => u.url.href).join(', ')}` });
}
