import { describe, expect, it } from 'vitest';
import { clampTimerMs, MAX_TIMER_MS, setUnrefTimeout } from './timers.js';

describe('timers', () => {
  it('clampTimerMs keeps a delay within what setTimeout honours', () => {
    expect(clampTimerMs(5)).toBe(5);
    expect(clampTimerMs(-1)).toBe(0);
    expect(clampTimerMs(Number.NaN)).toBe(0);
    expect(clampTimerMs(2 ** 40)).toBe(MAX_TIMER_MS);
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
  });

  it('setUnrefTimeout starts nothing for Infinity', () => {
    expect(setUnrefTimeout(() => {}, Infinity)).toBeUndefined();
  });

  it('setUnrefTimeout fires after the delay, does not hold the process, and a delay over 2^31 - 1 ms does not fire at once', async () => {
    let fired = 0;
    const soon = setUnrefTimeout(() => fired++, 1);
    expect((soon as unknown as { hasRef(): boolean }).hasRef()).toBe(false);
    const far = setUnrefTimeout(() => fired += 100, 2 ** 40);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearTimeout(far);
    expect(fired).toBe(1);
  });
});
