/**
 * Tool arguments mirrored into HTTP headers: the `x-mcp-header` annotation of a tool's `inputSchema` names a
 * header `Mcp-Param-{Name}` that carries one argument's value, so intermediaries can route on it without reading
 * the body. This module is the pure part: checking the annotations once, at registration; encoding and decoding
 * header values (`=?base64?…?=` for what is not plain visible ASCII); comparing headers with the arguments.
 *
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Custom Headers from Tool Parameters"
 */
import { echo } from '@switchboard/jsonrpc';

/** The JSON types an `x-mcp-header` property may have (`number` is not allowed). */
export type ParamHeaderType = 'string' | 'integer' | 'boolean';

/** One argument mirrored into a header, compiled from the tool's `inputSchema`. */
export interface ParamHeader {
  /** The annotation's value as declared, e.g. `Region`: the header is `Mcp-Param-Region`. */
  readonly header: string;
  /** The header's field name in lower case, e.g. `mcp-param-region` (what a header lookup takes). */
  readonly field: string;
  /** The property names from the root of `arguments` to the value, e.g. `['region']` or `['target', 'region']`. */
  readonly path: readonly string[];
  /** The property's declared type. */
  readonly type: ParamHeaderType;
}

/** {@link compileParamHeaders} options. */
export interface CompileParamHeadersOptions {
  /** The tool's name, quoted in error messages. */
  readonly toolName?: string;
}

/** The keyword of the annotation. */
export const PARAM_HEADER_KEYWORD = 'x-mcp-header';
/** The prefix of every mirrored header's name. */
export const PARAM_HEADER_PREFIX = 'Mcp-Param-';

/**
 * The body member the `Mcp-Name` header mirrors, by method: `params.name` on `tools/call` and `prompts/get`,
 * `params.uri` on `resources/read`, `params.taskId` on the tasks extension's `tasks/get|update|cancel`; `undefined`
 * when the method has no `Mcp-Name`.
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata Headers"
 */
export function mcpNameMember(method: string): 'name' | 'uri' | 'taskId' | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  return method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel' ? 'taskId' : undefined;
}

const NO_HEADERS: readonly ParamHeader[] = Object.freeze([]);
/** RFC 9110 §5.6.2 `token` (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Keywords whose value is a map of subschemas that are not properties (never reachable). */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/** Keywords whose value is one subschema or a list of them (never reachable). */
const SCHEMA_NODES: ReadonlySet<string> = new Set([
  'items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems',
  'additionalProperties', 'unevaluatedProperties', 'propertyNames',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The declared type of an annotated property: one of the three, optionally with `null`; else `undefined`. */
function headerTypeOf(type: unknown): ParamHeaderType | undefined {
  const types: readonly unknown[] = Array.isArray(type) ? (type as readonly unknown[]).filter((t) => t !== 'null') : [type];
  if (types.length !== 1) return undefined;
  const only: unknown = types[0];
  return only === 'string' || only === 'integer' || only === 'boolean' ? only : undefined;
}

class Compiler {
  readonly headers: ParamHeader[] = [];
  readonly #seen = new Map<string, string>();
  readonly #tool: string;

  constructor(toolName: string | undefined) {
    this.#tool = toolName === undefined ? '' : ` of tool "${echo(toolName)}"`;
  }

  #fail(where: string, detail: string): never {
    throw new TypeError(`Invalid ${PARAM_HEADER_KEYWORD} annotation on ${where}${this.#tool}: ${detail}`);
  }

  /**
   * Visits one schema. `path` is the chain of `properties` keys that led here, or `undefined` once the walk went
   * through any other keyword (an annotation is then not statically reachable).
   */
  visit(schema: unknown, path: readonly string[] | undefined, trail: string): void {
    if (Array.isArray(schema)) {
      schema.forEach((item, i) => this.visit(item, undefined, `${trail}/${i}`));
      return;
    }
    if (!isRecord(schema)) return;
    if (Object.hasOwn(schema, PARAM_HEADER_KEYWORD)) this.#annotation(schema, path, trail);
    for (const key of Object.keys(schema)) {
      const value = schema[key];
      if (key === 'properties') {
        if (!isRecord(value)) continue;
        for (const name of Object.keys(value)) this.visit(value[name], path === undefined ? undefined : [...path, name], `${trail}/properties/${name}`);
      } else if (SCHEMA_MAPS.has(key)) {
        if (!isRecord(value)) continue;
        for (const name of Object.keys(value)) this.visit(value[name], undefined, `${trail}/${key}/${name}`);
      } else if (SCHEMA_NODES.has(key)) {
        this.visit(value, undefined, `${trail}/${key}`);
      }
      // Any other keyword (`const`, `default`, `enum`, `examples`, `$ref`, …) holds no subschema this walk follows.
    }
  }

  #annotation(schema: Record<string, unknown>, path: readonly string[] | undefined, trail: string): void {
    const value = schema[PARAM_HEADER_KEYWORD];
    if (path === undefined || path.length === 0) {
      const where = path === undefined ? `"${echo(trail)}"` : 'the schema root';
      this.#fail(where, 'only a property reached from the root through "properties" alone may carry it');
    }
    const where = `property "${echo(path.join('.'))}"`;
    if (typeof value !== 'string' || value === '') this.#fail(where, `expected a non-empty string, got ${echo(JSON.stringify(value) ?? String(value))}`);
    if (!TOKEN.test(value)) {
      this.#fail(where, `expected an HTTP token (letters, digits and !#$%&'*+-.^_\`|~, no spaces or control characters), got "${echo(value)}"`);
    }
    const type = headerTypeOf(schema.type);
    if (type === undefined) {
      this.#fail(where, `the property's type must be "string", "integer" or "boolean", got ${echo(JSON.stringify(schema.type) ?? 'none')}`);
    }
    const field = `${PARAM_HEADER_PREFIX}${value}`.toLowerCase();
    const previous = this.#seen.get(field);
    if (previous !== undefined) this.#fail(where, `"${echo(value)}" is already declared by property "${echo(previous)}" (names are compared without case)`);
    this.#seen.set(field, path.join('.'));
    this.headers.push(Object.freeze({ header: value, field, path: Object.freeze([...path]), type }));
  }
}

/**
 * Checks the `x-mcp-header` annotations of a tool's `inputSchema` and compiles them, once, at registration. An
 * annotation must be a non-empty RFC 9110 token, unique without regard to case, on a `string`, `integer` or
 * `boolean` property (`null` may be allowed beside it) reached from the root through `properties` keys alone
 * (never through `items`, `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$defs` or `$ref`).
 *
 * @param inputSchema - The tool's JSON Schema (anything else has no annotations).
 * @param options - `toolName`, quoted in error messages.
 * @returns The mirrored arguments in schema order (a shared empty array when there are none), frozen.
 * @throws TypeError naming the property when an annotation breaks a rule, e.g.
 *   `Invalid x-mcp-header annotation on property "region" of tool "sql": expected an HTTP token (…), got "Re gion"`
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Schema Extension"
 * @example
 * compileParamHeaders({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } })
 * // [{ header: 'Region', field: 'mcp-param-region', path: ['region'], type: 'string' }]
 */
export function compileParamHeaders(inputSchema: unknown, options: CompileParamHeadersOptions = {}): readonly ParamHeader[] {
  const compiler = new Compiler(options.toolName);
  compiler.visit(inputSchema, [], '#');
  return compiler.headers.length === 0 ? NO_HEADERS : Object.freeze(compiler.headers);
}

// ---------------------------------------------------------------------------------------------------------
// Value encoding

const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
/** A value that may travel as is: visible ASCII, inner spaces and tabs, no leading or trailing white space. */
const PLAIN = /^(?:[\x21-\x7E](?:[\x20-\x7E\t]*[\x21-\x7E])?)?$/;
/** What a received header value may hold (RFC 9110 §5.5 field-vchar, SP, HTAB). */
const FIELD_VALUE = /^[\x20-\x7E\t]*$/;
/** Canonical padded base64 (RFC 4648 §4): whole quanta, `=` padding only at the end. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isSentinel(text: string): boolean {
  return text.length >= SENTINEL_START.length + SENTINEL_END.length && text.startsWith(SENTINEL_START) && text.endsWith(SENTINEL_END);
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * A value as a header carries it: strings as they are, integers in decimal, booleans `true`/`false`; a value that
 * is not plain visible ASCII (non-ASCII or control characters, leading or trailing white space) or that looks like
 * the sentinel itself becomes `=?base64?{base64 of its UTF-8}?=`. The same rule serves `Mcp-Name`.
 * @param value - The argument (or name, or URI).
 * @returns The header value.
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Value Encoding"
 * @example
 * encodeHeaderValue('us-west1') // 'us-west1'
 * encodeHeaderValue('Hello, 世界') // '=?base64?SGVsbG8sIOS4lueVjA==?='
 */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = typeof value === 'string' ? value : String(value);
  if (PLAIN.test(text) && !isSentinel(text)) return text;
  return `${SENTINEL_START}${toBase64(new TextEncoder().encode(text))}${SENTINEL_END}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `text` without the spaces and tabs around it (RFC 9110 §5.5: they are not part of the field value). A value with
 * none (nearly every one) is returned as it is, without running a regular expression.
 */
export function trimHeaderWhitespace(text: string): string {
  const n = text.length;
  if (n === 0) return text;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(n - 1);
  if (first !== 0x20 && first !== 0x09 && last !== 0x20 && last !== 0x09) return text;
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * What a received header value says: white space around it trimmed (RFC 9110 §5.5), a `=?base64?…?=` value
 * decoded (canonical padded base64 of UTF-8 only), any other value literal.
 * @param text - The header value as received.
 * @returns The decoded value, or `undefined` when it is malformed: invalid base64 or UTF-8 inside the sentinel, or
 *   characters a header value may not hold (controls other than tab, non-ASCII).
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Value Encoding", "Server Validation"
 * @example
 * decodeHeaderValue('  =?base64?SGVsbG8=?= ') // 'Hello'
 * decodeHeaderValue('=?base64?SGVsbG8?=') // undefined (no padding)
 * decodeHeaderValue('=?base64?SGVsbG8=') // '=?base64?SGVsbG8=' (no closing marker: literal)
 */
export function decodeHeaderValue(text: string): string | undefined {
  const value = trimHeaderWhitespace(text);
  if (!FIELD_VALUE.test(value)) return undefined;
  if (!isSentinel(value)) return value;
  const encoded = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!BASE64.test(encoded)) return undefined;
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Comparison

/** A decimal number as a header may write an integer (`42`, `-7`, `42.0`, `4.2e1`). */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The value at `path` in a tool's `arguments` (what an `Mcp-Param-*` header mirrors); `undefined` when some step is
 * missing or not an object.
 */
export function paramValueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function quoted(value: unknown): string {
  return `"${echo(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value))}"`;
}

/** Whether the decoded header text stands for `value`; integers compare numerically. */
function matches(decoded: string, value: unknown): boolean {
  if (typeof value === 'string') return decoded === value;
  if (typeof value === 'boolean') return decoded === (value ? 'true' : 'false');
  if (typeof value === 'number') return DECIMAL.test(decoded) && Number(decoded) === value;
  return false;
}

/**
 * Compares the `Mcp-Param-*` headers of a `tools/call` with its arguments: a present, non-`null` value needs its
 * header, and the header (decoded) must stand for the value (integers numerically: `42.0` is `42`); a `null` or
 * absent value expects no header, so a header sent for one is refused too.
 *
 * @param specs - The tool's compiled {@link ParamHeader}s.
 * @param args - The call's `arguments`.
 * @param headerOf - A header's value by lower-case field name (`undefined` when absent).
 * @returns The first disagreement as a sentence, or `undefined` when every header agrees.
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Server Behavior for Custom Headers"
 * @example
 * paramHeaderMismatch(specs, { region: 'eu' }, () => undefined)
 * // 'Mcp-Param-Region header is missing, but arguments.region is "eu"'
 */
export function paramHeaderMismatch(
  specs: readonly ParamHeader[],
  args: unknown,
  headerOf: (field: string) => string | undefined,
): string | undefined {
  for (const spec of specs) {
    const name = `${PARAM_HEADER_PREFIX}${spec.header}`;
    const value = paramValueAt(args, spec.path);
    const raw = headerOf(spec.field);
    const where = `arguments.${spec.path.join('.')}`;
    if (value === undefined || value === null) {
      if (raw !== undefined) return `${name} header is ${quoted(raw)}, but ${where} is ${value === null ? 'null' : 'absent'}`;
      continue;
    }
    if (raw === undefined) return `${name} header is missing, but ${where} is ${quoted(value)}`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `${name} header value ${quoted(raw)} is not a valid header value (invalid characters or base64)`;
    if (!matches(decoded, value)) return `${name} header value ${quoted(decoded)} does not match ${where} ${quoted(value)}`;
  }
  return undefined;
}
