/**
 * The outbound half of the {@link Peer}: the pending table. Fresh ids, the timeouts and total timeouts (one timer), the
 * caller's abort signal, progress routing by token, response matching by id, and settling every request exactly
 * once (then telling the {@link Instrumentation}, when there is one).
 *
 * @see https://www.jsonrpc.org/specification §4 (Request), §5 (Response)
 */
import type { Cancellation, CancelListener } from './cancellation.js';
import { JsonRpcError, LocalErrorCode, localError, type JsonRpcLocalError } from './errors.js';
import { echo } from './echo.js';
import { beginRequest, endRequest, failureOutcome, OUTCOME_RESULT, type Instrumentation, type RequestEnd } from './instrument.js';
import type { Logger } from './logger.js';
import { JSONRPC_VERSION, type JsonRpcId, type JsonRpcParams, type JsonRpcRequest, type JsonRpcResponse } from './message.js';
import { clampTimerMs, setUnrefTimeout, type TimerHandle } from './timers.js';
import { TransientMap } from './transientMap.js';

/** Default for {@link PeerRequestOptions.timeoutMs}, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

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
  /**
   * The same as {@link signal} without an `AbortSignal` (see {@link Cancellation}): its cancellation rejects the
   * request with `request_aborted` (cause: the reason) and sends the cancel notification; one already cancelled
   * rejects at once and sends nothing. Give one or the other; with both, either one aborts.
   * @default none
   */
  readonly cancellation?: Cancellation;
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
  /**
   * Whether giving up on this request (timeout or abort) sends the peer's cancel notification. `false` for a
   * request the protocol forbids cancelling (MCP 2025-11-25 basic/utilities/cancellation.mdx: never `initialize`).
   * @default true
   */
  readonly cancelOnAbandon?: boolean;
  /**
   * Told the request's id once it is picked, before the message is handed to the transport (so before anything can
   * answer it): for a protocol that tags later messages with the id of the request they belong to (MCP 2026-07-28
   * `subscriptions/listen`). A throw is logged and ignored. @default none
   */
  readonly onRequestId?: (id: JsonRpcId) => void;
}

/**
 * How many abandoned request ids each pending table remembers, so that a response arriving after its request timed
 * out or was aborted is dropped quietly (debug) instead of being reported as an unknown id (warn).
 */
export const ABANDONED_IDS_REMEMBERED = 256;

/** What the pending table needs from the peer that owns it. */
export interface PendingHost {
  /** Hands a message to the transport (never throws; a failure rejects). */
  send(message: JsonRpcRequest, relatedRequestId: JsonRpcId | undefined): Promise<void>;
  /** The local error for a failed send of `what`. */
  sendError(error: unknown, what: string): JsonRpcLocalError;
  /** A request was abandoned (timeout or abort): the peer may tell the other side. */
  abandoned(id: JsonRpcId, reason: string, relatedRequestId: JsonRpcId | undefined): void;
}

/** One outbound request awaiting its response. */
interface Pending {
  readonly id: number;
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly options: PeerRequestOptions;
  readonly timeoutMs: number;
  /** `maxTotalTimeoutMs` (`Infinity`: none). */
  readonly totalMs: number;
  /** When `timeoutMs` runs out, on the `Date.now()` clock (`Infinity`: never); moved on by progress. */
  deadline: number;
  /** When `maxTotalTimeoutMs` runs out, on the same clock (`Infinity`: never). */
  readonly totalDeadline: number;
  onabort: (() => void) | undefined;
  /** The listener on `options.cancellation`, while pending. */
  oncancel: CancelListener | undefined;
  end: RequestEnd | undefined;
}


/** When a request's budget of `ms` started at `now` runs out (`Infinity` never does; as `setUnrefTimeout` clamps). */
function deadlineOf(now: number, ms: number): number {
  return ms < Infinity ? now + clampTimerMs(ms) : Infinity;
}

/**
 * The outbound pending table of one peer. The timeouts of all its requests share one timer, armed for the earliest
 * deadline and left running when requests are answered (it re-arms for the next deadline, or stops, when it fires):
 * a request that is answered in time, as most are, costs a clock read instead of a timer started and cleared.
 */
export class PendingRequests {
  readonly #host: PendingHost;
  readonly #logger: Logger;
  readonly #instrumentation: Instrumentation | undefined;
  #nextId = 0;
  readonly #pending = new TransientMap<number, Pending>();
  readonly #progress = new TransientMap<string | number, Pending>();
  /** Ids of requests given up on (timeout or abort), oldest first, at most {@link ABANDONED_IDS_REMEMBERED}. */
  readonly #abandoned = new Set<number>();
  /** The shared timeout timer (see the class comment), and the deadline it is armed for (`Infinity`: none). */
  #timer: TimerHandle | undefined = undefined;
  #armedFor = Infinity;

  constructor(host: PendingHost, logger: Logger, instrumentation: Instrumentation | undefined) {
    this.#host = host;
    this.#logger = logger;
    this.#instrumentation = instrumentation?.onOutboundRequest === undefined ? undefined : instrumentation;
  }

  /** Requests awaiting a response. */
  get size(): number {
    return this.#pending.size;
  }

  /** Sends a request and settles with its response; see {@link Peer.request}. */
  request<T>(method: string, params: JsonRpcParams | undefined, options: PeerRequestOptions): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const total = options.maxTotalTimeoutMs;
    if (!(timeoutMs >= 0) || (total !== undefined && !(total >= 0))) {
      return Promise.reject(
        new RangeError(`Invalid timeout for "${method}": timeoutMs and maxTotalTimeoutMs must be non-negative numbers of ms`),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(abortedError(method, signal.reason));
    const cancellation = options.cancellation;
    if (cancellation?.cancelled === true) return Promise.reject(abortedError(method, cancellation.reason));
    const id = this.#nextId++;
    if (options.onRequestId !== undefined) {
      try {
        options.onRequestId(id);
      } catch (error) {
        this.#logger.error('onRequestId callback failed', { id, method, error });
      }
    }
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: JSONRPC_VERSION, id, method } : { jsonrpc: JSONRPC_VERSION, id, method, params };
    const now = Date.now();
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        id,
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        options,
        timeoutMs,
        totalMs: total ?? Infinity,
        deadline: deadlineOf(now, timeoutMs),
        totalDeadline: total === undefined ? Infinity : deadlineOf(now, total),
        onabort: undefined,
        oncancel: undefined,
        end: undefined,
      };
      const hook = this.#instrumentation?.onOutboundRequest;
      if (hook !== undefined) entry.end = beginRequest(hook, message, this.#logger);
      this.#pending.set(id, entry);
      this.#arm(Math.min(entry.deadline, entry.totalDeadline), now);
      if (signal !== undefined || cancellation !== undefined) {
        const abort: CancelListener = (reason) => this.#abandon(entry, abortedError(method, reason), 'Request aborted');
        if (signal !== undefined) {
          entry.onabort = () => abort(signal.reason);
          signal.addEventListener('abort', entry.onabort, { once: true });
        }
        if (cancellation !== undefined) cancellation.onCancel((entry.oncancel = abort));
      }
      if (options.progressToken !== undefined) this.#progress.set(options.progressToken, entry);
      this.#host.send(message, options.relatedRequestId).then(undefined, (error: unknown) => {
        this.#settle(entry, undefined, this.#host.sendError(error, `request "${method}"`));
      });
    });
  }

  /**
   * Settles the pending request a response answers (`invalid`: why the received response was malformed; it
   * then carries a synthesized -32600 error).
   *
   * A response to a request given up on lately (timeout or abort) is dropped here with a debug line: it is expected,
   * not the peer's fault.
   *
   * @returns `false` when no request with that id is pending or was lately abandoned (the caller reports it).
   */
  respond(response: JsonRpcResponse, invalid: string | undefined): boolean {
    const id = response.id;
    const entry = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (entry === undefined) {
      if (typeof id !== 'number' || !this.#abandoned.delete(id)) return false;
      this.#logger.debug('Late response to an abandoned request: dropped', { id });
      return true;
    }
    if (invalid !== undefined) this.#logger.warn('Malformed response: failing the request', { id, reason: echo(invalid) });
    if ('error' in response) this.#settle(entry, undefined, JsonRpcError.fromObject(response.error));
    else this.#settle(entry, response.result, undefined);
    return true;
  }

  /**
   * Rejects the pending request `id` with `error` at once (its response is known to be lost).
   * @returns Whether a request with that id was pending.
   */
  fail(id: JsonRpcId, error: Error): boolean {
    const entry = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (entry === undefined) return false;
    this.#settle(entry, undefined, error);
    return true;
  }

  /** Rejects every pending request with `connection_closed` and `message(method)`; returns how many. */
  failAll(message: (method: string) => string): number {
    const entries = [...this.#pending.values()];
    for (const entry of entries) this.#settle(entry, undefined, localError(LocalErrorCode.ConnectionClosed, message(entry.method)));
    // The connection is done: its timer does not wait for a deadline that no longer matters.
    if (this.#pending.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedFor = Infinity;
    }
    return entries.length;
  }

  /** Routes a progress payload by token; see {@link Peer.reportProgress}. */
  reportProgress(token: string | number, progress: unknown): boolean {
    const entry = this.#progress.get(token);
    if (entry === undefined) return false;
    // The deadline only moves later: the timer, armed for an earlier one, looks again when it fires.
    if (entry.options.resetTimeoutOnProgress === true && entry.deadline < Infinity) entry.deadline = deadlineOf(Date.now(), entry.timeoutMs);
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

  /** Settles a pending request exactly once and releases its timers, listener and progress token. */
  #settle(entry: Pending, result: unknown, error: Error | undefined): void {
    if (this.#pending.get(entry.id) !== entry) return;
    this.#pending.delete(entry.id);
    if (entry.onabort !== undefined) entry.options.signal?.removeEventListener('abort', entry.onabort);
    if (entry.oncancel !== undefined) entry.options.cancellation?.offCancel(entry.oncancel);
    const token = entry.options.progressToken;
    if (token !== undefined && this.#progress.get(token) === entry) this.#progress.delete(token);
    const end = entry.end;
    if (end !== undefined) {
      entry.end = undefined;
      endRequest(end, error === undefined ? OUTCOME_RESULT : failureOutcome(error), this.#logger);
    }
    if (error === undefined) entry.resolve(result);
    else entry.reject(error);
  }

  /** Makes sure the timer fires no later than `due` (a `Date.now()` time; `now` is the clock read by the caller). */
  #arm(due: number, now: number): void {
    if (!(due < this.#armedFor)) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    // A deadline further than a timer can wait is looked at again when the longest timer fires.
    const delay = clampTimerMs(due - now);
    this.#armedFor = now + delay;
    this.#timer = setUnrefTimeout(this.#expire, delay);
  }

  /**
   * The timer fired: every request whose deadline has passed times out (with the budget that ran out first), and
   * the timer is armed for the next deadline, if any request is left. The deadline it was armed for counts as
   * passed even when the clock reads a little earlier (the timer's own clock is the event loop's).
   */
  readonly #expire = (): void => {
    this.#timer = undefined;
    const now = Math.max(Date.now(), this.#armedFor);
    this.#armedFor = Infinity;
    let expired: Pending[] | undefined;
    let next = Infinity;
    for (const entry of this.#pending.values()) {
      const due = Math.min(entry.deadline, entry.totalDeadline);
      if (due <= now) (expired ??= []).push(entry);
      else if (due < next) next = due;
    }
    if (expired !== undefined) {
      for (const entry of expired) this.#timedOut(entry, entry.totalDeadline < entry.deadline ? entry.totalMs : entry.timeoutMs);
    }
    if (next < Infinity) this.#arm(next, Date.now());
  };

  #timedOut(entry: Pending, ms: number): void {
    this.#abandon(
      entry,
      localError(LocalErrorCode.RequestTimeout, `Request timed out: "${entry.method}" got no response within ${ms} ms`),
      'Request timed out',
    );
  }

  /** Gives up on a pending request (timeout or abort) and tells the peer. */
  #abandon(entry: Pending, error: JsonRpcLocalError, reason: string): void {
    if (this.#pending.get(entry.id) !== entry) return;
    this.#settle(entry, undefined, error);
    const abandoned = this.#abandoned;
    abandoned.add(entry.id);
    if (abandoned.size > ABANDONED_IDS_REMEMBERED) abandoned.delete(abandoned.values().next().value as number);
    if (entry.options.cancelOnAbandon !== false) this.#host.abandoned(entry.id, reason, entry.options.relatedRequestId);
  }
}

/** The `request_aborted` failure of request `method`, its `cause` the abort's reason. */
function abortedError(method: string, reason: unknown): JsonRpcLocalError {
  return localError(LocalErrorCode.RequestAborted, `Request aborted: "${method}"`, reason);
}
