/**
 * Timers that behave the same on every runtime: a delay is clamped to what `setTimeout` honours, and the
 * timer never keeps a process alive by itself where the runtime can say so (`unref`, Node.js and Bun; browsers
 * and workers have no such notion and ignore it). Runtime-neutral: no Node.js types.
 */

/**
 * Largest delay `setTimeout` honours, in ms (2^31 - 1, about 24.8 days). A larger delay fires at once on every
 * runtime, so {@link setUnrefTimeout} clamps to it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** The handle {@link setUnrefTimeout} returns; pass it to `clearTimeout`. */
export type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * Clamps a delay to the range `setTimeout` honours: `[0, MAX_TIMER_MS]` ms (a negative or `NaN` delay becomes 0).
 *
 * @param ms - The wanted delay in ms.
 * @returns The delay to hand to `setTimeout`, in ms.
 */
export function clampTimerMs(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
}

/**
 * Starts a one-shot timer that does not by itself keep the process alive (`unref` when the runtime has it).
 *
 * @param callback - Runs once when the delay has passed.
 * @param ms - The delay in ms, clamped with {@link clampTimerMs}; `Infinity` starts no timer.
 * @returns The handle for `clearTimeout`, or `undefined` when `ms` is `Infinity` (nothing was started).
 */
export function setUnrefTimeout(callback: () => void, ms: number): TimerHandle | undefined {
  if (!(ms < Infinity)) return undefined;
  const timer = setTimeout(callback, clampTimerMs(ms));
  const unref = (timer as unknown as { unref?: unknown }).unref;
  if (typeof unref === 'function') unref.call(timer);
  return timer;
}
