/** backoffPolicy / backoffDelayMs: the exponential schedule, the jitter share, the cap, the checked options. */
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, backoffPolicy, DEFAULT_BACKOFF_MAX_DELAY_MS } from './backoff.js';

describe('backoffDelayMs', () => {
  it('grows by the multiplier and stops at the cap (no jitter)', () => {
    const policy = backoffPolicy({ initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6, 50, 10_000].map((n) => backoffDelayMs(policy, n))).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000, 1_000]);
  });

  it('draws the jitter share at random and never passes the cap', () => {
    const policy = backoffPolicy({ initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0.5 });
    expect(backoffDelayMs(policy, 3, () => 0)).toBe(200);
    expect(backoffDelayMs(policy, 3, () => 0.999_999)).toBe(400);
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelayMs(policy, 1 + (i % 12));
      expect(delay).toBeGreaterThanOrEqual(50);
      expect(delay).toBeLessThanOrEqual(1_000);
    }
    const full = backoffPolicy({ initialDelayMs: 100, jitter: 1 });
    expect(backoffDelayMs(full, 1, () => 0)).toBe(0);
  });

  it('defaults to 250 ms doubling up to 30 s with half jitter', () => {
    expect(backoffPolicy()).toEqual({ initialDelayMs: 250, maxDelayMs: DEFAULT_BACKOFF_MAX_DELAY_MS, multiplier: 2, jitter: 0.5 });
  });

  it.each([
    [{ initialDelayMs: 0 }, 'Invalid backoff.initialDelayMs'],
    [{ initialDelayMs: 500, maxDelayMs: 100 }, 'Invalid backoff.maxDelayMs'],
    [{ maxDelayMs: 7_200_000 }, 'Invalid backoff.maxDelayMs'],
    [{ multiplier: 0.5 }, 'Invalid backoff.multiplier'],
    [{ jitter: 1.5 }, 'Invalid backoff.jitter'],
    [{ jitter: Number.NaN }, 'Invalid backoff.jitter'],
  ])('refuses %j', (options, message) => {
    expect(() => backoffPolicy(options)).toThrow(message);
  });
});
