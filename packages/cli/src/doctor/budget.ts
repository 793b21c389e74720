/**
 * The doctor's time budget: one deadline for the whole run (`DoctorOptions.timeoutMs`), an `AbortSignal` that fires
 * at it, and the budget of one wait (`requestTimeoutMs`, never past the deadline). Every timer goes through the
 * injected {@link DoctorEnv} clock, so tests may drive it.
 */
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import type { DoctorEnv } from './types.js';

/** Default of `DoctorOptions.timeoutMs`, in ms. */
export const DEFAULT_DOCTOR_TIMEOUT_MS = 60_000;
/** Default of `DoctorOptions.requestTimeoutMs`, the wait for each answer a check asks of the server, in ms. */
export const DEFAULT_DOCTOR_REQUEST_TIMEOUT_MS = 10_000;
/** The most the run keeps back from its deadline to close clients and kill processes, in ms. */
export const MAX_CLEANUP_RESERVE_MS = 1_500;

/** What {@link createBudget} is given. */
export interface BudgetOptions {
  readonly env: DoctorEnv;
  /** The whole run, ms. @default 60_000 */
  readonly timeoutMs?: number;
  /** One request or wait, ms. @default 10_000 */
  readonly requestTimeoutMs?: number;
  /** The user's stop (Ctrl-C): aborting it spends the budget at once. */
  readonly signal?: AbortSignal;
}

/** The run's deadline and the budget of one wait; {@link Budget.dispose} stops its timer. */
export interface Budget {
  /** Aborted once the checks' time is spent (the deadline less the cleanup reserve), or the user stopped the run. */
  readonly signal: AbortSignal;
  /** What the cleanup may take once the checks are over, ms. */
  readonly cleanupMs: number;
  /** Milliseconds left before {@link signal} aborts (0 once it did). */
  left(): number;
  /** The budget of one wait now: `min(requestTimeoutMs, left())`, ms. */
  requestTimeoutMs(): number;
  /** Stops the deadline's timer (the signal is not aborted). */
  dispose(): void;
}

/** The error a stopped run aborts with. */
export class DoctorStoppedError extends Error {
  constructor() {
    super('The doctor was stopped');
    this.name = 'DoctorStoppedError';
  }
}

/** The error a spent budget aborts with. */
export class DoctorTimeoutError extends Error {
  /** The run's budget, ms. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`The doctor's time budget is spent: ${timeoutMs} ms`);
    this.name = 'DoctorTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Starts the run's clock.
 * @throws TypeError when a budget is not a number; RangeError when it is negative or `NaN`
 */
export function createBudget(options: BudgetOptions): Budget {
  const { env } = options;
  const timeoutMs = checkMsOption('timeoutMs', options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS, { max: Infinity });
  const requestMs = checkMsOption('requestTimeoutMs', options.requestTimeoutMs ?? DEFAULT_DOCTOR_REQUEST_TIMEOUT_MS, { max: Infinity });
  const cleanupMs = Math.min(MAX_CLEANUP_RESERVE_MS, timeoutMs / 4);
  const checksMs = timeoutMs - cleanupMs;
  const startedAt = env.now();
  const deadline = new AbortController();
  const timer = new AbortController();
  if (checksMs <= 0) deadline.abort(new DoctorTimeoutError(timeoutMs));
  else if (Number.isFinite(checksMs)) {
    env.sleep(checksMs, timer.signal).then(
      () => deadline.abort(new DoctorTimeoutError(timeoutMs)),
      () => {},
    );
  }
  const stop = options.signal;
  if (stop !== undefined) {
    const onStop = (): void => deadline.abort(new DoctorStoppedError());
    if (stop.aborted) onStop();
    else {
      stop.addEventListener('abort', onStop, { once: true });
      timer.signal.addEventListener('abort', () => stop.removeEventListener('abort', onStop), { once: true });
    }
  }
  const left = (): number => (deadline.signal.aborted ? 0 : Math.max(0, checksMs - (env.now() - startedAt)));
  return {
    signal: deadline.signal,
    cleanupMs,
    left,
    requestTimeoutMs: () => Math.min(requestMs, left()),
    dispose: () => timer.abort(),
  };
}

/**
 * A signal that aborts when any of `signals` does (with that one's reason); `AbortSignal.any` where the runtime
 * has it. The listeners it adds are removed once it aborts.
 */
export function anySignal(signals: readonly AbortSignal[]): AbortSignal {
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (any !== undefined) return any.call(AbortSignal, [...signals]);
  const controller = new AbortController();
  const aborted = signals.find((s) => s.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return controller.signal;
  }
  const onAbort = (event: Event): void => {
    for (const s of signals) s.removeEventListener('abort', onAbort);
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const s of signals) s.addEventListener('abort', onAbort);
  return controller.signal;
}

/**
 * Waits for `promise`, or for `signal` to abort, whichever comes first (`{ aborted: true }`). A rejection of
 * `promise` is returned as `{ error }`, never thrown.
 */
export async function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ readonly value: T } | { readonly error: unknown } | { readonly aborted: true }> {
  if (signal.aborted) {
    promise.catch(() => {});
    return { aborted: true };
  }
  let onAbort: () => void = () => {};
  const aborted = new Promise<{ readonly aborted: true }>((resolve) => {
    onAbort = () => resolve({ aborted: true });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise.then((value) => ({ value }), (error: unknown) => ({ error })), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
