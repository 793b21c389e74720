/**
 * A request's cancellation heard without an `AbortSignal`. Node 20 makes an `AbortSignal` as an `EventTarget`
 * whose prototype is set after creation, and one with a listener outlives the young generation: a signal per
 * request that only links one request's cancellation to another's (a proxy cancelling its upstream request when
 * the front request is cancelled) cost a Switchboard proxy about a fifth of its CPU per call. A
 * {@link Cancellation} carries the same facts (`cancelled`, `reason`) and calls plain listeners; an inbound request
 * has one (`ContextRequest.cancellation`), and {@link PeerRequestOptions.cancellation} takes one where
 * `signal` takes a signal.
 */

/** Called once with the reason when a {@link Cancellation} is cancelled. */
export type CancelListener = (reason: unknown) => void;

/** Something cancelled at most once, with a reason, heard through plain listeners. */
export interface Cancellation {
  /** Whether it was cancelled (it stays so). */
  readonly cancelled: boolean;
  /** Why it was cancelled; `undefined` before. */
  readonly reason: unknown;
  /**
   * Calls `listener` once, with the reason, when this is cancelled. Registering on a cancellation already cancelled
   * does nothing (as with an aborted `AbortSignal`): read {@link cancelled} first. A listener already registered is
   * not added twice. A listener that throws does not stop the others (its error is dropped).
   */
  onCancel(listener: CancelListener): void;
  /** Removes a listener given to {@link onCancel} (nothing happens if it is not there). */
  offCancel(listener: CancelListener): void;
}

/**
 * The owner's side of a {@link Cancellation}: `cancel(reason)` cancels it once. Listeners are kept in one slot, and in
 * an array from the second on (a request's cancellation usually has one listener: the request it is linked to).
 */
export class CancellationSource implements Cancellation {
  #controller: AbortController | undefined = undefined;
  #cancelled = false;
  #reason: unknown = undefined;
  #first: CancelListener | undefined = undefined;
  /** The listeners after the first (one removed while `cancel` runs them is cleared to `undefined`). */
  #more: (CancelListener | undefined)[] | undefined = undefined;

  get cancelled(): boolean {
    return this.#cancelled;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /**
   * An `AbortSignal` that aborts with this, for an API that takes a signal: made on first read (already aborted, with
   * the reason, once cancelled), so a source whose signal nobody reads costs no `AbortController`.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  onCancel(listener: CancelListener): void {
    if (this.#cancelled || this.#first === listener || this.#more?.includes(listener) === true) return;
    if (this.#first === undefined && this.#more === undefined) this.#first = listener;
    else (this.#more ??= []).push(listener);
  }

  offCancel(listener: CancelListener): void {
    const more = this.#more;
    if (this.#first === listener) {
      this.#first = undefined;
      return;
    }
    const at = more === undefined ? -1 : more.indexOf(listener);
    if (more === undefined || at === -1) return;
    // While `cancel` runs the listeners, a removed one is cleared (then skipped, as a signal skips it), not spliced.
    if (this.#cancelled) more[at] = undefined;
    else {
      more.splice(at, 1);
      if (more.length === 0) this.#more = undefined;
    }
  }

  /**
   * Cancels once: `cancelled` becomes `true`, `reason` is set (an `AbortError` `DOMException` when none is given,
   * as `AbortController.abort()` does), the {@link signal} aborts if it was made, then each listener is called in the
   * order it was added. Later calls do nothing.
   */
  cancel(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const first = this.#first;
    this.#first = undefined;
    if (first !== undefined) call(first, reason);
    const more = this.#more;
    // Read at each step: a listener may remove a later one (see offCancel).
    if (more !== undefined) for (let i = 0; i < more.length; i++) {
      const listener = more[i];
      more[i] = undefined;
      if (listener !== undefined) call(listener, reason);
    }
    this.#more = undefined;
  }
}

function call(listener: CancelListener, reason: unknown): void {
  try {
    listener(reason);
  } catch {
    // A listener's failure is its own (see Cancellation.onCancel).
  }
}

/**
 * The {@link Cancellation} of an `AbortSignal`: cancelled when it aborts, with its reason. Each listener is
 * registered on the signal (so this costs what the signal costs; it is for a caller that has a signal already).
 */
export function cancellationOf(signal: AbortSignal): Cancellation {
  const wrapped = new Map<CancelListener, () => void>();
  return {
    get cancelled() {
      return signal.aborted;
    },
    get reason() {
      return signal.aborted ? (signal.reason as unknown) : undefined;
    },
    onCancel(listener) {
      if (signal.aborted || wrapped.has(listener)) return;
      const onAbort = (): void => {
        wrapped.delete(listener);
        call(listener, signal.reason);
      };
      wrapped.set(listener, onAbort);
      signal.addEventListener('abort', onAbort, { once: true });
    },
    offCancel(listener) {
      const onAbort = wrapped.get(listener);
      if (onAbort === undefined) return;
      wrapped.delete(listener);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * An `AbortSignal` that aborts when `cancellation` is cancelled, with its reason (already aborted if it was): for
 * an API that takes a signal. It costs a signal and a listener; the listener stays until the cancellation happens.
 */
export function signalOf(cancellation: Cancellation): AbortSignal {
  const controller = new AbortController();
  if (cancellation.cancelled) controller.abort(cancellation.reason);
  else cancellation.onCancel((reason) => controller.abort(reason));
  return controller.signal;
}
