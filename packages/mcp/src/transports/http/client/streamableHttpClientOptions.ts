/**
 * The options of the Streamable HTTP client transport ({@link StreamableHttpClientOptions}, for `streamableHttp()`)
 * and what the transport is made with.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { HttpClientAuth } from './auth/authorizedFetch.js';
import type { FetchLike, HttpClientHeaders, HttpClientRequestInit } from './clientHttp.js';

/** Reconnection of SSE streams that end early (MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"). */
export interface SseReconnectOptions {
  /**
   * Reconnection attempts in a row that bring nothing new (no event, no new event id) before the stream is given
   * up: a request then fails with `ConnectionClosedError`. A whole number, or `Infinity` (never give up).
   * @default 5
   */
  readonly maxAttempts?: number;
  /** The wait (ms) before reconnecting when the server sent no `retry` field. @default 1000 */
  readonly initialDelayMs?: number;
  /** The longest wait (ms) between attempts; the wait doubles after each attempt that brought nothing. @default 30_000 */
  readonly maxDelayMs?: number;
}

/** Options of `streamableHttp()` (`clientConnectors.ts`) and `StreamableHttpClientTransport`. */
export interface StreamableHttpClientOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string | URL;
  /**
   * The `fetch` to call. It is always called with `redirect: 'manual'`: the transport follows a 307/308 to the same
   * origin itself (5 in a row at most) and refuses any other redirect with `RedirectRefusedError` (code
   * `redirect_refused`), so no body or header goes to another origin.
   * @default on Node, once `@switchboard/mcp/node` or `@switchboard/mcp/stdio` is imported (or `@switchboard/mcp/client`
   *   is imported under Node), `nodeFetch` (`node:http`, keep-alive); elsewhere `globalThis.fetch`
   */
  readonly fetch?: FetchLike;
  /** Headers added to every request (e.g. `Authorization`), or a function returning them per request. Never sent to another origin. */
  readonly headers?: HttpClientHeaders;
  /**
   * Authorization of every request, e.g. `oauth({...})` (MCP basic/authorization.mdx): its headers (`Authorization`,
   * `DPoP`) win over `headers`; a 401 or 403 runs its flow and the request is sent again. Never sent to another origin.
   * @default none
   */
  readonly auth?: HttpClientAuth;
  /** Further `fetch` options for every request (`credentials`, `mode`, …); `redirect` is always `'manual'` (see `fetch`). */
  readonly requestInit?: HttpClientRequestInit;
  /** Bound of one SSE event, in characters (bytes for ASCII); a longer one ends the stream. @default 16 MiB */
  readonly maxSseEventBytes?: number;
  /** Bound (bytes) of one `application/json` answer. @default 16 MiB */
  readonly maxResponseBytes?: number;
  /** Reconnection of SSE streams that end early; `false` never reconnects. @default { maxAttempts: 5 } */
  readonly reconnect?: false | SseReconnectOptions;
  /** How long (ms) `close()` waits for the `DELETE` that ends a session. @default 2000 */
  readonly closeTimeoutMs?: number;
}

/** What `StreamableHttpClientTransport` is made with: the options and the logger of the connector's `open`. */
export interface StreamableHttpTransportInit extends StreamableHttpClientOptions {
  /** Where what the transport survived is reported (dropped events, reconnections). */
  readonly logger: Logger;
}
