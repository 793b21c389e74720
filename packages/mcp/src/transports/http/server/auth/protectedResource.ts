/**
 * This server as a protected resource: its canonical URI (RFC 8707 §2), the audience rule a token must meet, and its
 * protected resource metadata (RFC 9728) at both well-known forms MCP clients try — path-inserted
 * (`/.well-known/oauth-protected-resource/mcp`) and root (`/.well-known/oauth-protected-resource`) — each naming the
 * path-aware `resource` (RFC 9728 §3.3: the `resource` "MUST be identical to the protected resource's resource
 * identifier value into which the well-known URI path suffix was inserted"; strict clients refuse another).
 *
 * @see MCP 2026-07-28 basic/authorization/authorization-server-discovery.mdx "Protected Resource Metadata Discovery
 *   Requirements"; MCP 2025-11-25 basic/authorization.mdx "Authorization Server Location"
 */
import type { HttpInput, HttpOutput } from '../inputOutput.js';
import { HttpStatus } from '../refusals.js';

/** RFC 9728 §3: the well-known URI suffix of protected resource metadata. */
export const RESOURCE_METADATA_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The canonical form of a resource URI for comparison: scheme and host lower case, the default port elided (the
 * URL parser does both), no trailing slash on a path, no fragment. `undefined` for a value that is not an absolute
 * http(s) URL (an audience such as a client id, compared as it is).
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Canonical Server URI": lowercase scheme and host, and
 *   implementations "SHOULD accept uppercase scheme and host components"; the form "without the trailing slash"
 */
export function canonicalResource(value: string): string | undefined {
  if (!/^https?:\/\//i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}${url.search}`;
}

/**
 * Whether a token whose audiences are `audience` may be used here: one of them is this resource (compared in
 * canonical form) or, exactly, one of `allowed`.
 * @see RFC 8707 §2; MCP 2026-07-28 basic/authorization/index.mdx "Token Handling": servers "MUST validate that
 *   access tokens were issued specifically for them as the intended audience"
 */
export function audienceAccepted(audience: readonly string[], resource: string, allowed: readonly string[]): boolean {
  for (const aud of audience) {
    if (typeof aud !== 'string') continue;
    if (allowed.includes(aud)) return true;
    const canonical = canonicalResource(aud);
    if (canonical !== undefined && canonical === resource) return true;
  }
  return false;
}

/** The two well-known paths of the metadata of a resource whose URI has path `resourcePath` (`''` at the root). */
export function resourceMetadataPaths(resourcePath: string): readonly string[] {
  const path = resourcePath.replace(/\/+$/, '');
  return path === '' ? [RESOURCE_METADATA_WELL_KNOWN] : [`${RESOURCE_METADATA_WELL_KNOWN}${path}`, RESOURCE_METADATA_WELL_KNOWN];
}

/**
 * The URL of the metadata of `resource` (its path-inserted form: RFC 9728 §3.1), for the `resource_metadata` of a
 * challenge.
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${resourceMetadataPaths(url.pathname)[0] as string}`;
}

/** The protected resource metadata document (RFC 9728 §2) this server serves. */
export interface ResourceMetadataDocument {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  /** RFC 9728 §2: how the token is presented; MCP allows only the header (tokens "MUST NOT" be in the query). */
  readonly bearer_methods_supported: readonly string[];
  readonly [field: string]: unknown;
}

/** What the metadata document is made of. */
export interface ResourceMetadataSource {
  readonly authorizationServers: readonly string[];
  readonly scopesSupported: readonly string[] | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** With DPoP accepted: its algorithms and whether every token must be DPoP-bound. */
  readonly dpop?: { readonly algorithms: readonly string[]; readonly required: boolean } | undefined;
}

/** The metadata document of `resource`. */
export function resourceMetadataDocument(resource: string, source: ResourceMetadataSource): ResourceMetadataDocument {
  const doc: Record<string, unknown> = { ...source.metadata };
  doc.resource = resource;
  doc.authorization_servers = source.authorizationServers;
  if (source.scopesSupported !== undefined && source.scopesSupported.length > 0) doc.scopes_supported = source.scopesSupported;
  doc.bearer_methods_supported = ['header'];
  // RFC 9728 §2: `dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`.
  if (source.dpop !== undefined) {
    doc.dpop_signing_alg_values_supported = source.dpop.algorithms;
    doc.dpop_bound_access_tokens_required = source.dpop.required;
  }
  return doc as ResourceMetadataDocument;
}

/**
 * The metadata is public and read by browser-based clients from other origins: any origin may read it (no
 * credentials are involved), as authorization server metadata commonly allows.
 */
const METADATA_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'cache-control': 'max-age=300',
  'access-control-allow-origin': '*',
});

/**
 * The answer to a request for the metadata: GET and HEAD get the document (RFC 9728 §3.1: "using the HTTP GET
 * method"), OPTIONS a CORS preflight answer, anything else 405.
 */
export function resourceMetadataOutput(input: HttpInput, document: ResourceMetadataDocument): HttpOutput {
  const method = input.method;
  if (method === 'GET' || method === 'HEAD') {
    return { status: HttpStatus.Ok, headers: METADATA_HEADERS, body: method === 'GET' ? JSON.stringify(document) : undefined };
  }
  if (method === 'OPTIONS') {
    return {
      status: 204,
      headers: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-max-age': '7200' },
    };
  }
  return { status: HttpStatus.MethodNotAllowed, headers: { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD, OPTIONS' }, body: 'Method Not Allowed' };
}
