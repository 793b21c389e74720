/**
 * The client side of the 2024-11-05 HTTP+SSE transport (`HttpSse`): `GET` the SSE endpoint, wait for its
 * `endpoint` event (a URL of the same origin, resolved against the stream's), `POST` every message there; the
 * server's messages arrive as `message` events on the stream, and the stream ending closes the transport (the
 * session is the stream: there is nothing to resume). Runtime-neutral: an injected `fetch`, Web streams.
 *
 * @see MCP 2024-11-05 basic/transports.mdx "HTTP with SSE"
 */
import { parseMessage, type Inbound, type JsonRpcMessage, type JsonRpcRequest, type Logger, type TransportMessageExtra } from '@switchboard/jsonrpc';
import { AuthorizationError, ClientErrorCode, ConnectionClosedError, ConnectionRefusedError, HttpStatusError, McpClientError, RedirectRefusedError, type ConnectionEndFacts } from '../../../protocol/clientErrors.js';
import { readBoundedText } from '../boundedBody.js';
import { authorizedFetch, type HttpClientAuth } from './auth/authorizedFetch.js';
import { protocolVersionClaim } from '../../../protocol/envelope.js';
import { echo, neverThrowing } from '@switchboard/jsonrpc';
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import { isModernRevision } from '../../../protocol/revisions.js';
import type { ClientProtocol, ClientTransport } from '../../../protocol/transport.js';
import {
  defaultClientFetch,
  DEFAULT_MAX_SSE_EVENT_BYTES,
  discardBody,
  fetchFailure,
  isAbort,
  isConnectionRefused,
  isEventStream,
  readErrorAnswer,
  readSseBody,
  requestHeaders,
  type FetchLike,
  type HttpClientHeaders,
  type HttpClientRequestInit,
} from './clientHttp.js';
import { fetchWithoutLeaks } from './clientRedirects.js';
import { PostLimiter } from './postLimiter.js';
import { SseDecoder } from '../sse/sseDecoder.js';

/** Options of {@link httpSse} and {@link HttpSseClientTransport}. */
export interface HttpSseClientOptions {
  /** The SSE endpoint, e.g. `http://127.0.0.1:3000/sse`. */
  readonly url: string | URL;
  /**
   * The `fetch` to call, always with `redirect: 'manual'`: a 307/308 to the same origin is followed (5 in a row at
   * most), any other redirect refused with `RedirectRefusedError`, so no body or header goes to another origin.
   * @default on Node, once `@switchboard/mcp/node` or `@switchboard/mcp/stdio` is imported (or `@switchboard/mcp/client`
   *   is imported under Node), `nodeFetch` (`node:http`, keep-alive); elsewhere `globalThis.fetch`
   */
  readonly fetch?: FetchLike;
  /** Headers added to every request (e.g. `Authorization`), or a function returning them per request. */
  readonly headers?: HttpClientHeaders;
  /** Authorization of every request, e.g. `oauth({...})`: its headers win over `headers`; a 401/403 runs its flow. @default none */
  readonly auth?: HttpClientAuth;
  /** Further `fetch` options for every request; `redirect` is always `'manual'` (see `fetch`). */
  readonly requestInit?: HttpClientRequestInit;
  /** Bound of one SSE event, in characters (bytes for ASCII); a longer one closes the transport. @default 16 MiB */
  readonly maxSseEventBytes?: number;
  /** How long (ms) `start()` waits for the `endpoint` event. @default 10_000 */
  readonly endpointTimeoutMs?: number;
}

/** What {@link HttpSseClientTransport} is made with. */
export interface HttpSseTransportInit extends HttpSseClientOptions {
  /** Where what the transport survived is reported (dropped events). */
  readonly logger: Logger;
}

/**
 * A {@link ClientTransport} over the 2024-11-05 HTTP+SSE transport. `start()` opens the stream and resolves once
 * the `endpoint` event arrived; it rejects with {@link HttpStatusError} when the GET is refused or is not an event
 * stream, and with {@link ConnectionClosedError} when the stream ends first, names another origin, or stays silent
 * past `endpointTimeoutMs`. `send` resolves once the POST was accepted (the answer comes on the stream).
 */
export class HttpSseClientTransport implements ClientTransport {
  readonly kind = 'http-sse' as const;
  onmessage?: ((message: Inbound, extra?: TransportMessageExtra) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;

  readonly #url: URL;
  readonly #fetch: FetchLike;
  readonly #headers: HttpClientHeaders | undefined;
  readonly #init: HttpClientRequestInit;
  readonly #maxEventBytes: number;
  readonly #endpointTimeoutMs: number;
  readonly #logger: Logger;
  readonly #controller = new AbortController();
  #endpoint: URL | undefined;
  #started: Promise<void> | undefined;
  #endFacts: ConnectionEndFacts | undefined;
  #closed = false;
  /** The POSTs (every message here): a few in flight, a bounded queue, backpressure on the stream beyond. */
  readonly #posts = new PostLimiter();

  constructor(init: HttpSseTransportInit) {
    this.#url = new URL(init.url);
    const base = init.fetch ?? defaultClientFetch();
    const fetch = init.auth === undefined ? base : authorizedFetch(base, init.auth);
    this.#fetch = (input, requestInit) => fetchWithoutLeaks(fetch, input, requestInit ?? {});
    this.#headers = init.headers;
    this.#init = init.requestInit ?? {};
    this.#maxEventBytes = init.maxSseEventBytes ?? DEFAULT_MAX_SSE_EVENT_BYTES;
    this.#endpointTimeoutMs = checkMsOption('endpointTimeoutMs', init.endpointTimeoutMs ?? 10_000, { above: 0 });
    this.#logger = neverThrowing(init.logger);
  }

  /** How the transport ended: closed by the client, or the stream ended or failed. */
  get endFacts(): ConnectionEndFacts | undefined {
    return this.#endFacts;
  }

  /** Where messages are POSTed, once the `endpoint` event named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  start(): Promise<void> {
    this.#started ??= this.#open();
    return this.#started;
  }

  setProtocol(protocol: ClientProtocol): void {
    // The 2024-11-05 transport has no protocol header: the revision lives in the session alone.
    void protocol;
  }

  async send(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    const endpoint = this.#endpoint;
    if (this.#closed || endpoint === undefined) {
      throw new ConnectionClosedError({ what: endpoint === undefined && !this.#closed ? 'the HTTP+SSE stream is not open' : 'the transport is closed', reason: this.#endFacts?.reason });
    }
    const single = Array.isArray(message) ? undefined : (message as JsonRpcMessage);
    if (single !== undefined && 'method' in single && isModernRevision(protocolVersionClaim(single))) {
      // Only stdio and Streamable HTTP carry 2026-07-28 (MCP 2026-07-28 basic/transports/index.mdx); a dual-era server
      // might answer the probe here all the same, and the connection would then be neither era's.
      throw new McpClientError(ClientErrorCode.NotSupported, `Not supported: the 2024-11-05 HTTP+SSE transport carries session-based revisions only, not "${echo(protocolVersionClaim(single) ?? '')}"`);
    }
    const requestId = single !== undefined && 'method' in single && 'id' in single ? (single as JsonRpcRequest).id : undefined;
    const what = single !== undefined && 'method' in single ? `${requestId === undefined ? 'notification' : 'request'} "${single.method}"` : 'a message';
    const body = JSON.stringify(message);
    const response = await this.#posts.run(async (signal) => {
      try {
        if (this.#closed) throw new ConnectionClosedError({ what: 'the transport is closed', reason: this.#endFacts?.reason });
        const headers = await requestHeaders(this.#headers, { 'Content-Type': 'application/json' });
        const answered = await this.#fetch(endpoint, { ...this.#init, method: 'POST', headers, body, signal });
        // The 202 carries nothing: its body is dropped within the turn, so the next POST can reuse the connection.
        if (answered.ok) discardBody(answered);
        return answered;
      } catch (error) {
        if (error instanceof RedirectRefusedError || error instanceof ConnectionClosedError || error instanceof AuthorizationError) throw error;
        if (!isAbort(error, signal) && isConnectionRefused(error)) throw new ConnectionRefusedError({ url: endpoint.href, cause: error });
        throw new ConnectionClosedError({ what: `the POST of ${what} failed`, reason: isAbort(error, signal) ? 'the transport closed' : fetchFailure(error), cause: error });
      }
    });
    if (response.ok) return;
    const answer = await readErrorAnswer({ response, requestId, what });
    if ('error' in answer) throw answer.error;
    this.onmessage?.(answer.deliver);
  }

  /** The peer's flow control: while paused, the stream is not read (the server's requests stay in the connection). */
  pauseInput(paused: boolean): void {
    this.#posts.pauseInput(paused);
  }

  close(): Promise<void> {
    this.#end({ reason: 'closed by the client' });
    return Promise.resolve();
  }

  // ---- internals ----

  async #open(): Promise<void> {
    const signal = this.#controller.signal;
    let response: Response;
    try {
      const headers = await requestHeaders(this.#headers, { Accept: 'text/event-stream' });
      response = await this.#fetch(this.#url, { ...this.#init, method: 'GET', headers, signal });
    } catch (error) {
      const aborted = isAbort(error, signal);
      const reason = aborted ? 'closed by the client' : fetchFailure(error);
      this.#end({ reason });
      if (error instanceof RedirectRefusedError || error instanceof AuthorizationError) throw error;
      if (!aborted && isConnectionRefused(error)) throw new ConnectionRefusedError({ url: this.#url.href, cause: error });
      throw new ConnectionClosedError({ what: 'the HTTP+SSE GET failed', reason, cause: error });
    }
    if (!response.ok || !isEventStream(response)) {
      const what = 'the HTTP+SSE stream';
      const error = response.ok
        ? new HttpStatusError({ status: response.status, body: (await readBoundedText(response, 1024).catch(() => ({ text: '' }))).text, what: `${what}: not text/event-stream` })
        : ((await readErrorAnswer({ response, requestId: undefined, what })) as { readonly error: HttpStatusError }).error;
      this.#end({ reason: error.message });
      throw error;
    }
    const endpoint = new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ConnectionClosedError({ what: 'HTTP+SSE', reason: `no endpoint event within ${this.#endpointTimeoutMs} ms` })), this.#endpointTimeoutMs);
      void this.#read(response, (url) => {
        clearTimeout(timer);
        resolve(url);
      }).then((facts) => {
        clearTimeout(timer);
        reject(new ConnectionClosedError({ what: 'HTTP+SSE', reason: facts.refused ? facts.reason : `${facts.reason} before the endpoint event` }));
      });
    });
    try {
      this.#endpoint = await endpoint;
    } catch (error) {
      this.#end({ reason: (error as ConnectionClosedError).reason ?? 'no endpoint' });
      throw error;
    }
  }

  /** Reads the stream to its end; resolves with why it ended (the transport is closed by then). */
  async #read(response: Response, onEndpoint: (url: URL) => void): Promise<{ readonly reason: string; readonly refused: boolean }> {
    let endpointSeen = false;
    let refused: string | undefined;
    const decoder = new SseDecoder();
    let failure: unknown;
    const end = await readSseBody(response, {
      decoder,
      maxEventBytes: this.#maxEventBytes,
      signal: this.#controller.signal,
      room: () => this.#posts.room(),
      onEvent: (event) => {
        if (event.event === 'endpoint') {
          if (endpointSeen) return undefined;
          endpointSeen = true;
          let url: URL;
          try {
            url = new URL(event.data.trim(), this.#url);
          } catch {
            refused = `the endpoint event holds no URL: "${echo(event.data)}"`;
            return true;
          }
          if (url.origin !== this.#url.origin) {
            refused = `the endpoint event names another origin: "${echo(url.origin)}"`;
            return true;
          }
          onEndpoint(url);
          return undefined;
        }
        if (event.event !== 'message' || event.data === '') return undefined;
        const inbound = parseMessage(event.data);
        if (inbound.kind === 'invalid') {
          this.#logger.warn('Dropped an SSE event that is not JSON-RPC', { data: echo(event.data) });
          return undefined;
        }
        this.onmessage?.(inbound);
        return undefined;
      },
      onFailure: (error) => {
        failure = error;
      },
    });
    const reason =
      refused ??
      (end === 'too_large'
        ? `an SSE event exceeded ${this.#maxEventBytes} characters`
        : end === 'failed'
          ? `the SSE stream failed: ${fetchFailure(failure)}`
          : end === 'aborted'
            ? 'closed by the client'
            : 'the SSE stream ended');
    this.#end({ reason });
    return { reason, refused: refused !== undefined };
  }

  #end(facts: ConnectionEndFacts): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#endFacts = facts;
    this.#controller.abort();
    this.#posts.close();
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}
