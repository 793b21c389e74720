/**
 * Tool schemas: compiled once at registration (JSON Schema 2020-12 with Ajv, or a Standard Schema), so a
 * `tools/call` costs one validator call.
 *
 * @see MCP 2025-11-25 server/tools.mdx "Tool" (inputSchema/outputSchema), basic/index.mdx "JSON Schema Usage"
 *   (2020-12 is the default dialect, SEP-1613)
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
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

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/** One Ajv instance per server: compiled validators are cached by it. */
export function createSchemaCompiler(): (schema: SchemaLike, what: string) => CompiledSchema {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  return (schema, what) => (isStandardSchema(schema) ? compileStandard(schema, what) : compileJson(ajv, schema, what));
}

function isStandardSchema(schema: SchemaLike): schema is StandardSchemaV1 {
  const std = (schema as Partial<StandardSchemaV1>)['~standard'];
  return typeof std === 'object' && std !== null && typeof std.validate === 'function';
}

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

function compileJson(ajv: Ajv2020, schema: JsonSchema, what: string): CompiledSchema {
  let forAjv: JsonSchema = schema;
  // A schema naming another dialect (e.g. draft-07, as many hand-written tools do) is validated with the
  // 2020-12 vocabulary; the listed schema stays verbatim.
  if (typeof schema.$schema === 'string' && schema.$schema !== DRAFT_2020_12) {
    const { $schema: _dropped, ...rest } = schema;
    forAjv = rest;
  }
  let fn: ReturnType<Ajv2020['compile']>;
  try {
    fn = ajv.compile(forAjv);
  } catch (error) {
    throw new TypeError(`Invalid ${what}: ${(error as Error).message}`, { cause: error });
  }
  return {
    json: schema,
    validate: (value) => (fn(value) ? undefined : { error: ajv.errorsText(fn.errors, { dataVar: 'arguments' }) }),
  };
}

function compileStandard(schema: StandardSchemaV1, what: string): CompiledSchema {
  const std = schema['~standard'];
  const json = std.jsonSchema?.input({ target: 'draft-2020-12' });
  if (json === undefined) {
    throw new TypeError(`Invalid ${what}: the Standard Schema (${std.vendor}) cannot describe itself as JSON Schema`);
  }
  const describe = (result: Awaited<ReturnType<typeof std.validate>>): ValidationOutcome =>
    result.issues === undefined
      ? { value: result.value }
      : { error: result.issues
          .map((issue) => (issue.path && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
          .join('; ') };
  return {
    json,
    validate: (value) => {
      const result = std.validate(value);
      return result instanceof Promise ? result.then(describe) : describe(result);
    },
  };
}
