import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_JSON_DEPTH, exceedsJsonDepth, parseJson } from './json.js';
import { parseMessage } from './classify.js';

/** Depth of a JSON value as the scan counts it: each array or object is one level. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('exceedsJsonDepth', () => {
  it('counts arrays and objects, the outermost as 1', () => {
    expect(exceedsJsonDepth('1', 0)).toBe(false);
    expect(exceedsJsonDepth('[]', 0)).toBe(true);
    expect(exceedsJsonDepth('{"a":[{}]}', 3)).toBe(false);
    expect(exceedsJsonDepth('{"a":[{}]}', 2)).toBe(true);
    expect(exceedsJsonDepth('[[],[],[]]', 2)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and escaped backslashes included', () => {
    expect(exceedsJsonDepth('["[[[[{{{{"]', 1)).toBe(false);
    expect(exceedsJsonDepth(String.raw`["a\"[[[[", "b"]`, 1)).toBe(false);
    expect(exceedsJsonDepth(String.raw`["a\\", [[1]]]`, 2)).toBe(true);
    expect(exceedsJsonDepth(String.raw`["a\\\"[[[", 1]`, 1)).toBe(false);
  });

  it('agrees with the real depth of any JSON value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(exceedsJsonDepth(text, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('stops at the limit without reading the rest (what follows would otherwise end the scan with "not deeper")', () => {
    // An unterminated string after 65 brackets: a scan that read on would reach it and answer false.
    expect(exceedsJsonDepth(`${'['.repeat(65)}"never closed`, DEFAULT_MAX_JSON_DEPTH)).toBe(true);
    expect(exceedsJsonDepth(`${'['.repeat(64)}"never closed`, DEFAULT_MAX_JSON_DEPTH)).toBe(false);
  });
});

describe('parseJson', () => {
  it('refuses text nested deeper than the limit with -32600, id null and the limit in data', () => {
    expect(parseJson(nested(65))).toEqual({
      ok: false,
      reply: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON nested deeper than 64 levels', data: { maxDepth: 64 } } },
    });
    expect(parseJson(nested(64))).toEqual({ ok: true, value: JSON.parse(nested(64)) });
    expect(parseJson(nested(3), { maxDepth: 2 })).toMatchObject({ ok: false, reply: { error: { data: { maxDepth: 2 } } } });
  });

  it('keeps -32700 for text that is not JSON and ignores a leading BOM', () => {
    expect(parseJson('{bad')).toEqual({ ok: false, reply: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } });
    expect(parseJson('\uFEFF{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('parseMessage applies the cap: a deep request is refused before it is classified', () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":${nested(70)}}}`;
    expect(parseMessage(deep)).toEqual({ kind: 'invalid', reply: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON nested deeper than 64 levels', data: { maxDepth: 64 } } } });
    expect(parseMessage(deep, { maxDepth: 100 })).toMatchObject({ kind: 'request' });
  });
});
