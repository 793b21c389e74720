import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as z3 from 'zod/v3';
import { createSchemaCompiler } from './schema.js';
import { jsonSchemaProblem } from './schemaCheck.js';
import type { JsonSchema } from './types.js';

const compile = createSchemaCompiler();
const refusal = (schema: unknown): string => {
  try {
    compile(schema as JsonSchema, 'inputSchema of tool "t"');
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error('the schema was accepted');
};

describe('JSON Schema keyword check (2020-12 by default)', () => {
  it('refuses the keyword types the meta-schema refuses, saying where and what to write', () => {
    expect(refusal({ type: 'strng' })).toBe(
      'Invalid inputSchema of tool "t": "type" at "#" must be one of "array", "boolean", "integer", "null", "number", "object", "string", or an array of them: got "strng" (did you mean "string"?)',
    );
    expect(refusal({ type: 'object', required: 'a' })).toBe('Invalid inputSchema of tool "t": "required" at "#" must be an array of property names: got "a" (write ["a"])');
    expect(refusal({ type: 'object', properties: { n: { type: 'number', minimum: '3' } } })).toBe(
      'Invalid inputSchema of tool "t": "minimum" at "#/properties/n" must be a number: got "3" (write 3, without quotes)',
    );
  });

  it('checks nested subschemas in every applicator', () => {
    const bad = { type: 'strng' };
    for (const schema of [
      { properties: { a: bad } }, { items: bad }, { prefixItems: [bad] }, { allOf: [bad] }, { anyOf: [{}, bad] }, { oneOf: [bad] },
      { not: bad }, { if: bad }, { then: bad }, { else: bad }, { $defs: { x: bad } }, { definitions: { x: bad } },
      { additionalProperties: bad }, { patternProperties: { '^a': bad } }, { dependentSchemas: { a: bad } }, { propertyNames: bad },
      { contains: bad }, { unevaluatedItems: bad }, { unevaluatedProperties: bad }, { contentSchema: bad }, { dependencies: { a: bad } },
    ]) {
      expect(jsonSchemaProblem(schema, '2020-12'), JSON.stringify(schema)).toMatch(/^"type" at "#\/.+" must be one of/);
    }
  });

  it('accepts valid schemas, unknown keywords and boolean subschemas', () => {
    const schemas: Record<string, unknown>[] = [
      { type: 'object' },
      { type: ['string', 'null'], minLength: 0, maxLength: 1.0, pattern: '^\\p{L}+$' },
      { type: 'object', properties: { a: true, b: false }, additionalProperties: false, required: [], 'x-vendor': { anything: [1, null] } },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://example.com/s', $defs: { a: { $anchor: 'A', type: 'string' } }, $ref: '#A' },
      { enum: [], const: { a: [1] }, default: null, examples: [1, 'x'], deprecated: true, format: 'date', contentMediaType: 'text/plain' },
      { dependentRequired: { a: ['b'] }, dependencies: { c: ['d'], e: { type: 'string' } }, multipleOf: 0.5, exclusiveMinimum: 0 },
      { description: undefined, type: 'object' },
    ];
    for (const schema of schemas) expect(jsonSchemaProblem(schema, '2020-12'), JSON.stringify(schema)).toBeUndefined();
  });

  it('refuses non-JSON values, cycles, bad regular expressions and empty schema arrays', () => {
    expect(refusal({ type: 'object', default: () => 1 })).toBe('Invalid inputSchema of tool "t": "default" at "#" must be JSON: got a function');
    expect(refusal({ type: 'number', maximum: Infinity })).toMatch(/"maximum" at "#" must be a number: got Infinity$/);
    expect(refusal({ type: 'string', pattern: '(' })).toMatch(/^Invalid inputSchema of tool "t": "pattern" at "#" is not a valid regular expression: "\(" \(/);
    expect(refusal({ patternProperties: { '[': {} } })).toMatch(/"patternProperties" at "#" has a key that is not a regular expression: "\["/);
    expect(refusal({ anyOf: [] })).toBe('Invalid inputSchema of tool "t": "anyOf" at "#" must not be empty: remove "anyOf" or give it at least one schema');
    expect(refusal({ type: ['string', 'string'] })).toBe('Invalid inputSchema of tool "t": "type" at "#" must not repeat a type: "string" appears twice');
    expect(refusal({ minItems: -1 })).toMatch(/"minItems" at "#" must be a non-negative integer: got -1/);
    expect(refusal({ $id: 'https://example.com/s#frag' })).toMatch(/"\$id" at "#" must not have a fragment/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(refusal(cyclic)).toBe('Invalid inputSchema of tool "t": "self" at "#/properties" contains itself (a cycle of objects): JSON cannot hold a cycle; use "$ref" instead');
    expect(refusal('object')).toBe('Invalid inputSchema of tool "t": expected a JSON Schema object or a Standard Schema: got string');
  });

  it('refuses a $ref that resolves to nothing in the schema (the validator would throw on every call)', () => {
    expect(refusal({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })).toBe(
      'Invalid inputSchema of tool "t": "$ref" at "#/properties/a" points to nothing in this schema: "#/$defs/missing" (remote schemas are not fetched: put the target under "$defs")',
    );
    expect(refusal({ $ref: 'https://example.com/other.json' })).toMatch(/"\$ref" at "#" points to nothing in this schema: "https:\/\/example.com\/other.json"/);
    expect(() => compile({ type: 'object', $defs: { a: { type: 'string' } }, properties: { x: { $ref: '#/$defs/a' }, y: { $ref: '#' } } }, 'x')).not.toThrow();
  });

  it('applies the rules of the declared dialect where it differs from 2020-12', () => {
    const d07 = 'http://json-schema.org/draft-07/schema#';
    const d04 = 'http://json-schema.org/draft-04/schema#';
    // items as an array: a tuple before 2020-12, refused in 2020-12 (which spells it prefixItems)
    expect(refusal({ items: [{ type: 'string' }] })).toMatch(/"items" at "#" must be a schema \(an object or a boolean\): got \[/);
    expect(() => compile({ $schema: d07, type: 'array', items: [{ type: 'string' }], additionalItems: false }, 'x')).not.toThrow();
    expect(refusal({ $schema: d07, type: 'array', additionalItems: 'no' })).toMatch(/"additionalItems" at "#" must be a schema/);
    // draft-04: boolean exclusiveMinimum, non-empty required and enum
    expect(() => compile({ $schema: d04, type: 'number', minimum: 0, exclusiveMinimum: true }, 'x')).not.toThrow();
    expect(refusal({ type: 'number', minimum: 0, exclusiveMinimum: true })).toMatch(/"exclusiveMinimum" at "#" must be a number: got true/);
    expect(refusal({ $schema: d04, type: 'object', required: [] })).toMatch(/"required" at "#" must not be empty in draft-04/);
    expect(refusal({ $schema: d04, enum: [] })).toMatch(/"enum" at "#" must be a non-empty array \(draft-04\)/);
    // 2019-09: $recursiveAnchor is a boolean (2020-12 keeps it as an anchor name)
    expect(() => compile({ $schema: 'https://json-schema.org/draft/2019-09/schema', $recursiveAnchor: true, type: 'object' }, 'x')).not.toThrow();
    expect(refusal({ $recursiveAnchor: true, type: 'object' })).toMatch(/"\$recursiveAnchor" at "#" must be a plain name/);
  });
});

describe('schemas from libraries', () => {
  it('a raw zod shape is refused with "wrap it in z.object()"', () => {
    expect(refusal({ a: z.string() })).toBe('Invalid inputSchema of tool "t": it is a plain object of schemas ({ a: … }), not a schema: wrap it in `z.object({ a: … })`');
    expect(refusal({ city: z.string(), 'zip-code': z.string(), n: z.number(), more: z.boolean() })).toBe(
      'Invalid inputSchema of tool "t": it is a plain object of schemas ({ city: …, "zip-code": …, n: …, … }), not a schema: wrap it in `z.object({ city: …, "zip-code": …, n: …, … })`',
    );
  });

  it('zod 3 (no JSON Schema output) is refused naming zod >= 4.2', () => {
    expect(refusal(z3.object({ a: z3.string() }))).toBe(
      'Invalid inputSchema of tool "t": the Standard Schema (vendor "zod") has no JSON Schema output: Switchboard needs zod >= 4.2 (or a Standard Schema with JSON Schema output, "~standard.jsonSchema")',
    );
    // zod 3 before 3.24 had no ~standard at all: recognized by its shape
    const legacy = { _def: { typeName: 'ZodString' }, safeParse: () => ({ success: true }) };
    expect(refusal(legacy)).toMatch(/the value is a zod 3 schema, which cannot describe itself as JSON Schema: Switchboard needs zod >= 4\.2/);
  });

  it('a zod schema inside a JSON Schema is refused', () => {
    expect(refusal({ type: 'object', properties: { a: z.string() } })).toBe(
      'Invalid inputSchema of tool "t": "a" at "#/properties" is a zod or Standard Schema inside a JSON Schema: build the whole schema with one library (z.object({ ... })) or write it all as JSON Schema',
    );
  });

  it('a zod schema that cannot be written as JSON Schema is refused at registration', () => {
    expect(refusal(z.object({ when: z.date() }))).toMatch(/^Invalid inputSchema of tool "t": the Standard Schema \(vendor "zod"\) could not produce its JSON Schema: /);
  });

  it('zod 4 objects still compile', () => {
    expect(compile(z.object({ a: z.string() }), 'x').json).toMatchObject({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it("a Standard Schema's issues are located as JSON Schema errors are, under the value's name", async () => {
    expect(await compile(z.object({ a: z.array(z.number()) }), 'x').validate({ a: [1, 'two'] })).toEqual({ error: expect.stringMatching(/^arguments\/a\/1: /) });
    expect(await compile(z.object({ a: z.string() }), 'x', 'structuredContent').validate({})).toEqual({ error: expect.stringMatching(/^structuredContent\/a: /) });
    // Standard Schema v1: a path segment may be a key or a `{ key }` object; an issue without a path is the whole value.
    const handMade = {
      '~standard': {
        version: 1,
        vendor: 'hand-made',
        validate: () => ({ issues: [{ message: 'odd', path: [{ key: 'a' }, 0] }, { message: 'whole' }, { message: 'escaped', path: ['a/b', { key: 'c~d' }] }] }),
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    expect(compile(handMade as never, 'x', 'structuredContent').validate({})).toEqual({ error: 'structuredContent/a/0: odd; structuredContent: whole; structuredContent/a~1b/c~0d: escaped' });
  });

  it("a validation message quoting the caller's keys stays short: locations capped, issues counted past ten", async () => {
    const long = 'k'.repeat(100_000);
    const zodError = (await compile(z.object({}).strict(), 'x').validate({ [long]: 1 })) as { error: string };
    expect(zodError.error.length).toBeLessThan(1_000);
    const counted = (await compile(z.object({ list: z.array(z.string()) }), 'x').validate({ list: Array.from({ length: 5_000 }, (_, i) => i) })) as { error: string };
    expect(counted.error).toMatch(/^arguments\/list\/0: .*; arguments\/list\/9: [^;]*; and 4990 more$/);
    expect(counted.error.length).toBeLessThan(2_000);
    const keys = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`key${i}`, i]));
    expect(((await compile(z.object({}).strict(), 'x').validate(keys)) as { error: string }).error.length).toBeLessThan(1_000);
    const jsonError = compile({ type: 'object', additionalProperties: false }, 'x').validate({ [long]: 1 }) as { error: string };
    expect(jsonError.error.length).toBeLessThan(1_000);
  });
});
