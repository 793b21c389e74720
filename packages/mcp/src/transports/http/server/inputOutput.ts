/**
 * The runtime-independent shape of one HTTP exchange. The core ({@link McpHttpHandler}) reads an
 * {@link HttpInput} and produces an {@link HttpOutput}; adapters only convert (Web `Request`/`Response`, Node
 * `IncomingMessage`/`ServerResponse`), so both paths share every decision.
 * Internal to the package (not a public entry).
 */
import type { SseChannel } from '../sse/sseChannel.js';

/** The result of reading a request body with a byte limit. */
export type BodyRead =
  | { readonly kind: 'text'; readonly text: string }
  /** A body already parsed upstream (e.g. Express `req.body`). */
  | { readonly kind: 'parsed'; readonly value: unknown }
  /** More than the limit: reading stopped. */
  | { readonly kind: 'tooLarge' }
  /** The client went away while sending. */
  | { readonly kind: 'aborted' };

/** One inbound HTTP request, as the core sees it. */
export interface HttpInput {
  /** Upper-case method. */
  readonly method: string;
  /** The URL path, without the query. */
  readonly path: string;
  /** The raw query string without `?` (`''` when none). */
  readonly query: string;
  /** The scheme the request reached this server by (TLS on the socket, or the Web `Request` URL). */
  readonly scheme: 'http' | 'https';
  /** A header value by lower-case name; `undefined` when absent (several values are joined with `, `). */
  header(name: string): string | undefined;
  /** All headers, lower-case names (computed on demand). */
  headers(): Record<string, string>;
  /** Reads the body, stopping after `maxBytes` bytes. */
  readBody(maxBytes: number): Promise<BodyRead>;
  /** Authentication facts established upstream (Node: `req.auth`), passed to the session untouched. */
  readonly authInfo?: unknown;
  /** The peer's IP address when the runtime tells it (Node: the socket's; IPv4-mapped IPv6 as IPv4). */
  readonly remoteAddress?: string;
  /**
   * Aborts when the client goes away before the answer was written (the connection closed); `undefined` when the
   * runtime cannot tell. Read only for modern requests, whose cancellation it is; the Node adapter makes it when
   * first read.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Calls `listener` once when the client goes away before the answer was written, as {@link signal} aborts, without
   * making a signal (the Node adapter listens to the response's `close`). Optional: without it, `signal` is used.
   */
  onGone?(listener: () => void): void;
}

/** The peer address of a socket, with IPv4-mapped IPv6 (`::ffff:1.2.3.4`) shown as IPv4. */
export function peerAddress(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') === true && address.includes('.') ? address.slice(7) : address;
}

/** What the core answers. `sse` set: the body is that stream (the adapter attaches a sink). */
export interface HttpOutput {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly sse?: SseChannel;
}

/** The JSON content type of every JSON body we send. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
