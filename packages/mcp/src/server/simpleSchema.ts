/**
 * The quick check of a flat object schema, the common shape of a tool's `inputSchema`: `type: "object"` with
 * `properties` whose values are a single primitive `type` (`string`, `number`, `integer`, `boolean`, with `minimum`
 * and `maximum` on numbers), `required`, and a boolean `additionalProperties`, besides annotations. It answers "valid"
 * for a value the general validator (`@cfworker/json-schema`, `schema.ts`) accepts, with none of its per-call work
 * (error lists, JSON Pointers built for every property); a value it does not accept goes to the general validator,
 * which decides and words the error. A schema with any other keyword gets no quick check.
 *
 * The rules are the validator's own for these keywords (JSON Schema 2020-12 Validation §6.1.1 `type`, §6.2.4–6.2.5
 * `minimum`/`maximum`, §6.5.3 `required`; Core §10.3.2.1 `properties`, §10.3.2.3 `additionalProperties`): an object
 * is not an array or `null`, an integer is a number with no fractional part, `required` and `properties` look at own
 * properties only.
 */
import type { JsonSchema } from './types.js';

/** Keywords that never change whether a value is valid (annotations), and extension keywords (`x-…`). */
const ANNOTATIONS: ReadonlySet<string> = new Set(['title', 'description', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean']);

function isAnnotation(key: string): boolean {
  return ANNOTATIONS.has(key) || key.startsWith('x-');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One property's rule: its type, and its bounds when it is a number. */
interface PropertyRule {
  readonly type: string;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
}

/** The rule of one property schema, or `undefined` when it has anything the quick check does not know. */
function propertyRule(schema: unknown): PropertyRule | undefined {
  if (!isObject(schema)) return undefined;
  let type: string | undefined;
  let minimum: number | undefined;
  let maximum: number | undefined;
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (key === 'type') {
      if (typeof value !== 'string' || !PRIMITIVES.has(value)) return undefined;
      type = value;
    } else if (key === 'minimum' || key === 'maximum') {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
      if (key === 'minimum') minimum = value;
      else maximum = value;
    } else if (!isAnnotation(key)) return undefined;
  }
  if (type === undefined) return undefined;
  return { type, minimum, maximum };
}

function fits(rule: PropertyRule, value: unknown): boolean {
  switch (rule.type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    default: {
      if (typeof value !== 'number') return false;
      // NaN and ±Infinity have no zero fraction (`% 1` is NaN): not integers.
      if (rule.type === 'integer' && value % 1 !== 0) return false;
      if (rule.minimum !== undefined && value < rule.minimum) return false;
      return rule.maximum === undefined || value <= rule.maximum;
    }
  }
}

/**
 * The quick check of `schema` (see the module comment), or `undefined` when the schema is not of the flat shape.
 * @returns a function that answers `true` only for a value the general validator accepts (`false`: ask it)
 * @example simpleObjectCheck({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })!({ text: 'hi' }) // true
 */
export function simpleObjectCheck(schema: JsonSchema): ((value: unknown) => boolean) | undefined {
  if (!isObject(schema) || schema.type !== 'object') return undefined;
  const rules = new Map<string, PropertyRule>();
  let required: readonly string[] = [];
  let closed = false;
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (key === 'type' || key === '$schema') continue;
    if (key === 'properties') {
      if (!isObject(value)) return undefined;
      for (const name of Object.keys(value)) {
        const rule = propertyRule(value[name]);
        if (rule === undefined) return undefined;
        rules.set(name, rule);
      }
    } else if (key === 'required') {
      if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) return undefined;
      required = value;
    } else if (key === 'additionalProperties') {
      if (typeof value !== 'boolean') return undefined;
      closed = !value;
    } else if (!isAnnotation(key)) return undefined;
  }
  return (value) => {
    if (!isObject(value)) return false;
    for (const name of required) if (!Object.hasOwn(value, name)) return false;
    // `for…in` as the validator walks `additionalProperties` (a JSON value has no inherited enumerable keys).
    for (const name in value) {
      const rule = Object.hasOwn(value, name) ? rules.get(name) : undefined;
      if (rule === undefined) {
        if (closed) return false;
      } else if (!fits(rule, value[name])) return false;
    }
    return true;
  };
}
