/**
 * A tool's JSON Schemas as a client sees them: which dialect each declares (MCP 2025-11-25 basic/index.mdx "JSON
 * Schema Usage": no `$schema` means 2020-12; implementations MUST support 2020-12, other dialects are optional), and
 * whether it is a valid schema of that dialect. Validity is decided by Ajv: it checks a schema against its dialect's
 * meta-schema and compiles it (bad local `$ref`s, bad regular expressions), as the official TypeScript SDK's client
 * does with the same library, so what fails here fails there.
 *
 * Why Ajv beside the library's `@cfworker/json-schema` (kept on a measurement, issue #20): the doctor says what a
 * host's client will do, and the official TypeScript SDK's `Client` validates `structuredContent` with Ajv by
 * default (`AjvJsonSchemaValidator`, `@modelcontextprotocol/sdk` client/index.js). Measured on 12 schemas (Ajv 8.20.0,
 * cfworker 4.1.6): cfworker's `Validator` takes 8 of the 9 invalid ones without a word (`required: "q"`, `type:
 * "strng"`, `pattern: "("`, `minLength: -1`, a 2020-12 `items` array, a remote `$ref`, …: it checks no meta-schema,
 * and throws only on a dangling local `$ref`); the
 * library's registration check (`server/schemaCheck.ts`, behind `./server`, which the doctor may not import) reaches
 * Ajv's verdicts on the keyword faults but in its own words; and a value is refused in other words than the SDK's
 * (`structuredContent/sum: must be number` from Ajv, `Instance type "string" is invalid. Expected "number".` from
 * cfworker). The doctor quotes the words the host will show (its tests pin them), so it keeps Ajv, loaded only
 * when a primitives check needs it.
 *
 * Unknown keywords (`x-mcp-header`, vendor keys) are allowed (`strict: false`), formats are not checked, and a `$ref`
 * to another document is never fetched: it is reported as unresolved, not as invalid. Ajv is loaded on first use
 * ({@link loadSchemaCompilers}): it costs a quarter of a second, which the CLI's other commands need not pay.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';

/** The dialects told apart. `unknown`: a `$schema` this doctor does not know (or not a string). */
export type SchemaDialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04' | 'unknown';

/** The `$schema` URIs of each dialect (with or without the empty fragment, `http` or `https`). */
const DIALECTS: ReadonlyMap<string, SchemaDialect> = new Map([
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
  ['json-schema.org/draft-06/schema', 'draft-06'],
  ['json-schema.org/draft-04/schema', 'draft-04'],
]);

/**
 * The dialect a schema is read in: its `$schema`, else the revision's default (2020-12 from MCP 2025-11-25 on;
 * earlier revisions name none, and the hosts of that time read draft-07).
 */
export function dialectOf(schema: Readonly<Record<string, unknown>>, revision: string): { readonly dialect: SchemaDialect; readonly declared: boolean } {
  const declared = schema.$schema;
  if (declared === undefined) return { dialect: revision >= '2025-11-25' ? '2020-12' : 'draft-07', declared: false };
  if (typeof declared !== 'string') return { dialect: 'unknown', declared: true };
  const key = declared.replace(/^https?:\/\//, '').replace(/#$/, '');
  return { dialect: DIALECTS.get(key) ?? 'unknown', declared: true };
}

/** What compiling a schema said. */
export type SchemaVerdict =
  | { readonly ok: true; readonly validate: (value: unknown) => string | undefined }
  | { readonly ok: false; readonly kind: 'invalid' | 'unresolved-ref' | 'dialect-unsupported'; readonly reason: string };

type Compiler = Ajv | Ajv2019 | Ajv2020;

/** `validateSchema: false`: each schema is checked against its meta-schema once, explicitly, before it is compiled. */
const OPTIONS = { strict: false, validateFormats: false, validateSchema: false, allErrors: false, addUsedSchema: false, messages: true } as const;

interface AjvClasses {
  readonly Ajv: typeof Ajv;
  readonly Ajv2019: typeof Ajv2019;
  readonly Ajv2020: typeof Ajv2020;
}

let classes: Promise<AjvClasses> | undefined;
let loaded: AjvClasses | undefined;

/** Loads Ajv (once); {@link inspectSchema} and {@link compileSchema} need it loaded. */
export function loadSchemaCompilers(): Promise<void> {
  classes ??= Promise.all([import('ajv'), import('ajv/dist/2019.js'), import('ajv/dist/2020.js')]).then(([draft07, draft2019, draft2020]) => ({
    Ajv: draft07.Ajv,
    Ajv2019: draft2019.Ajv2019,
    Ajv2020: draft2020.Ajv2020,
  }));
  return classes.then((ready) => {
    loaded = ready;
  });
}

/** One Ajv per dialect, made on first use (a compiled schema's `$id` is removed again, so ids never collide). */
const compilers = new Map<SchemaDialect, Compiler>();

function compilerFor(dialect: SchemaDialect): Compiler | undefined {
  const known = compilers.get(dialect);
  if (known !== undefined) return known;
  if (loaded === undefined) throw new Error('Schema compilers not loaded: await loadSchemaCompilers() first');
  let made: Compiler;
  switch (dialect) {
    case '2020-12':
      made = new loaded.Ajv2020(OPTIONS);
      break;
    case '2019-09':
      made = new loaded.Ajv2019(OPTIONS);
      break;
    case 'draft-07':
      made = new loaded.Ajv(OPTIONS);
      break;
    case 'draft-06':
    case 'draft-04':
    case 'unknown':
      return undefined;
  }
  compilers.set(dialect, made);
  return made;
}

/** The first error of a failed validation, e.g. `/rows/0: must be array`. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, root: string): string {
  const first = errors?.[0];
  if (first === undefined) return 'invalid';
  return `${root}${first.instancePath}: ${first.message ?? first.keyword}`;
}

/** Keywords whose use only compiling can judge (a `$ref` target, a regular expression). */
const NEEDS_COMPILE = /"(\$ref|\$dynamicRef|\$recursiveRef|pattern|patternProperties)"\s*:/;

/** Verdicts by dialect and schema text: a catalogue repeats its schemas. */
const verdicts = new Map<string, SchemaVerdict>();
const VERDICT_CACHE_LIMIT = 2000;

function unsupported(dialect: SchemaDialect): SchemaVerdict {
  return { ok: false, kind: 'dialect-unsupported', reason: `the dialect ${dialect} is not one this doctor compiles (2020-12, 2019-09, draft-07)` };
}

/**
 * Whether `schema` is a valid schema of `dialect`: checked against the dialect's meta-schema, and compiled when it
 * uses a keyword only compiling can judge (compiling every schema of a 1,000-tool catalogue costs seconds).
 * @returns `ok` (its `validate` accepts every value: use {@link compileSchema} to validate), or why it is not valid
 * @throws Error when {@link loadSchemaCompilers} has not completed
 */
export function inspectSchema(schema: Readonly<Record<string, unknown>>, dialect: SchemaDialect): SchemaVerdict {
  const compiler = compilerFor(dialect);
  if (compiler === undefined) return unsupported(dialect);
  const text = JSON.stringify(schema);
  if (NEEDS_COMPILE.test(text)) return compileSchema(schema, dialect);
  const copy = JSON.parse(text) as Record<string, unknown>;
  delete copy.$schema;
  if (compiler.validateSchema(copy) !== true) return { ok: false, kind: 'invalid', reason: describeErrors(compiler.errors, 'schema') };
  return { ok: true, validate: () => undefined };
}

/**
 * Checks `schema` against its dialect's meta-schema and compiles it.
 * @returns a validator of values (`undefined` when a value fits, else the first error), or why it cannot be used
 * @throws Error when {@link loadSchemaCompilers} has not completed
 */
export function compileSchema(schema: Readonly<Record<string, unknown>>, dialect: SchemaDialect): SchemaVerdict {
  const compiler = compilerFor(dialect);
  if (compiler === undefined) return unsupported(dialect);
  const text = JSON.stringify(schema);
  const key = `${dialect} ${text}`;
  const cached = verdicts.get(key);
  if (cached !== undefined) return cached;
  const verdict = compileFresh(compiler, JSON.parse(text) as Record<string, unknown>);
  if (verdicts.size >= VERDICT_CACHE_LIMIT) verdicts.clear();
  verdicts.set(key, verdict);
  return verdict;
}

function compileFresh(compiler: Compiler, schema: Record<string, unknown>): SchemaVerdict {
  // The dialect is chosen by this module; a `$schema` the compiler would look up again is dropped.
  delete schema.$schema;
  if (compiler.validateSchema(schema) !== true) return { ok: false, kind: 'invalid', reason: describeErrors(compiler.errors, 'schema') };
  let validate: ValidateFunction;
  try {
    validate = compiler.compile(schema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unresolved = (error as { missingRef?: unknown }).missingRef !== undefined;
    return { ok: false, kind: unresolved ? 'unresolved-ref' : 'invalid', reason: message };
  } finally {
    if (typeof schema.$id === 'string') compiler.removeSchema(schema.$id);
  }
  return { ok: true, validate: (value) => (validate(value) ? undefined : describeErrors(validate.errors, 'value')) };
}
