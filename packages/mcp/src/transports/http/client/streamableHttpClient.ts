/**
 * The client side of Streamable HTTP: every message its own POST, answered with JSON or an SSE stream; the session
 * id and `MCP-Protocol-Version` of the session-based revisions, the standalone GET stream, SSE reconnection with
 * `Last-Event-ID` (`resumableStream.ts`), `DELETE` on close; the 2026-07-28 request metadata headers, where closing a
 * request's stream is its cancellation. Runtime-neutral: an injected `fetch`, Web streams.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx
 */
import { CancellationSource, classifyValue, echo, neverThrowing, parseJson, type Inbound, type JsonRpcId, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest, type Logger, type TransportMessageExtra } from '@switchboard/jsonrpc';
import { checkCountOption, checkMsOption, TransientMap } from '@switchboard/jsonrpc/internal';
import { AuthorizationError, ConnectionClosedError, ConnectionRefusedError, HttpStatusError, RedirectRefusedError, SessionExpiredError, type ConnectionEndFacts } from '../../../protocol/clientErrors.js';
import { authorizedFetch } from './auth/authorizedFetch.js';
import { readBoundedText } from '../boundedBody.js';
import { protocolVersionClaim } from '../../../protocol/envelope.js';
import { McpErrorCode } from '../../../protocol/errors.js';
import type { ParamHeader } from '../../../protocol/paramHeaders.js';
import { isModernRevision } from '../../../protocol/revisions.js';
import type { ClientProtocol, ClientTransport } from '../../../protocol/transport.js';
import { modernHeaders } from './clientHeaders.js';
import {
  defaultClientFetch,
  directRequestOf,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_SSE_EVENT_BYTES,
  discardBody,
  fetchFailure,
  isAbort,
  isEventStream,
  isConnectionRefused,
  isStaleSocket,
  readErrorAnswer,
  headerList,
  headerPairs,
  requestHeaders,
  responsesOf,
  type DirectAnswer,
  type DirectRequest,
  type FetchLike,
  type HttpClientHeaders,
  type HttpClientRequestInit,
} from './clientHttp.js';
import { fetchWithoutLeaks } from './clientRedirects.js';
import { isJsonContentType } from '../media.js';
import { PostLimiter } from './postLimiter.js';
import { Exchange, followStream, ResumableStream, type ReconnectPolicy, type StreamHost } from './resumableStream.js';
import type { StreamableHttpTransportInit } from './streamableHttpClientOptions.js';

const ACCEPT_BOTH = 'application/json, text/event-stream';
/** A session id is visible ASCII (MCP 2025-11-25 basic/transports.mdx "Session Management"). */
const SESSION_ID = /^[\x21-\x7E]+$/;
/**
 * A 400 that says the session is unknown, as servers built on the official SDK's session-map example (and
 * `@modelcontextprotocol/server-everything`) answer a session id they no longer hold: -32000 with a message about the
 * session (`No valid session ID provided`). The spec's answer is 404 (MCP 2025-11-25 basic/transports.mdx "Session
 * Management"); treating this one as the same lets a client recover from such a server's restart. Narrow on purpose:
 * status 400, code -32000, no request id, and "session" in the message.
 */
function isUnknownSessionRefusal(error: HttpStatusError): boolean {
  const wire = error.error;
  return error.status === 400 && wire !== undefined && wire.code === McpErrorCode.ServerError && /\bsession\b/i.test(wire.message);
}

/** What one POST sends: the message (`single` when it is one), its era, and the request's exchange if any. */
interface PostFacts {
  readonly message: JsonRpcMessage | readonly JsonRpcMessage[];
  readonly single: JsonRpcMessage | undefined;
  readonly modern: boolean;
  readonly exchange: Exchange | undefined;
}


/** How many times a POST that is safe to repeat is resent after its kept-alive connection was reset under it. */
const MAX_STALE_SOCKET_RESENDS = 3;
/** How long `notifications/initialized` waits for the standalone GET stream's answer (ms). */
export const GET_STREAM_OPEN_WAIT_MS = 1_000;

function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

/**
 * A {@link ClientTransport} over Streamable HTTP. `send` of a notification or response resolves once the server
 * accepted it (202); `send` of a request resolves once its response was delivered through `onmessage` and rejects
 * when it cannot be: {@link HttpStatusError} (an error status or an answer without a response for it, B45),
 * {@link SessionExpiredError} (404 to a request carrying the session id: the id is forgotten and never sent again),
 * {@link ConnectionClosedError} (the POST failed, or its stream ended and could not be resumed).
 */
export class StreamableHttpClientTransport implements ClientTransport, StreamHost {
  readonly kind = 'streamable-http' as const;
  onmessage?: ((message: Inbound, extra?: TransportMessageExtra) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;

  readonly logger: Logger;
  readonly maxEventBytes: number;
  readonly policy: ReconnectPolicy;
  readonly #url: URL;
  readonly #fetch: FetchLike;
  /** The unwrapped `fetch` (redirects not followed), for what a {@link DirectRequest} answered and is not JSON. */
  readonly #rawFetch: FetchLike;
  /** The runtime's cheaper request (`nodeFetch` offers one), used for requests when no auth wraps the `fetch`. */
  readonly #direct: DirectRequest | undefined;
  readonly #headers: HttpClientHeaders | undefined;
  readonly #init: HttpClientRequestInit;
  readonly #maxResponseBytes: number;
  readonly #closeTimeoutMs: number;
  #protocol: ClientProtocol | undefined;
  #sessionId: string | undefined;
  /** The session a 404 ended, until a new `initialize`: later messages fail at once instead of going out without it. */
  #expiredSession: string | undefined;
  #initializedSent = false;
  /** Notification and response POSTs: a few in flight, a bounded queue, backpressure on the streams beyond. */
  readonly #posts = new PostLimiter();
  #getStream: ResumableStream | undefined;
  /** Resolves the wait of `notifications/initialized` once the standalone GET got its answer (or gave up). */
  #getAnswered: (() => void) | undefined;
  readonly #toolHeaders = new Map<string, readonly ParamHeader[]>();
  readonly #exchanges = new TransientMap<JsonRpcId, Exchange>();
  readonly #closing = new AbortController();
  #endFacts: ConnectionEndFacts | undefined;

  constructor(init: StreamableHttpTransportInit) {
    this.#url = new URL(init.url);
    const base = init.fetch ?? defaultClientFetch();
    // The auth wraps the raw fetch, so each redirect hop carries credentials (and a DPoP proof) for its own URL.
    const fetch = init.auth === undefined ? base : authorizedFetch(base, init.auth);
    this.#rawFetch = fetch;
    this.#fetch = (input, requestInit) => fetchWithoutLeaks(fetch, input, requestInit ?? {});
    this.#direct = init.auth === undefined ? directRequestOf(base) : undefined;
    this.#headers = init.headers;
    this.#init = init.requestInit ?? {};
    this.maxEventBytes = init.maxSseEventBytes ?? DEFAULT_MAX_SSE_EVENT_BYTES;
    this.#maxResponseBytes = init.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#closeTimeoutMs = checkMsOption('closeTimeoutMs', init.closeTimeoutMs ?? 2000, { above: 0 });
    const reconnect = init.reconnect === false ? { maxAttempts: 0 } : (init.reconnect ?? {});
    this.policy = {
      maxAttempts: checkCountOption('reconnect.maxAttempts', reconnect.maxAttempts ?? 5, { min: 0, infinite: true }),
      initialDelayMs: checkMsOption('reconnect.initialDelayMs', reconnect.initialDelayMs ?? 1000),
      maxDelayMs: checkMsOption('reconnect.maxDelayMs', reconnect.maxDelayMs ?? 30_000),
    };
    this.logger = neverThrowing(init.logger);
  }

  /** How the transport ended (set by `close()`). */
  get endFacts(): ConnectionEndFacts | undefined {
    return this.#endFacts;
  }

  /** The session id the server gave the `initialize` answer, while the session lasts. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  setProtocol(protocol: ClientProtocol): void {
    this.#protocol = protocol;
    if (protocol.era === 'modern') {
      // No session, no GET stream at 2026-07-28 (basic/transports/streamable-http.mdx "Earlier Streamable HTTP Revisions").
      this.#sessionId = undefined;
      this.#getStream?.controller.cancel();
      this.#getStream = undefined;
    } else {
      void this.#openGetStream();
    }
  }

  setToolParamHeaders(tool: string, headers: readonly ParamHeader[] | undefined): void {
    if (headers === undefined || headers.length === 0) this.#toolHeaders.delete(tool);
    else this.#toolHeaders.set(tool, headers);
  }

  /**
   * Stops following the request's stream. At 2026-07-28 closing it is the cancellation (`true`: the client sends
   * no `notifications/cancelled`; MCP 2026-07-28 basic/patterns/cancellation.mdx); on a session the client must
   * send one (`false`), the stream is released all the same.
   */
  abandonRequest(id: JsonRpcId): boolean {
    const exchange = this.#exchanges.get(id);
    if (exchange === undefined) return this.#protocol?.era === 'modern';
    this.#exchanges.delete(id);
    exchange.abandon();
    return exchange.modern;
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    if (this.#closing.signal.aborted) return Promise.reject(new ConnectionClosedError({ what: 'the transport is closed', reason: this.#endFacts?.reason }));
    const single = Array.isArray(message) ? undefined : (message as JsonRpcMessage);
    const modern = single !== undefined && 'method' in single ? this.#isModern(single) : this.#protocol?.era === 'modern';
    const initialize = single !== undefined && 'method' in single && single.method === 'initialize';
    if (this.#expiredSession !== undefined && !modern && !initialize) return Promise.reject(new SessionExpiredError(this.#expiredSession));
    if (single === undefined || !isRequest(single)) {
      return this.#postLimited({ message, single, modern, exchange: undefined }).then(async () => {
        if (single !== undefined && 'method' in single && single.method === 'notifications/initialized') {
          this.#initializedSent = true;
          await this.#openGetStream();
        }
      });
    }
    const exchange = new Exchange({ id: single.id, method: single.method, modern });
    this.#exchanges.set(single.id, exchange);
    this.#post({ message, single, modern, exchange }).then(
      () => exchange.unanswered(),
      (error: unknown) => exchange.fail(error),
    ).finally(() => {
      if (this.#exchanges.get(exchange.id) === exchange) this.#exchanges.delete(exchange.id);
    });
    return exchange.done;
  }

  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    const session = this.#protocol?.era === 'modern' ? undefined : this.#sessionId;
    this.#sessionId = undefined;
    for (const exchange of this.#exchanges.values()) exchange.controller.cancel();
    this.#exchanges.clear();
    // The POSTs in flight are aborted, the queued ones fail at once, and the reads waiting for room end.
    this.#posts.close();
    if (session !== undefined) await this.#deleteSession(session);
    this.#endFacts = { reason: 'closed by the client' };
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }

  /**
   * Flow control from the peer (its inbound requests wait for a slot): while paused, no SSE stream of this
   * transport is read, so the server's requests stay in the connection instead of in memory.
   */
  pauseInput(paused: boolean): void {
    this.#posts.pauseInput(paused);
  }

  // ---- StreamHost: what a followed SSE stream needs ----

  room(): Promise<void> | undefined {
    return this.#posts.room();
  }

  get closingSignal(): AbortSignal {
    return this.#closing.signal;
  }

  deliver(inbound: Inbound, exchange?: Exchange): void {
    for (const response of responsesOf(inbound)) if (response.id !== null) this.#exchanges.get(response.id)?.answer();
    // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6: the requests and notifications a
    // server sends on a POST's stream before the response SHOULD relate to the request that POST carried; the client
    // is told which.
    const related = exchange !== undefined && (inbound.kind === 'request' || inbound.kind === 'notification');
    this.onmessage?.(inbound, related ? exchange.related : undefined);
  }

  /** `GET` of the endpoint for a stream: standalone (no id yet) or resumed with `Last-Event-ID`. */
  async get(stream: ResumableStream): Promise<Response | 'retry' | 'stop'> {
    const session = this.#protocol?.era === 'modern' ? undefined : this.#sessionId;
    const own: Record<string, string> = { Accept: 'text/event-stream' };
    if (session !== undefined) own['Mcp-Session-Id'] = session;
    if (this.#protocol !== undefined) own['MCP-Protocol-Version'] = this.#protocol.revision;
    if (stream.lastEventId !== '') own['Last-Event-ID'] = stream.lastEventId;
    let response: Response;
    try {
      response = await this.#fetch(this.#url, { ...this.#init, method: 'GET', headers: await requestHeaders(this.#headers, own), signal: stream.controller.signal });
    } catch (error) {
      if (stream === this.#getStream) this.#getAnswered?.();
      if (isAbort(error, stream.controller.signal)) return 'stop';
      if (error instanceof RedirectRefusedError || error instanceof AuthorizationError) {
        if (stream.exchange !== undefined) stream.exchange.fail(error);
        else if (error instanceof RedirectRefusedError) this.logger.warn('The GET stream was redirected and is not followed', { url: this.#url.href, error: error.message });
        else this.logger.warn('The GET stream was refused by the authorization flow and is not retried', { url: this.#url.href, error: error.message });
        return 'stop';
      }
      this.logger.debug('SSE reconnection failed', { url: this.#url.href, error: fetchFailure(error) });
      return 'retry';
    }
    if (stream === this.#getStream) this.#getAnswered?.();
    if (response.ok && isEventStream(response)) return response;
    // A 404 here does not end the session: a server may route no GET at all. The next POST finds out (404 there
    // is the spec's signal, MCP 2025-11-25 basic/transports.mdx "Session Management").
    if (response.status >= 500 || response.status === 429) {
      discardBody(response);
      return 'retry';
    }
    const what = stream.exchange === undefined ? 'the GET stream' : `resuming the stream of request "${stream.exchange.method}"`;
    const answer = response.ok
      ? { error: new HttpStatusError({ status: response.status, body: (await readBoundedText(response, 1024).catch(() => ({ text: '' }))).text, what: `${what}: not text/event-stream` }) }
      : await readErrorAnswer({ response, requestId: stream.exchange?.id, what });
    if ('deliver' in answer) this.deliver(answer.deliver);
    else if (stream.exchange !== undefined) stream.exchange.fail(answer.error);
    else if (response.status === 405 || response.status === 404 || response.status === 400) {
      // 405 is the spec's "no GET stream"; sessionless servers answer 400 or 404 as well.
      this.logger.debug('The server offers no GET stream', { url: this.#url.href, status: response.status });
    } else this.logger.warn('The GET stream was refused', { url: this.#url.href, error: answer.error.message });
    return 'stop';
  }

  // ---- internals ----

  #isModern(message: JsonRpcRequest | JsonRpcNotification): boolean {
    return isModernRevision(protocolVersionClaim(message)) || this.#protocol?.era === 'modern';
  }

  /** A notification or a response (the answer to a server request) POSTed through the {@link PostLimiter}. */
  #postLimited(facts: PostFacts): Promise<void> {
    return this.#posts.run(async (signal) => {
      if (this.#closing.signal.aborted) throw new ConnectionClosedError({ what: 'the transport is closed', reason: this.#endFacts?.reason });
      await this.#post(facts, signal);
    });
  }

  /** POSTs one message; `messageSignal` aborts a notification's or response's POST (a request's is its exchange's). */
  async #post(facts: PostFacts, messageSignal?: AbortSignal): Promise<void> {
    const { message, single, modern, exchange } = facts;
    const method = single !== undefined && 'method' in single ? single : undefined;
    const own: Record<string, string> = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH };
    const claim = method === undefined ? undefined : protocolVersionClaim(method);
    const revision = modern && isModernRevision(claim) ? claim : this.#protocol?.revision;
    if (revision !== undefined) own['MCP-Protocol-Version'] = revision;
    const session = modern || method?.method === 'initialize' ? undefined : this.#sessionId;
    if (session !== undefined) own['Mcp-Session-Id'] = session;
    if (modern && method !== undefined) Object.assign(own, modernHeaders(method, this.#paramHeadersOf(method)));
    // A request's POST is stopped by its exchange (whose signal is made only if `fetch` needs one), a notification's
    // or response's by the limiter's signal, else by the transport's closing.
    const aborted = (): boolean => (exchange === undefined ? (messageSignal ?? this.#closing.signal).aborted : exchange.controller.cancelled);
    const signal = (): AbortSignal => exchange?.controller.signal ?? messageSignal ?? this.#closing.signal;
    const what = method === undefined ? 'a message' : `${exchange === undefined ? 'notification' : 'request'} "${method.method}"`;
    // A request (not `initialize`, whose answer's headers are read) goes by the runtime's direct request when it has
    // one: a JSON answer is read without a `Response`; any other answer becomes the `Response` a `fetch` gives.
    const direct = exchange !== undefined && method?.method !== 'initialize' ? this.#direct : undefined;
    const base = this.#headers;
    // Without a headers function nothing here waits: a request goes out in the turn `send` was called in.
    const headers = direct === undefined ? await requestHeaders(base, own) : headerList(typeof base === 'function' ? await base() : base, own);
    const payload = JSON.stringify(message);
    const init = (): RequestInit => ({ ...this.#init, method: 'POST', headers: Array.isArray(headers) ? headerPairs(headers) : headers, body: payload, signal: signal() });
    let response: Response | undefined;
    let json: { readonly status: number; readonly body: NonNullable<DirectAnswer['json']> } | undefined;
    for (let resent = 0; response === undefined && json === undefined; resent++) {
      try {
        if (direct === undefined || exchange === undefined) response = await this.#fetch(this.#url, init());
        else {
          const answer = await direct(this.#url, { method: 'POST', headers: headers as string[], body: payload, abort: exchange.controller, maxJsonBytes: this.#maxResponseBytes });
          if (answer.json === undefined) response = await fetchWithoutLeaks(this.#rawFetch, this.#url, { ...init(), first: answer.response() });
          else json = { status: answer.status, body: answer.json };
        }
      } catch (error) {
        if (exchange?.abandoned === true) return;
        if (error instanceof RedirectRefusedError || error instanceof AuthorizationError) throw error;
        const abortedNow = isAbort(error, { aborted: aborted() });
        if (!abortedNow && isConnectionRefused(error)) throw new ConnectionRefusedError({ url: this.#url.href, cause: error });
        if (abortedNow || !isStaleSocket(error) || method?.method === 'tools/call' || resent === MAX_STALE_SOCKET_RESENDS) {
          throw new ConnectionClosedError({ what: `the POST of ${what} failed`, reason: abortedNow ? 'the transport closed' : fetchFailure(error), cause: error });
        }
        // A kept-alive connection the server closed just as the POST went out (a restarted server leaves one per
        // pooled socket): sent again on the next one. Never a tools/call, which may have side effects (RFC 9112
        // §9.3.1: no automatic retry of what may not be repeated).
        this.logger.debug('POST resent after a connection reset', { what, error: fetchFailure(error) });
      }
    }
    if (json !== undefined) {
      // A JSON answer the direct request read: its body's failure is the request's (never resent), typed as the
      // POST's own failures are.
      if ('error' in json.body) {
        const error = json.body.error;
        throw new ConnectionClosedError({ what: `the answer to ${what}`, reason: isAbort(error, { aborted: aborted() }) ? 'the transport closed' : fetchFailure(error), cause: error });
      }
      this.#readJson({ text: json.body.text, complete: json.body.complete, status: json.status }, exchange, what);
      return;
    }
    if (response === undefined) return; // not reached: the loop ends with an answer in `json` or `response`
    if (method?.method === 'initialize' && response.ok) this.#captureSession(response);
    if (response.status === 404 && session !== undefined) {
      discardBody(response);
      this.#expire(session);
      throw new SessionExpiredError(session);
    }
    if (!response.ok) {
      const answer = await readErrorAnswer({ response, requestId: exchange?.id, what });
      if ('error' in answer) {
        if (session !== undefined && isUnknownSessionRefusal(answer.error)) {
          this.#expire(session);
          throw new SessionExpiredError(session);
        }
        throw answer.error;
      }
      this.deliver(answer.deliver);
      return;
    }
    if (exchange === undefined && single !== undefined && !isRequest(single)) {
      discardBody(response);
      return;
    }
    if (isEventStream(response)) {
      await followStream(this, new ResumableStream({ controller: exchange?.controller ?? new CancellationSource(), exchange }), response);
      return;
    }
    if (isJsonContentType(response.headers.get('content-type') ?? undefined)) {
      this.#readJson({ ...(await readBoundedText(response, this.#maxResponseBytes)), status: response.status }, exchange, what);
      return;
    }
    const body = (await readBoundedText(response, 1024).catch(() => ({ text: '' }))).text;
    throw new HttpStatusError({ status: response.status, body, what: `${what}: expected application/json or text/event-stream, got "${response.headers.get('content-type') ?? 'no content type'}"` });
  }

  /** Delivers a JSON answer's body (read within `maxResponseBytes`) of HTTP status `status`. */
  #readJson(answer: { readonly text: string; readonly complete: boolean; readonly status: number }, exchange: Exchange | undefined, what: string): void {
    const { text, complete, status } = answer;
    if (!complete) throw new HttpStatusError({ status, body: text, what: `${what}: the answer exceeds ${this.#maxResponseBytes} bytes` });
    const parsed = parseJson(text);
    const inbound = parsed.ok ? classifyValue(parsed.value) : undefined;
    if (inbound === undefined || inbound.kind === 'invalid') throw new HttpStatusError({ status, body: text, what: `${what}: the answer is not JSON-RPC` });
    this.deliver(inbound);
    if (exchange?.answered === false) throw new HttpStatusError({ status, body: text, what: `${what}: the answer holds no response for it` });
  }

  #paramHeadersOf(message: JsonRpcRequest | JsonRpcNotification): readonly ParamHeader[] | undefined {
    const params = message.params as { name?: unknown } | undefined;
    return message.method === 'tools/call' && typeof params?.name === 'string' ? this.#toolHeaders.get(params.name) : undefined;
  }

  #captureSession(response: Response): void {
    const id = response.headers.get('mcp-session-id');
    this.#expiredSession = undefined;
    this.#initializedSent = false;
    if (id !== null && SESSION_ID.test(id)) this.#sessionId = id;
    else if (id !== null) this.logger.warn('Ignored a session id that is not visible ASCII', { sessionId: echo(id) });
  }

  /** A 404 for the session: the id is forgotten, the GET stream stopped, later messages fail until `initialize`. */
  #expire(session: string): void {
    if (this.#sessionId === session) this.#sessionId = undefined;
    this.#expiredSession = session;
    this.#initializedSent = false;
    this.#getStream?.controller.cancel();
    this.#getStream = undefined;
  }

  /**
   * The standalone GET stream, once the session is set up (legacy era, `notifications/initialized` sent). Resolves
   * when the GET got its answer, or after {@link GET_STREAM_OPEN_WAIT_MS}: `notifications/initialized` waits for it,
   * so the stream is open before the first request — a server may put what it sends outside a request on whichever
   * stream exists, and a GET opened after a request's POST stream was cut would look like that stream's resumption.
   */
  #openGetStream(): Promise<void> {
    if (this.#closing.signal.aborted || this.#getStream !== undefined || !this.#initializedSent || this.#protocol?.era !== 'legacy') return Promise.resolve();
    const stream = new ResumableStream({ controller: new CancellationSource(), exchange: undefined });
    this.#getStream = stream;
    const stop = (): void => stream.controller.cancel();
    this.#closing.signal.addEventListener('abort', stop, { once: true });
    let resolveAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (resolveAnswered = resolve));
    const done = (): void => {
      clearTimeout(timer);
      if (this.#getAnswered === done) this.#getAnswered = undefined;
      resolveAnswered();
    };
    const timer = setTimeout(done, GET_STREAM_OPEN_WAIT_MS);
    this.#getAnswered = done;
    void followStream(this, stream, undefined).finally(() => {
      done();
      this.#closing.signal.removeEventListener('abort', stop);
      if (this.#getStream === stream) this.#getStream = undefined;
    });
    return answered;
  }

  async #deleteSession(session: string): Promise<void> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#closeTimeoutMs);
    try {
      const own: Record<string, string> = { 'Mcp-Session-Id': session };
      if (this.#protocol !== undefined) own['MCP-Protocol-Version'] = this.#protocol.revision;
      const response = await this.#fetch(this.#url, { ...this.#init, method: 'DELETE', headers: await requestHeaders(this.#headers, own), signal: timeout.signal });
      discardBody(response);
      // 405 (the server does not end sessions on request) and 404 (already gone) are fine.
      if (!response.ok && response.status !== 405 && response.status !== 404) this.logger.debug('DELETE of the session answered', { status: response.status });
    } catch (error) {
      this.logger.debug('DELETE of the session failed', { error: fetchFailure(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
