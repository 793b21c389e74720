/**
 * CORS for browser MCP clients on the origins a handler allows (`allowedOrigins`): the preflight answer and the
 * headers of actual answers. Pure header logic; the handler decides which requests it applies to.
 *
 * A browser page on another origin sends an MCP request (a POST with `Content-Type: application/json` and MCP
 * headers) only after a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) whose answer allows
 * its method and headers, and its script reads only the answer headers listed in `Access-Control-Expose-Headers`:
 * without `Mcp-Session-Id` there, every request after `initialize` goes out with no session id (400).
 *
 * Origin validation stays the handler's (MCP 2025-11-25 basic/transports.mdx "Security Warning": servers MUST
 * validate `Origin`, an invalid one ⇒ 403): CORS only tells the browser that a page the server already accepts
 * may read the answer. `Access-Control-Allow-Origin` always echoes that one origin, never `*`.
 *
 * @see Fetch standard "CORS protocol" (https://fetch.spec.whatwg.org/#http-cors-protocol): "HTTP requests" (the
 *   preflight), "HTTP responses", "CORS protocol and HTTP caches" (`Vary: Origin`, #cors-protocol-and-http-caches)
 */
import type { HttpInput, HttpOutput } from './inputOutput.js';

/** Default {@link McpCorsOptions.maxAgeSeconds}: 2 hours (the most Chromium caches a preflight for). */
export const DEFAULT_CORS_MAX_AGE_SECONDS = 7200;

/** The `cors` option of the MCP HTTP handler. */
export interface McpCorsOptions {
  /**
   * `Access-Control-Max-Age` of preflight answers, in seconds: how long a browser may reuse one (browsers cap it:
   * Chromium at 7200, Firefox at 86400). @default 7200
   */
  readonly maxAgeSeconds?: number;
  /**
   * Send `Access-Control-Allow-Credentials: true`, so pages may call with `credentials: 'include'` (cookies, HTTP
   * authentication). Not needed for a bearer token in `Authorization`, which is an ordinary request header.
   * @default false
   */
  readonly allowCredentials?: boolean;
  /** Request header names allowed besides the MCP ones (e.g. `['X-Api-Key']`). @default [] */
  readonly allowHeaders?: readonly string[];
  /** Answer header names exposed to page scripts besides the MCP ones. @default [] */
  readonly exposeHeaders?: readonly string[];
}

/**
 * The request headers an MCP client sends beyond the CORS-safelisted ones (lower case, as a browser lists them in
 * `Access-Control-Request-Headers`): MCP 2025-11-25 basic/transports.mdx (`Mcp-Session-Id`, `MCP-Protocol-Version`,
 * `Last-Event-ID` on a resuming GET), MCP 2026-07-28 streamable-http.mdx (`Mcp-Method`, `Mcp-Name`, and
 * `Mcp-Param-{Name}` below), `Authorization` (MCP 2025-06-18 basic/authorization.mdx), `DPoP` (RFC 9449 §4.1: the
 * proof of a DPoP-bound token, the handler's `auth.dpop`), and `Content-Type` and
 * `Accept` whenever their values are not safelisted (Fetch #cors-safelisted-request-header).
 */
export const MCP_REQUEST_HEADERS: readonly string[] = Object.freeze([
  'accept',
  'authorization',
  'content-type',
  'dpop',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
]);

/** MCP 2026-07-28 streamable-http.mdx: `Mcp-Param-{Name}` carries an `x-mcp-header` argument; any name may follow. */
const PARAM_HEADER_PREFIX = 'mcp-param-';

/**
 * The answer headers an MCP client reads: `Mcp-Session-Id` (the session of an `initialize` answer),
 * `MCP-Protocol-Version`, `WWW-Authenticate` (an authorization challenge, MCP 2025-06-18 basic/authorization.mdx)
 * and `Retry-After` (a 429 or 503). `Content-Type` is safelisted and needs no listing (Fetch #cors-safelisted-response-header-name).
 */
export const MCP_EXPOSED_HEADERS: readonly string[] = Object.freeze(['Mcp-Session-Id', 'MCP-Protocol-Version', 'WWW-Authenticate', 'Retry-After']);

/** RFC 9110 §5.1 field-name = token (§5.6.2). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;

/** Whether `name` is an HTTP field name (RFC 9110 §5.1), the form `cors.allowHeaders` and `exposeHeaders` take. */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

/**
 * The names of `Access-Control-Request-Headers` (a comma-separated list, Fetch "HTTP requests") that the policy allows, in
 * lower case and request order, once each: the MCP request headers, any `mcp-param-*` name, and `extra` (lower
 * case). Names that are not tokens are dropped, so nothing the client wrote lands in an answer header unchecked.
 */
export function allowedRequestHeaders(requested: string | undefined, extra: ReadonlySet<string> = new Set()): string[] {
  if (requested === undefined) return [];
  const out = new Set<string>();
  for (const item of requested.split(',')) {
    const name = item.trim().toLowerCase();
    if (!TOKEN.test(name)) continue;
    const allowed = MCP_REQUEST_HEADERS.includes(name) || (name.startsWith(PARAM_HEADER_PREFIX) && name.length > PARAM_HEADER_PREFIX.length) || extra.has(name);
    if (allowed) out.add(name);
  }
  return [...out];
}

/** Whether an `Origin` value is `null`, the serialization of an opaque origin (RFC 6454 §7.1). */
export function isOpaqueOrigin(origin: string): boolean {
  return origin.trim().toLowerCase() === 'null';
}

/** An answer without a body (Fetch "HTTP responses": a preflight answer has an ok status, 204 here). */
const NO_CONTENT = 204;

/** {@link CorsPolicy} settings: {@link McpCorsOptions} with every default applied. */
export interface CorsSettings {
  readonly maxAgeSeconds: number;
  readonly allowCredentials: boolean;
  readonly allowHeaders: readonly string[];
  readonly exposeHeaders: readonly string[];
}

/** The settings of {@link McpCorsOptions} with their defaults. */
export function corsSettings(options: McpCorsOptions | true): CorsSettings {
  const o = options === true ? {} : options;
  return {
    maxAgeSeconds: o.maxAgeSeconds ?? DEFAULT_CORS_MAX_AGE_SECONDS,
    allowCredentials: o.allowCredentials ?? false,
    allowHeaders: o.allowHeaders ?? [],
    exposeHeaders: o.exposeHeaders ?? [],
  };
}

/** The CORS answers of one handler, for origins it has already found allowed. */
export class CorsPolicy {
  readonly #maxAge: string;
  readonly #credentials: boolean;
  readonly #extraRequest: ReadonlySet<string>;
  readonly #expose: string;

  constructor(settings: CorsSettings) {
    this.#maxAge = String(settings.maxAgeSeconds);
    this.#credentials = settings.allowCredentials;
    this.#extraRequest = new Set(settings.allowHeaders.map((name) => name.toLowerCase()));
    const expose = [...MCP_EXPOSED_HEADERS];
    for (const name of settings.exposeHeaders) if (!expose.some((e) => e.toLowerCase() === name.toLowerCase())) expose.push(name);
    this.#expose = expose.join(', ');
  }

  /** Whether `input` is a CORS preflight (Fetch §3.2.2: `OPTIONS` with `Origin` and `Access-Control-Request-Method`). */
  static isPreflight(input: HttpInput): boolean {
    return input.method === 'OPTIONS' && input.header('origin') !== undefined && input.header('access-control-request-method') !== undefined;
  }

  /**
   * The answer to a preflight from `origin` (allowed) for a path that serves `methods` (e.g. `GET, POST, DELETE`):
   * 204 with the origin echoed, the methods, the requested headers the policy allows, `Access-Control-Max-Age`, and
   * `Vary` on the request headers the answer depends on. A requested header not allowed is left out, and the
   * browser then refuses to send the request (Fetch #cors-preflight-fetch).
   */
  preflight(input: HttpInput, origin: string, methods: string): HttpOutput {
    const headers: Record<string, string> = {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': methods,
      'access-control-max-age': this.#maxAge,
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
    const allowed = allowedRequestHeaders(input.header('access-control-request-headers'), this.#extraRequest);
    if (allowed.length > 0) headers['access-control-allow-headers'] = allowed.join(', ');
    if (this.#credentials) headers['access-control-allow-credentials'] = 'true';
    // WICG Private Network Access (https://wicg.github.io/private-network-access/, Chromium): a public page calling a loopback server asks in the preflight,
    // and proceeds only when the answer says yes. The origin is one the server allows, so it may.
    if (input.header('access-control-request-private-network') === 'true') headers['access-control-allow-private-network'] = 'true';
    return { status: NO_CONTENT, headers };
  }

  /**
   * An actual answer with its CORS headers: for `origin` (allowed; `undefined` when the request is not a CORS one)
   * `Access-Control-Allow-Origin` echoing it and `Access-Control-Expose-Headers`; `Vary: Origin` on every answer,
   * since it differs by `Origin` (Fetch #cors-protocol-and-http-caches).
   */
  answer(output: HttpOutput, origin: string | undefined): HttpOutput {
    const headers: Record<string, string> = { ...output.headers };
    headers.vary = headers.vary === undefined ? 'Origin' : `${headers.vary}, Origin`;
    if (origin !== undefined) {
      headers['access-control-allow-origin'] = origin;
      headers['access-control-expose-headers'] = this.#expose;
      if (this.#credentials) headers['access-control-allow-credentials'] = 'true';
    }
    return { ...output, headers };
  }
}
