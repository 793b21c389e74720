import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { catalogueTokens, estimateTokens, tokenCounter } from './tokenCount.js';

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
    expect(total).toBe(countTokens(JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })))));
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
