/**
 * Tool schemas: prepared once at registration (a JSON Schema, 2020-12 by default, or a Standard Schema), so
 * a `tools/call` costs one validator call.
 *
 * JSON Schemas are validated with `@cfworker/json-schema` (the validator the official TypeScript SDK v2 uses
 * on edge runtimes): it dereferences a schema once and needs no code generation, so a server starts in
 * milliseconds instead of the ~250 ms Ajv takes to load and compile its 2020-12 meta-schema (measured in
 * bench/: cold start is one of the benchmark's targets); a call on a small argument object costs ~0.5 µs.
 *
 * @see MCP 2025-11-25 server/tools.mdx "Tool" (inputSchema/outputSchema), basic/index.mdx "JSON Schema Usage"
 *   (2020-12 is the default dialect, SEP-1613)
 */
import { Validator, type OutputUnit } from '@cfworker/json-schema';
import { echo } from '@switchboard/jsonrpc';
import type { StandardJSONSchemaV1 } from '@standard-schema/spec';
import { schemaDraftOf } from '../protocol/schemaDialect.js';
import { NEEDS_JSON_SCHEMA_OUTPUT, jsonSchemaProblem, unresolvedRefProblem } from './schemaCheck.js';
import { simpleObjectCheck } from './simpleSchema.js';
import type { JsonSchema, SchemaLike, StandardSchemaV1 } from './types.js';

/** The outcome of a validation: the (possibly transformed) value, or a readable description of what is wrong. */
export type ValidationOutcome = { readonly value: unknown; readonly error?: undefined } | { readonly error: string };

/**
 * Validates a value. `undefined` means valid and unchanged (JSON Schemas: no allocation on the hot path);
 * Standard Schemas may transform the value (defaults, coercions): use the returned `value`.
 */
export type CompiledValidator = (value: unknown) => ValidationOutcome | undefined | Promise<ValidationOutcome>;

/** A schema ready for listing (`json`) and for validation (`validate`). */
export interface CompiledSchema {
  readonly json: JsonSchema;
  readonly validate: CompiledValidator;
}

/**
 * Prepares schemas; `what` names the schema in registration errors (`inputSchema of tool "x"`), `root` the value it
 * validates in a validation error's location (`arguments/a: …`, `structuredContent/a: …`; default `arguments`).
 */
export type SchemaCompiler = (schema: SchemaLike, what: string, root?: string) => CompiledSchema;

/** Creates a schema compiler. */
export function createSchemaCompiler(): SchemaCompiler {
  return (schema, what, root = 'arguments') => (isStandardSchema(schema) ? compileStandard(schema, what, root) : compileJson(schema, what, root));
}

function isStandardSchema(schema: SchemaLike): schema is StandardSchemaV1 {
  const std = (schema as Partial<StandardSchemaV1>)['~standard'];
  return typeof std === 'object' && std !== null && typeof std.validate === 'function';
}

function compileJson(schema: JsonSchema, what: string, root: string): CompiledSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TypeError(`Invalid ${what}: expected a JSON Schema object or a Standard Schema: got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema}`);
  }
  const draft = schemaDraftOf(schema);
  // Refuse at registration what would fail every call (keyword types, regular expressions, dangling $refs).
  const problem = jsonSchemaProblem(schema, draft);
  if (problem !== undefined) throw new TypeError(`Invalid ${what}: ${problem}`);
  let validator: Validator;
  try {
    // shortCircuit: stop at the first error; the listed schema stays verbatim.
    validator = new Validator(schema, draft, true);
  } catch (error) {
    throw new TypeError(`Invalid ${what}: ${(error as Error).message}`, { cause: error });
  }
  // `lookup` is private in cfworker's typings only: it is the validator's table of the schema's URIs.
  const dangling = unresolvedRefProblem((validator as unknown as { readonly lookup: Record<string, unknown> }).lookup);
  if (dangling !== undefined) throw new TypeError(`Invalid ${what}: ${dangling}`);
  // A flat object schema (most tool inputs) answers "valid" without the general validator (simpleSchema.ts).
  const quick = simpleObjectCheck(schema);
  return {
    json: schema,
    validate: (value) => {
      if (quick !== undefined && quick(value)) return undefined;
      const result = validator.validate(value);
      return result.valid ? undefined : { error: describeErrors(result.errors, root) };
    },
  };
}

/**
 * The most specific error, with its location under `root`: `arguments/a: Instance type "string" is invalid. Expected
 * "integer".` Both parts may quote the caller's keys, so each is capped as any echoed input is (`echo`).
 */
function describeErrors(errors: readonly OutputUnit[], root: string): string {
  let pick = errors[errors.length - 1];
  // A `false` schema (e.g. additionalProperties: false) explains itself one level up.
  if (pick !== undefined && pick.keyword === 'false' && errors.length > 1) pick = errors[errors.length - 2];
  if (pick === undefined) return 'invalid';
  return `${echo(pick.instanceLocation.replace(/^#/, root))}: ${echo(pick.error)}`;
}

/** Issues of a Standard Schema a validation message lists; the rest are counted. */
const MAX_LISTED_ISSUES = 10;

function compileStandard(schema: StandardSchemaV1, what: string, root: string): CompiledSchema {
  const std = schema['~standard'];
  // Standard JSON Schema (`~standard.jsonSchema`) is a sibling spec: optional on a Standard Schema.
  const jsonSchema = (std as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (typeof jsonSchema?.input !== 'function') {
    throw new TypeError(`Invalid ${what}: the Standard Schema (vendor "${std.vendor}") has no JSON Schema output: Switchboard ${NEEDS_JSON_SCHEMA_OUTPUT}`);
  }
  let json: JsonSchema;
  try {
    json = jsonSchema.input({ target: 'draft-2020-12' });
  } catch (error) {
    throw new TypeError(`Invalid ${what}: the Standard Schema (vendor "${std.vendor}") could not produce its JSON Schema: ${(error as Error).message}`, { cause: error });
  }
  const describe = (result: Awaited<ReturnType<typeof std.validate>>): ValidationOutcome =>
    result.issues === undefined
      ? { value: result.value }
      : { error: listIssues(result.issues, root) };
  return {
    json,
    validate: (value) => {
      const result = std.validate(value);
      return result instanceof Promise ? result.then(describe) : describe(result);
    },
  };
}

/**
 * A Standard Schema's issues as one message: the first {@link MAX_LISTED_ISSUES}, each located under `root` and capped
 * (`echo`: locations and messages may quote the caller's keys), then how many more there were. A library may report
 * thousands (one per bad item of a long array).
 */
function listIssues(issues: readonly StandardSchemaV1.Issue[], root: string): string {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${echo(locate(root, issue.path))}: ${echo(issue.message)}`);
  if (issues.length > MAX_LISTED_ISSUES) listed.push(`and ${issues.length - MAX_LISTED_ISSUES} more`);
  return listed.join('; ');
}

/**
 * Where a Standard Schema issue is, in the form JSON Schema errors take (`arguments/a/0`, each key escaped as a JSON
 * Pointer's: RFC 6901 §3): a path segment is a key or a `{ key }` object (Standard Schema v1 `PathSegment`).
 */
function locate(root: string, path: StandardSchemaV1.Issue['path']): string {
  let at = root;
  for (const segment of path ?? []) {
    const key: unknown = typeof segment === 'object' && segment !== null ? segment.key : segment;
    at += `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
  return at;
}
