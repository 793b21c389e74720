/**
 * The JSON-RPC 2.0 inbound shapes ({@link Inbound}) and the classifier behind {@link parseMessage} and
 * {@link classifyValue}.
 *
 * Decisions (each one is tested against `packages/jsonrpc/test/fixtures/jsonrpc-vectors.json`):
 *
 * - **`"id": null` in a request** is neither a notification nor an accepted request: it is refused with
 *   -32600 and `id: null`. A notification is a message with *no* `id` member (JSON-RPC 2.0 §4.1), so a null id
 *   is never silently dropped (field bug B06); and {@link JsonRpcId} excludes `null`, as MCP does (its
 *   RequestId is `string | number` and 2026-07-28 forbids null), so the engine never hands a null-id request to
 *   a handler. This is the vectors' "null ids are forbidden" alternative.
 * - **Integer ids outside the safe range** (|id| > 2^53 - 1, e.g. `12345678901234567890`) are refused with
 *   -32600 and `id: null`. `JSON.parse` rounds such a token, so echoing it would reply with an altered id that the
 *   client cannot match; refusing is the vectors' "engine rejects unsafe integers" alternative. Our own ids are
 *   safe integers or strings.
 * - **Fractional ids** (`1.5`) are accepted and echoed (JSON-RPC 2.0 §4: SHOULD NOT, not MUST NOT); a protocol
 *   layer that allows only integers (MCP) refuses them itself.
 * - **`rpc.`-prefixed methods** are classified like any other method; the {@link Dispatcher} refuses to register
 *   them, so a request for one is answered -32601 (JSON-RPC 2.0 §4: reserved for rpc-internal extensions).
 * - **Invalid requests echo the id when it is readable** (a string, or a number that is a safe integer or a
 *   fraction); otherwise the reply id is `null` (JSON-RPC 2.0 §5).
 * - **`params`**, when present, must be an array or an object: `null`, a string or a number is -32600 (§4.2).
 * - **Unknown extra members** are ignored. **Duplicate keys**: the last one wins (`JSON.parse` semantics).
 * - **A leading U+FEFF (BOM)** before the JSON text is ignored (RFC 8259 §8.1).
 * - A message with both `method` and `result`/`error` is an invalid request (never routed as a response).
 * - **Malformed responses** (both or neither of `result`/`error`, a non-integer `error.code`, a wrong
 *   `jsonrpc`, an unusable id) classify as kind `response` carrying a synthesized error response
 *   (code -32600, message `Invalid response: …`) for the readable id, with `invalid` set to the reason: a
 *   receiver must never reply to a response (two peers could loop), and the pending request fails fast instead
 *   of succeeding or hanging. An error response without an `id` member is accepted and normalized to
 *   `id: null` (field bug B45).
 *
 * Nothing inherited is read: members are read only when they are own properties (see `membersOf`), so a
 * `__proto__`, `constructor` or `toString` key is inert data, and so is whatever a polluted `Object.prototype`
 * carries.
 *
 * @see https://www.jsonrpc.org/specification §4, §4.1, §4.2, §5, §5.1, §6
 */
import { ErrorCode, ErrorMessage } from './errors.js';
import { parseJson, type ParseJsonOptions } from './json.js';
import type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './message.js';
import { JSONRPC_VERSION } from './message.js';

/** One classified inbound message. */
export type InboundSingle =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | {
      readonly kind: 'response';
      readonly message: JsonRpcResponse;
      /**
       * Set when the received response was malformed (both or neither of `result`/`error`, a non-integer
       * `error.code`, a wrong `jsonrpc`, an unusable id): `message` is then a synthesized error response
       * (code -32600, message `Invalid response: …`) for the readable id (or `null`), and this is the reason.
       * A response is never answered, malformed or not (replying could make two peers loop).
       */
      readonly invalid?: string;
    }
  /**
   * Not a valid message: `reply` is the error response to send (-32700 parse error with `id: null`, or
   * -32600 invalid request echoing the id when one is readable). A reply is always sent for an invalid
   * single message (JSON-RPC 2.0 §5: the server MUST reply when it cannot tell whether it was a
   * notification).
   */
  | { readonly kind: 'invalid'; readonly reply: JsonRpcErrorResponse };

/**
 * The result of classifying one inbound unit of text: a single message, or a batch of them (JSON-RPC 2.0
 * §6). An empty array `[]` is not a batch: it classifies as `invalid` with a single -32600 reply.
 */
export type Inbound = InboundSingle | { readonly kind: 'batch'; readonly items: readonly InboundSingle[] };

/** The members a message is read by (JSON-RPC 2.0 §4, §5), and those of an error object (§5.1). */
interface Members {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
}

const OBJECT_PROTOTYPE: Members = Object.prototype;
/** The names of {@link Members}. */
const MEMBER_NAMES = ['jsonrpc', 'id', 'method', 'params', 'result', 'error', 'code', 'message'] as const;

/**
 * Whether `Object.prototype` has none of the names of {@link Members}, as a data member or an accessor (it has none
 * unless the realm was polluted). `in`, not a read: a getter there could answer `undefined` to this test alone. The
 * names are written out rather than looped over {@link MEMBER_NAMES}: a constant name on a constant object is
 * folded by the optimizing compiler, a name from a loop is looked up on every message.
 */
function prototypeLacksMembers(): boolean {
  const p = OBJECT_PROTOTYPE;
  return !('jsonrpc' in p) && !('id' in p) && !('method' in p) && !('params' in p)
    && !('result' in p) && !('error' in p) && !('code' in p) && !('message' in p);
}

/**
 * Whether `__proto__` reads an object's prototype in this process: not under `node --disable-proto=throw` (the read
 * throws) or `--disable-proto=delete` (there is no such accessor).
 */
const PROTO_ACCESSOR: boolean = (() => {
  try {
    return ({} as { readonly __proto__?: unknown }).__proto__ === OBJECT_PROTOTYPE;
  } catch {
    return false;
  }
})();

/**
 * Whether `object` is a plain object, as `JSON.parse` makes them: its prototype is `Object.prototype`, read through
 * `__proto__` where that accessor is there (`Object.getPrototypeOf` on objects of many shapes is a runtime call, and
 * cost half of what reading by name saves), else asked `Object.getPrototypeOf` (under `node --disable-proto`). An
 * object built in code whose own or inherited `__proto__` is an accessor may answer what it likes, and one that
 * throws is taken as not plain. A JSON object with a `"__proto__"` key is not plain (that key is an own member).
 * @example
 * isPlainObject(JSON.parse('{"a":1}')); // true
 * isPlainObject(Object.create(null)); // false
 */
export function isPlainObject(object: object): boolean {
  if (!PROTO_ACCESSOR) return Object.getPrototypeOf(object) === OBJECT_PROTOTYPE;
  try {
    return (object as { readonly __proto__?: unknown }).__proto__ === OBJECT_PROTOTYPE;
  } catch {
    return false;
  }
}

/**
 * `object`'s own members, to be read by name: `object` itself when it is what `JSON.parse` makes (a plain object)
 * and `Object.prototype` has none of these names, where a read can find only an own member; otherwise a
 * null-prototype copy of the own members of these names (each asked `Object.hasOwn`, enumerable or not), so nothing
 * inherited is ever read. A member whose value is `undefined` (which JSON never yields) reads as absent. Reading by
 * name in place of an `Object.hasOwn` per member: 2.7 % fewer instructions per stdio request at 16 in flight. An own
 * `__proto__` member (JSON can make one) fails {@link isPlainObject} and takes the copy. (An object built in code with an
 * own `__proto__` member or accessor answering `Object.prototype` and another real prototype passes it: not a JSON
 * value.)
 */
function membersOf(object: object): Members {
  if (isPlainObject(object) && prototypeLacksMembers()) return object;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const name of MEMBER_NAMES) if (Object.hasOwn(object, name)) copy[name] = (object as Record<string, unknown>)[name];
  return copy;
}

/**
 * Whether `value` is usable as a request id (JSON-RPC 2.0 §4): a string, or a finite number that is either a
 * safe integer (|id| ≤ 2^53 - 1) or has a fractional part. `null` is not (see the module notes), nor are
 * integers beyond 2^53 - 1, which are not exact after `JSON.parse`.
 *
 * @example
 * isValidId(0); // true
 * isValidId(12345678901234567890); // false
 */
export function isValidId(value: unknown): value is JsonRpcId {
  if (typeof value === 'string') return true;
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  return Number.isSafeInteger(value) || !Number.isInteger(value);
}

/** The id to echo in an error reply: the message's id when it is a usable id, otherwise `null`. */
function readableId(members: Members): JsonRpcId | null {
  const id = members.id;
  return isValidId(id) ? id : null;
}

/**
 * Builds an error response (JSON-RPC 2.0 §5, §5.1): `{ jsonrpc: "2.0", id, error: { code, message, data? } }`,
 * `data` left out when `undefined`.
 *
 * @param id - The request's id, or `null` when it could not be determined (parse error, unreadable id).
 * @param error - `code`: an integer error code (see {@link ErrorCode}); `message`: a short description
 *   (sentence case, no trailing period, a colon before details); `data`: optional structured detail.
 * @example
 * errorResponse(7, { code: ErrorCode.MethodNotFound, message: 'Method not found: "foo"' });
 */
export function errorResponse(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  const { code, message, data } = error;
  return data === undefined
    ? { jsonrpc: JSONRPC_VERSION, id, error: { code, message } }
    : { jsonrpc: JSONRPC_VERSION, id, error: { code, message, data } };
}

function invalid(id: JsonRpcId | null, detail: string): InboundSingle {
  return {
    kind: 'invalid',
    reply: errorResponse(id, { code: ErrorCode.InvalidRequest, message: `${ErrorMessage[ErrorCode.InvalidRequest]}: ${detail}` }),
  };
}

function invalidResponse(id: JsonRpcId | null, detail: string): InboundSingle {
  return {
    kind: 'response',
    message: errorResponse(id, { code: ErrorCode.InvalidRequest, message: `Invalid response: ${detail}` }),
    invalid: detail,
  };
}

function isStructured(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function describeId(id: unknown): string {
  if (id === null) return 'null';
  if (typeof id === 'number') return Number.isFinite(id) ? 'an integer beyond the safe range (2^53 - 1)' : String(id);
  return Array.isArray(id) ? 'an array' : typeof id === 'object' ? 'an object' : `a ${typeof id}`;
}

function classifyRequest(object: object, members: Members, method: unknown): InboundSingle {
  if (members.jsonrpc !== JSONRPC_VERSION) return invalid(readableId(members), '"jsonrpc" must be exactly "2.0"');
  if (typeof method !== 'string') return invalid(readableId(members), '"method" must be a string');
  if (members.result !== undefined || members.error !== undefined) {
    return invalid(readableId(members), 'a request must not carry "result" or "error"');
  }
  const params = members.params;
  if (params !== undefined && !isStructured(params)) {
    return invalid(readableId(members), '"params" must be an array or an object');
  }
  const id = members.id;
  if (id === undefined) return { kind: 'notification', message: object as JsonRpcNotification };
  if (!isValidId(id)) {
    return invalid(null, `"id" must be a string, a safe integer or a fraction, not ${describeId(id)}`);
  }
  return { kind: 'request', message: object as JsonRpcRequest };
}

function classifyResponse(object: object, members: Members): InboundSingle {
  const id = members.id;
  const hasId = id !== undefined;
  const usableId = isValidId(id) ? id : null;
  if (members.jsonrpc !== JSONRPC_VERSION) return invalidResponse(usableId, '"jsonrpc" must be exactly "2.0"');
  const hasResult = members.result !== undefined;
  const error = members.error;
  if (hasResult && error !== undefined) return invalidResponse(usableId, 'it carries both "result" and "error"');
  if (hasId && id !== null && !isValidId(id)) {
    return invalidResponse(null, `"id" must be a string, a safe integer or a fraction, not ${describeId(id)}`);
  }
  if (hasResult) {
    if (!isValidId(id)) return invalidResponse(null, 'a successful response needs a string or number "id"');
    return { kind: 'response', message: object as JsonRpcResponse };
  }
  if (!isStructured(error) || Array.isArray(error)) return invalidResponse(usableId, '"error" must be an object');
  const fields = membersOf(error as object);
  const code = fields.code;
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    return invalidResponse(usableId, '"error.code" must be an integer');
  }
  if (typeof fields.message !== 'string') {
    return invalidResponse(usableId, '"error.message" must be a string');
  }
  if (!hasId) {
    // B45: an error response that leaves the id out entirely is read as `"id": null`.
    return { kind: 'response', message: { jsonrpc: JSONRPC_VERSION, id: null, error: error as JsonRpcErrorResponse['error'] } };
  }
  return { kind: 'response', message: object as JsonRpcResponse };
}

/** Classifies one batch member or one top-level non-array value. */
function classifySingle(value: unknown): InboundSingle {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'a message must be a JSON object');
  }
  const members = membersOf(value);
  const method = members.method;
  if (method !== undefined) return classifyRequest(value, members, method);
  if (members.result !== undefined || members.error !== undefined) return classifyResponse(value, members);
  return invalid(readableId(members), 'expected "method" (a request or notification) or "result"/"error" (a response)');
}

/**
 * Classifies an already-parsed JSON value (for example an HTTP body read with `Request.json()`) into exactly
 * one JSON-RPC 2.0 kind. Never throws on a JSON value (on a structure built in code, a getter it reads may).
 *
 * - an object: `request`, `notification`, `response`, or `invalid` with a -32600 reply;
 * - a non-empty array: `batch`, each member classified on its own (JSON-RPC 2.0 §6);
 * - `[]`: `invalid` with a single -32600 reply, `id: null` (not a batch);
 * - any other value (`1`, `null`, `"x"`, `true`): `invalid` with -32600, `id: null`.
 *
 * Valid messages are passed through as the same objects (no copy); unknown members are kept and ignored. See
 * the module documentation for the decisions on `id: null`, unsafe integer ids, fractional ids and malformed
 * responses.
 *
 * @param value - A JSON value: the result of `JSON.parse`, or an equivalent plain structure (a member whose value is
 *   `undefined`, which JSON cannot express, is taken as absent).
 * @returns The classification; `invalid` carries the error response to send.
 * @see https://www.jsonrpc.org/specification §4, §5, §6
 * @example
 * const inbound = classifyValue(await request.json());
 * if (inbound.kind === 'invalid') send(inbound.reply);
 */
export function classifyValue(value: unknown): Inbound {
  if (!Array.isArray(value)) return classifySingle(value);
  const length = value.length;
  if (length === 0) return invalid(null, 'an empty batch');
  const items = new Array<InboundSingle>(length);
  for (let i = 0; i < length; i++) items[i] = classifySingle(value[i]);
  return { kind: 'batch', items };
}

/**
 * Parses one unit of inbound text (an NDJSON line, an HTTP body) with {@link parseJson} and classifies it with
 * {@link classifyValue}. Never throws.
 *
 * Text that is not exactly one JSON value (malformed, empty, whitespace only, trailing garbage, two
 * concatenated values) classifies as `invalid` with a -32700 "Parse error" reply, `id: null`; text nested deeper
 * than `options.maxDepth` (default 64) as `invalid` with -32600 and `data: { maxDepth }`, before it is parsed. A
 * leading U+FEFF (BOM) is ignored (RFC 8259 §8.1). Duplicate member names: the last one wins.
 *
 * @param text - The message text.
 * @param options - Parse limits (see {@link ParseJsonOptions}).
 * @returns The classification; `invalid` carries the error response to send.
 * @see https://www.jsonrpc.org/specification §4, §5.1 (-32700), §6
 * @example
 * const inbound = parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}');
 * // inbound.kind === 'request'
 */
export function parseMessage(text: string, options?: ParseJsonOptions): Inbound {
  const parsed = parseJson(text, options);
  return parsed.ok ? classifyValue(parsed.value) : { kind: 'invalid', reply: parsed.reply };
}
