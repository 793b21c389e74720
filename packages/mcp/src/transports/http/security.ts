/**
 * DNS-rebinding protection: `Host` and `Origin` validation (pure functions).
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Security Warning": servers MUST validate `Origin` (invalid ⇒ 403),
 *   SHOULD bind to localhost; conformance `dns-rebinding-protection` (a localhost server rejects a foreign `Host`
 *   or `Origin` with 4xx, accepts `localhost`, `127.0.0.1`, `[::1]` with any port).
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

/** {@link HostGuard} configuration. */
export interface HostGuardOptions {
  /** Whether `Host` is validated at all, and `Origin` against the allowed hosts. */
  readonly protection: boolean;
  /** Allowed `Host` values: `name` (any port) or `name:port`. @default {@link LOOPBACK_HOSTS} */
  readonly allowedHosts?: readonly string[] | undefined;
  /** Allowed `Origin` values, exact (`scheme://host[:port]`, case-insensitive). @default origins whose host is allowed */
  readonly allowedOrigins?: readonly string[] | undefined;
}

/** Validates `Host` and `Origin` against a precomputed allow list. */
export class HostGuard {
  readonly #protection: boolean;
  readonly #anyPort: Set<string>;
  readonly #exact: Set<string>;
  readonly #origins: Set<string> | undefined;
  /** The last Host value found allowed: keep-alive clients send the same one on every request. */
  #lastAllowedHost: string | undefined = undefined;

  constructor(options: HostGuardOptions) {
    this.#protection = options.protection;
    this.#anyPort = new Set();
    this.#exact = new Set();
    for (const entry of options.allowedHosts ?? LOOPBACK_HOSTS) {
      const parsed = parseHostPort(entry);
      if (parsed === undefined) continue;
      if (parsed.port === undefined) this.#anyPort.add(parsed.hostname);
      else this.#exact.add(`${parsed.hostname}:${parsed.port}`);
    }
    this.#origins = options.allowedOrigins === undefined
      ? undefined
      : new Set(options.allowedOrigins.map((o) => o.trim().toLowerCase().replace(/\/+$/, '')));
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
   * Whether an `Origin` value is allowed. Absent ⇒ allowed (non-browser clients send none). With
   * `allowedOrigins`: exact match. Otherwise, with protection on: an http(s) origin whose host is an allowed host.
   * With protection off and no `allowedOrigins`: allowed.
   */
  originAllowed(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    const normalized = origin.trim().toLowerCase();
    if (this.#origins !== undefined) return this.#origins.has(normalized.replace(/\/+$/, ''));
    if (!this.#protection) return true;
    const scheme = normalized.startsWith('http://') ? 7 : normalized.startsWith('https://') ? 8 : 0;
    if (scheme === 0) return false;
    const rest = normalized.slice(scheme);
    const slash = rest.indexOf('/');
    return this.#matches(slash === -1 ? rest : rest.slice(0, slash));
  }
}
