/**
 * An `AbortController` for one request of a client transport whose `AbortSignal` is made only when something asks
 * for it. On Node 20 a signal with a listener costs several microseconds to make and collect (an `EventTarget`
 * whose prototype is set after creation, listener records, weak references), which was a measurable part of a
 * Streamable HTTP call; a request answered with JSON by `nodeFetch`'s direct request needs none: it registers its
 * one cancellation callback in {@link LazyAbortController.onAbort} instead.
 */
import type { DirectAbort } from './clientHttp.js';

/** An `AbortController` whose `signal` is made on first read; {@link onAbort} is the listener that needs none (not exported from an entry). */
export class LazyAbortController implements DirectAbort {
  onAbort: (() => void) | undefined = undefined;
  #controller: AbortController | undefined = undefined;
  #aborted = false;
  #reason: unknown = undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts once: the signal (if made) with `reason`, then {@link onAbort}. Later calls do nothing. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const onAbort = this.onAbort;
    this.onAbort = undefined;
    onAbort?.();
  }
}
