/**
 * Type tests of the handler types McpServer infers from what is registered: tool arguments from `inputSchema`,
 * results from `outputSchema`, prompt arguments from their declaration, template variables from the template.
 * Nothing here runs: `tsc -p tsconfig.check.json` checks it with `exactOptionalPropertyTypes: false` and
 * `tsc -p tsconfig.types-exact.json` with `true` (both from `npm test`). Each `@ts-expect-error` marks a
 * definition that must not compile; tsc fails if one of them compiles.
 *
 * It imports the published entry point (`dist/types` declarations), so the emitted `.d.ts` is what is tested.
 */
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { type CallToolResult } from '@switchboard/mcp';
import { McpServer, type JsonSchemaType, type PromptArgs, type StandardSchemaV1, type TemplateVariables, type ToolDefinition, type ToolArgs, type ToolResult } from '@switchboard/mcp/server';

const server = new McpServer({ name: 'types', version: '0.0.0' });
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

// ---------------------------------------------------------------------------------------------------------
// Tool arguments from a Standard Schema (zod 4): the schema's output type.

server.tool('zod', { inputSchema: z.object({ a: z.string(), n: z.number().optional() }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ a: string; n?: number | undefined }>();
  return text(args.a);
});

// A transform: the handler sees the output (number), not the input (string).
server.tool('transform', { inputSchema: z.object({ n: z.string().transform((s) => s.length), tag: z.string().default('none') }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ n: number; tag: string }>();
  return text(String(args.n));
});

// A wrong annotation of the parameter does not compile.
// @ts-expect-error the schema says `a` is a string
server.tool('zod-wrong', { inputSchema: z.object({ a: z.string() }) }, (args: { a: number }) => text(String(args.a)));

// A correct (or looser) annotation compiles.
server.tool('zod-annotated', { inputSchema: z.object({ a: z.string() }) }, (args: { a: string }) => text(args.a));

// Any Standard Schema, not only zod: the output type of `~standard.types`.
declare const _custom: StandardSchemaV1<{ raw: string }, { parsed: Date }>;
expectTypeOf<ToolArgs<typeof _custom>>().toEqualTypeOf<{ parsed: Date }>();

// ---------------------------------------------------------------------------------------------------------
// Tool arguments from a JSON Schema written `as const` (or inline: the type parameters are `const`).

const searchSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    limit: { type: 'integer' },
    mode: { enum: ['fast', 'exact'] },
    kind: { const: 'search' },
    tags: { type: 'array', items: { type: 'string' } },
    range: {
      type: 'object',
      properties: { from: { type: 'number' }, to: { type: ['number', 'null'] } },
      required: ['from'],
      additionalProperties: false,
    },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
  },
  required: ['query', 'mode'],
  additionalProperties: false,
} as const;

server.tool('search', { inputSchema: searchSchema }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{
    query: string;
    mode: 'fast' | 'exact';
    limit?: number;
    kind?: 'search';
    tags?: string[];
    range?: { from: number; to?: number | null };
    id?: string | number;
  }>();
  return text(args.query);
});

// Inline, without `as const`: still literal, still inferred.
server.tool('inline', { inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } }, required: ['a'] } }, (args) => {
  expectTypeOf(args.a).toEqualTypeOf<string>();
  expectTypeOf(args.b).toEqualTypeOf<boolean | undefined>();
  // No `additionalProperties: false`: other properties are allowed, and unknown.
  expectTypeOf(args.other).toEqualTypeOf<unknown>();
  return text(args.a);
});

// oneOf, and `additionalProperties` as a schema.
server.tool('choice', { inputSchema: { type: 'object', properties: { choice: { oneOf: [{ const: 1 }, { const: 'one' }] } }, required: ['choice'] } }, (args) => {
  expectTypeOf(args.choice).toEqualTypeOf<1 | 'one'>();
  return text('ok');
});
server.tool('map', { inputSchema: { type: 'object', additionalProperties: { type: 'number' } } }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ [key: string]: number }>();
  expectTypeOf(args['x']).toEqualTypeOf<number | undefined>();
  return text('ok');
});
server.tool('map-and-props', { inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: { type: 'number' } } }, (args) => {
  expectTypeOf(args.a).toEqualTypeOf<string>();
  expectTypeOf(args['x']).toEqualTypeOf<string | number | undefined>();
  return text('ok');
});

// Type arrays, nesting, and the depth bound (unknown past 10 levels, never "excessively deep").
expectTypeOf<JsonSchemaType<{ type: readonly ['string', 'null'] }>>().toEqualTypeOf<string | null>();
expectTypeOf<JsonSchemaType<{ type: 'array'; items: { type: 'array'; items: { enum: readonly [1, 2] } } }>>().toEqualTypeOf<(1 | 2)[][]>();
type Nest<N extends unknown[]> = N['length'] extends 12 ? { type: 'string' } : { type: 'array'; items: Nest<[...N, 0]> };
expectTypeOf<JsonSchemaType<Nest<[]>>>().toEqualTypeOf<unknown[][][][][][][][][][]>();

// @ts-expect-error the schema says `query` is a string
server.tool('json-wrong', { inputSchema: searchSchema }, (args: { query: number }) => text(String(args.query)));

// @ts-expect-error the schema does not require `limit`
server.tool('json-optional', { inputSchema: searchSchema }, (args: { query: string; limit: number }) => text(args.query));

// ---------------------------------------------------------------------------------------------------------
// No schema, and a plain (widened) JSON Schema.

server.tool('none', {}, (args) => {
  expectTypeOf(args).toEqualTypeOf<Record<string, never>>();
  return text('none');
});

const plain: Record<string, unknown> = { type: 'object', properties: { a: { type: 'string' } } };
server.tool('plain', { inputSchema: plain }, (args) => {
  expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
  return text('plain');
});

// A schema object without `as const` held in a variable: its `type` widened to `string`, nothing to infer.
const widened = { type: 'object', properties: { a: { type: 'string' } } };
expectTypeOf<ToolArgs<typeof widened>>().toEqualTypeOf<Record<string, unknown>>();
server.tool('widened', { inputSchema: widened }, (args: { a?: string }) => text(args.a ?? ''));

// A definition typed only as ToolDefinition (schemas unknown): loosely typed arguments and result.
declare const someDefinition: ToolDefinition;
server.tool('wide', someDefinition, (args) => {
  expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
  return text('wide');
});
declare const _someStandard: StandardSchemaV1;
expectTypeOf<ToolArgs<typeof _someStandard>>().toEqualTypeOf<Record<string, unknown>>();
expectTypeOf<ToolResult<ToolDefinition['outputSchema']>>().toEqualTypeOf<CallToolResult>();

// The old explicit type argument no longer names the arguments: a wrong one does not compile.
// @ts-expect-error `In` is the schema type, and the schema is not `{ a: number }`
server.tool<{ a: number }>('explicit', { inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }, () => text('x'));

// ---------------------------------------------------------------------------------------------------------
// Results from `outputSchema`.

server.tool('out-zod', { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [], structuredContent: { total: 1 } }));

server.tool('out-json', { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } },
  // eslint-disable-next-line @typescript-eslint/require-await -- the point: an async handler's result is checked too
  async () => ({ content: [], structuredContent: { ok: true } }));

// An error result needs no structuredContent (the server does not check it against the schema).
server.tool('out-error', { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [], isError: true }));

// @ts-expect-error structuredContent is required when an outputSchema is declared
server.tool('out-missing', { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [] }));

// @ts-expect-error structuredContent must have the schema's type
server.tool('out-wrong', { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [], structuredContent: { total: 'one' } }));

// @ts-expect-error a missing required property of an `as const` JSON Schema
server.tool('out-json-wrong', { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }, () => ({ content: [], structuredContent: {} }));

// Without outputSchema, structuredContent stays optional and loosely typed.
server.tool('out-none', {}, () => ({ content: [] }));
server.tool('out-none-sc', {}, () => ({ content: [], structuredContent: { anything: 1 } }));
expectTypeOf<ToolResult<undefined>>().toEqualTypeOf<CallToolResult>();

// ---------------------------------------------------------------------------------------------------------
// Prompt arguments from their declaration.

server.prompt('review', { arguments: [{ name: 'language', required: true }, { name: 'focus' }, { name: 'tone', required: false }] }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ language: string; focus?: string | undefined; tone?: string | undefined }>();
  return { messages: [] };
});

const declared = [{ name: 'topic', required: true }] as const;
server.prompt('declared', { arguments: declared }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ topic: string }>();
  return { messages: [] };
});

server.prompt('no-args', {}, (args) => {
  expectTypeOf(args).toEqualTypeOf<Record<string, never>>();
  return { messages: [] };
});

declare const _dynamic: { name: string; required?: boolean }[];
expectTypeOf<PromptArgs<typeof _dynamic>>().toEqualTypeOf<Record<string, string | undefined>>();

// @ts-expect-error `focus` is optional: it may be undefined
server.prompt('prompt-wrong', { arguments: [{ name: 'language', required: true }, { name: 'focus' }] }, (_args: { language: string; focus: string }) => ({ messages: [] }));

// ---------------------------------------------------------------------------------------------------------
// Template variables from the template string.

server.resourceTemplate('db://{table}/rows/{id}', { name: 'rows' }, (_uri, variables) => {
  expectTypeOf(variables).toEqualTypeOf<Readonly<{ table: string; id: string }>>();
  return { contents: [] };
});

expectTypeOf<TemplateVariables<'file://{+path}{#frag}'>>().toEqualTypeOf<{ path: string; frag: string }>();
expectTypeOf<TemplateVariables<'x://h{.ext}{/seg}{;p}'>>().toEqualTypeOf<{ ext: string; seg: string; p: string }>();
expectTypeOf<TemplateVariables<'x://h/{a,b}/{c:3}'>>().toEqualTypeOf<{ a: string; b: string; c: string }>();
expectTypeOf<TemplateVariables<'repo://{owner}{/segments*}{?ref,depth}{&page}'>>().toEqualTypeOf<{
  owner: string;
  segments: readonly string[];
  ref?: string;
  depth?: string;
  page?: string;
}>();
expectTypeOf<TemplateVariables<'x://{list*}{.parts*}'>>().toEqualTypeOf<{ list: readonly string[]; parts: readonly string[] }>();
expectTypeOf<TemplateVariables<'static://no-variables'>>().toEqualTypeOf<Record<string, never>>();

declare const someTemplate: string;
server.resourceTemplate(someTemplate, { name: 'any' }, (_uri, variables) => {
  expectTypeOf(variables).toEqualTypeOf<Readonly<Record<string, string | readonly string[]>>>();
  return { contents: [] };
});

// @ts-expect-error `segments` is an array (exploded)
server.resourceTemplate('repo://{owner}{/segments*}', { name: 'repo' }, (_uri, _variables: { owner: string; segments: string }) => ({ contents: [] }));

// @ts-expect-error there is no variable `name`
server.resourceTemplate('db://{table}', { name: 'table' }, (_uri, _variables: { name: string }) => ({ contents: [] }));
