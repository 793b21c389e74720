/**
 * Tool result rules on the client (field bug B41): an isError result is returned as is, its structuredContent never
 * checked; a successful result of a tool with a listed outputSchema must carry valid structuredContent.
 */
import { describe, expect, it } from 'vitest';
import type { Logger } from '@switchboard/jsonrpc';
import { InvalidResultError } from './errors.js';
import { OutputSchemas } from './toolResults.js';

const warnings: unknown[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m, f) => void warnings.push([m, f]), error() {} };
const THINGS = { type: 'object', properties: { things: { type: 'array', items: { type: 'string' } } }, required: ['things'] };

function schemas() {
  const s = new OutputSchemas(logger);
  s.remember([{ name: 'get_things', inputSchema: { type: 'object' }, outputSchema: THINGS }, { name: 'free', inputSchema: { type: 'object' } }]);
  return s;
}

describe('tool results', () => {
  it('B41: an isError result is returned with its structuredContent unchecked', () => {
    const result = { content: [{ type: 'text', text: 'backend down' }], structuredContent: { error: 'backend down' }, isError: true };
    expect(schemas().check('get_things', result)).toBe(result);
  });

  it('valid structuredContent passes; invalid or missing is an InvalidResultError with the result attached', () => {
    const s = schemas();
    const ok = { content: [], structuredContent: { things: ['a'] } };
    expect(s.check('get_things', ok)).toBe(ok);
    const bad = { content: [], structuredContent: { things: [1] } };
    const error = (() => {
      try {
        return s.check('get_things', bad);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidResultError);
    expect(error).toMatchObject({ result: bad, message: expect.stringMatching(/^Invalid result of "tools\/call": the "structuredContent" of tool "get_things" does not match its "outputSchema": structuredContent\/things\/0: /) as string });
    expect(() => s.check('get_things', { content: [] })).toThrow('Invalid result of "tools/call": tool "get_things" declares an "outputSchema" but its result has no "structuredContent"');
  });

  it('a tool without a known outputSchema is not checked; a result without content is invalid', () => {
    const s = schemas();
    expect(s.check('free', { content: [], structuredContent: 42 })).toMatchObject({ structuredContent: 42 });
    expect(s.check('unlisted', { content: [] })).toEqual({ content: [] });
    expect(() => s.check('free', { structuredContent: 1 })).toThrow('Invalid result of "tools/call": the result of tool "free" has no "content" array');
  });

  it('a relisting replaces the schema, clear() forgets them all; a schema with a remote $ref is not applied (warned once)', () => {
    const s = schemas();
    s.remember([{ name: 'get_things', inputSchema: { type: 'object' } }]);
    expect(s.check('get_things', { content: [] })).toEqual({ content: [] });
    s.remember([{ name: 'remote', inputSchema: { type: 'object' }, outputSchema: { $ref: 'http://127.0.0.1:9/never.json' } }]);
    // The validator resolves $ref only inside the schema: a remote one is never fetched, the schema cannot apply.
    warnings.length = 0;
    const result = { content: [], structuredContent: 'anything' };
    expect(s.check('remote', result)).toBe(result);
    expect(warnings).toEqual([['Tool output schema cannot be applied: results not checked', { tool: 'remote', error: expect.any(Error) as Error }]]);
    expect(s.check('remote', result)).toBe(result);
    expect(warnings).toHaveLength(1);
    s.clear();
    expect(s.check('remote', { content: [] })).toEqual({ content: [] });
  });
});
