/**
 * The JWK Set URL of an authorization server found from its issuer identifier, so `jwtVerifier({ issuer })` needs
 * nothing else: its metadata is read at the well-known URLs MCP clients try, in their order — RFC 8414 OAuth 2.0
 * Authorization Server Metadata, then OpenID Connect Discovery (path-inserted, then path-appended for an issuer with
 * a path) — and its `issuer` must be exactly the one asked for (RFC 8414 §3.3), its `jwks_uri` an http(s) URL.
 * Bounded: each fetch in `timeoutMs`, at most 64 KiB read, no redirects followed.
 *
 * @see MCP 2026-07-28 basic/authorization/authorization-server-discovery.mdx "Authorization Server Metadata
 *   Discovery"; RFC 8414 §3.1, §3.3; OpenID Connect Discovery 1.0 §4
 */
import { authorizationServerMetadataUrls } from '../../../../protocol/auth/metadata.js';
import { readBoundedText } from '../../boundedBody.js';

/** The largest metadata document read, in bytes. */
const MAX_METADATA_BYTES = 64 * 1024;

/** The metadata URLs of `issuer`, in the order MCP gives. */
export function issuerMetadataUrls(issuer: string): string[] {
  return authorizationServerMetadataUrls(issuer).map((candidate) => candidate.url.href);
}

/** The metadata document's text; the body is read at most to the bound (a peer's size header may lie or be absent). */
async function readBounded(response: Response): Promise<string> {
  const { text, complete } = await readBoundedText(response, MAX_METADATA_BYTES);
  if (!complete) throw new Error(`the authorization server metadata is larger than ${MAX_METADATA_BYTES} bytes`);
  return text;
}

/**
 * The `jwks_uri` of the authorization server `issuer`.
 * @throws Error when no metadata URL answers a JSON document whose `issuer` is `issuer` and whose `jwks_uri` is an
 *   http(s) URL (the verification then rejects: 503, and the next request tries again)
 */
export async function discoverJwksUri(issuer: string, io: { readonly fetch: (input: string, init: RequestInit) => Promise<Response>; readonly timeoutMs: number }): Promise<string> {
  const problems: string[] = [];
  for (const url of issuerMetadataUrls(issuer)) {
    let response: Response;
    try {
      response = await io.fetch(url, { method: 'GET', redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(io.timeoutMs) });
    } catch (error) {
      problems.push(`${url}: ${(error as Error).message}`);
      continue;
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      problems.push(`${url}: HTTP ${response.status}`);
      continue;
    }
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      doc = JSON.parse(await readBounded(response)) as { issuer?: unknown; jwks_uri?: unknown };
    } catch (error) {
      problems.push(`${url}: ${(error as Error).message}`);
      continue;
    }
    // RFC 8414 §3.3: "the issuer value returned MUST be identical to the authorization server's issuer identifier".
    if (doc?.issuer !== issuer) throw new Error(`the metadata at ${url} names another issuer`);
    if (typeof doc.jwks_uri !== 'string' || !/^https?:\/\//.test(doc.jwks_uri)) throw new Error(`the metadata at ${url} has no http(s) jwks_uri`);
    return doc.jwks_uri;
  }
  throw new Error(`no authorization server metadata found for ${issuer} (${problems.join('; ')})`);
}
