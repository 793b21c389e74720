/**
 * The metadata documents of MCP authorization: protected resource metadata (RFC 9728) and authorization server
 * metadata (RFC 8414, or OpenID Connect Discovery 1.0), their well-known URLs in the order the spec gives, and the
 * canonical resource URI (RFC 8707). Runtime-neutral: types, URL arithmetic and shape checks, no I/O.
 *
 * @see MCP 2025-11-25 basic/authorization.mdx "Authorization Server Discovery", "Resource Parameter Implementation"
 * @see MCP 2026-07-28 basic/authorization/authorization-server-discovery.mdx
 */

/** Protected resource metadata (RFC 9728 §2), the fields MCP reads; others are kept as they are. */
export interface ProtectedResourceMetadata {
  /** The resource identifier (RFC 9728 §2: REQUIRED). */
  readonly resource: string;
  /** Issuer identifiers of the authorization servers (MCP: MUST hold at least one). */
  readonly authorization_servers?: readonly string[];
  /** The scopes this resource uses. */
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported?: readonly string[];
  readonly resource_name?: string;
  readonly [field: string]: unknown;
}

/** Authorization server metadata (RFC 8414 §2 and OpenID Connect Discovery §3), the fields MCP reads. */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint?: string;
  readonly token_endpoint?: string;
  readonly registration_endpoint?: string;
  readonly scopes_supported?: readonly string[];
  readonly response_types_supported?: readonly string[];
  readonly grant_types_supported?: readonly string[];
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  readonly token_endpoint_auth_signing_alg_values_supported?: readonly string[];
  readonly code_challenge_methods_supported?: readonly string[];
  /** RFC 9207 §3: the AS sends `iss` in authorization responses. */
  readonly authorization_response_iss_parameter_supported?: boolean;
  /** Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): URL client ids accepted. */
  readonly client_id_metadata_document_supported?: boolean;
  /** RFC 9449 §5.1: the JWS algorithms the AS accepts in DPoP proofs. */
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly [field: string]: unknown;
}

const PRM_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The protected resource metadata URLs of an MCP server, in the order a client tries them when the 401 carried no
 * `resource_metadata`: the path-inserted form, then the root form (MCP 2025-11-25 basic/authorization.mdx "Protected
 * Resource Metadata Discovery Requirements": "clients MUST ... try ... path component ... then root"). An endpoint at
 * the root has one URL.
 */
export function protectedResourceMetadataUrls(serverUrl: string | URL): URL[] {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const root = new URL(PRM_WELL_KNOWN, url.origin);
  return path === '' ? [root] : [new URL(`${PRM_WELL_KNOWN}${path}`, url.origin), root];
}

/**
 * The metadata URLs of an authorization server, in the order MCP gives (2025-11-25 basic/authorization.mdx
 * "Authorization Server Metadata Discovery"): for an issuer with a path, OAuth 2.0 AS metadata with path insertion,
 * then OpenID Connect Discovery with path insertion, then OpenID Connect Discovery with the path appended; for an
 * issuer without a path, OAuth 2.0 AS metadata, then OpenID Connect Discovery.
 * @returns Each URL with whether it is the OpenID form.
 */
export function authorizationServerMetadataUrls(issuer: string | URL): { readonly url: URL; readonly openid: boolean }[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [
      { url: new URL('/.well-known/oauth-authorization-server', url.origin), openid: false },
      { url: new URL('/.well-known/openid-configuration', url.origin), openid: true },
    ];
  }
  return [
    { url: new URL(`/.well-known/oauth-authorization-server${path}`, url.origin), openid: false },
    { url: new URL(`/.well-known/openid-configuration${path}`, url.origin), openid: true },
    { url: new URL(`${path}/.well-known/openid-configuration`, url.origin), openid: true },
  ];
}

/**
 * The canonical URI of an MCP server as the RFC 8707 `resource`: scheme and host lower-case (the URL parser does
 * that), no fragment, no query, no trailing slash on a path (MCP 2025-11-25 basic/authorization.mdx "Canonical
 * Server URI").
 */
export function canonicalResourceUri(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

/**
 * Whether protected resource metadata's `resource` covers the server the client talks to: same origin, and its path
 * is the server's path or a parent of it on a `/` boundary (RFC 9728 §3.3: "the resource value returned MUST be
 * identical to the protected resource's resource identifier value into which the well-known URI path suffix was
 * inserted"; §7.3 on impersonation — a client MUST NOT use metadata naming another resource).
 */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  let declared: URL;
  try {
    declared = new URL(resource);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (declared.origin !== server.origin || declared.hash !== '') return false;
  const base = declared.pathname.replace(/\/+$/, '');
  const path = server.pathname.replace(/\/+$/, '');
  return path === base || path.startsWith(`${base}/`);
}

/**
 * Whether `host` (a parsed URL's `hostname`) names the loopback interface: `localhost`, an IPv4 address in
 * 127.0.0.0/8, or `[::1]`. The WHATWG URL parser has already turned every IPv4 spelling into dotted decimal and
 * treats a host ending in a number as an address, so `127.0.0.1.evil.example` is a domain name here, not loopback.
 */
function isLoopbackHostname(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * What is wrong with a URL of an authorization server (its issuer identifier or an endpoint of its metadata) for an
 * MCP client to use, or `undefined` when it may be used: it must be `https`, or `http` on a loopback host (a local
 * authorization server, the way RFC 8252 §7.3 lets a native client's redirect use loopback http). MCP 2025-11-25
 * basic/authorization.mdx "Security Considerations" › "Communication Security" (2026-07-28
 * basic/authorization/security-considerations.mdx, same words): "All authorization server endpoints MUST be served
 * over HTTPS", following OAuth 2.1 §1.5 "Communication Security". `file:`, `javascript:` and every other scheme are
 * refused.
 * @param value - The URL as the document gave it.
 * @returns A sentence saying what is wrong, or `undefined`.
 */
export function authorizationServerUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHostname(url.hostname) ? undefined : 'is plain http on a host that is not loopback (authorization server endpoints MUST be https)';
  return `has the scheme "${url.protocol.slice(0, -1).slice(0, 40)}" (authorization server endpoints MUST be https)`;
}

/** Whether a value is a JSON object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * Checks the shape of a protected resource metadata document (RFC 9728 §2: `resource` is REQUIRED; the listed
 * arrays are arrays of strings).
 * @returns The document, or a sentence saying what is wrong.
 */
export function readProtectedResourceMetadata(value: unknown): ProtectedResourceMetadata | string {
  if (!isObject(value)) return 'the document is not a JSON object';
  if (typeof value.resource !== 'string') return 'the document has no "resource" string';
  for (const key of ['authorization_servers', 'scopes_supported'] as const) {
    if (value[key] !== undefined && !stringArray(value[key])) return `"${key}" is not an array of strings`;
  }
  return value as ProtectedResourceMetadata;
}

/**
 * Checks the shape of an authorization server metadata document (RFC 8414 §2: `issuer` REQUIRED; endpoints are
 * strings; the `…_supported` lists are arrays of strings).
 * @returns The document, or a sentence saying what is wrong.
 */
export function readAuthorizationServerMetadata(value: unknown): AuthorizationServerMetadata | string {
  if (!isObject(value)) return 'the document is not a JSON object';
  if (typeof value.issuer !== 'string') return 'the document has no "issuer" string';
  for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') return `"${key}" is not a string`;
  }
  for (const key of ['scopes_supported', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'code_challenge_methods_supported'] as const) {
    if (value[key] !== undefined && !stringArray(value[key])) return `"${key}" is not an array of strings`;
  }
  return value as AuthorizationServerMetadata;
}
