/**
 * {@link PostLimiter}: the HTTP client transports' bound on the POSTs that carry notifications and answers, and the
 * backpressure it puts on the SSE streams they read. A server that sends its client 10,000 requests at once got
 * 10,000 POSTs in flight (~450 MB); with a queue in front of the POSTs it got 10,000 queued answers instead, read
 * as fast as the server wrote them. Here at most {@link MAX_MESSAGE_POSTS} are in flight, and once
 * {@link MAX_QUEUED_MESSAGE_POSTS} more wait (or the peer asked to stop reading) the streams are not read: the
 * connection's flow control holds the server back, and what it sends stays in its buffers, not in this process.
 */

/** Notifications and answers POSTed at once; more wait their turn. */
export const MAX_MESSAGE_POSTS = 8;
/** Notifications and answers waiting for a turn before the SSE streams stop being read. */
export const MAX_QUEUED_MESSAGE_POSTS = 64;

/** See the module comment. */
export class PostLimiter {
  #inFlight = 0;
  readonly #queue: (() => void)[] = [];
  /** Each POST in flight has its own controller: no listener per POST on a shared signal. */
  readonly #controllers = new Set<AbortController>();
  #paused = false;
  #closed = false;
  #roomWaiters: (() => void)[] = [];

  /**
   * Runs `post` once fewer than {@link MAX_MESSAGE_POSTS} run, in order, with a signal {@link close} aborts. A POST
   * queued when the limiter closes runs at once with that signal aborted (it fails as the transport is closed).
   */
  async run<T>(post: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#inFlight >= MAX_MESSAGE_POSTS && !this.#closed) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#inFlight++;
    const controller = new AbortController();
    if (this.#closed) controller.abort();
    this.#controllers.add(controller);
    try {
      return await post(controller.signal);
    } finally {
      this.#controllers.delete(controller);
      this.#inFlight--;
      this.#queue.shift()?.();
      if (!this.#full()) this.#wake();
    }
  }

  /** Resolves once a stream may read on (`undefined`: at once). */
  room(): Promise<void> | undefined {
    if (this.#closed || !this.#full()) return undefined;
    return new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
  }

  /** The peer's flow control (`Transport.pauseInput`): while paused, the streams are not read. */
  pauseInput(paused: boolean): void {
    this.#paused = paused;
    if (!this.#full()) this.#wake();
  }

  /** Aborts the POSTs in flight, lets the queued ones fail, and releases the streams waiting for room. */
  close(): void {
    this.#closed = true;
    for (const controller of this.#controllers) controller.abort();
    for (const next of this.#queue.splice(0)) next();
    this.#wake();
  }

  #full(): boolean {
    return this.#paused || this.#queue.length >= MAX_QUEUED_MESSAGE_POSTS;
  }

  #wake(): void {
    if (this.#roomWaiters.length === 0) return;
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const wake of waiters) wake();
  }
}
