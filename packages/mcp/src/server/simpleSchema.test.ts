/**
 * The quick check of flat object schemas agrees with the general validator (`@cfworker/json-schema`, what
 * `compileSchema` falls back to): it never answers "valid" for a value the validator refuses, and it answers
 * "valid" for the ordinary accepted ones; a schema with other keywords gets no quick check.
 */
import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from './schema.js';
import { simpleObjectCheck } from './simpleSchema.js';
import type { JsonSchema } from './types.js';

const SCHEMAS: JsonSchema[] = [
  { type: 'object', properties: { text: { type: 'string' }, delayMs: { type: 'integer', minimum: 0, maximum: 60000 } }, required: ['text'], additionalProperties: false },
  { type: 'object', properties: { a: { type: 'number', description: 'a', 'x-mcp-header': 'A' }, b: { type: 'boolean' } } },
  { type: 'object', properties: { n: { type: 'integer', maximum: 3 } }, required: ['n', 'm'], additionalProperties: true, title: 't' },
  { type: 'object', $schema: 'http://json-schema.org/draft-07/schema', properties: { s: { type: 'string', default: 'x' } }, additionalProperties: false },
  { type: 'object' },
];

const VALUES: unknown[] = [
  {},
  { text: 'hi' },
  { text: 'hi', delayMs: 5 },
  { text: 'hi', delayMs: 5.5 },
  { text: 'hi', delayMs: -1 },
  { text: 'hi', delayMs: 60001 },
  { text: 'hi', delayMs: Number.NaN },
  { text: 'hi', delayMs: Number.POSITIVE_INFINITY },
  { text: 'hi', extra: 1 },
  { text: 1 },
  { a: 1.5, b: true },
  { a: '1', b: true },
  { a: 1, b: 'true' },
  { n: 3, m: null },
  { n: 4, m: 1 },
  { n: 2.0 },
  { s: 'x' },
  { s: 'x', t: 1 },
  { ['__proto__']: 1 },
  JSON.parse('{"__proto__": {"text": "hi"}, "text": "hi"}'),
  Object.create({ text: 'inherited' }),
  Object.assign(Object.create({ extra: 1 }), { text: 'own' }),
  [],
  null,
  'text',
  3,
];

describe('simpleObjectCheck', () => {
  it('never accepts what the general validator refuses, and accepts what it accepts, over every schema and value here', () => {
    let accepted = 0;
    for (const schema of SCHEMAS) {
      const quick = simpleObjectCheck(schema);
      expect(quick).toBeDefined();
      const general = new Validator(structuredClone(schema), schema.$schema === undefined ? '2020-12' : '7', true);
      for (const value of VALUES) {
        const valid = general.validate(value).valid;
        expect({ schema, value, quick: quick!(value) }).toEqual({ schema, value, quick: valid });
        if (valid) accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(10);
  });

  it('gives no quick check to a schema with any other keyword', () => {
    for (const schema of [
      { type: 'object', properties: { a: { type: 'string', minLength: 2 } } },
      { type: 'object', properties: { a: { type: ['string', 'null'] } } },
      { type: 'object', properties: { a: { type: 'object' } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } },
      { type: 'object', properties: { a: true } },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', properties: { a: { type: 'number', exclusiveMinimum: 0 } } },
      { type: 'object', patternProperties: { '^a': { type: 'string' } } },
      { type: 'object', required: [1] },
      { properties: { a: { type: 'string' } } },
    ] as JsonSchema[]) {
      expect(simpleObjectCheck(schema)).toBeUndefined();
    }
  });

  it('compiled schemas answer as before: valid values pass, refused ones keep the validator\'s own message', () => {
    const compiled = createSchemaCompiler()(SCHEMAS[0]!, 'inputSchema');
    expect(compiled.validate({ text: 'hi' })).toBeUndefined();
    expect(compiled.validate({ text: 'hi', delayMs: 1.5 })).toEqual({ error: expect.stringContaining('arguments/delayMs') });
    expect(compiled.validate({ text: 'hi', extra: 1 })).toEqual({ error: expect.any(String) });
  });
});
