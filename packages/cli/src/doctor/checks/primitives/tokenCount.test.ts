import { describe, expect, it } from 'vitest';
import { catalogueTokens, MAX_PIECE_CHARS } from './tokenCount.js';

const tool = (name: string, description: string): Record<string, unknown> => ({ name, description, inputSchema: { type: 'object' } });

describe('catalogueTokens', () => {
  it('counts a 200,000-character run in pieces, in seconds rather than minutes, and never blocks the event loop for long', async () => {
    // Before the pieces, one such description blocked the process for minutes: BPE is quadratic in one pre-token.
    let longestGapMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const { total, largest } = await catalogueTokens([tool('long', 'x'.repeat(200_000)), tool('short', 'Adds two numbers')]);
    clearInterval(ticker);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(longestGapMs).toBeLessThan(2_000);
    expect(largest[0]?.name).toBe('long');
    // A run of one letter is about one token per 8 characters in o200k_base; the cuts add at most a token per piece.
    expect(total).toBeGreaterThan(200_000 / 16);
    expect(total).toBeLessThan(200_000 / MAX_PIECE_CHARS + 200_000 / 4);
  });

  it('counts ordinary text as before: a short catalogue gets a small, stable count', async () => {
    const { total, largest } = await catalogueTokens([tool('add', 'Adds two numbers and returns the sum')]);
    expect(total).toBeGreaterThan(10);
    expect(total).toBeLessThan(40);
    expect(largest).toEqual([{ name: 'add', tokens: total - 1 }]);
  });

  it('stops with the signal\'s reason once it aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    await expect(catalogueTokens([tool('long', 'y '.repeat(100_000))], 3, controller.signal)).rejects.toThrow('deadline');
  });
});
