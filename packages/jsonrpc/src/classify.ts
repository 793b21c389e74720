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
 * Nothing here walks the prototype chain: members are read only when they are own properties, so a
 * `__proto__`, `constructor` or `toString` key is inert data.
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

const hasOwn = Object.hasOwn;

/** Reads an own member; `undefined` when absent (JSON never yields `undefined` as a value). */
function own(object: Record<string, unknown>, key: string): unknown {
  return hasOwn(object, key) ? object[key] : undefined;
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
function readableId(object: Record<string, unknown>): JsonRpcId | null {
  const id = own(object, 'id');
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

function classifyRequest(object: Record<string, unknown>, method: unknown): InboundSingle {
  if (own(object, 'jsonrpc') !== JSONRPC_VERSION) return invalid(readableId(object), '"jsonrpc" must be exactly "2.0"');
  if (typeof method !== 'string') return invalid(readableId(object), '"method" must be a string');
  if (hasOwn(object, 'result') || hasOwn(object, 'error')) {
    return invalid(readableId(object), 'a request must not carry "result" or "error"');
  }
  if (hasOwn(object, 'params') && !isStructured(object['params'])) {
    return invalid(readableId(object), '"params" must be an array or an object');
  }
  if (!hasOwn(object, 'id')) return { kind: 'notification', message: object as unknown as JsonRpcNotification };
  const id = object['id'];
  if (!isValidId(id)) {
    return invalid(null, `"id" must be a string, a safe integer or a fraction, not ${describeId(id)}`);
  }
  return { kind: 'request', message: object as unknown as JsonRpcRequest };
}

function classifyResponse(object: Record<string, unknown>): InboundSingle {
  const hasId = hasOwn(object, 'id');
  const id = hasId ? object['id'] : undefined;
  const usableId = isValidId(id) ? id : null;
  if (own(object, 'jsonrpc') !== JSONRPC_VERSION) return invalidResponse(usableId, '"jsonrpc" must be exactly "2.0"');
  const hasResult = hasOwn(object, 'result');
  const hasError = hasOwn(object, 'error');
  if (hasResult && hasError) return invalidResponse(usableId, 'it carries both "result" and "error"');
  if (hasId && id !== null && !isValidId(id)) {
    return invalidResponse(null, `"id" must be a string, a safe integer or a fraction, not ${describeId(id)}`);
  }
  if (hasResult) {
    if (!isValidId(id)) return invalidResponse(null, 'a successful response needs a string or number "id"');
    return { kind: 'response', message: object as unknown as JsonRpcResponse };
  }
  const error = object['error'];
  if (!isStructured(error) || Array.isArray(error)) return invalidResponse(usableId, '"error" must be an object');
  const code = own(error as Record<string, unknown>, 'code');
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    return invalidResponse(usableId, '"error.code" must be an integer');
  }
  if (typeof own(error as Record<string, unknown>, 'message') !== 'string') {
    return invalidResponse(usableId, '"error.message" must be a string');
  }
  if (!hasId) {
    // B45: an error response that leaves the id out entirely is read as `"id": null`.
    return { kind: 'response', message: { jsonrpc: JSONRPC_VERSION, id: null, error: error as JsonRpcErrorResponse['error'] } };
  }
  return { kind: 'response', message: object as unknown as JsonRpcResponse };
}

/** Classifies one batch member or one top-level non-array value. */
function classifySingle(value: unknown): InboundSingle {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'a message must be a JSON object');
  }
  const object = value as Record<string, unknown>;
  if (hasOwn(object, 'method')) return classifyRequest(object, object['method']);
  if (hasOwn(object, 'result') || hasOwn(object, 'error')) return classifyResponse(object);
  return invalid(readableId(object), 'expected "method" (a request or notification) or "result"/"error" (a response)');
}

/**
 * Classifies an already-parsed JSON value (for example an HTTP body read with `Request.json()`) into exactly
 * one JSON-RPC 2.0 kind. Never throws.
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
 * @param value - A JSON value: the result of `JSON.parse`, or an equivalent plain structure.
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
