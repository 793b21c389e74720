/**
 * The bidirectional endpoint: wires a {@link Transport} to the outbound pending table (`pending.ts`), the inbound
 * scheduler (`inbound.ts`), a {@link Dispatcher} and the reply path (`replySender.ts`); batches go through the one
 * batch engine (`batch.ts`).
 *
 * @see https://www.jsonrpc.org/specification §4 (Request), §4.1 (Notification), §5 (Response), §6 (Batch)
 */
import { runBatch } from './batch.js';
import type { Inbound, InboundSingle } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import { echo, echoId } from './echo.js';
import { JsonRpcError, JsonRpcLocalError, LocalErrorCode, localError } from './errors.js';
import { InboundScheduler, type InboundHost } from './inbound.js';
import type { Instrumentation } from './instrument.js';
import type { Logger } from './logger.js';
import { neverThrowing, silentLogger } from './logger.js';
import { JSONRPC_VERSION } from './message.js';
import { checkCountOption } from './optionChecks.js';
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcResponse,
} from './message.js';
import { PendingRequests, type PeerRequestOptions } from './pending.js';
import { DEFAULT_MAX_CONCURRENT_INBOUND, DEFAULT_MAX_QUEUED_INBOUND, type PeerNotifyOptions, type PeerOptions } from './peerOptions.js';
import { ReplySender, type ReplyLink } from './replySender.js';
import type { Transport, TransportMessageExtra, TransportSendOptions } from './transport.js';

/**
 * Bidirectional JSON-RPC endpoint.
 *
 * Guarantees: ids are fresh (a counter from 0; never reused while pending); every pending request settles
 * exactly once (response → resolve, or reject with {@link JsonRpcError} built by `JsonRpcError.fromObject`;
 * timeout → `request_timeout`; abort → `request_aborted`; close → `connection_closed`; a transport that cannot
 * send → `send_failed`, all {@link JsonRpcLocalError}); responses are matched by id without type coercion
 * (`"0"` never settles request `0`: field bug B02); a response with an unknown id is logged (warn) and dropped;
 * an error response with `id: null` (or none) is reported through {@link Peer.onerror}; nothing is ever sent in
 * reply to a response. Inbound requests run through the {@link Dispatcher} with at most
 * `maxConcurrentInbound` at once (the transport's input is paused while `maxQueuedInbound` wait); an inbound request cancelled with {@link Peer.cancelInbound} gets its signal
 * aborted and no response is sent. An inbound batch is answered with one array. An invalid inbound message is
 * answered with its -32600/-32700 reply.
 *
 * @example
 * const [a, b] = createMemoryTransportPair();
 * const dispatcher = new Dispatcher();
 * dispatcher.register('add', ([x, y]: any) => x + y);
 * const server = new Peer({ transport: a, dispatcher });
 * const client = new Peer({ transport: b });
 * await Promise.all([server.start(), client.start()]);
 * await client.request('add', [1, 2]); // 3
 */
export class Peer<Ctx = unknown> {
  readonly #transport: Transport;
  readonly #dispatcher: Dispatcher<Ctx>;
  readonly #cancelNotification: PeerOptions<Ctx>['cancelNotification'];
  readonly #batchRefusal: PeerOptions<Ctx>['batchRefusal'];
  readonly #onNotification: PeerOptions<Ctx>['onNotification'];
  readonly #logger: Logger;
  /** Sends replies, and their -32603 stand-ins when the transport cannot send them. */
  readonly #replies: ReplySender;
  readonly #instrumentation: Instrumentation | undefined;
  /** The outbound request table; made by the first {@link Peer.request} (an idle connection never needs one). */
  #pending: PendingRequests | undefined = undefined;
  readonly #inbound: InboundScheduler<Ctx>;

  /**
   * The {@link InboundHost} and {@link ReplyLink} of one peer: its methods live on one shared prototype, so a
   * connection holds a one-field object here instead of closures (it is declared in the class body to reach the
   * private methods).
   */
  static readonly #Link = class PeerLink<C> implements InboundHost, ReplyLink {
    readonly #peer: Peer<C>;

    constructor(peer: Peer<C>) {
      this.#peer = peer;
    }

    get closed(): boolean {
      return this.#peer.#closed;
    }

    get ending(): boolean {
      return this.#peer.#closed || this.#peer.#closing !== undefined;
    }

    reply(response: JsonRpcResponse): void {
      this.#peer.#replies.send(response);
    }

    send(message: JsonRpcMessage | readonly JsonRpcMessage[], relatedRequestId: JsonRpcId | undefined): Promise<void> {
      return this.#peer.#send(message, relatedRequestId);
    }

    pauseInput(paused: boolean): void {
      this.#peer.#pauseInput(paused);
    }

    requestCancelled(id: JsonRpcId): void {
      this.#peer.#requestCancelled(id);
    }
  };

  #closed = false;
  #closing: Promise<void> | undefined;

  /** Fired once after the connection closes. */
  onclose?: (() => void) | undefined;

  /**
   * Connection-level problems that belong to no pending request: an error response whose id is `null` or
   * missing (the peer could not read one of our messages, field bug B45; a {@link JsonRpcError}), and transport
   * errors. The connection stays open. @default none (they are logged)
   */
  onerror?: ((error: Error) => void) | undefined;

  /**
   * @param options - See {@link PeerOptions}.
   * @throws RangeError when `maxConcurrentInbound` or `maxQueuedInbound` is not a positive integer (TypeError when
   *   not a number).
   */
  constructor(options: PeerOptions<Ctx>) {
    const limit = checkCountOption('maxConcurrentInbound', options.maxConcurrentInbound ?? DEFAULT_MAX_CONCURRENT_INBOUND);
    const queued = checkCountOption('maxQueuedInbound', options.maxQueuedInbound ?? DEFAULT_MAX_QUEUED_INBOUND);
    const transport = options.transport;
    const logger = neverThrowing(options.logger ?? silentLogger);
    this.#transport = transport;
    this.#logger = logger;
    this.#dispatcher = options.dispatcher ?? new Dispatcher<Ctx>({ logger });
    this.#cancelNotification = options.cancelNotification;
    this.#batchRefusal = options.batchRefusal;
    this.#onNotification = options.onNotification;
    this.#instrumentation = options.instrumentation;
    const link = new Peer.#Link<Ctx>(this);
    this.#replies = new ReplySender(link, logger);
    this.#inbound = new InboundScheduler<Ctx>(link, {
      dispatcher: this.#dispatcher,
      context: options.context,
      maxConcurrent: limit,
      maxQueued: queued,
      logger,
      instrumentation: options.instrumentation,
    });
    transport.onmessage = (message, extra) => this.#receive(message, extra);
    transport.onclose = () => this.#handleClose();
    transport.onerror = (error) => {
      this.#logger.warn('Transport error', { error });
      this.#report(error);
    };
  }

  /** Starts the transport. @throws whatever the transport's `start()` throws. */
  start(): Promise<void> {
    return this.#transport.start();
  }

  /** Number of outbound requests awaiting a response. */
  get pendingCount(): number {
    return this.#pending?.size ?? 0;
  }

  /** Number of inbound requests being handled or waiting for a slot. */
  get inboundCount(): number {
    return this.#inbound.size;
  }

  /** Whether the connection has closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Resolves once no inbound request is being handled or waiting for a slot (at once when none is, or when the
   * connection has closed), after the last one's response was handed to the transport. A request cancelled with
   * {@link Peer.cancelInbound} stops counting when it is cancelled. Never rejects.
   */
  whenIdle(): Promise<void> {
    return this.#inbound.whenIdle();
  }

  /**
   * Sends a request and waits for its result.
   *
   * @param method - The method name.
   * @param params - Structured params (JSON-RPC 2.0 §4.2); left out of the message when `undefined`.
   * @param options - See {@link PeerRequestOptions}.
   * @returns The response's `result`.
   * @throws JsonRpcError when the peer answers with an error response (its `code`, `message`, `data`; a
   *   malformed response rejects with code -32600 and an `Invalid response: …` message).
   * @throws JsonRpcLocalError `request_timeout`, `request_aborted`, `connection_closed` or `send_failed`.
   * @throws RangeError when `timeoutMs` or `maxTotalTimeoutMs` is negative or not a number.
   * @see https://www.jsonrpc.org/specification §4, §5
   */
  request<T = unknown>(method: string, params?: JsonRpcParams, options: PeerRequestOptions = {}): Promise<T> {
    if (this.#closed || this.#closing !== undefined) {
      return Promise.reject(localError(LocalErrorCode.ConnectionClosed, `Connection closed: cannot send request "${method}"`));
    }
    return this.#outbound().request<T>(method, params, options);
  }

  /**
   * Sends a notification (no `id`: the peer never answers it, JSON-RPC 2.0 §4.1).
   *
   * @param method - The method name.
   * @param params - Structured params; left out of the message when `undefined`.
   * @param options - See {@link PeerNotifyOptions}.
   * @throws JsonRpcLocalError `connection_closed` or `send_failed`.
   */
  notify(method: string, params?: JsonRpcParams, options: PeerNotifyOptions = {}): Promise<void> {
    if (this.#closed || this.#closing !== undefined) {
      return Promise.reject(localError(LocalErrorCode.ConnectionClosed, `Connection closed: cannot send notification "${method}"`));
    }
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params };
    return this.#send(message, options.relatedRequestId).then(undefined, (error: unknown) => {
      throw this.#sendError(error, `notification "${method}"`);
    });
  }

  /**
   * Rejects every outbound request still awaiting a response with {@link JsonRpcLocalError} `connection_closed`,
   * without closing the connection: for when the other side can no longer answer (its input to us ended, e.g.
   * stdin EOF) but our own answers may still go out.
   *
   * @returns How many requests were rejected.
   */
  failPending(reason = 'the peer can no longer respond'): number {
    return this.#pending?.failAll((method) => `Connection closed: request "${method}" got no response: ${reason}`) ?? 0;
  }

  /**
   * Rejects the outbound request `id` with `error` at once, when the transport knows its response cannot arrive (a
   * response line too long to read, say): the caller learns why now instead of when its timeout runs out. A later
   * response with that id is dropped as unknown.
   *
   * @returns Whether a request with that id was pending.
   */
  failRequest(id: JsonRpcId, error: Error): boolean {
    return this.#pending?.fail(id, error) ?? false;
  }

  /**
   * Routes a progress payload to the pending request registered under `token` (calls its `onprogress`, and
   * restarts its `timeoutMs` clock when it asked for `resetTimeoutOnProgress`; `maxTotalTimeoutMs` still
   * applies). Tokens are matched without coercion.
   *
   * @returns Whether a pending request was found for the token.
   */
  reportProgress(token: string | number, progress: unknown): boolean {
    return this.#pending?.reportProgress(token, progress) ?? false;
  }

  /**
   * Cancels an inbound request being handled or waiting for a slot: aborts its handler's signal (a waiting
   * one never starts) and suppresses its response. Ids are matched without coercion.
   *
   * @param id - The inbound request's id.
   * @param reason - Becomes the abort reason (wrapped in a `request_aborted` {@link JsonRpcLocalError}).
   * @returns Whether it was in flight (false when unknown or already answered).
   */
  cancelInbound(id: JsonRpcId, reason?: string): boolean {
    return this.#inbound.cancel(id, reason);
  }

  /**
   * Closes the transport; pending requests reject with `connection_closed`; inbound signals abort; queued
   * inbound requests are dropped. Idempotent; resolves once closed.
   */
  close(): Promise<void> {
    if (this.#closing === undefined) {
      if (this.#closed) return Promise.resolve();
      let closing: Promise<void>;
      try {
        closing = this.#transport.close();
      } catch (error) {
        closing = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      this.#closing = closing.then(
        () => this.#handleClose(),
        (error: unknown) => {
          this.#logger.warn('Transport close failed', { error });
          this.#handleClose();
        },
      );
    }
    return this.#closing;
  }

  /**
   * Sends a pre-built response (used by protocol layers that answer outside the dispatcher).
   *
   * @param response - The response to send.
   * @param relatedRequestId - Routing hint for the transport. @default `response.id` when it is not null
   * @throws JsonRpcLocalError `connection_closed` or `send_failed`.
   */
  sendResponse(response: JsonRpcResponse, relatedRequestId?: JsonRpcId): Promise<void> {
    if (this.#closed) {
      return Promise.reject(localError(LocalErrorCode.ConnectionClosed, 'Connection closed: cannot send response'));
    }
    const related = relatedRequestId ?? response.id ?? undefined;
    return this.#send(response, related).then(undefined, (error: unknown) => {
      throw this.#sendError(error, 'response');
    });
  }

  // ---- outbound ----

  /** The outbound request table, made on first use. */
  #outbound(): PendingRequests {
    this.#pending ??= new PendingRequests(
      {
        send: (message, related) => this.#send(message, related),
        sendError: (error, what) => this.#sendError(error, what),
        abandoned: (id, reason, related) => this.#sendCancel(id, reason, related),
      },
      this.#logger,
      this.#instrumentation,
    );
    return this.#pending;
  }

  #send(message: JsonRpcMessage | readonly JsonRpcMessage[], relatedRequestId: JsonRpcId | undefined): Promise<void> {
    const options: TransportSendOptions | undefined = relatedRequestId === undefined ? undefined : { relatedRequestId };
    try {
      return this.#transport.send(message, options);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #sendError(error: unknown, what: string): JsonRpcLocalError {
    if (error instanceof JsonRpcLocalError) return error;
    if (this.#closed) return localError(LocalErrorCode.ConnectionClosed, `Connection closed: cannot send ${what}`, error);
    return localError(LocalErrorCode.SendFailed, `Send failed: ${what}`, error);
  }

  /** Tells the other side that an outbound request was abandoned (timeout or abort), when configured. */
  #sendCancel(id: JsonRpcId, reason: string, relatedRequestId: JsonRpcId | undefined): void {
    const build = this.#cancelNotification;
    if (build === undefined || this.#closed || this.#closing !== undefined) return;
    let notification: JsonRpcNotification | undefined;
    try {
      notification = build(id, reason);
    } catch (failure) {
      this.#logger.error('cancelNotification failed', { id, error: failure });
      return;
    }
    if (notification === undefined) return;
    this.#send(notification, relatedRequestId).then(undefined, (failure: unknown) => {
      this.#logger.warn('Cancel notification could not be sent', { id, error: failure });
    });
  }

  // ---- inbound ----

  #receive(inbound: Inbound, extra: TransportMessageExtra | undefined): void {
    if (this.#closed) return;
    switch (inbound.kind) {
      case 'response':
        this.#onResponse(inbound.message, inbound.invalid);
        return;
      case 'invalid':
        this.#replies.send(inbound.reply);
        return;
      case 'notification':
        this.#notification(inbound.message, extra);
        return;
      case 'request':
        this.#inbound.request(inbound.message, extra, undefined);
        return;
      case 'batch':
        this.#onBatch(inbound.items, extra);
        return;
    }
  }

  /** An inbound notification: to {@link PeerOptions.onNotification} when given, else to the dispatcher. */
  #notification(message: JsonRpcNotification, extra: TransportMessageExtra | undefined): void {
    const route = this.#onNotification;
    if (route === undefined) {
      this.#inbound.notification(message, extra);
      return;
    }
    try {
      route(message, extra);
    } catch (error) {
      this.#logger.error('onNotification handler failed', { method: echo(message.method), error });
    }
  }

  /** The answer {@link PeerOptions.batchRefusal} gives a batch instead of running it, if any. */
  #refusalOf(items: readonly InboundSingle[], extra: TransportMessageExtra | undefined): JsonRpcResponse | undefined {
    const judge = this.#batchRefusal;
    if (judge === undefined) return undefined;
    try {
      return judge(items, extra);
    } catch (error) {
      this.#logger.error('batchRefusal failed', { error });
      return undefined;
    }
  }

  #onResponse(response: JsonRpcResponse, invalid: string | undefined): void {
    if (this.#pending?.respond(response, invalid) === true) return;
    const id = response.id;
    if (id === null && 'error' in response) {
      const error = JsonRpcError.fromObject(response.error);
      this.#logger.warn('Error response without a request id', { code: error.code, message: echo(error.message), invalid: invalid === undefined ? undefined : echo(invalid) });
      this.#report(error);
      return;
    }
    this.#logger.warn('Response with an unknown id: dropped', { id: echoId(id), invalid: invalid === undefined ? undefined : echo(invalid) });
  }

  #report(error: Error): void {
    const onerror = this.onerror;
    if (onerror === undefined) return;
    try {
      onerror(error);
    } catch (failure) {
      this.#logger.error('onerror handler failed', { error: failure });
    }
  }

  /** Tells the transport to stop (or resume) delivering inbound messages; a transport without the hook ignores it. */
  #pauseInput(paused: boolean): void {
    try {
      this.#transport.pauseInput?.(paused);
    } catch (error) {
      this.#logger.error('Transport pauseInput failed', { paused, error });
    }
  }

  /** Tells the transport that an inbound request will get no response; a transport without the hook ignores it. */
  #requestCancelled(id: JsonRpcId): void {
    try {
      this.#transport.requestCancelled?.(id);
    } catch (error) {
      this.#logger.error('Transport requestCancelled failed', { id: echoId(id), error });
    }
  }

  #onBatch(items: readonly InboundSingle[], extra: TransportMessageExtra | undefined): void {
    const refusal = this.#refusalOf(items, extra);
    if (refusal !== undefined) {
      this.#replies.send(refusal);
      return;
    }
    runBatch(items, {
      maxBatchSize: this.#dispatcher.maxBatchSize,
      member: (item, slot) => {
        switch (item.kind) {
          case 'response':
            this.#onResponse(item.message, item.invalid);
            slot.settle(undefined);
            return;
          case 'notification':
            this.#notification(item.message, extra);
            slot.settle(undefined);
            return;
          case 'request':
            this.#inbound.request(item.message, extra, slot);
            return;
        }
      },
      done: (reply) => {
        if (reply !== undefined && !this.#closed) this.#replies.send(reply);
      },
    });
  }

  // ---- close ----

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#replies.flush();
    this.#pending?.failAll((method) => `Connection closed: request "${method}" got no response`);
    this.#inbound.closeAll();
    const onclose = this.onclose;
    if (onclose !== undefined) {
      try {
        onclose();
      } catch (error) {
        this.#logger.error('onclose handler failed', { error });
      }
    }
  }
}
