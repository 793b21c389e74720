/**
 * Who may read the dashboard: the MCP endpoint's own Host and Origin rules (`HostGuard` of `@switchboard/mcp/http`:
 * DNS-rebinding protection, same origin or `allowedOrigins`), then, for the data, the access token.
 *
 * The token travels only in an `Authorization: Bearer` header, never in a URL: the page takes it from its address's
 * fragment (`#token=…`, which a browser never sends) and removes it from the address bar, so no URL the server, a
 * proxy or the browser's history logs holds it. It is compared in constant time (over SHA-256 digests, so its
 * length is not timed either).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { HostGuard, type RequestScheme } from '@switchboard/mcp/http';

/** A refusal: its HTTP status and the plain words of its JSON body. */
export interface Refusal {
  readonly status: 401 | 403;
  readonly error: 'forbidden_host' | 'forbidden_origin' | 'unauthorized';
  readonly message: string;
}

/** The request facts access needs. */
export interface AccessInput {
  header(name: string): string | undefined;
  readonly scheme: RequestScheme;
}

/** Host/Origin options, as `serveHttp` and `createMcpHttpHandler` take them. */
export interface AccessOptions {
  readonly token: string;
  readonly dnsRebindingProtection: boolean;
  readonly allowedHosts?: readonly string[] | undefined;
  readonly allowedOrigins?: readonly string[] | undefined;
  readonly allowAnyOrigin?: boolean | undefined;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The access rules of one dashboard. */
export class Access {
  readonly #guard: HostGuard;
  readonly #token: Buffer;

  constructor(options: AccessOptions) {
    this.#guard = new HostGuard({
      protection: options.dnsRebindingProtection,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      allowAnyOrigin: options.allowAnyOrigin,
    });
    this.#token = digest(options.token);
  }

  /**
   * The Host and Origin checks (every path: the page, its files and the data), as the MCP endpoint makes them
   * (MCP 2025-11-25 basic/transports.mdx "Security Warning": servers MUST validate the `Origin` header).
   */
  guard(input: AccessInput): Refusal | undefined {
    const host = input.header('host');
    if (!this.#guard.hostAllowed(host)) return { status: 403, error: 'forbidden_host', message: 'Forbidden: this Host is not allowed' };
    const origin = input.header('origin');
    if (origin !== undefined && !this.#guard.originAllowed(origin, host, input.scheme)) {
      return { status: 403, error: 'forbidden_origin', message: "Forbidden: this Origin is neither the dashboard's own nor allowed" };
    }
    return undefined;
  }

  /** The token check of the data (`Authorization: Bearer <token>`): a missing or wrong one is 401. */
  authorize(input: AccessInput): Refusal | undefined {
    const header = input.header('authorization');
    const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
    if (match !== null && timingSafeEqual(digest(match[1]!), this.#token)) return undefined;
    return { status: 401, error: 'unauthorized', message: 'Unauthorized: send the access token as "Authorization: Bearer <token>"' };
  }
}
