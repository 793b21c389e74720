/**
 * Registration-time checks of a JSON Schema: the types of its keywords, as the dialect's meta-schema states
 * them, so a schema such as `{ type: "strng" }` is refused when it is registered instead of failing every call.
 *
 * Why a structural check and not the official meta-schema documents: `@cfworker/json-schema` (our validator)
 * does not implement `$dynamicRef`, and the 2020-12 meta-schema reaches every subschema through
 * `$dynamicRef: "#meta"`, so validating a schema against it with cfworker checks the root keywords only
 * (`{ properties: { a: { type: "strng" } } }` passes; measured). The table below restates the keyword rules of
 * the meta-schemas (JSON Schema 2020-12 core, applicator, unevaluated, validation, meta-data, format-annotation
 * and content vocabularies; 2019-09, draft-07 and draft-04 where they differ) and is walked once per schema:
 * no meta-schema to load or dereference at start-up, and the messages can say what to change.
 * `format` values stay annotations, as in the meta-schemas; regular expressions (`pattern`, `patternProperties`)
 * must compile, since the validator compiles them on every call.
 *
 * @see MCP 2025-11-25 basic/index.mdx "JSON Schema Usage" (2020-12 by default; schemas valid for their dialect)
 */
import type { SchemaDraft } from '../protocol/schemaDialect.js';

type Rule =
  | 'schema' | 'schemaArray' | 'schemaMap' | 'schemaOrArray' | 'patternMap' | 'dependencies'
  | 'string' | 'id' | 'anchor' | 'anchor2019' | 'boolean' | 'number' | 'positive' | 'count' | 'regex'
  | 'type' | 'array' | 'enum04' | 'strings' | 'strings04' | 'stringsMap' | 'vocabulary' | 'any';

const SIMPLE_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;

/** The 2020-12 rules (https://json-schema.org/draft/2020-12/schema and its vocabularies). */
const RULES_2020_12: Readonly<Record<string, Rule>> = {
  // core
  $id: 'id', $schema: 'string', $ref: 'string', $anchor: 'anchor', $dynamicRef: 'string', $dynamicAnchor: 'anchor',
  $vocabulary: 'vocabulary', $comment: 'string', $defs: 'schemaMap',
  // kept by the 2020-12 meta-schema from older drafts
  definitions: 'schemaMap', dependencies: 'dependencies', $recursiveAnchor: 'anchor', $recursiveRef: 'string',
  // applicator
  prefixItems: 'schemaArray', items: 'schema', contains: 'schema', additionalProperties: 'schema', properties: 'schemaMap',
  patternProperties: 'patternMap', dependentSchemas: 'schemaMap', propertyNames: 'schema', if: 'schema', then: 'schema',
  else: 'schema', allOf: 'schemaArray', anyOf: 'schemaArray', oneOf: 'schemaArray', not: 'schema',
  // unevaluated
  unevaluatedItems: 'schema', unevaluatedProperties: 'schema',
  // validation
  type: 'type', const: 'any', enum: 'array', multipleOf: 'positive', maximum: 'number', exclusiveMaximum: 'number',
  minimum: 'number', exclusiveMinimum: 'number', maxLength: 'count', minLength: 'count', pattern: 'regex',
  maxItems: 'count', minItems: 'count', uniqueItems: 'boolean', maxContains: 'count', minContains: 'count',
  maxProperties: 'count', minProperties: 'count', required: 'strings', dependentRequired: 'stringsMap',
  // meta-data, format-annotation, content
  title: 'string', description: 'string', default: 'any', deprecated: 'boolean', readOnly: 'boolean', writeOnly: 'boolean',
  examples: 'array', format: 'string', contentEncoding: 'string', contentMediaType: 'string', contentSchema: 'schema',
};

/**
 * Where an older dialect's meta-schema says otherwise. Keywords an older dialect does not define keep the
 * 2020-12 rule (the validator applies them whatever the dialect). Boolean subschemas, which draft-04 lacks,
 * are accepted in every dialect: the validator handles them.
 */
const OVERRIDES: Readonly<Record<SchemaDraft, Readonly<Record<string, Rule>>>> = {
  '2020-12': {},
  '2019-09': { items: 'schemaOrArray', additionalItems: 'schema', $anchor: 'anchor2019', $recursiveAnchor: 'boolean' },
  '7': { items: 'schemaOrArray', additionalItems: 'schema' },
  '4': {
    items: 'schemaOrArray', additionalItems: 'schema', id: 'string', exclusiveMaximum: 'boolean', exclusiveMinimum: 'boolean',
    required: 'strings04', enum: 'enum04',
  },
};

let rulesByDraft: Map<SchemaDraft, ReadonlyMap<string, Rule>> | undefined;

/** The rule table of a dialect, built on first use. */
function rulesOf(draft: SchemaDraft): ReadonlyMap<string, Rule> {
  rulesByDraft ??= new Map();
  let rules = rulesByDraft.get(draft);
  if (rules === undefined) {
    rules = new Map(Object.entries({ ...RULES_2020_12, ...OVERRIDES[draft] }));
    rulesByDraft.set(draft, rules);
  }
  return rules;
}

const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const ANCHOR_2019 = /^[A-Za-z][-A-Za-z0-9.:_]*$/;

/** Whether `value` is a Standard Schema (zod 4, valibot, arktype…) or a zod 3 schema (which may predate it). */
export function isSchemaObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const std = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  if (typeof std === 'object' && std !== null && typeof std.validate === 'function') return true;
  return isZod3(value);
}

/** zod 3 before 3.24 has no `~standard`: recognized by its `_def` and `safeParse`. */
export function isZod3(value: unknown): boolean {
  const v = value as { _def?: unknown; safeParse?: unknown };
  return typeof v === 'object' && v !== null && typeof v._def === 'object' && typeof v.safeParse === 'function';
}

/** The message part shared by every refusal of a schema library without JSON Schema output. */
export const NEEDS_JSON_SCHEMA_OUTPUT = 'needs zod >= 4.2 (or a Standard Schema with JSON Schema output, "~standard.jsonSchema")';

/**
 * What is wrong with a JSON Schema given as a plain object, or `undefined` when nothing is: a raw zod shape
 * (`{ a: z.string() }`), a zod 3 schema, values that are not JSON, or a keyword of the wrong type.
 *
 * @param schema the schema as registered
 * @param draft the dialect it is validated in (from its `$schema`; 2020-12 by default)
 */
export function jsonSchemaProblem(schema: Record<string, unknown>, draft: SchemaDraft): string | undefined {
  if (isZod3(schema)) return `the value is a zod 3 schema, which cannot describe itself as JSON Schema: Switchboard ${NEEDS_JSON_SCHEMA_OUTPUT}`;
  const values = Object.values(schema);
  if (values.length > 0 && values.some(isSchemaObject)) {
    const keys = Object.keys(schema).slice(0, 3).map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: …`);
    const shape = `{ ${keys.join(', ')}${Object.keys(schema).length > 3 ? ', …' : ''} }`;
    return `it is a plain object of schemas (${shape}), not a schema: wrap it in \`z.object(${shape})\``;
  }
  return new Walk(rulesOf(draft)).schema(schema, '#');
}

const IN_JSON_SCHEMA = 'is a zod or Standard Schema inside a JSON Schema: build the whole schema with one library (z.object({ ... })) or write it all as JSON Schema';

/** One walk over a schema; a method returns the first problem found, or `undefined`. */
class Walk {
  readonly #ancestors = new Set<object>();
  constructor(readonly rules: ReadonlyMap<string, Rule>) {}

  schema(value: unknown, at: string): string | undefined {
    if (typeof value === 'boolean') return undefined;
    if (isSchemaObject(value)) return `${where(at)} ${IN_JSON_SCHEMA}`;
    if (!isPlainObject(value)) return `${where(at)} must be a schema (an object or a boolean): got ${describe(value)}`;
    if (this.#ancestors.has(value)) return `${where(at)} contains itself (a cycle of objects): JSON cannot hold a cycle; use "$ref" instead`;
    this.#ancestors.add(value);
    try {
      for (const key of Object.keys(value)) {
        const item = value[key];
        if (item === undefined) continue;
        const rule = this.rules.get(key);
        const problem = rule === undefined ? this.json(item, `${at}/${escape(key)}`) : this.keyword(rule, key, item, `${at}/${escape(key)}`);
        if (problem !== undefined) return problem;
      }
      return undefined;
    } finally {
      this.#ancestors.delete(value);
    }
  }

  /** Any JSON value (unknown keywords, `const`, `default`…): no functions, class instances, non-finite numbers or cycles. */
  json(value: unknown, at: string): string | undefined {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return undefined;
      case 'number':
        return Number.isFinite(value) ? undefined : `${where(at)} must be JSON: got ${String(value)}`;
      case 'object': {
        if (value === null) return undefined;
        if (isSchemaObject(value)) {
          return `${where(at)} ${IN_JSON_SCHEMA}`;
        }
        if (!Array.isArray(value) && !isPlainObject(value)) return `${where(at)} must be JSON: got ${describe(value)}`;
        if (this.#ancestors.has(value)) return `${where(at)} contains itself (a cycle of objects): JSON cannot hold a cycle`;
        this.#ancestors.add(value);
        try {
          if (Array.isArray(value)) {
            for (let i = 0; i < value.length; i++) {
              const problem = this.json(value[i], `${at}/${i}`);
              if (problem !== undefined) return problem;
            }
          } else {
            for (const key of Object.keys(value)) {
              if (value[key] === undefined) continue;
              const problem = this.json(value[key], `${at}/${escape(key)}`);
              if (problem !== undefined) return problem;
            }
          }
          return undefined;
        } finally {
          this.#ancestors.delete(value);
        }
      }
      case 'bigint':
      case 'function':
      case 'symbol':
      case 'undefined':
        return `${where(at)} must be JSON: got ${describe(value)}`;
    }
  }

  // Positional on purpose: called once per checked member of every result, where an options object would be one
  // more allocation each.
  // eslint-disable-next-line @typescript-eslint/max-params
  keyword(rule: Rule, key: string, value: unknown, at: string): string | undefined {
    switch (rule) {
      case 'any':
        return this.json(value, at);
      case 'schema':
        return this.schema(value, at);
      case 'schemaOrArray':
        return Array.isArray(value) ? this.schemas(value, at, key) : this.schema(value, at);
      case 'schemaArray':
        if (!Array.isArray(value)) return `${where(at)} must be a non-empty array of schemas: got ${describe(value)}`;
        return this.schemas(value, at, key);
      case 'schemaMap':
      case 'patternMap':
      case 'dependencies': {
        if (!isPlainObject(value)) return `${where(at)} must be an object whose values are schemas: got ${describe(value)}`;
        for (const name of Object.keys(value)) {
          const item = value[name];
          if (item === undefined) continue;
          if (rule === 'patternMap') {
            const bad = regexProblem(name);
            if (bad !== undefined) return `${where(at)} has a key that is not a regular expression: ${JSON.stringify(name)} (${bad})`;
          }
          if (rule === 'dependencies' && Array.isArray(item)) {
            const problem = stringsProblem(item, `${at}/${escape(name)}`, false);
            if (problem !== undefined) return problem;
            continue;
          }
          const problem = this.schema(item, `${at}/${escape(name)}`);
          if (problem !== undefined) return problem;
        }
        return undefined;
      }
      case 'string':
        return typeof value === 'string' ? undefined : `${where(at)} must be a string: got ${describe(value)}`;
      case 'id':
        if (typeof value !== 'string') return `${where(at)} must be a URI reference string: got ${describe(value)}`;
        return /^[^#]*#?$/.test(value) ? undefined : `${where(at)} must not have a fragment: got ${JSON.stringify(value)} (use "$anchor" to name a subschema)`;
      case 'anchor':
      case 'anchor2019': {
        const pattern = rule === 'anchor' ? ANCHOR : ANCHOR_2019;
        return typeof value === 'string' && pattern.test(value)
          ? undefined
          : `${where(at)} must be a plain name matching ${String(pattern)}: got ${describe(value)}`;
      }
      case 'boolean':
        return typeof value === 'boolean' ? undefined : `${where(at)} must be true or false: got ${describe(value)}${hintOfBoolean(value)}`;
      case 'number':
        return isNumber(value) ? undefined : `${where(at)} must be a number: got ${describe(value)}${hintOfNumber(value)}`;
      case 'positive':
        return isNumber(value) && value > 0 ? undefined : `${where(at)} must be a number greater than 0: got ${describe(value)}${hintOfNumber(value)}`;
      case 'count':
        return isNumber(value) && Number.isInteger(value) && value >= 0
          ? undefined
          : `${where(at)} must be a non-negative integer: got ${describe(value)}${hintOfNumber(value)}`;
      case 'regex': {
        if (typeof value !== 'string') return `${where(at)} must be a regular expression string: got ${describe(value)}`;
        const bad = regexProblem(value);
        return bad === undefined ? undefined : `${where(at)} is not a valid regular expression: ${JSON.stringify(value)} (${bad})`;
      }
      case 'type':
        return typeProblem(value, at);
      case 'array':
        return Array.isArray(value) ? this.json(value, at) : `${where(at)} must be an array: got ${describe(value)} (write [${describe(value)}])`;
      case 'enum04':
        if (!Array.isArray(value) || value.length === 0) return `${where(at)} must be a non-empty array (draft-04): got ${describe(value)}`;
        return this.json(value, at);
      case 'strings':
      case 'strings04':
        return stringsProblem(value, at, rule === 'strings04');
      case 'stringsMap': {
        if (!isPlainObject(value)) return `${where(at)} must be an object whose values are arrays of property names: got ${describe(value)}`;
        for (const name of Object.keys(value)) {
          const problem = stringsProblem(value[name], `${at}/${escape(name)}`, false);
          if (problem !== undefined) return problem;
        }
        return undefined;
      }
      case 'vocabulary': {
        if (!isPlainObject(value)) return `${where(at)} must be an object of URI → boolean: got ${describe(value)}`;
        for (const name of Object.keys(value)) {
          if (typeof value[name] !== 'boolean') return `${where(`${at}/${escape(name)}`)} must be true or false: got ${describe(value[name])}`;
        }
        return undefined;
      }
    }
  }

  schemas(list: readonly unknown[], at: string, key: string): string | undefined {
    if (list.length === 0) return `${where(at)} must not be empty: remove "${key}" or give it at least one schema`;
    for (let i = 0; i < list.length; i++) {
      const problem = this.schema(list[i], `${at}/${i}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
}

function typeProblem(value: unknown, at: string): string | undefined {
  const expected = `one of ${SIMPLE_TYPES.map((t) => `"${t}"`).join(', ')}, or an array of them`;
  if (typeof value === 'string') {
    if ((SIMPLE_TYPES as readonly string[]).includes(value)) return undefined;
    const near = closest(value, SIMPLE_TYPES);
    return `${where(at)} must be ${expected}: got ${JSON.stringify(value)}${near === undefined ? '' : ` (did you mean "${near}"?)`}`;
  }
  if (!Array.isArray(value) || value.length === 0) return `${where(at)} must be ${expected}: got ${describe(value)}`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string' || !(SIMPLE_TYPES as readonly string[]).includes(item)) {
      return typeProblem(item, `${at}/${i}`) ?? `${where(`${at}/${i}`)} must be one of the simple types: got ${describe(item)}`;
    }
    if (value.indexOf(item) !== i) return `${where(at)} must not repeat a type: "${item}" appears twice`;
  }
  return undefined;
}

function stringsProblem(value: unknown, at: string, nonEmpty: boolean): string | undefined {
  if (typeof value === 'string') return `${where(at)} must be an array of property names: got ${JSON.stringify(value)} (write [${JSON.stringify(value)}])`;
  if (!Array.isArray(value)) return `${where(at)} must be an array of property names: got ${describe(value)}`;
  if (nonEmpty && value.length === 0) return `${where(at)} must not be empty in draft-04: remove it instead`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') return `${where(`${at}/${i}`)} must be a property name (a string): got ${describe(item)}`;
    if (value.indexOf(item) !== i) return `${where(at)} must not repeat a name: "${item}" appears twice`;
  }
  return undefined;
}

function regexProblem(source: string): string | undefined {
  try {
    new RegExp(source, 'u'); // the validator compiles patterns with the `u` flag
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function hintOfNumber(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? ` (write ${Number(value)}, without quotes)` : '';
}

function hintOfBoolean(value: unknown): string {
  return value === 'true' || value === 'false' ? ` (write ${value}, without quotes)` : '';
}

/** `"type" at "#/properties/a"`: the keyword and the location of the schema holding it. */
function where(at: string): string {
  const slash = at.lastIndexOf('/');
  const keyword = at.slice(slash + 1).replace(/~1/g, '/').replace(/~0/g, '~');
  const parent = at.slice(0, slash);
  return /^\d+$/.test(keyword) ? `"${at}"` : `"${keyword}" at "${parent === '' ? '#' : parent}"`;
}

/** JSON Pointer escaping (RFC 6901). */
function escape(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

/** A short rendering of a value for a message. */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${String(value)}n (a bigint)`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)) {
    return `an instance of ${value.constructor?.name ?? 'a class'}`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch {
    // Only a container fails here (a cycle, or nested too deep).
    text = Array.isArray(value) ? 'an array' : 'an object';
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The candidate within edit distance 2 of `word`, if one is. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The first `$ref` of a dereferenced schema that points nowhere (the validator would throw on every call that
 * reaches it), or `undefined`. `lookup` is the validator's table of known schema URIs; cfworker records each
 * `$ref`'s absolute URI on the schema object as `__absolute_ref__` (non-enumerable).
 */
export function unresolvedRefProblem(lookup: Readonly<Record<string, unknown>>): string | undefined {
  for (const node of Object.values(lookup)) {
    if (typeof node !== 'object' || node === null) continue;
    const target = (node as { __absolute_ref__?: unknown }).__absolute_ref__;
    if (typeof target !== 'string' || lookup[target] !== undefined) continue;
    const ref = String((node as { $ref?: unknown }).$ref);
    const absolute = (node as { __absolute_uri__?: unknown }).__absolute_uri__;
    const uri = typeof absolute === 'string' ? absolute : '';
    const hash = uri.indexOf('#');
    const at = hash === -1 ? '#' : uri.slice(hash);
    return `"$ref" at "${at}" points to nothing in this schema: ${JSON.stringify(ref)} (remote schemas are not fetched: put the target under "$defs")`;
  }
  return undefined;
}
