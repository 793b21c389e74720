/**
 * The checks of numeric options, in the one message form every Switchboard package uses:
 * `Invalid option maxBodyBytes: expected a positive integer, got 0`, `Invalid task TTL: expected a number of
 * milliseconds above 0 (or Infinity), got -1`. A value that is not a number is a `TypeError`, a number out of range
 * (`NaN` always) a `RangeError`; the message shows the value without ever printing an object's text.
 * Runtime-neutral.
 */
import { MAX_TIMER_MS } from './timers.js';

/** The durations {@link checkMs} accepts; every bound is in ms. */
export interface MsRule {
  /** The least value allowed. @default 0 */
  readonly min?: number;
  /** A bound the value must be above (instead of `min`): `{ above: 0 }` refuses 0. */
  readonly above?: number;
  /** The largest value allowed; `Infinity` also allows `Infinity` (typically "never"). @default MAX_TIMER_MS */
  readonly max?: number;
  /** Whether only whole milliseconds are allowed. @default false */
  readonly integer?: boolean;
}

/**
 * Refuses a duration that is not a number of milliseconds within `rule`.
 *
 * @param subject - What is checked, as the message names it: `task TTL`, `option idleTimeoutMs`.
 * @returns `value`, now known to be such a number
 * @throws TypeError when `value` is not a number
 * @throws RangeError when it is a number outside `rule`
 */
export function checkMs(subject: string, value: unknown, rule?: MsRule): number {
  const error = msError(subject, value, rule);
  if (error !== undefined) throw error;
  return value as number;
}

/**
 * The error {@link checkMs} would throw, or `undefined` when `value` is within `rule`: for a function that reports a
 * refusal as a rejected promise.
 */
export function msError(subject: string, value: unknown, rule: MsRule = {}): TypeError | RangeError | undefined {
  const { min = 0, above, max = MAX_TIMER_MS, integer = false } = rule;
  const kind = integer ? 'a whole number of milliseconds' : 'a number of milliseconds';
  if (typeof value !== 'number') return new TypeError(`Invalid ${subject}: expected ${kind}, got ${shownValue(value)}`);
  const low = above === undefined ? value >= min : value > above;
  const whole = !integer || Number.isInteger(value) || (value === Infinity && max === Infinity);
  if (low && value <= max && whole) return undefined;
  const from = above === undefined ? `from ${min}` : `above ${above}`;
  const to = max === Infinity ? ' (or Infinity)' : above === undefined ? ` to ${max}` : `, at most ${max}`;
  return new RangeError(`Invalid ${subject}: expected ${kind} ${from}${to}, got ${shownValue(value)}`);
}

/**
 * {@link checkMs} for an option that may be left out: `undefined` passes; otherwise the message names
 * `option <name>`.
 *
 * @throws TypeError, RangeError as {@link checkMs}
 */
export function checkMsOption<T extends number | undefined>(name: string, value: T, rule?: MsRule): T {
  if (value !== undefined) checkMs(`option ${name}`, value, rule);
  return value;
}

/** The counts (entries, bytes, levels…) {@link checkCount} accepts: integers. */
export interface CountRule {
  /** The least value allowed. @default 1 */
  readonly min?: number;
  /** The largest value allowed. @default Number.MAX_SAFE_INTEGER */
  readonly max?: number;
  /** Whether `Infinity` is allowed too (typically "no limit"). @default false */
  readonly infinite?: boolean;
}

/**
 * Refuses a count that is not a safe integer within `rule`.
 *
 * @param subject - What is checked, as the message names it: `option maxBodyBytes`.
 * @returns `value`, now known to be such a number
 * @throws TypeError when `value` is not a number
 * @throws RangeError when it is a number outside `rule`
 */
export function checkCount(subject: string, value: unknown, rule: CountRule = {}): number {
  const { min = 1, max = Number.MAX_SAFE_INTEGER, infinite = false } = rule;
  const kind = min === 1 && max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : max === Number.MAX_SAFE_INTEGER ? `an integer of ${min} or more` : `an integer from ${min} to ${max}`;
  const expected = infinite ? `${kind} or Infinity` : kind;
  if (typeof value !== 'number') throw new TypeError(`Invalid ${subject}: expected ${expected}, got ${shownValue(value)}`);
  if (!((Number.isSafeInteger(value) && value >= min && value <= max) || (infinite && value === Infinity))) {
    throw new RangeError(`Invalid ${subject}: expected ${expected}, got ${shownValue(value)}`);
  }
  return value;
}

/**
 * {@link checkCount} for an option that may be left out: `undefined` passes; otherwise the message names
 * `option <name>`.
 *
 * @throws TypeError, RangeError as {@link checkCount}
 */
export function checkCountOption<T extends number | undefined>(name: string, value: T, rule?: CountRule): T {
  if (value !== undefined) checkCount(`option ${name}`, value, rule);
  return value;
}

/** A value as an option's error message shows it: numbers and the like as written, a string quoted, no object's text. */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return typeof value === 'bigint' ? `${value}n` : String(value);
}
