import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { catalogueTokens, estimateTokens, MAX_PIECE_CHARS, tokenCounter } from './tokenCount.js';

/** A catalogue like the ones the doctor meets: names, prose descriptions, JSON Schemas with descriptions and enums. */
function catalogue(count: number): Record<string, unknown>[] {
  const words = ['account', 'invoice', 'customer', 'shipment', 'warehouse', 'ledger', 'payment', 'refund', 'order', 'report'];
  return Array.from({ length: count }, (_, i) => ({
    name: `get_${words[i % 10]!}_${i}`,
    description: `Reads the ${words[i % 10]!} record and checks it against rule ${i * 12}. Returns the fields as JSON, or an error when the ${words[(i + 3) % 10]!} is unknown.`,
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: `The ${words[i % 10]!} identifier, e.g. "A-${1000 + i}"` },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        sort: { type: 'string', enum: ['asc', 'desc'] },
      },
      required: ['id'],
      additionalProperties: false,
    },
  }));
}

describe('the token cost of a tool catalogue', () => {
  it('counts with o200k_base when gpt-tokenizer is installed (it is, in the workspace)', async () => {
    const tools = catalogue(20);
    const { total, method } = await catalogueTokens(tools);
    expect(method).toBe('o200k_base');
    // Counted tool by tool (plus brackets and commas): within a token per tool of the whole array's count.
    const whole = countTokens(JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))));
    expect(Math.abs(total - whole)).toBeLessThanOrEqual(tools.length);
  });

  it('falls back to the estimate when gpt-tokenizer cannot be imported, within 20 % of o200k_base on a catalogue', async () => {
    const counter = await tokenCounter(() => Promise.reject(new Error("Cannot find package 'gpt-tokenizer'")));
    expect(counter.method).toBe('estimate');
    for (const size of [1, 50]) {
      const text = JSON.stringify(catalogue(size));
      const ratio = counter.count(text) / countTokens(text);
      expect(ratio, `${size} tools`).toBeGreaterThan(0.8);
      expect(ratio, `${size} tools`).toBeLessThan(1.2);
    }
  });

  it('estimates from UTF-8 bytes, so text outside ASCII is not undercounted', () => {
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('天気予報')).toBe(3); // 12 bytes
  });
});

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
