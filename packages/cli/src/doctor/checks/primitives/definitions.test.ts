import { describe, expect, it } from 'vitest';
import { catalogueProblems, toolNameProblem } from './definitions.js';

const OK_INPUT = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
const tool = (extra: Record<string, unknown>): Record<string, unknown> => ({ name: 'search', description: 'Searches.', inputSchema: OK_INPUT, ...extra });

describe('catalogueProblems', () => {
  it('finds nothing in a clean catalogue, at every revision', async () => {
    for (const revision of ['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28']) {
      const tools = [tool({}), tool({ name: 'ping_v2', inputSchema: { type: 'object', additionalProperties: false } })];
      expect(await catalogueProblems({ tools, resources: [{ uri: 'file:///a', name: 'a' }], resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'file' }], prompts: [{ name: 'p' }] }, revision)).toEqual([]);
    }
  });

  it('tells a missing root type from a wrong one and a missing inputSchema', async () => {
    const problems = await catalogueProblems({ tools: [tool({ name: 'a', inputSchema: { properties: {} } }), tool({ name: 'b', inputSchema: { type: 'array', items: {} } }), tool({ name: 'c', inputSchema: undefined })] }, '2025-11-25');
    expect(problems).toEqual([
      {
        id: 'primitives.input-schema-not-object',
        message: 'The inputSchema of "a", "b", "c" is not an object schema',
        evidence: ['a: no "type" at the root: {"properties":{}}', 'b: root "type" is "array": {"type":"array","items":{}}', 'c: no "inputSchema": null'],
      },
    ]);
  });

  it('reports a schema its meta-schema refuses, and a $ref to another document as unresolved, not invalid', async () => {
    const problems = await catalogueProblems(
      { tools: [tool({ name: 'a', inputSchema: { type: 'object', required: 'q' } }), tool({ name: 'b', inputSchema: { type: 'object', properties: { x: { $ref: 'https://example.com/x.json' } } } })] },
      '2025-11-25',
    );
    expect(problems.map((p) => p.id)).toEqual(['primitives.input-schema-invalid', 'primitives.schema-unresolved-ref']);
    expect(problems[0]?.evidence[0]).toBe('a inputSchema: schema/required: must be array in {"type":"object","required":"q"}');
    expect(problems[1]?.evidence[0]).toContain("can't resolve reference https://example.com/x.json");
  });

  it('warns of a declared draft-07 dialect only from 2025-11-25, where 2020-12 became the default', async () => {
    const draft07 = { tools: [tool({ inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', ...OK_INPUT } })] };
    expect(await catalogueProblems(draft07, '2025-06-18')).toEqual([]);
    expect((await catalogueProblems(draft07, '2025-11-25')).map((p) => p.id)).toEqual(['primitives.schema-dialect']);
    expect(await catalogueProblems({ tools: [tool({ inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...OK_INPUT } })] }, '2026-07-28')).toEqual([]);
  });

  it('holds outputSchema to an object root up to 2025-11-25 only', async () => {
    const listing = { tools: [tool({ outputSchema: { type: 'array', items: { type: 'string' } } })] };
    expect((await catalogueProblems(listing, '2025-11-25')).map((p) => p.id)).toEqual(['primitives.output-schema-invalid']);
    expect(await catalogueProblems(listing, '2026-07-28')).toEqual([]);
  });

  it('applies the host rules with a JSON pointer to the offending part', async () => {
    const problems = await catalogueProblems(
      {
        tools: [
          tool({ name: 'pick', inputSchema: { type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] } }),
          tool({ name: 'tag', inputSchema: { type: 'object', properties: { tags: { type: 'array' }, ok: { type: 'array', items: { type: 'string' } }, deep: { type: 'object', properties: { ids: { type: ['array', 'null'] } } } } } }),
          tool({ name: 'notes.create' }),
        ],
      },
      '2025-11-25',
    );
    expect(problems.map((p) => [p.id, p.evidence])).toEqual([
      ['primitives.host-root-combinator', ['pick: /inputSchema/anyOf']],
      ['primitives.host-array-without-items', ['tag: /inputSchema/properties/tags, /inputSchema/properties/deep/properties/ids']],
      ['primitives.host-name-pattern', ['notes.create: /name']],
    ]);
  });

  it('finds duplicates and missing required fields in every list', async () => {
    const problems = await catalogueProblems(
      { tools: [tool({}), tool({ description: 'Another.' })], resources: [{ uri: 'file:///a', name: 'a' }, { uri: 'file:///a', name: 'b' }, { name: 'c' }], resourceTemplates: [{ uriTemplate: 'x://{id}' }], prompts: [{ name: 'p' }, { name: 'p' }] },
      '2025-11-25',
    );
    expect(problems.map((p) => [p.id, p.message])).toEqual([
      ['primitives.duplicate-name', 'Names listed more than once: "tool search", "resource file:///a", "prompt p"'],
      ['primitives.item-invalid', 'Listed items lack required fields or have fields of the wrong type: "resource (no uri)", "resource template x://{id}"'],
    ]);
  });

  it('reports fields of the wrong type and blank descriptions', async () => {
    const problems = await catalogueProblems({ tools: [tool({ title: 7, annotations: 'read-only' }), tool({ name: 'b', description: '  ' })] }, '2026-07-28');
    expect(problems.map((p) => [p.id, p.evidence])).toEqual([
      ['primitives.item-invalid', ['search "title" is 7, not a string', 'search "annotations" is "read-only", not an object']],
      ['primitives.missing-description', ['{"name":"b","description":"  "}']],
    ]);
  });
});

describe('toolNameProblem', () => {
  it('follows MCP 2025-11-25 "Tool Names"', () => {
    expect(toolNameProblem('getUser')).toBeUndefined();
    expect(toolNameProblem('DATA_EXPORT_v2')).toBeUndefined();
    expect(toolNameProblem('admin.tools.list')).toBeUndefined();
    expect(toolNameProblem('x'.repeat(128))).toBeUndefined();
    expect(toolNameProblem('x'.repeat(129))).toBe('it has 129 characters (at most 128)');
    expect(toolNameProblem('')).toBe('it is empty');
    expect(toolNameProblem('a,b c')).toBe('it contains ",", " " (only A-Z, a-z, 0-9, "_", "-" and "." are allowed)');
    expect(toolNameProblem('café')).toBe('it contains "é" (only A-Z, a-z, 0-9, "_", "-" and "." are allowed)');
  });
});
