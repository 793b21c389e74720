/**
 * DNS-rebinding and cross-site protection: `Host` and `Origin` validation (pure functions).
 *
 * `Host` is checked against an allow list (loopback names by default; off when the server is bound elsewhere
 * without one). `Origin`, when a browser sends one, must be the request's own origin (scheme, host and port) or
 * listed, whatever the bind address; only an explicit `allowAnyOrigin` turns that off.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Security Warning": servers MUST validate `Origin` (invalid ⇒ 403),
 *   SHOULD bind to localhost; MCP 2026-07-28 streamable-http.mdx "Security & Endpoint"; conformance
 *   `dns-rebinding-protection` (a localhost server rejects a foreign `Host` or `Origin` with 4xx, accepts
 *   `localhost`, `127.0.0.1`, `[::1]` with any port).
 */

/** The host names a loopback server answers to by default (any port). */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Whether `host` (a bind address or host name) is a loopback name. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || h.startsWith('127.');
}

interface HostPort {
  readonly hostname: string;
  readonly port: string | undefined;
}

/**
 * The host names this guard can match, from RFC 3986 §3.2.2 `host`: an `IP-literal` (IPv6 in brackets: hex digits,
 * colons, dots) or a `reg-name`/`IPv4address` restricted to unreserved characters (letters, digits, `-`, `.`, `_`,
 * `~`). Stricter than the RFC on purpose: percent-encoding and sub-delims (`!$&'()*+,;=`) belong to no DNS name or
 * address, so a value holding them can only be an attempt to slip past the allow list.
 */
const HOST_NAME = /^(?:\[[0-9a-f:.]*:[0-9a-f:.]*\]|[a-z0-9._~-]+)$/;
/** RFC 3986 §3.2.3 `port = *DIGIT`, and a TCP port is at most 65535 (five digits, checked numerically). */
const PORT = /^[0-9]{1,5}$/;
const MAX_PORT = 65_535;

/**
 * Parses a `Host` value strictly (RFC 9110 §7.2: `Host = uri-host [ ":" port ]`): a host name ({@link HOST_NAME}),
 * then optionally `:` and a decimal port of at most 65535 (an empty port after `:` is the default port, RFC 3986
 * §3.2.3). Anything else (userinfo `a@host`, a non-numeric, out-of-range or trailing-garbage port, spaces inside,
 * a bare IPv6 address without brackets, a path) is `undefined`: malformed, never matched. Lower-cased; IPv6
 * literals keep their brackets; surrounding whitespace (RFC 9110 §5.5 OWS) is ignored.
 */
export function parseHostPort(value: string): HostPort | undefined {
  const v = value.trim().toLowerCase();
  const close = v.startsWith('[') ? v.indexOf(']') : -1;
  const colon = v.indexOf(':', close === -1 ? 0 : close);
  const hostname = colon === -1 ? v : v.slice(0, colon);
  if (!HOST_NAME.test(hostname)) return undefined;
  if (colon === -1) return { hostname, port: undefined };
  const port = v.slice(colon + 1);
  if (port === '') return { hostname, port: undefined };
  if (!PORT.test(port) || Number(port) > MAX_PORT) return undefined;
  // A canonical port: `:03000` and `:3000` name the same port.
  return { hostname, port: String(Number(port)) };
}

/** The scheme a request reached the server by. */
export type RequestScheme = 'http' | 'https';

interface SerializedOrigin {
  readonly scheme: RequestScheme;
  readonly hostname: string;
  /** The port, or the scheme's default (80, 443) when the origin names none. */
  readonly port: string;
}

const DEFAULT_PORT: Readonly<Record<RequestScheme, string>> = { http: '80', https: '443' };
/** RFC 6454 §6.2 serialization of an http(s) origin: `scheme "://" host [ ":" port ]`, nothing more. */
const ORIGIN = /^(https?):\/\/([^/?#@\\\s]+)$/;

/**
 * Parses an `Origin` value strictly (RFC 6454 §6.2 and §7.1): exactly `http` or `https`, `://`, a host and an
 * optional port as in {@link parseHostPort}; no userinfo, path (not even `/`), query, fragment or list of origins.
 * `undefined` for anything else (`null` and opaque origins included).
 */
function parseOrigin(value: string): SerializedOrigin | undefined {
  const match = ORIGIN.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  const scheme = match[1] as RequestScheme;
  const hostPort = parseHostPort(match[2]!);
  if (hostPort === undefined) return undefined;
  return { scheme, hostname: hostPort.hostname, port: hostPort.port ?? DEFAULT_PORT[scheme] };
}

/**
 * Whether `origin` is the request's own origin: an http(s) origin whose scheme, host and port equal `scheme`
 * and the `Host` header (default ports implied: `http://a` equals `http://a:80`). `null`, opaque and
 * non-http(s) origins, and anything malformed (credentials, a path, a bad port; see `parseOrigin`), are not.
 */
export function isSameOrigin(origin: string, host: string | undefined, scheme: RequestScheme): boolean {
  if (host === undefined) return false;
  const theirs = parseOrigin(origin);
  const ours = parseHostPort(host);
  if (theirs === undefined || ours === undefined) return false;
  return theirs.scheme === scheme && theirs.hostname === ours.hostname && theirs.port === (ours.port ?? DEFAULT_PORT[scheme]);
}

/** An origin as compared with `allowedOrigins`: `scheme://host[:port]`, lower case, the default port left out. */
function originKey(origin: SerializedOrigin): string {
  return origin.port === DEFAULT_PORT[origin.scheme] ? `${origin.scheme}://${origin.hostname}` : `${origin.scheme}://${origin.hostname}:${origin.port}`;
}

/** {@link HostGuard} configuration. */
export interface HostGuardOptions {
  /** Whether `Host` is validated at all. */
  readonly protection: boolean;
  /** Allowed `Host` values: `name` (any port) or `name:port`. @default {@link LOOPBACK_HOSTS} */
  readonly allowedHosts?: readonly string[] | undefined;
  /** Allowed `Origin` values besides the request's own, exact (`scheme://host[:port]`, case-insensitive). @default none */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** Skip `Origin` validation altogether. @default false */
  readonly allowAnyOrigin?: boolean | undefined;
}

/**
 * Validates `Host` against a precomputed allow list, and `Origin` against the request's own origin plus an
 * allow list (on every bind address: the Origin rule does not depend on `protection`).
 */
export class HostGuard {
  readonly #protection: boolean;
  readonly #anyOrigin: boolean;
  readonly #anyPort: Set<string>;
  readonly #exact: Set<string>;
  readonly #origins: Set<string>;
  /** The last Host value found allowed: keep-alive clients send the same one on every request. */
  #lastAllowedHost: string | undefined = undefined;
  /** The last (origin, host, scheme) found same-origin: a browser tab sends the same triple on every request. */
  #lastSameOrigin: string | undefined = undefined;

  constructor(options: HostGuardOptions) {
    this.#protection = options.protection;
    this.#anyOrigin = options.allowAnyOrigin === true;
    this.#anyPort = new Set();
    this.#exact = new Set();
    for (const entry of options.allowedHosts ?? LOOPBACK_HOSTS) {
      // A configured bare IPv6 address (`::1`) is read as its bracketed literal; a Host header never is.
      const parsed = parseHostPort(/^[^[]*:.*:/.test(entry) ? `[${entry.trim()}]` : entry);
      if (parsed === undefined) continue;
      if (parsed.port === undefined) this.#anyPort.add(parsed.hostname);
      else this.#exact.add(`${parsed.hostname}:${parsed.port}`);
    }
    this.#origins = new Set();
    for (const entry of options.allowedOrigins ?? []) {
      const text = entry.trim().toLowerCase().replace(/\/+$/, '');
      // `null` may be listed (opaque origins, RFC 6454 §7.1); other entries are compared in their canonical form.
      const parsed = text === 'null' ? undefined : parseOrigin(text);
      this.#origins.add(parsed === undefined ? text : originKey(parsed));
    }
  }

  /** Whether a `Host` value is allowed (always, when protection is off). */
  hostAllowed(host: string | undefined): boolean {
    if (!this.#protection) return true;
    if (host === undefined) return false;
    if (host === this.#lastAllowedHost) return true;
    if (!this.#matches(host)) return false;
    this.#lastAllowedHost = host;
    return true;
  }

  #matches(host: string): boolean {
    const parsed = parseHostPort(host);
    if (parsed === undefined) return false;
    if (this.#anyPort.has(parsed.hostname)) return true;
    return parsed.port !== undefined && this.#exact.has(`${parsed.hostname}:${parsed.port}`);
  }

  /** Whether `allowedOrigins` lists `origin` (an `Origin` header value, compared in its canonical form). */
  originListed(origin: string): boolean {
    const text = origin.trim().toLowerCase();
    if (text === 'null') return this.#origins.has('null');
    const parsed = parseOrigin(text);
    return parsed !== undefined && this.#origins.has(originKey(parsed));
  }

  /** Whether `allowedOrigins` lists any origin. */
  get listsOrigins(): boolean {
    return this.#origins.size > 0;
  }

  /**
   * Whether an `Origin` value is allowed. Absent ⇒ allowed (non-browser clients send none). Present (`null`
   * included) ⇒ allowed only when it is the request's own origin ({@link isSameOrigin} with `host` and
   * `scheme`) or listed in `allowedOrigins`, unless `allowAnyOrigin` is set.
   *
   * @param origin - The `Origin` header.
   * @param host - The `Host` header (the request's own host and port).
   * @param scheme - The scheme the client used to reach the server.
   */
  originAllowed(origin: string | undefined, host: string | undefined, scheme: RequestScheme): boolean {
    if (origin === undefined || this.#anyOrigin) return true;
    const key = `${scheme} ${host ?? ''} ${origin}`;
    if (key === this.#lastSameOrigin) return true;
    if (isSameOrigin(origin, host, scheme)) {
      this.#lastSameOrigin = key;
      return true;
    }
    // RFC 6454 §7.1: the header is one serialized origin or `null`; anything else is malformed and refused.
    return this.originListed(origin);
  }
}
