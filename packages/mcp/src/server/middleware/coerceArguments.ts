/**
 * `coerceArgumentsMiddleware`: `tools/call` arguments that some hosts send as JSON strings (`"5"` for a number,
 * `"true"` for a boolean, `"[1,2]"` for an array, `'{"a":1}'` for an object) turned into the type the tool's
 * `inputSchema` declares, before the arguments are validated. Off unless installed; each coerced call is logged.
 *
 * Only a string where the schema's `type` does not allow a string is touched, and only when the string is exactly
 * a JSON value of an allowed type (`" 5 "` is 5, `"5px"` stays a string and fails validation as before). The walk
 * follows `properties` and `items` (an object schema, or `prefixItems`), not `$ref`, `anyOf`, `oneOf` or `allOf`:
 * where the schema does not say one type plainly, nothing is guessed.
 */
import { echo, parseJson } from '@switchboard/jsonrpc';
import { isRecord } from '../params.js';
import type { Middleware } from './call.js';

/** Options of {@link coerceArgumentsMiddleware}. */
export interface CoerceArgumentsMiddlewareOptions {
  /** Only these tools' arguments are coerced. @default every tool */
  readonly tools?: readonly string[];
  /** The level of the line logged for each coerced call. @default 'info' */
  readonly level?: 'debug' | 'info' | 'warn';
}

/** How deep the walk follows nested schemas. */
const MAX_DEPTH = 32;
/** How many coerced paths one log line names. */
const MAX_LOGGED = 20;
/** RFC 8259 §6 `number`. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

function typesOf(schema: Record<string, unknown>): readonly JsonType[] | undefined {
  const type = schema.type;
  if (typeof type === 'string') return [type as JsonType];
  return Array.isArray(type) && type.every((t) => typeof t === 'string') ? (type as JsonType[]) : undefined;
}

function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

function allows(types: readonly JsonType[], value: unknown): boolean {
  const type = typeOfValue(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** The value a string stands for under `types`, or the string itself when it stands for none of them. */
function fromString(text: string, types: readonly JsonType[]): unknown {
  const trimmed = text.trim();
  if (JSON_NUMBER.test(trimmed)) {
    const n = Number(trimmed);
    if (Number.isFinite(n) && allows(types, n)) return n;
    return text;
  }
  if (trimmed === 'true' || trimmed === 'false') return types.includes('boolean') ? trimmed === 'true' : text;
  if (trimmed === 'null') return types.includes('null') ? null : text;
  const first = trimmed.charCodeAt(0);
  if ((first === 0x5b && types.includes('array')) || (first === 0x7b && types.includes('object'))) {
    const parsed = parseJson(trimmed);
    if (parsed.ok && allows(types, parsed.value)) return parsed.value;
  }
  return text;
}

/** One coercion walk over a tool's arguments: the paths it changed, for the log line. */
class Coercion {
  readonly paths: string[] = [];
  #depth = 0;

  /** `value` coerced against `schema`: the same value when nothing changed, else a copy with the changes. */
  value(value: unknown, schema: unknown, path: string): unknown {
    if (!isRecord(schema) || this.#depth > MAX_DEPTH) return value;
    const types = typesOf(schema);
    if (typeof value === 'string') {
      if (types === undefined || types.includes('string')) return value;
      const coerced = fromString(value, types);
      if (coerced === value) return value;
      this.paths.push(`${path === '' ? '(arguments)' : path}: string → ${typeOfValue(coerced)}`);
      // A parsed array or object may hold strings of its own to coerce.
      return typeof coerced === 'object' && coerced !== null ? this.value(coerced, schema, path) : coerced;
    }
    if (!Array.isArray(value) && !isRecord(value)) return value;
    this.#depth++;
    try {
      return Array.isArray(value) ? this.#items(value, schema, path) : this.#properties(value, schema, path);
    } finally {
      this.#depth--;
    }
  }

  #properties(value: Record<string, unknown>, schema: Record<string, unknown>, path: string): unknown {
    const properties = schema.properties;
    if (!isRecord(properties)) return value;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties, key)) continue;
      const before = value[key];
      const after = this.value(before, properties[key], path === '' ? key : `${path}.${key}`);
      if (after !== before) (out ??= { ...value })[key] = after;
    }
    return out ?? value;
  }

  #items(value: readonly unknown[], schema: Record<string, unknown>, path: string): unknown {
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : undefined;
    const items = isRecord(schema.items) ? schema.items : undefined;
    if (prefix === undefined && items === undefined) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const itemSchema = prefix !== undefined && i < prefix.length ? prefix[i] : items;
      const before = value[i];
      const after = this.value(before, itemSchema, `${path}[${i}]`);
      if (after !== before) (out ??= [...value])[i] = after;
    }
    return out ?? value;
  }
}

/**
 * A middleware that coerces the `arguments` of each `tools/call` against the called tool's `inputSchema` (see the
 * module comment for what is coerced), then lets the call go on with the coerced arguments; when anything changed
 * it logs one line, `Coerced tool arguments sent as JSON strings`, with the tool, the client (`name/version`) and
 * each changed path with its new type (never the values). Other methods, unknown tools and arguments with nothing
 * to coerce pass untouched. Install it with `server.use(coerceArgumentsMiddleware())` only for hosts known to send
 * such strings: it makes a wrong type succeed where validation would otherwise refuse it.
 *
 * @throws TypeError when `tools` is not an array of names or `level` is not a level
 * @example
 * server.use(coerceArgumentsMiddleware());
 * // { "name": "page", "arguments": { "limit": "10" } } now reaches the handler as { limit: 10 } when "limit" is an integer
 */
export function coerceArgumentsMiddleware(options: CoerceArgumentsMiddlewareOptions = {}): Middleware {
  const only = options.tools;
  if (only !== undefined && (!Array.isArray(only) || only.some((t) => typeof t !== 'string'))) throw new TypeError('Invalid tools: expected an array of tool names');
  const tools = only === undefined ? undefined : new Set(only);
  const level = options.level ?? 'info';
  if (level !== 'debug' && level !== 'info' && level !== 'warn') throw new TypeError(`Invalid level: expected "debug", "info" or "warn", got ${JSON.stringify(level)}`);
  return (call, next) => {
    if (call.method !== 'tools/call' || call.isNotification) return next();
    const params = call.params;
    const name = call.name;
    if (!isRecord(params) || !isRecord(params.arguments) || name === undefined || (tools !== undefined && !tools.has(name))) return next();
    const schema = call.tool?.inputSchema;
    if (schema === undefined) return next();
    const coercion = new Coercion();
    const args = coercion.value(params.arguments, schema, '');
    if (args === params.arguments) return next();
    const client = call.clientInfo;
    const paths = coercion.paths;
    call.logger[level]('Coerced tool arguments sent as JSON strings', {
      tool: echo(name),
      client: client === undefined ? undefined : echo(`${client.name}/${client.version}`),
      arguments: paths.slice(0, MAX_LOGGED).map((p) => echo(p)),
      ...(paths.length > MAX_LOGGED ? { more: paths.length - MAX_LOGGED } : {}),
    });
    return next({ params: { ...params, arguments: args } });
  };
}
