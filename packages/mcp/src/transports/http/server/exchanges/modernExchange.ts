/**
 * The answer to one modern POST (MCP 2026-07-28), with no session: the request is handed to the server's `handle`
 * with a channel that writes on this POST's own stream, and answered as one `application/json` body or as a
 * `text/event-stream` (the same adaptive decision as on a session: the response alone ⇒ JSON; a notification
 * first, or nothing within `sseAfterMs` ⇒ SSE). No session id is minted or read, no event carries an id (there
 * is nothing to resume), SSE streams get keep-alive comments, and the client closing the response stream cancels
 * the request: on this transport that is the cancellation. The signal is made when the handler first reads
 * `ctx.signal` (most never do), and its `ctx.cancellation` when first read: a request whose handler does not look
 * costs no `AbortController` and no listener, one that listens through `ctx.cancellation` no signal.
 *
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Sending Messages", "Receiving Messages", "Cancellation"
 */
import { CancellationSource, echoId, JsonRpcLocalError, LocalErrorCode } from '@switchboard/jsonrpc';
import type {
  ContextRequest,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  Logger,
  TransportMessageExtra,
} from '@switchboard/jsonrpc';
import { McpErrorCode } from '../../../../protocol/errors.js';
import { OutStream } from './exchange.js';
import type { ExchangeHost, StreamWatcher } from './exchange.js';
import type { HttpInput, HttpOutput } from '../inputOutput.js';
import { JSON_HEADERS } from '../inputOutput.js';
import type { ResponseShape } from '../../media.js';
import { HttpStatus } from '../refusals.js';
import type { HttpStatusCode } from '../refusals.js';
import type { HttpChannelNotifyOptions, HttpClientChannel, HttpHandleOptions, HttpModernHandle } from '../serverLike.js';
import { SSE_HEADERS } from '../../sse/sseChannel.js';
import { SseBufferBudget } from '../sseBudget.js';

/** The settings every stateless exchange of one endpoint shares. */
export interface ModernExchangeSettings {
  readonly logger: Logger;
  /** Unsent SSE data allowed per connection before it is dropped, in bytes. */
  readonly maxSseBufferBytes: number;
  /** Unsent SSE data allowed across every stateless stream together, in bytes (see {@link SseBufferBudget}). */
  readonly maxSseBufferBytesTotal: number;
  /** Interval (ms) of SSE keep-alive comments; `0` disables. */
  readonly keepAliveMs: number;
  /** ms before an undecided exchange becomes SSE. */
  readonly sseAfterMs: number;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The exchanges' view of the endpoint when there is no session: no event store, no stream ids, headers without
 * `Mcp-Session-Id`. One per endpoint.
 */
export class ModernExchangeHost implements ExchangeHost {
  readonly sessionId = undefined;
  readonly eventStore = undefined;
  readonly logger: Logger;
  readonly retryMs = 0;
  readonly maxSseBufferBytes: number;
  readonly sseHeaders = SSE_HEADERS;
  readonly jsonHeaders = JSON_HEADERS;
  readonly acceptedHeaders = NO_HEADERS;
  readonly closed = false;
  readonly keepAliveMs: number;
  readonly sseAfterMs: number;
  /** What every stateless SSE stream together holds unsent, and who gives a stream up when it is too much. */
  readonly sseBudget: SseBufferBudget;

  constructor(settings: ModernExchangeSettings) {
    this.logger = settings.logger;
    this.maxSseBufferBytes = settings.maxSseBufferBytes;
    this.sseBudget = new SseBufferBudget(settings.maxSseBufferBytesTotal);
    this.keepAliveMs = settings.keepAliveMs;
    this.sseAfterMs = settings.sseAfterMs;
  }

  primes(): boolean {
    return false;
  }

  opened(): void {}

  finished(): void {}

  stored(): void {}

  forget(): void {}
}

/**
 * The HTTP status of a modern request answered with a JSON error body: -32021 is 400 (MCP 2026-07-28
 * basic/index.mdx "Error Codes"); every other error a handler produces stays in-band with 200.
 */
function statusOf(response: JsonRpcResponse): HttpStatusCode {
  return 'error' in response && response.error.code === McpErrorCode.MissingRequiredClientCapability ? HttpStatus.BadRequest : HttpStatus.Ok;
}

/** Whether a response must be a JSON answer with an error status rather than an event on a stream. */
function isHttpError(response: JsonRpcResponse): boolean {
  return statusOf(response) !== HttpStatus.Ok;
}

/** What {@link ModernExchange} is created with. */
export interface ModernExchangeInit {
  readonly host: ModernExchangeHost;
  readonly request: JsonRpcRequest;
  readonly respondWith: ResponseShape;
  /** The HTTP request: its `signal` (the client went away) is read only when the handler reads `ctx.signal`. */
  readonly input: Pick<HttpInput, 'signal'>;
}

/**
 * One modern request's exchange: its {@link OutStream} and the {@link HttpClientChannel} its handler writes to.
 * `sse` answers are held back like adaptive ones until the first message, so that a -32021 answer can still be an
 * HTTP 400 (then as JSON); once a notification went out, or after `sseAfterMs`, the answer is a 200 stream.
 */
export class ModernExchange implements HttpClientChannel, ContextRequest, HttpHandleOptions, StreamWatcher {
  readonly #host: ModernExchangeHost;
  readonly #stream: OutStream;
  readonly id: JsonRpcId;
  readonly method: string;
  readonly #preferSse: boolean;
  readonly #input: Pick<HttpInput, 'signal' | 'onGone'>;
  /**
   * The request's cancellation (the handler's `ctx.cancellation`, and its `ctx.signal`), made when either is first
   * read: most handlers read neither, and then the client's leaving is not watched either.
   */
  #cancellation: CancellationSource | undefined = undefined;
  /** The client left (or its SSE stream was dropped) before the response. */
  #cancelled = false;
  /** The HTTP request's facts (set by `run`). */
  extra: TransportMessageExtra | undefined = undefined;
  #status: HttpStatusCode = HttpStatus.Ok;

  constructor(init: ModernExchangeInit) {
    this.#host = init.host;
    this.#input = init.input;
    this.id = init.request.id;
    this.method = init.request.method;
    this.#preferSse = init.respondWith === 'sse';
    const stream = new OutStream(init.host, init.respondWith === 'json' ? 'json' : 'adaptive');
    stream.remaining = 1;
    this.#stream = stream;
  }

  /**
   * The request's signal (the handler's `ctx.signal`), made when first read: aborted when the client closed the
   * response stream (or never waited for it).
   */
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  /** The request's cancellation (the handler's `ctx.cancellation`): cancelled when the client goes away first. */
  get cancellation(): CancellationSource {
    let cancellation = this.#cancellation;
    if (cancellation === undefined) {
      cancellation = new CancellationSource();
      this.#cancellation = cancellation;
      if (this.#cancelled) cancellation.cancel();
      else this.#watchClient();
    }
    return cancellation;
  }

  /** Cancels the request when the client goes away before the answer was written (from the first reader on). */
  #watchClient(): void {
    const input = this.#input;
    if (input.onGone !== undefined) input.onGone(() => this.#cancel());
    else {
      const gone = input.signal;
      if (gone === undefined) return;
      if (gone.aborted) this.#cancel();
      else gone.addEventListener('abort', () => this.#cancel(), { once: true });
    }
  }

  /** As the `handle` options: the channel is this exchange. */
  get channel(): HttpClientChannel {
    return this;
  }

  /** As the `handle` options: the request whose `signal` is made when read is this exchange. */
  get contextRequest(): ContextRequest {
    return this;
  }

  /** As the `handle` options: the ladder judged the request (`classifyModern`), so the server does not again. */
  get judged(): boolean {
    return true;
  }

  /**
   * Runs the request through `handle` and resolves with the HTTP answer: the JSON body once the response exists,
   * or the SSE stream as soon as the exchange became one (the response then ends it).
   */
  run(handle: HttpModernHandle, request: JsonRpcRequest, extra: TransportMessageExtra): Promise<HttpOutput> {
    const stream = this.#stream;
    this.extra = extra;
    // A `json` exchange never becomes a stream and only its response completes it: its answer follows the handler's
    // promise directly (no second promise to wait on).
    if (stream.kind === 'json') {
      return handle(request, this).then(
        (response) => {
          this.#respond(response);
          return this.#output(true);
        },
        (error: unknown) => {
          this.#rejected(error);
          return this.#output(true);
        },
      );
    }
    const answered = stream.settled();
    if (stream.kind === 'adaptive') stream.timer = setTimeout(() => this.#upgrade(), this.#host.sseAfterMs);
    // The exchange is the options: `signal` stays a getter (a server-like reading it makes the controller then).
    handle(request, this).then(
      (response) => this.#respond(response),
      (error: unknown) => this.#rejected(error),
    );
    return answered.then((settled) => this.#output(settled));
  }

  /** The handler rejected (a server-like's bug): logged, and answered -32603 with no internal text. */
  #rejected(error: unknown): void {
    this.#host.logger.error('Modern request handler rejected', { error });
    this.#respond({ jsonrpc: '2.0', id: this.id, error: { code: McpErrorCode.InternalError, message: 'Internal error' } });
  }

  /**
   * Writes a notification on this request's stream (an undecided exchange becomes SSE first). Dropped when the
   * answer is one JSON body, after the response went out, or once the client left.
   */
  notify(method: string, params?: JsonRpcParams, _options?: HttpChannelNotifyOptions): Promise<void> {
    const stream = this.#stream;
    if (stream.done || this.#cancelled) return Promise.resolve();
    if (stream.kind === 'adaptive') this.#upgrade();
    if (stream.kind !== 'sse') return Promise.resolve();
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return stream.emit(message, JSON.stringify(message)) ?? Promise.resolve();
  }

  /** Always rejects: a modern request never sends the client a request (an input request is a result instead). */
  request<T = unknown>(method: string): Promise<T> {
    return Promise.reject(new JsonRpcLocalError(
      LocalErrorCode.SendFailed,
      `Cannot send '${method}' to the client: a modern (2026-07-28) request has no server-to-client requests (use an input request)`,
    ));
  }

  /** The exchange becomes an SSE stream with keep-alive comments; the client closing it cancels the request. */
  #upgrade(): void {
    const stream = this.#stream;
    stream.upgrade();
    const channel = stream.channel;
    if (stream.kind !== 'sse' || channel === undefined) return;
    stream.watcher = this;
    channel.keepAlive(this.#host.keepAliveMs);
    this.#host.sseBudget.track(channel, this.extra?.caller);
  }

  /**
   * The client left this exchange's SSE stream before it was done (the exchange is its stream's `watcher`, which the
   * stream drops once done): the request is cancelled. Nothing that outlives the answer may lead back to the
   * exchange. Something still reaches a finished stream for a while after its response (not a live root: a heap
   * snapshot after a full collection holds none), and when the channel's `ondetach` held the exchange for good,
   * V8 (Node 20) kept every stateless SSE request's body and answer through the young-generation collections, then
   * allocated their literal sites straight in the old generation (`node --trace-pretenuring-statistics`): at one
   * call in flight with 16 KiB answers, ~22 KB promoted per request, a mark-compact every ~700 requests, about a
   * fifth more CPU per call and 40 MiB more peak RSS.
   */
  clientLeft(): void {
    this.#cancel();
  }

  /** The client went away before the response: the handler's signal aborts, its listeners run; nothing more is sent. */
  #cancel(): void {
    if (this.#stream.done || this.#cancelled) return;
    this.#cancelled = true;
    this.#cancellation?.cancel();
  }

  #respond(response: JsonRpcResponse | undefined): void {
    const stream = this.#stream;
    if (stream.done) return;
    stream.remaining = 0;
    // Nothing to send: the request was cancelled (the client is gone), or the server answers nothing. A client that
    // left while no one watched (the handler never read its signal) finds a closed response: nothing is written.
    if (response === undefined || this.#cancelled) {
      stream.complete();
      return;
    }
    let json: string;
    try {
      json = JSON.stringify(response);
    } catch (error) {
      this.#host.logger.error('Modern response could not be serialized', { error, id: echoId(this.id) });
      json = JSON.stringify({ jsonrpc: '2.0', id: this.id, error: { code: McpErrorCode.InternalError, message: 'Internal error' } });
    }
    if (stream.kind === 'adaptive') {
      if (this.#preferSse && !isHttpError(response)) this.#upgrade();
      else stream.decideJson();
    }
    if (stream.kind === 'json') {
      this.#status = statusOf(response);
      stream.collect(json);
    } else {
      stream.answered = true;
      void stream.emit(response, json);
    }
    stream.complete();
  }

  #output(settled: boolean): HttpOutput {
    const stream = this.#stream;
    const channel = stream.answer;
    if (settled && channel !== undefined) {
      stream.answer = undefined;
      return { status: HttpStatus.Ok, headers: this.#host.sseHeaders, sse: channel };
    }
    // Cancelled before anything was answered: the client is gone; an empty 202 closes what is left.
    if (stream.count === 0) return { status: HttpStatus.Accepted, headers: this.#host.acceptedHeaders };
    // A -32021 answer is an HTTP 400 whose body is the JSON-RPC error with the request's id.
    return { status: this.#status, headers: this.#host.jsonHeaders, body: stream.takeJson(false) };
  }
}
