import { describe, expect, it } from 'vitest';
import { blockProblem, resultProblems } from './callResult.js';

const ADD = { name: 'add', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } };
/** The problems of `result` of "add" (`tool: null`: a tool that was not listed). */
const check = async (result: unknown, tool: Record<string, unknown> | null = ADD): Promise<[string, string][]> =>
  (await resultProblems({ name: 'add', result, tool: tool ?? undefined, revision: '2025-11-25' })).map((p) => [p.id, p.message]);

describe('resultProblems', () => {
  it('accepts a structured result with its text fallback', async () => {
    expect(await check({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } })).toEqual([]);
  });

  it('does not hold an isError result to the outputSchema (B41)', async () => {
    expect(await check({ content: [{ type: 'text', text: 'a must be a number' }], isError: true })).toEqual([]);
  });

  it('reports a missing or mismatching structuredContent', async () => {
    expect(await check({ content: [{ type: 'text', text: '3' }] })).toEqual([['primitives.structured-content-mismatch', 'Tool "add" declares an outputSchema but its result has no "structuredContent"']]);
    expect(await check({ content: [{ type: 'text', text: '{}' }], structuredContent: {} })).toEqual([
      ['primitives.structured-content-mismatch', 'The structuredContent of tool "add" does not match its outputSchema: structuredContent: must have required property \'sum\''],
    ]);
  });

  it('reports structuredContent without any text block', async () => {
    expect(await check({ content: [], structuredContent: { sum: 3 } })).toEqual([['primitives.structured-content-no-text', 'The result of tool "add" has "structuredContent" but no text block carrying it']]);
  });

  it('reports a result without content, or with invalid blocks', async () => {
    expect(await check({ sum: 3 }, null)).toEqual([['primitives.call-result-invalid', 'The result of tool "add" has no "content" array']]);
    expect(await check('3', null)).toEqual([['primitives.call-result-invalid', 'The result of tool "add" is not an object']]);
    expect(await check({ content: [{ type: 'text', text: 3 }, { type: 'image', data: 'AA==' }, { type: 'text', text: 'ok' }], isError: 'no' }, null)).toEqual([
      ['primitives.call-result-invalid', 'Content block 0 is a "text" block without a string "text"; 1 is an "image" block without string "data" and "mimeType" in the result of tool "add"'],
      ['primitives.call-result-invalid', '"isError" of the result of tool "add" is "no", not a boolean'],
    ]);
  });
});

describe('blockProblem', () => {
  it('knows the content blocks of MCP 2025-11-25 "Tool Result"', () => {
    expect(blockProblem({ type: 'audio', data: 'AA==', mimeType: 'audio/wav' })).toBeUndefined();
    expect(blockProblem({ type: 'resource_link', uri: 'file:///a', name: 'a' })).toBeUndefined();
    expect(blockProblem({ type: 'resource', resource: { uri: 'file:///a', text: 'x' } })).toBeUndefined();
    expect(blockProblem({ type: 'resource', resource: { uri: 'file:///a' } })).toBe('is a "resource" block whose resource has neither "text" nor "blob"');
    expect(blockProblem({ type: 'html', html: '<b>' })).toBe('has the unknown type "html"');
    expect(blockProblem(null)).toBe('is null, not an object');
  });
});
