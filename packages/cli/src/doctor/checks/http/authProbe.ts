/**
 * What the auth checks share: the Bearer challenge read from `WWW-Authenticate`, the well-known URLs of
 * protected-resource metadata (RFC 9728) and of authorization-server metadata (RFC 8414, OpenID Connect Discovery)
 * in the order MCP clients try them, which hosts the doctor may reach, and a bounded JSON fetch without the
 * target's credentials.
 */
import type { CheckContext, HttpProbeResponse } from '../../types.js';

/** A `ping`: it changes nothing on any server. */
export const AUTH_PING = { jsonrpc: '2.0', id: 'auth-1', method: 'ping' } as const;

/** The most a metadata probe waits, ms (the request budget when lower). */
const METADATA_TIMEOUT_MS = 5000;

/** The headers of a probe that sends none of the target's own (its credentials stay with its host). */
function withoutTargetHeaders(ctx: CheckContext, asked: Readonly<Record<string, string>>): Record<string, string | null> {
  const headers: Record<string, string | null> = {};
  if (ctx.target.transport === 'http') for (const name of Object.keys(ctx.target.headers ?? {})) headers[name] = null;
  headers.authorization = null;
  return { ...headers, ...asked };
}

/** An `initialize` (2025-11-25), for a session server that refuses a `ping` outside a session. */
export const AUTH_INITIALIZE = {
  jsonrpc: '2.0',
  id: 'auth-2',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'switchboard-doctor', version: '0' } },
} as const;

/** POSTs one JSON-RPC message with `authorization` as the only credential (`undefined`: none). */
export function postMessage(ctx: CheckContext, message: unknown, authorization?: string): Promise<HttpProbeResponse> {
  return ctx.http({
    method: 'POST',
    headers: { ...withoutTargetHeaders(ctx, { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }), ...(authorization === undefined ? {} : { authorization }) },
    body: message,
  });
}

/** POSTs a `ping` with `authorization` as the only credential (`undefined`: none). */
export function postPing(ctx: CheckContext, authorization?: string): Promise<HttpProbeResponse> {
  return postMessage(ctx, AUTH_PING, authorization);
}

/** GETs a JSON document without credentials: the object, or why there is none. */
export async function getJsonObject(ctx: CheckContext, url: string): Promise<{ readonly doc?: Record<string, unknown>; readonly seen: string }> {
  const response = await ctx.http({ method: 'GET', url, headers: withoutTargetHeaders(ctx, { accept: 'application/json' }), timeoutMs: Math.min(ctx.requestTimeoutMs, METADATA_TIMEOUT_MS) });
  if (response.status === 0) return { seen: `no answer (${response.error ?? 'network error'})` };
  if (response.status !== 200) return { seen: `${response.status}` };
  try {
    const value = JSON.parse(response.text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { doc: value as Record<string, unknown>, seen: '200' };
  } catch {
    // Not JSON: said below.
  }
  return { seen: `200 with a body that is not a JSON object (${response.headers['content-type'] ?? 'no Content-Type'})` };
}

/**
 * The Bearer challenge of a `WWW-Authenticate` value, its parameters by lower-case name, or `undefined` when it holds
 * none (RFC 9110 §11.6.1 challenge syntax: `scheme param="value", …`; several challenges may be listed).
 */
export function bearerChallenge(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined) return undefined;
  const at = header.search(/(^|[\s,])Bearer(\s|$)/i);
  if (at === -1) return undefined;
  const rest = header.slice(at).replace(/^[\s,]*Bearer/i, '');
  const params: Record<string, string> = {};
  const param = /[\s,]*([A-Za-z0-9_!#$%&'*+.^`|~-]+)[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/y;
  for (;;) {
    // A name not followed by '=' (the next challenge's scheme) ends this one.
    const match = param.exec(rest);
    if (match === null) break;
    const [, name = '', quoted, bare] = match;
    params[name.toLowerCase()] = quoted === undefined ? (bare ?? '') : quoted.replace(/\\(.)/g, '$1');
  }
  return params;
}

/** The URL a resource is known by: no query or fragment, scheme and host lower-case, no trailing `/` on a path. */
export function canonicalResource(url: string): string {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  const text = u.href;
  return u.pathname !== '/' && text.endsWith('/') ? text.slice(0, -1) : text;
}

/**
 * The well-known URLs of a resource's metadata (RFC 9728 §3.1), in the order MCP clients try them: the
 * path-inserted form (`/.well-known/oauth-protected-resource/<path>`, only when the URL has a path), then the root.
 */
export function protectedResourceMetadataUrls(resourceUrl: string): { readonly pathInserted?: string; readonly root: string } {
  const u = new URL(resourceUrl);
  const path = u.pathname.replace(/\/+$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  return path === '' ? { root } : { pathInserted: `${root}${path}`, root };
}

/**
 * The URLs of an issuer's metadata in the order MCP 2025-11-25 ("Authorization Server Metadata Discovery") gives:
 * with a path, OAuth with the path inserted, OpenID with the path inserted, OpenID with the path appended; without
 * one, OAuth then OpenID.
 */
export function authorizationServerMetadataUrls(issuer: string): readonly string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (path === '') return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [`${u.origin}/.well-known/oauth-authorization-server${path}`, `${u.origin}/.well-known/openid-configuration${path}`, `${u.origin}${path}/.well-known/openid-configuration`];
}

/** A host name that is loopback, private, link-local or unnamed (no one else's server). */
function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '::' || h.startsWith('fe80:') || /^f[cd][0-9a-f]{2}:/.test(h)) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (v4 === null) return false;
  const [a, b] = [Number(v4[1]), Number(v4[2])];
  return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/**
 * Whether the doctor may send a request to `url` for a target at `targetUrl`: the host the user named (any
 * scheme), or another host over `https` that is not a loopback, private or link-local address (a server's metadata
 * must not make the doctor probe the user's own network). `undefined` when it may; otherwise why not.
 */
export function refusedHost(targetUrl: string, url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return `"${url}" is not an http(s) URL`;
  if (u.hostname.toLowerCase() === new URL(targetUrl).hostname.toLowerCase()) return undefined;
  if (u.protocol !== 'https:') return `${u.host} is another host than the server's and is not reached over https`;
  if (isLocalHost(u.hostname)) return `${u.host} is another host than the server's and a local or private address`;
  return undefined;
}
