/**
 * The inbound half of the {@link Peer}: the concurrency-limited scheduler of inbound requests. At most
 * `maxConcurrentInbound` run at once, more wait in arrival order, the transport is asked to stop reading while
 * `maxQueuedInbound` wait ({@link Transport.pauseInput}); each request's AbortSignal is made only when a handler
 * reads it (its cancellation's listeners need none); a cancelled request never answers; notifications are dispatched at
 * once, never queued.
 */
import type { BatchSlot } from './batch.js';
import { CancellationSource } from './cancellation.js';
import { errorResponse } from './classify.js';
import { echo, echoId } from './echo.js';
import type { Dispatcher } from './dispatcher.js';
import type { ContextRequest } from './handlerContext.js';
import { ErrorCode, ErrorMessage, JsonRpcLocalError, LocalErrorCode } from './errors.js';
import { TransientMap } from './transientMap.js';
import { beginRequest, endRequest, OUTCOME_CANCELLED, responseOutcome, type Instrumentation, type RequestEnd } from './instrument.js';
import type { Logger } from './logger.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './message.js';
import type { TransportMessageExtra } from './transport.js';

const RESOLVED_VOID: Promise<void> = Promise.resolve();
/** What {@link InboundScheduler}'s context step returns when the context factory threw (no context, no dispatch). */
const NO_CONTEXT: unique symbol = Symbol('no context');
/** The -32600 message of a request whose id is still in flight (the HTTP transport's wording). */
const DUPLICATE_ID_MESSAGE = `${ErrorMessage[ErrorCode.InvalidRequest]}: this request id is already in flight on this session`;

/** Builds the dispatcher context of one inbound message; see {@link PeerOptions.context}. */
export type InboundContextFactory<Ctx> = (
  message: JsonRpcRequest | JsonRpcNotification,
  extra: TransportMessageExtra | undefined,
) => Ctx;

/** What the scheduler needs from the peer that owns it. */
export interface InboundHost {
  /** Whether the connection has closed (nothing is sent any more). */
  readonly closed: boolean;
  /** Sends the response of a request that is not a batch member. */
  reply(response: JsonRpcResponse): void;
  /** Asks the transport to stop (or resume) delivering inbound messages. */
  pauseInput(paused: boolean): void;
  /** Tells the transport that no response will be sent for this request. */
  requestCancelled(id: JsonRpcId): void;
}

/** {@link InboundScheduler} settings. */
export interface InboundSettings<Ctx> {
  readonly dispatcher: Dispatcher<Ctx>;
  readonly context: InboundContextFactory<Ctx> | undefined;
  readonly maxConcurrent: number;
  readonly maxQueued: number;
  readonly logger: Logger;
  readonly instrumentation: Instrumentation | undefined;
}

/**
 * One inbound request, queued or running. It is also the handler's {@link ContextRequest}: its cancellation (and the
 * `signal` that comes with it) is made only when a handler reads one, and most never do; it is cancelled by
 * `cancelInbound` or the connection's close, and then sends no response.
 */
class InboundJob<Ctx> implements ContextRequest {
  #cancellation: CancellationSource | undefined = undefined;
  #reason: unknown = undefined;
  /** Cancelled with `cancelInbound`, or the connection closed: no response is sent. */
  cancelled = false;
  /** Counted in the active slots (started, not queued). */
  running = false;
  done = false;
  /** The instrumentation's end callback, until called. */
  end: RequestEnd | undefined = undefined;

  // eslint-disable-next-line @typescript-eslint/max-params -- one per request: positional, no options object made for it
  constructor(
    readonly scheduler: InboundScheduler<Ctx>,
    readonly message: JsonRpcRequest,
    readonly ctx: Ctx,
    readonly slot: BatchSlot | undefined,
  ) {}

  /** The dispatcher's answer (this job is its sink: `Dispatcher.dispatchInto`). */
  settle(response: JsonRpcResponse | undefined): void {
    this.scheduler.finishJob(this, response);
  }

  get id(): JsonRpcId {
    return this.message.id;
  }

  get method(): string {
    return this.message.method;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  get cancellation(): CancellationSource {
    let cancellation = this.#cancellation;
    if (cancellation === undefined) {
      cancellation = new CancellationSource();
      this.#cancellation = cancellation;
      if (this.cancelled) cancellation.cancel(this.#reason);
    }
    return cancellation;
  }

  /** Cancels the request once: no response will be sent; its cancellation (if made) is cancelled with `reason`. */
  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#reason = reason;
    this.#cancellation?.cancel(reason);
  }
}

/** The inbound request scheduler of one peer. */
export class InboundScheduler<Ctx> {
  readonly #host: InboundHost;
  readonly #dispatcher: Dispatcher<Ctx>;
  readonly #context: InboundContextFactory<Ctx> | undefined;
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  readonly #logger: Logger;
  readonly #instrumentation: Instrumentation | undefined;

  /** Inbound requests by id (queued or running). */
  readonly #inbound = new TransientMap<JsonRpcId, InboundJob<Ctx>>();
  /** {@link Peer.whenIdle} callers waiting; made by the first one (most connections never wait). */
  #idleWaiters: (() => void)[] | undefined = undefined;
  /** Requests waiting for a slot, from `#queueHead` on; made when the first one has to wait. */
  #queue: InboundJob<Ctx>[] | undefined = undefined;
  #queueHead = 0;
  #draining = false;
  #active = 0;
  /** Whether the transport was told to stop delivering (a request waits for a slot). */
  #inputPaused = false;

  constructor(host: InboundHost, settings: InboundSettings<Ctx>) {
    this.#host = host;
    this.#dispatcher = settings.dispatcher;
    this.#context = settings.context;
    this.#maxConcurrent = settings.maxConcurrent;
    this.#maxQueued = settings.maxQueued;
    this.#logger = settings.logger;
    const instrumentation = settings.instrumentation;
    this.#instrumentation = instrumentation?.onInboundRequest === undefined ? undefined : instrumentation;
  }

  /** Requests being handled or waiting for a slot. */
  get size(): number {
    return this.#inbound.size;
  }

  /** See {@link Peer.whenIdle}. */
  whenIdle(): Promise<void> {
    if (this.#inbound.size === 0 || this.#host.closed) return RESOLVED_VOID;
    return new Promise((resolve) => {
      (this.#idleWaiters ??= []).push(resolve);
    });
  }

  /** Dispatches a notification at once (never queued: a cancellation must get through a full queue). */
  notification(message: JsonRpcNotification, extra: TransportMessageExtra | undefined): void {
    const ctx = this.#makeContext(message, extra);
    if (ctx === NO_CONTEXT) return;
    const done = this.#dispatcher.dispatchNow(message, ctx);
    if (done instanceof Promise) {
      done.then(undefined, (error: unknown) => {
        this.#logger.error('Notification dispatch failed', { method: echo(message.method), error });
      });
    }
  }

  /**
   * Runs a request now or queues it; its response goes to `slot` (a batch member) or is sent. A request whose id
   * is still in flight on this connection is refused at once (-32600 with that id), and the first one runs on.
   */
  request(message: JsonRpcRequest, extra: TransportMessageExtra | undefined, slot: BatchSlot | undefined): void {
    if (this.#inbound.has(message.id)) {
      // MCP 2025-11-25 basic/index.mdx "Requests": the request ID MUST NOT have been used before by the requestor
      // within the same session; JSON-RPC 2.0 §4: the id is how the client tells responses apart, so two requests
      // in flight with one id cannot both be answered unambiguously. As the HTTP transport does (400 + -32600 with
      // the id, refusals.ts `duplicateRequestId`), the duplicate gets an error carrying its id and the first its
      // result, so every request still gets exactly one answer. Only ids in flight are remembered (bounded by
      // maxConcurrentInbound + maxQueuedInbound); an id reused after its answer went out is served.
      this.#logger.debug('Request with an id already in flight: refused', { id: echoId(message.id), method: echo(message.method) });
      this.#deliver(slot, errorResponse(message.id, { code: ErrorCode.InvalidRequest, message: DUPLICATE_ID_MESSAGE }));
      return;
    }
    const hook = this.#instrumentation?.onInboundRequest;
    const end = hook === undefined ? undefined : beginRequest(hook, message, this.#logger);
    const ctx = this.#makeContext(message, extra);
    if (ctx === NO_CONTEXT) {
      const response = errorResponse(message.id, { code: ErrorCode.InternalError, message: ErrorMessage[ErrorCode.InternalError] });
      this.#deliver(slot, response);
      if (end !== undefined) endRequest(end, responseOutcome(response), this.#logger);
      return;
    }
    const job = new InboundJob<Ctx>(this, message, ctx, slot);
    job.end = end;
    this.#inbound.set(message.id, job);
    if (this.#active < this.#maxConcurrent) this.#run(job);
    else {
      const queue = (this.#queue ??= []);
      queue.push(job);
      if (queue.length - this.#queueHead >= this.#maxQueued) this.#pauseInput(true);
    }
  }

  /** See {@link Peer.cancelInbound}. */
  cancel(id: JsonRpcId, reason: string | undefined): boolean {
    const job = this.#inbound.get(id);
    if (job === undefined || job.done) return false;
    this.#inbound.delete(id);
    job.cancel(new JsonRpcLocalError(LocalErrorCode.RequestAborted, `Request cancelled: ${reason ?? 'by the peer'}`));
    this.#ended(job, true);
    this.#host.requestCancelled(id);
    if (!job.running) {
      this.finishJob(job, undefined);
      this.#drain();
    }
    this.#notifyIfIdle();
    return true;
  }

  /** The connection closed: every request is cancelled without a response, queued ones never start. */
  closeAll(): void {
    for (const job of [...this.#inbound.values()]) {
      job.cancel(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, 'Connection closed'));
      this.#ended(job, false);
    }
    this.#inbound.clear();
    if (this.#queue !== undefined) this.#queue.length = 0;
    this.#queueHead = 0;
    this.#notifyIfIdle();
  }

  /** Tells the instrumentation that a request ended without a response (cancelled, or the connection closed). */
  #ended(job: InboundJob<Ctx>, cancelled: boolean): void {
    const end = job.end;
    if (end === undefined) return;
    job.end = undefined;
    endRequest(end, cancelled ? OUTCOME_CANCELLED : { kind: 'local', code: LocalErrorCode.ConnectionClosed }, this.#logger);
  }

  /** The message's dispatcher context, or {@link NO_CONTEXT} when the factory threw (logged). */
  #makeContext(message: JsonRpcRequest | JsonRpcNotification, extra: TransportMessageExtra | undefined): Ctx | typeof NO_CONTEXT {
    const factory = this.#context;
    if (factory === undefined) return undefined as Ctx;
    try {
      return factory(message, extra);
    } catch (error) {
      this.#logger.error('Context factory failed', { method: echo(message.method), error });
      return NO_CONTEXT;
    }
  }

  /** Tells the transport to stop (or resume) delivering inbound messages, once per change. */
  #pauseInput(paused: boolean): void {
    if (this.#inputPaused === paused) return;
    this.#inputPaused = paused;
    this.#host.pauseInput(paused);
  }

  /** Hands a request's reply to its batch, or sends it. */
  #deliver(slot: BatchSlot | undefined, response: JsonRpcResponse | undefined): void {
    if (slot !== undefined) slot.settle(response);
    else if (response !== undefined && !this.#host.closed) this.#host.reply(response);
  }

  #run(job: InboundJob<Ctx>): void {
    this.#active++;
    job.running = true;
    // A synchronous handler's answer is sent right away (settled within this call), before the next inbound message
    // is dispatched, so replies keep arrival order (e.g. the initialize result precedes notifications of a pipelined
    // request). The job is the dispatcher's sink: no promise of our own per asynchronous request.
    this.#dispatcher.dispatchInto(job.message, job.ctx, job);
  }

  /** A job's answer (or `undefined`: none), from the dispatcher; later calls for the same job are ignored. */
  finishJob(job: InboundJob<Ctx>, response: JsonRpcResponse | undefined): void {
    if (job.done) return;
    job.done = true;
    if (job.running) {
      this.#active--;
      this.#drain();
    }
    if (this.#inbound.get(job.message.id) === job) this.#inbound.delete(job.message.id);
    this.#deliver(job.slot, job.cancelled ? undefined : response);
    const end = job.end;
    if (end !== undefined) {
      job.end = undefined;
      endRequest(end, response === undefined ? OUTCOME_CANCELLED : responseOutcome(response), this.#logger);
    }
    if (this.#idleWaiters !== undefined) this.#notifyIfIdle();
  }

  /** Resolves the {@link Peer.whenIdle} waiters once nothing inbound is left. */
  #notifyIfIdle(): void {
    if (this.#inbound.size !== 0 && !this.#host.closed) return;
    const waiters = this.#idleWaiters;
    if (waiters === undefined) return;
    this.#idleWaiters = undefined;
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
    // No request ever waited for a slot: nothing to start, and input was never paused.
    if (queue === undefined) return;
    while (this.#queueHead < queue.length) {
      const job = queue[this.#queueHead]!;
      // Cancelled entries are skipped even with no slot free, so an empty queue is seen as empty (pauseInput).
      const live = !job.done && !job.cancelled;
      if (live && this.#active >= this.#maxConcurrent) break;
      queue[this.#queueHead++] = undefined as never;
      if (live) this.#run(job);
    }
    if (this.#inputPaused && !this.#host.closed && queue.length - this.#queueHead <= this.#maxQueued / 2) this.#pauseInput(false);
    if (this.#queueHead === queue.length) {
      queue.length = 0;
      this.#queueHead = 0;
    } else if (this.#queueHead > 1024 && this.#queueHead * 2 > queue.length) {
      queue.splice(0, this.#queueHead);
      this.#queueHead = 0;
    }
  }
}
