/**
 * The bidirectional endpoint: sends requests and notifications over a {@link Transport}, keeps a pending
 * table that always settles, and dispatches inbound requests through a {@link Dispatcher}.
 *
 * @see https://www.jsonrpc.org/specification §4 (Request), §4.1 (Notification), §5 (Response), §6 (Batch)
 */
import { errorResponse } from './classify.js';
import { Dispatcher, type SignalSource } from './dispatcher.js';
import { ErrorCode, ErrorMessage, JsonRpcError, JsonRpcLocalError, LocalErrorCode } from './errors.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { Inbound, InboundSingle } from './classify.js';
import type { Transport, TransportMessageExtra, TransportSendOptions } from './transport.js';
import { JSONRPC_VERSION } from './message.js';
import type {
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
} from './message.js';

/** Default for {@link PeerRequestOptions.timeoutMs}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default for {@link PeerOptions.maxConcurrentInbound}. */
export const DEFAULT_MAX_CONCURRENT_INBOUND = 64;
/** Default for {@link PeerOptions.maxQueuedInbound}. */
export const DEFAULT_MAX_QUEUED_INBOUND = 1024;

/** Options of one outbound request. */
export interface PeerRequestOptions {
  /**
   * Time in ms without a response (or, with `resetTimeoutOnProgress`, without progress) before the request
   * fails with `request_timeout`. `Infinity` disables the timer; values above 2^31 - 1 are clamped.
   * @default 60_000 ({@link DEFAULT_REQUEST_TIMEOUT_MS})
   */
  readonly timeoutMs?: number;
  /**
   * A hard cap in ms from the send, whatever progress arrives; fails the request with `request_timeout`.
   * Meant for use with `resetTimeoutOnProgress`.
   * @default unlimited
   */
  readonly maxTotalTimeoutMs?: number;
  /** Restart the `timeoutMs` clock whenever progress for this request is reported. @default false */
  readonly resetTimeoutOnProgress?: boolean;
  /**
   * Aborting rejects the request with `request_aborted` (cause: the signal's reason) and sends the peer's
   * cancel notification if configured. An already-aborted signal rejects at once and sends nothing.
   * @default none
   */
  readonly signal?: AbortSignal;
  /** Routing hint passed to the transport: the inbound request this one is issued on behalf of. @default none */
  readonly relatedRequestId?: JsonRpcId;
  /**
   * A token under which progress for this request is reported with {@link Peer.reportProgress}. The
   * protocol layer puts it in the params itself (MCP: `params._meta.progressToken`). Matched without
   * coercion (`1` and `"1"` are different tokens). @default none
   */
  readonly progressToken?: string | number;
  /** Called with each progress payload reported under `progressToken`; a throw is logged and ignored. @default none */
  readonly onprogress?: (progress: unknown) => void;
}

/** Options of one outbound notification. */
export interface PeerNotifyOptions {
  /** Routing hint passed to the transport. @default none */
  readonly relatedRequestId?: JsonRpcId;
}

/** {@link Peer} construction options. */
export interface PeerOptions<Ctx> {
  /** The channel. The peer sets its `onmessage`, `onerror` and `onclose`. */
  readonly transport: Transport;
  /** Handles inbound requests and notifications. Without one, every inbound request gets -32601. @default none */
  readonly dispatcher?: Dispatcher<Ctx>;
  /**
   * Builds the dispatcher context of one inbound request or notification. Called once per inbound message,
   * on arrival (before it waits for a concurrency slot). A throw answers a request with -32603.
   * @default `() => undefined`
   */
  readonly context?: (message: JsonRpcRequest | JsonRpcNotification, extra: TransportMessageExtra | undefined) => Ctx;
  /**
   * The notification to send when an outbound request is abandoned (aborted or timed out), e.g. MCP's
   * `notifications/cancelled`. Return `undefined` to send nothing. @default none
   */
  readonly cancelNotification?: (id: JsonRpcId, reason: string) => JsonRpcNotification | undefined;
  /**
   * Inbound requests handled at once (batch members count one each); more wait in arrival order.
   * Notifications are never queued (a cancellation must get through a full queue). A positive integer.
   * @default 64 ({@link DEFAULT_MAX_CONCURRENT_INBOUND})
   */
  readonly maxConcurrentInbound?: number;
  /**
   * Requests that may wait for a slot before the transport is asked to stop reading ({@link Transport.pauseInput});
   * reading resumes once half of them got a slot. So what a client pipelines stays in the pipe instead of in memory,
   * while messages a running request needs (its cancellation, the answer to a server-to-client request) still get
   * read behind a modest backlog. A positive integer.
   * @default 1024 ({@link DEFAULT_MAX_QUEUED_INBOUND})
   */
  readonly maxQueuedInbound?: number;
  /** Reports unknown response ids (warn), transport errors and handler failures (error). @default silentLogger */
  readonly logger?: Logger;
}

/** Largest delay `setTimeout` honours (ms); larger values fire at once, so they are clamped. */
const MAX_TIMER_MS = 2_147_483_647;
const RESOLVED_VOID: Promise<void> = Promise.resolve();

type Timer = ReturnType<typeof setTimeout>;

/** Starts a timer that does not keep a Node.js process alive by itself (`unref` when the runtime has it). */
function startTimer(callback: () => void, ms: number): Timer | undefined {
  if (!(ms < Infinity)) return undefined;
  const timer = setTimeout(callback, Math.max(0, Math.min(ms, MAX_TIMER_MS)));
  const unref = (timer as unknown as { unref?: unknown }).unref;
  if (typeof unref === 'function') unref.call(timer);
  return timer;
}

/** One outbound request awaiting its response. */
interface Pending {
  readonly id: number;
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly options: PeerRequestOptions;
  readonly timeoutMs: number;
  timer: Timer | undefined;
  totalTimer: Timer | undefined;
  onabort: (() => void) | undefined;
}

/** Collects the replies of one inbound batch, sent as one array once every member is done. */
interface BatchReply {
  readonly replies: (JsonRpcResponse | undefined)[];
  remaining: number;
}

/**
 * One inbound request, queued or running. It is also the handler's {@link SignalSource}: the AbortController
 * is made only when a handler reads `ctx.signal` (most never do), or already aborted if it was cancelled first.
 */
class InboundJob<Ctx> implements SignalSource {
  #controller: AbortController | undefined = undefined;
  #abortReason: unknown = undefined;
  /** Cancelled with `cancelInbound`, or the connection closed: no response is sent. */
  cancelled = false;
  /** Counted in the active slots (started, not queued). */
  running = false;
  done = false;

  constructor(
    readonly message: JsonRpcRequest,
    readonly ctx: Ctx,
    readonly batch: BatchReply | undefined,
    readonly index: number,
  ) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else if (this.#abortReason === undefined) this.#abortReason = reason;
  }
}

function localError(code: JsonRpcLocalError['code'], message: string, cause?: unknown): JsonRpcLocalError {
  return cause === undefined ? new JsonRpcLocalError(code, message) : new JsonRpcLocalError(code, message, { cause });
}

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
  readonly #context: PeerOptions<Ctx>['context'];
  readonly #cancelNotification: PeerOptions<Ctx>['cancelNotification'];
  readonly #maxConcurrentInbound: number;
  readonly #maxQueued: number;
  readonly #logger: Logger;

  #nextId = 0;
  readonly #pending = new Map<number, Pending>();
  readonly #progress = new Map<string | number, Pending>();

  /** Inbound requests by id (queued or running). */
  readonly #inbound = new Map<JsonRpcId, InboundJob<Ctx>>();
  #idleWaiters: (() => void)[] = [];
  readonly #queue: InboundJob<Ctx>[] = [];
  #queueHead = 0;
  #draining = false;
  #active = 0;
  /** Whether the transport was told to stop delivering (a request waits for a slot): {@link Transport.pauseInput}. */
  #inputPaused = false;

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
   * @throws RangeError when `maxConcurrentInbound` or `maxQueuedInbound` is not a positive integer.
   */
  constructor(options: PeerOptions<Ctx>) {
    const limit = options.maxConcurrentInbound ?? DEFAULT_MAX_CONCURRENT_INBOUND;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Invalid maxConcurrentInbound: expected a positive integer, got ${String(limit)}`);
    }
    this.#transport = options.transport;
    this.#logger = options.logger ?? silentLogger;
    this.#dispatcher = options.dispatcher ?? new Dispatcher<Ctx>({ logger: this.#logger });
    this.#context = options.context;
    this.#cancelNotification = options.cancelNotification;
    this.#maxConcurrentInbound = limit;
    const queued = options.maxQueuedInbound ?? DEFAULT_MAX_QUEUED_INBOUND;
    if (!Number.isSafeInteger(queued) || queued < 1) {
      throw new RangeError(`Invalid maxQueuedInbound: expected a positive integer, got ${String(queued)}`);
    }
    this.#maxQueued = queued;
    const transport = this.#transport;
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
    return this.#pending.size;
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
    if (this.#inbound.size === 0 || this.#closed) return RESOLVED_VOID;
    return new Promise((resolve) => {
      this.#idleWaiters.push(resolve);
    });
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
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const total = options.maxTotalTimeoutMs;
    if (!(timeoutMs >= 0) || (total !== undefined && !(total >= 0))) {
      return Promise.reject(
        new RangeError(`Invalid timeout for "${method}": timeoutMs and maxTotalTimeoutMs must be non-negative numbers of ms`),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) {
      return Promise.reject(localError(LocalErrorCode.RequestAborted, `Request aborted: "${method}"`, signal.reason));
    }
    const id = this.#nextId++;
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: JSONRPC_VERSION, id, method } : { jsonrpc: JSONRPC_VERSION, id, method, params };
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        id,
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        options,
        timeoutMs,
        timer: undefined,
        totalTimer: undefined,
        onabort: undefined,
      };
      this.#pending.set(id, entry);
      entry.timer = startTimer(() => this.#timedOut(entry, entry.timeoutMs), entry.timeoutMs);
      if (total !== undefined) {
        entry.totalTimer = startTimer(() => this.#timedOut(entry, total), total);
      }
      if (signal !== undefined) {
        entry.onabort = () => this.#abandon(entry, localError(LocalErrorCode.RequestAborted, `Request aborted: "${method}"`, signal.reason), 'Request aborted');
        signal.addEventListener('abort', entry.onabort, { once: true });
      }
      if (options.progressToken !== undefined) this.#progress.set(options.progressToken, entry);
      this.#send(message, options.relatedRequestId).then(undefined, (error: unknown) => {
        this.#settle(entry, undefined, this.#sendError(error, `request "${method}"`));
      });
    });
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
    const entries = [...this.#pending.values()];
    for (const entry of entries) {
      this.#settle(entry, undefined, localError(LocalErrorCode.ConnectionClosed, `Connection closed: request "${entry.method}" got no response: ${reason}`));
    }
    return entries.length;
  }

  /**
   * Routes a progress payload to the pending request registered under `token` (calls its `onprogress`, and
   * restarts its `timeoutMs` clock when it asked for `resetTimeoutOnProgress`; `maxTotalTimeoutMs` still
   * applies). Tokens are matched without coercion.
   *
   * @returns Whether a pending request was found for the token.
   */
  reportProgress(token: string | number, progress: unknown): boolean {
    const entry = this.#progress.get(token);
    if (entry === undefined) return false;
    if (entry.options.resetTimeoutOnProgress === true && entry.timer !== undefined) {
      clearTimeout(entry.timer);
      entry.timer = startTimer(() => this.#timedOut(entry, entry.timeoutMs), entry.timeoutMs);
    }
    const onprogress = entry.options.onprogress;
    if (onprogress !== undefined) {
      try {
        onprogress(progress);
      } catch (error) {
        this.#logger.error('Progress callback failed', { id: entry.id, method: entry.method, error });
      }
    }
    return true;
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
    const job = this.#inbound.get(id);
    if (job === undefined || job.done) return false;
    job.cancelled = true;
    this.#inbound.delete(id);
    job.abort(localError(LocalErrorCode.RequestAborted, `Request cancelled: ${reason ?? 'by the peer'}`));
    if (!job.running) {
      this.#finishJob(job, undefined);
      this.#drain();
    }
    this.#notifyIfIdle();
    return true;
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

  /** Settles a pending request exactly once and releases its timers, listener and progress token. */
  #settle(entry: Pending, result: unknown, error: Error | undefined): void {
    if (this.#pending.get(entry.id) !== entry) return;
    this.#pending.delete(entry.id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.totalTimer !== undefined) clearTimeout(entry.totalTimer);
    if (entry.onabort !== undefined) entry.options.signal?.removeEventListener('abort', entry.onabort);
    const token = entry.options.progressToken;
    if (token !== undefined && this.#progress.get(token) === entry) this.#progress.delete(token);
    if (error === undefined) entry.resolve(result);
    else entry.reject(error);
  }

  #timedOut(entry: Pending, ms: number): void {
    this.#abandon(
      entry,
      localError(LocalErrorCode.RequestTimeout, `Request timed out: "${entry.method}" got no response within ${ms} ms`),
      'Request timed out',
    );
  }

  /** Gives up on a pending request (timeout or abort) and tells the peer, when configured. */
  #abandon(entry: Pending, error: JsonRpcLocalError, reason: string): void {
    if (this.#pending.get(entry.id) !== entry) return;
    this.#settle(entry, undefined, error);
    const build = this.#cancelNotification;
    if (build === undefined || this.#closed || this.#closing !== undefined) return;
    let notification: JsonRpcNotification | undefined;
    try {
      notification = build(entry.id, reason);
    } catch (failure) {
      this.#logger.error('cancelNotification failed', { id: entry.id, error: failure });
      return;
    }
    if (notification === undefined) return;
    this.#send(notification, entry.options.relatedRequestId).then(undefined, (failure: unknown) => {
      this.#logger.warn('Cancel notification could not be sent', { id: entry.id, error: failure });
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
        this.#reply(inbound.reply);
        return;
      case 'notification':
        this.#onNotification(inbound.message, extra);
        return;
      case 'request':
        this.#onRequest(inbound.message, extra, undefined, 0);
        return;
      case 'batch':
        this.#onBatch(inbound.items, extra);
        return;
    }
  }

  #onResponse(response: JsonRpcResponse, invalid: string | undefined): void {
    const id = response.id;
    const entry = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (entry === undefined) {
      if (id === null && 'error' in response) {
        const error = JsonRpcError.fromObject(response.error);
        this.#logger.warn('Error response without a request id', { code: error.code, message: error.message, invalid });
        this.#report(error);
        return;
      }
      this.#logger.warn('Response with an unknown id: dropped', { id, invalid });
      return;
    }
    if (invalid !== undefined) this.#logger.warn('Malformed response: failing the request', { id, reason: invalid });
    if ('error' in response) this.#settle(entry, undefined, JsonRpcError.fromObject(response.error));
    else this.#settle(entry, response.result, undefined);
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

  #makeContext(message: JsonRpcRequest | JsonRpcNotification, extra: TransportMessageExtra | undefined): { ok: true; ctx: Ctx } | { ok: false } {
    const factory = this.#context;
    if (factory === undefined) return { ok: true, ctx: undefined as Ctx };
    try {
      return { ok: true, ctx: factory(message, extra) };
    } catch (error) {
      this.#logger.error('Context factory failed', { method: message.method, error });
      return { ok: false };
    }
  }

  #onNotification(message: JsonRpcNotification, extra: TransportMessageExtra | undefined): void {
    const made = this.#makeContext(message, extra);
    if (!made.ok) return;
    const done = this.#dispatcher.dispatchNow(message, made.ctx);
    if (done instanceof Promise) {
      done.then(undefined, (error: unknown) => {
        this.#logger.error('Notification dispatch failed', { method: message.method, error });
      });
    }
  }

  #onRequest(message: JsonRpcRequest, extra: TransportMessageExtra | undefined, batch: BatchReply | undefined, index: number): void {
    const made = this.#makeContext(message, extra);
    if (!made.ok) {
      this.#deliver(batch, index, errorResponse(message.id, ErrorCode.InternalError, ErrorMessage[ErrorCode.InternalError]));
      return;
    }
    const job = new InboundJob<Ctx>(message, made.ctx, batch, index);
    this.#inbound.set(message.id, job);
    if (this.#active < this.#maxConcurrentInbound) this.#run(job);
    else {
      this.#queue.push(job);
      if (this.#queue.length - this.#queueHead >= this.#maxQueued) this.#pauseInput(true);
    }
  }

  /** Tells the transport to stop (or resume) delivering inbound messages; a transport without the hook ignores it. */
  #pauseInput(paused: boolean): void {
    if (this.#inputPaused === paused) return;
    this.#inputPaused = paused;
    try {
      this.#transport.pauseInput?.(paused);
    } catch (error) {
      this.#logger.error('Transport pauseInput failed', { paused, error });
    }
  }

  #onBatch(items: readonly InboundSingle[], extra: TransportMessageExtra | undefined): void {
    const limit = this.#dispatcher.maxBatchSize;
    if (items.length > limit) {
      this.#reply(
        errorResponse(
          null,
          ErrorCode.InvalidRequest,
          `${ErrorMessage[ErrorCode.InvalidRequest]}: batch of ${items.length} messages exceeds the limit of ${limit}`,
        ),
      );
      return;
    }
    const batch: BatchReply = { replies: new Array<JsonRpcResponse | undefined>(items.length), remaining: 1 };
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      switch (item.kind) {
        case 'response':
          this.#onResponse(item.message, item.invalid);
          break;
        case 'notification':
          this.#onNotification(item.message, extra);
          break;
        case 'invalid':
          batch.replies[index] = item.reply;
          break;
        case 'request':
          batch.remaining++;
          this.#onRequest(item.message, extra, batch, index);
          break;
      }
    }
    this.#completeBatchMember(batch);
  }

  #completeBatchMember(batch: BatchReply): void {
    if (--batch.remaining > 0) return;
    const out: JsonRpcResponse[] = [];
    for (const reply of batch.replies) if (reply !== undefined) out.push(reply);
    if (out.length > 0 && !this.#closed) this.#reply(out);
  }

  /** Hands a request's reply to its batch, or sends it. */
  #deliver(batch: BatchReply | undefined, index: number, response: JsonRpcResponse | undefined): void {
    if (batch !== undefined) {
      batch.replies[index] = response;
      this.#completeBatchMember(batch);
    } else if (response !== undefined && !this.#closed) {
      this.#reply(response);
    }
  }

  #run(job: InboundJob<Ctx>): void {
    this.#active++;
    job.running = true;
    // A synchronous handler's answer is sent right away, before the next inbound message is dispatched, so
    // replies keep arrival order (e.g. the initialize result precedes notifications of a pipelined request).
    const reply = this.#dispatcher.dispatchNow(job.message, job.ctx, job);
    if (!(reply instanceof Promise)) {
      this.#finishJob(job, reply);
      return;
    }
    reply.then(
      (response) => this.#finishJob(job, response),
      (error: unknown) => {
        this.#logger.error('Request dispatch failed', { method: job.message.method, error });
        this.#finishJob(job, errorResponse(job.message.id, ErrorCode.InternalError, ErrorMessage[ErrorCode.InternalError]));
      },
    );
  }

  #finishJob(job: InboundJob<Ctx>, response: JsonRpcResponse | undefined): void {
    if (job.done) return;
    job.done = true;
    if (job.running) {
      this.#active--;
      this.#drain();
    }
    if (this.#inbound.get(job.message.id) === job) this.#inbound.delete(job.message.id);
    this.#deliver(job.batch, job.index, job.cancelled ? undefined : response);
    if (this.#idleWaiters.length > 0) this.#notifyIfIdle();
  }

  /** Resolves the {@link Peer.whenIdle} waiters once nothing inbound is left. */
  #notifyIfIdle(): void {
    if (this.#inbound.size !== 0 && !this.#closed) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Starts queued requests while slots are free, in arrival order. */
  #drain(): void {
    // Synchronous handlers finish inside #run and call back here: the outer loop carries on instead of nesting.
    if (this.#draining) return;
    this.#draining = true;
    try {
      this.#drainQueue();
    } finally {
      this.#draining = false;
    }
  }

  #drainQueue(): void {
    const queue = this.#queue;
    while (this.#queueHead < queue.length) {
      const job = queue[this.#queueHead]!;
      // Cancelled entries are skipped even with no slot free, so an empty queue is seen as empty (pauseInput).
      const live = !job.done && !job.cancelled;
      if (live && this.#active >= this.#maxConcurrentInbound) break;
      queue[this.#queueHead++] = undefined as never;
      if (live) this.#run(job);
    }
    if (this.#inputPaused && !this.#closed && queue.length - this.#queueHead <= this.#maxQueued / 2) this.#pauseInput(false);
    if (this.#queueHead === queue.length) {
      queue.length = 0;
      this.#queueHead = 0;
    } else if (this.#queueHead > 1024 && this.#queueHead * 2 > queue.length) {
      queue.splice(0, this.#queueHead);
      this.#queueHead = 0;
    }
  }

  /**
   * Sends a reply. When the transport cannot send a response for a reason other than the connection closing
   * (typically: its result cannot be serialized), it is replaced by -32603 "Internal error" for the same id,
   * once, so the peer is not left waiting.
   */
  #reply(reply: JsonRpcResponse | readonly JsonRpcResponse[]): void {
    const related = Array.isArray(reply) ? undefined : ((reply as JsonRpcResponse).id ?? undefined);
    this.#send(reply, related).then(undefined, (error: unknown) => {
      if (this.#closed || error instanceof JsonRpcLocalError) {
        this.#logger.warn('Response not sent: connection closed', { error });
        return;
      }
      this.#logger.error('Response could not be sent: sending -32603 instead', { error });
      const fallback = Array.isArray(reply)
        ? (reply as readonly JsonRpcResponse[]).map((member) => internalErrorFor(member))
        : internalErrorFor(reply as JsonRpcResponse);
      this.#send(fallback, related).then(undefined, (failure: unknown) => {
        this.#logger.error('Fallback error response could not be sent', { error: failure });
      });
    });
  }

  // ---- close ----

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const entry of [...this.#pending.values()]) {
      this.#settle(entry, undefined, localError(LocalErrorCode.ConnectionClosed, `Connection closed: request "${entry.method}" got no response`));
    }
    for (const job of [...this.#inbound.values()]) {
      job.cancelled = true;
      job.abort(localError(LocalErrorCode.ConnectionClosed, 'Connection closed'));
    }
    this.#inbound.clear();
    this.#queue.length = 0;
    this.#queueHead = 0;
    this.#notifyIfIdle();
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

/** The -32603 stand-in for a response that could not be sent (an error response stays what it was). */
function internalErrorFor(response: JsonRpcResponse): JsonRpcErrorResponse {
  return 'error' in response && response.error.code !== ErrorCode.InternalError
    ? errorResponse(response.id, response.error.code, response.error.message)
    : errorResponse(response.id, ErrorCode.InternalError, ErrorMessage[ErrorCode.InternalError]);
}
