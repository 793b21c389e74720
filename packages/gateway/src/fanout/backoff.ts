/**
 * When to try an upstream again after it failed or died: exponential backoff with jitter and a cap, so that a
 * gateway restarted beside fifty upstreams that went down together does not knock on every one in the same
 * millisecond, and an upstream down for an hour costs one attempt per cap interval, not a tight loop.
 */

/** Default of {@link BackoffOptions.initialDelayMs}, in ms. */
export const DEFAULT_BACKOFF_INITIAL_DELAY_MS = 250;
/** Default of {@link BackoffOptions.maxDelayMs}, in ms: the cap of every delay, jitter included. */
export const DEFAULT_BACKOFF_MAX_DELAY_MS = 30_000;
/** Default of {@link BackoffOptions.multiplier}. */
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
/** Default of {@link BackoffOptions.jitter}. */
export const DEFAULT_BACKOFF_JITTER = 0.5;
/** The largest cap {@link BackoffOptions.maxDelayMs} may be (one hour), so an upstream is always tried again. */
export const MAX_BACKOFF_DELAY_MS = 3_600_000;

/** How long to wait before the next attempt to reach an upstream. */
export interface BackoffOptions {
  /** The delay before the first retry (before jitter), in ms. A positive number. @default 250 */
  readonly initialDelayMs?: number;
  /** The cap of every delay, jitter included, in ms; at most one hour. @default 30_000 */
  readonly maxDelayMs?: number;
  /** Each further failure multiplies the delay by this (at least 1). @default 2 */
  readonly multiplier?: number;
  /**
   * The share of each delay that is random, from 0 (none: exactly `initial × multiplier^(n-1)`) to 1 (full jitter:
   * anywhere from 0 to it). With 0.5 the delay lies between half and all of the exponential value.
   * @default 0.5
   */
  readonly jitter?: number;
}

/** {@link BackoffOptions} checked and defaulted. */
export interface BackoffPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly multiplier: number;
  readonly jitter: number;
}

/**
 * Checks and defaults backoff options.
 * @throws RangeError naming the option when one is out of its range (see {@link BackoffOptions})
 */
export function backoffPolicy(options: BackoffOptions = {}): BackoffPolicy {
  const policy: BackoffPolicy = {
    initialDelayMs: options.initialDelayMs ?? DEFAULT_BACKOFF_INITIAL_DELAY_MS,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_BACKOFF_MAX_DELAY_MS,
    multiplier: options.multiplier ?? DEFAULT_BACKOFF_MULTIPLIER,
    jitter: options.jitter ?? DEFAULT_BACKOFF_JITTER,
  };
  if (!(policy.initialDelayMs > 0) || !Number.isFinite(policy.initialDelayMs)) throw new RangeError(`Invalid backoff.initialDelayMs: expected a positive number of ms, got ${String(policy.initialDelayMs)}`);
  if (!(policy.maxDelayMs >= policy.initialDelayMs) || policy.maxDelayMs > MAX_BACKOFF_DELAY_MS) {
    throw new RangeError(`Invalid backoff.maxDelayMs: expected from initialDelayMs (${policy.initialDelayMs}) to ${MAX_BACKOFF_DELAY_MS} ms, got ${String(policy.maxDelayMs)}`);
  }
  if (!(policy.multiplier >= 1) || !Number.isFinite(policy.multiplier)) throw new RangeError(`Invalid backoff.multiplier: expected a number from 1, got ${String(policy.multiplier)}`);
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) throw new RangeError(`Invalid backoff.jitter: expected a number from 0 to 1, got ${String(policy.jitter)}`);
  return policy;
}

/**
 * The delay before retry number `attempt` (1 for the first retry), in ms: `initial × multiplier^(attempt-1)`,
 * capped at `maxDelayMs`, of which the `jitter` share is drawn at random. Never above `maxDelayMs`.
 * @param random a source of numbers in [0, 1) @default Math.random
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 64));
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** exponent);
  const fixed = ceiling * (1 - policy.jitter);
  return Math.round(fixed + random() * (ceiling - fixed));
}
