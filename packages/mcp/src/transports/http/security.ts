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
 * Splits `host[:port]` (RFC 9110 §7.2); IPv6 literals keep their brackets. A bare IPv6 address (several colons, no
 * brackets) is bracketed. Lower-cased.
 */
export function parseHostPort(value: string): HostPort | undefined {
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (v.startsWith('[')) {
    const close = v.indexOf(']');
    if (close === -1) return undefined;
    const rest = v.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    return { hostname: v.slice(0, close + 1), port: rest === '' ? undefined : rest.slice(1) };
  }
  const first = v.indexOf(':');
  if (first === -1) return { hostname: v, port: undefined };
  if (first !== v.lastIndexOf(':')) return { hostname: `[${v}]`, port: undefined };
  return { hostname: v.slice(0, first), port: v.slice(first + 1) };
}

/** The scheme a request reached the server by. */
export type RequestScheme = 'http' | 'https';

/**
 * Whether `origin` is the request's own origin: an http(s) origin whose scheme, host and port equal `scheme`
 * and the `Host` header (default ports implied: `http://a` equals `http://a:80`). `null`, opaque and
 * non-http(s) origins, and anything with a path, query or credentials, are not.
 */
export function isSameOrigin(origin: string, host: string | undefined, scheme: RequestScheme): boolean {
  if (host === undefined || host === '' || /[/?#@\\\s]/.test(host)) return false;
  let theirs: URL;
  let ours: URL;
  try {
    theirs = new URL(origin.trim());
    ours = new URL(`${scheme}://${host}`);
  } catch {
    return false;
  }
  if (theirs.protocol !== 'http:' && theirs.protocol !== 'https:') return false;
  if (theirs.username !== '' || theirs.password !== '' || theirs.pathname !== '/' || theirs.search !== '' || theirs.hash !== '') return false;
  return theirs.origin === ours.origin;
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
      const parsed = parseHostPort(entry);
      if (parsed === undefined) continue;
      if (parsed.port === undefined) this.#anyPort.add(parsed.hostname);
      else this.#exact.add(`${parsed.hostname}:${parsed.port}`);
    }
    this.#origins = new Set((options.allowedOrigins ?? []).map((o) => o.trim().toLowerCase().replace(/\/+$/, '')));
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
    return this.#origins.has(origin.trim().toLowerCase().replace(/\/+$/, ''));
  }
}
