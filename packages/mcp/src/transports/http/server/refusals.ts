/**
 * HTTP statuses and transport-level refusals of the MCP HTTP transports, as tables rather than switch statements.
 *
 * Every refusal pairs an HTTP status with the JSON-RPC error object sent as the body. The JSON-RPC code of
 * a transport-level refusal is -32000 (implementation-defined, the convention of the TS SDK's
 * `streamableHttp.ts`) unless the spec or a convention names a better one (-32700, -32600, -32001, -32022).
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"; MCP 2024-11-05 basic/transports.mdx "HTTP with SSE"
 */
import type { JsonRpcErrorResponse, JsonRpcId } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { McpErrorCode } from '../../../protocol/errors.js';
import type { InboundRefusal, InboundRefusalName } from '../../../protocol/inbound.js';
import type { HttpOutput } from './inputOutput.js';
import { JSON_HEADERS } from './inputOutput.js';

/** The HTTP statuses the MCP HTTP transports answer with (RFC 9110 §15). */
export const HttpStatus = {
  Ok: 200,
  Accepted: 202,
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
} as const;

/** One of {@link HttpStatus}'s values. */
export type HttpStatusCode = (typeof HttpStatus)[keyof typeof HttpStatus];

/** One row of {@link HttpRefusal}: the HTTP status and the JSON-RPC error sent as the body. */
export interface HttpRefusalSpec {
  readonly httpStatus: HttpStatusCode;
  readonly code: number;
  readonly message: string;
}

/**
 * Every transport-level refusal, by name. The comment on each row cites the rule it implements.
 */
export const HttpRefusal = {
  // JSON-RPC 2.0 §5.1 + MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server": a body that is
  // not JSON is refused with an HTTP error; -32700 with `id: null`.
  parseError: { httpStatus: HttpStatus.BadRequest, code: McpErrorCode.ParseError, message: 'Parse error' },
  // JSON-RPC 2.0 §5.1: a body that is JSON but not a JSON-RPC message (the reply carries the id when readable).
  invalidRequest: { httpStatus: HttpStatus.BadRequest, code: McpErrorCode.InvalidRequest, message: 'Invalid Request' },
  // MCP 2025-11-25 basic/transports.mdx "Session Management" item 2: servers requiring a session SHOULD answer a
  // non-initialize request without `Mcp-Session-Id` with 400.
  missingSessionId: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: Mcp-Session-Id header is required',
  },
  // MCP 2025-11-25 basic/transports.mdx "Session Management" item 3: an unknown or terminated session is 404;
  // -32001 "Session not found" is the TS SDK convention.
  sessionNotFound: { httpStatus: HttpStatus.NotFound, code: McpErrorCode.SessionNotFound, message: 'Session not found' },
  // Field bug B30 (TS SDK convention): a second `initialize` on a live session is 400 + -32600 with its id.
  alreadyInitialized: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.InvalidRequest,
    message: 'Invalid Request: the session is already initialized',
  },
  // MCP 2025-03-26 basic/lifecycle.mdx "Initialization": the initialize request MUST NOT be part of a batch.
  initializeInBatch: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.InvalidRequest,
    message: 'Invalid Request: initialize must not be part of a JSON-RPC batch',
  },
  // MCP 2025-11-25 basic/transports.mdx "Protocol Version Header": an invalid or unsupported version is 400.
  unsupportedProtocolVersion: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: unsupported MCP-Protocol-Version',
  },
  // MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation" + transports.mdx "Protocol Version Header": the header
  // MUST carry the negotiated version; a different one is an invalid version for this session (400, field bug B22).
  protocolVersionMismatch: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: MCP-Protocol-Version does not match the version negotiated for this session',
  },
  // RFC 9110 §15.5.7 (TS SDK convention, field bug B19): the Accept header rules out every type we can answer with.
  notAcceptable: {
    httpStatus: HttpStatus.NotAcceptable,
    code: McpErrorCode.ServerError,
    message: 'Not Acceptable: the Accept header must allow application/json or text/event-stream',
  },
  // Same, for GET (MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server" item 1).
  notAcceptableSse: {
    httpStatus: HttpStatus.NotAcceptable,
    code: McpErrorCode.ServerError,
    message: 'Not Acceptable: the Accept header must allow text/event-stream',
  },
  // RFC 9110 §15.5.16 (TS SDK convention, field bug B21 for what counts as JSON).
  unsupportedMediaType: {
    httpStatus: HttpStatus.UnsupportedMediaType,
    code: McpErrorCode.ServerError,
    message: 'Unsupported Media Type: Content-Type must be application/json',
  },
  // RFC 9110 §15.5.14: body over `maxBodyBytes`.
  payloadTooLarge: {
    httpStatus: HttpStatus.PayloadTooLarge,
    code: McpErrorCode.ServerError,
    message: 'Payload Too Large: the request body exceeds the limit',
  },
  // RFC 9110 §15.5.6 (+ `Allow`); MCP 2025-11-25 basic/transports.mdx: the endpoint serves POST, GET and DELETE.
  methodNotAllowed: { httpStatus: HttpStatus.MethodNotAllowed, code: McpErrorCode.ServerError, message: 'Method Not Allowed' },
  // MCP 2025-11-25 basic/transports.mdx "Security Warning" (and MCP 2026-07-28 streamable-http.mdx "Security &
  // Endpoint"): servers MUST validate Origin; a present Origin that is neither the request's own origin nor listed
  // in allowedOrigins ⇒ 403 on every bind address. Host is checked too against DNS rebinding (conformance
  // `dns-rebinding-protection`).
  forbiddenHost: { httpStatus: HttpStatus.Forbidden, code: McpErrorCode.ServerError, message: 'Forbidden: Host header not allowed' },
  forbiddenOrigin: {
    httpStatus: HttpStatus.Forbidden,
    code: McpErrorCode.ServerError,
    message: 'Forbidden: Origin header not allowed',
  },
  // TS SDK convention: one standalone GET stream per session (MCP 2025-11-25 basic/transports.mdx "Multiple
  // Connections" allows several, we keep one so unrelated messages have a single home).
  streamConflict: {
    httpStatus: HttpStatus.Conflict,
    code: McpErrorCode.ServerError,
    message: 'Conflict: only one standalone SSE stream is allowed per session',
  },
  // MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery": the server MAY refuse a resume it cannot serve.
  unknownLastEventId: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: unknown Last-Event-ID',
  },
  resumabilityDisabled: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: this server keeps no event history (Last-Event-ID cannot be resumed)',
  },
  // JSON-RPC 2.0 §4 / MCP 2025-11-25 basic/index.mdx "Requests": an id MUST NOT be reused within a session; one
  // still in flight would make the response unroutable.
  duplicateRequestId: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.InvalidRequest,
    message: 'Invalid Request: this request id is already in flight on this session',
  },
  // RFC 9110 §15.6.4: the `maxSessions` cap is reached.
  tooManySessions: {
    httpStatus: HttpStatus.ServiceUnavailable,
    code: McpErrorCode.ServerError,
    message: 'Service Unavailable: too many sessions',
  },
  // RFC 9110 §15.6.4: the handler was closed (`close()`); it admits no session any more.
  handlerClosed: {
    httpStatus: HttpStatus.ServiceUnavailable,
    code: McpErrorCode.ServerError,
    message: 'Service Unavailable: the handler is closed',
  },
  // RFC 9110 §15.6.4: a graceful close began (`stopAdmitting()`); live sessions are still served.
  shuttingDown: {
    httpStatus: HttpStatus.ServiceUnavailable,
    code: McpErrorCode.ServerError,
    message: 'Service Unavailable: the server is shutting down',
  },
  // RFC 9110 §15.6.4: the session store (shared by a cluster: Redis) cannot be read or written for now, so a new
  // session cannot be recorded or a session opened on another instance cannot be read; sent with `Retry-After`.
  // Never 404 for that: the session may well be live, and a 404 makes the client drop it (MCP 2025-11-25
  // basic/transports.mdx "Session Management" item 4).
  sessionStoreUnavailable: {
    httpStatus: HttpStatus.ServiceUnavailable,
    code: McpErrorCode.ServerError,
    message: 'Service Unavailable: the session store cannot be reached; retry later',
  },
  // RFC 6585 §4: one caller identity holds `maxSessionsPerCaller` sessions (sent with `Retry-After`).
  tooManyCallerSessions: {
    httpStatus: HttpStatus.TooManyRequests,
    code: McpErrorCode.ServerError,
    message: 'Too Many Requests: too many sessions for this caller',
  },
  // MCP 2024-11-05 basic/transports.mdx "HTTP with SSE" (TS SDK server-legacy sse.ts): POST /messages needs the
  // session id of a live SSE stream.
  legacyMissingSessionId: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: sessionId query parameter is required',
  },
  // TS SDK server-legacy sse.ts: a non-JSON Content-Type on POST /messages is 400 (not 415) in that transport.
  legacyBadContentType: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.ServerError,
    message: 'Bad Request: Content-Type must be application/json',
  },
  legacyBatch: {
    httpStatus: HttpStatus.BadRequest,
    code: McpErrorCode.InvalidRequest,
    message: 'Invalid Request: JSON-RPC batches are not part of the 2024-11-05 HTTP+SSE transport',
  },
} as const satisfies Record<string, HttpRefusalSpec>;

/** The name of one row of {@link HttpRefusal}. */
export type HttpRefusalName = keyof typeof HttpRefusal;

const NO_OPTIONS: RefusalOutputOptions = Object.freeze({});

/** A refusal ready to send: the HTTP status and the JSON-RPC error response for the body. */
export interface HttpRefusalResult {
  readonly httpStatus: HttpStatusCode;
  readonly jsonrpcError: JsonRpcErrorResponse;
}

/**
 * The body of an HTTP error answer (4xx/5xx): the JSON-RPC error response, with no `id` member when the id is
 * unknown, and with it when it is known (e.g. field bug B30: a second `initialize` is refused 400 with its id).
 *
 * Field bug B45: MCP's HTTP transport pages describe these bodies as "a JSON-RPC error response that has no id",
 * and strict peers (the TS SDK v2 schema) reject `"id": null` there. Elsewhere `"id": null` stays, as JSON-RPC 2.0
 * §5 asks: on stdio, and for JSON-RPC responses inside a 200 answer (a batch's invalid members, a batch the
 * session refused as a whole).
 *
 * @param response - The error response (`id: null` when the request id could not be determined).
 * @returns The JSON text to send.
 * @example
 * httpErrorBody(httpRefusal('sessionNotFound').jsonrpcError)
 * // '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}'
 */
export function httpErrorBody(response: JsonRpcErrorResponse): string {
  return response.id === null ? JSON.stringify({ jsonrpc: response.jsonrpc, error: response.error }) : JSON.stringify(response);
}

/**
 * Builds the refusal named `name`. Over HTTP its `jsonrpcError` is sent with {@link httpErrorBody} (no `id` member
 * when the id is unknown, field bug B45).
 *
 * @param name - A row of {@link HttpRefusal}.
 * @param options - `id` (the request id to echo when known, e.g. a second `initialize`), `detail` (appended to
 *   the table's message after a colon), `data` (sent as `error.data`); the other members are ignored here.
 * @returns The HTTP status and the JSON-RPC error response.
 * @example
 * const { httpStatus, jsonrpcError } = httpRefusal('sessionNotFound');
 * // httpStatus === 404, jsonrpcError.error.code === -32001
 */
export function httpRefusal(name: HttpRefusalName, options: RefusalOutputOptions = NO_OPTIONS): HttpRefusalResult {
  const { id = null, detail, data } = options;
  const row: HttpRefusalSpec = HttpRefusal[name];
  // Details quote client input (a header value): capped, so a refusal never echoes a large request back.
  const shown = detail === undefined ? undefined : echo(detail);
  const message = shown === undefined ? row.message : `${row.message}: ${shown}`;
  const error = data === undefined ? { code: row.code, message } : { code: row.code, message, data };
  return { httpStatus: row.httpStatus, jsonrpcError: { jsonrpc: '2.0', id, error } };
}

/**
 * The HTTP status of each refusal of the transport-neutral inbound step (`protocol/inbound.ts`), when it is
 * sent as an HTTP error answer rather than inside a 200. Only modern messages are refused this way for their method
 * (a session answers its own inside a 200), so the -32601 rows are 404.
 */
const INBOUND_HTTP_STATUS: Readonly<Record<InboundRefusalName, HttpStatusCode>> = {
  // MCP 2026-07-28 basic/transports/streamable-http.mdx "Protocol Version Header": an unsupported revision is 400.
  unsupportedRevision: HttpStatus.BadRequest,
  legacyRevisionClaimed: HttpStatus.BadRequest,
  // The same page, "Protocol Version Header" and "Server Validation"; basic/index.mdx "Error Codes".
  invalidEnvelope: HttpStatus.BadRequest,
  headerMismatch: HttpStatus.BadRequest,
  missingClientCapability: HttpStatus.BadRequest,
  notInitialized: HttpStatus.BadRequest,
  alreadyInitialized: HttpStatus.BadRequest,
  // Same section: a method the server does not implement is 404 with -32601 (also a method removed in 2026-07-28
  // or behind a capability not advertised: MCP 2026-07-28 basic/index.mdx "Error Codes").
  unknownMethod: HttpStatus.NotFound,
  notificationAsRequest: HttpStatus.NotFound,
  methodNotInRevision: HttpStatus.NotFound,
  capabilityNotAdvertised: HttpStatus.NotFound,
  batchNotAllowed: HttpStatus.BadRequest,
};

/**
 * A refusal of the inbound step as an HTTP refusal: the same JSON-RPC `code`, `message` and `data` that stdio
 * sends, with the HTTP status of {@link INBOUND_HTTP_STATUS}.
 * @param refusal - The inbound step's verdict (or one of the ladder's modern rungs).
 * @param id - The request id to echo when it is known; `null` otherwise.
 */
export function httpInboundRefusal(refusal: InboundRefusal, id: JsonRpcId | null): HttpRefusalResult {
  const error = refusal.data === undefined
    ? { code: refusal.code, message: refusal.message }
    : { code: refusal.code, message: refusal.message, data: refusal.data };
  // A refusal the table does not name is one of the modern rows, all 400: a missing or malformed `_meta` field
  // (MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"), a header mismatch (streamable-http.mdx "Server
  // Validation"), a missing client capability (basic/index.mdx "Error Codes").
  const status = (INBOUND_HTTP_STATUS as Readonly<Record<string, HttpStatusCode | undefined>>)[refusal.refusal];
  return { httpStatus: status ?? HttpStatus.BadRequest, jsonrpcError: { jsonrpc: '2.0', id, error } };
}

/** {@link refusalOutput} options; every member is optional. */
export interface RefusalOutputOptions {
  /** The request id to echo when it is known; `null` otherwise. @default null */
  readonly id?: JsonRpcId | null;
  /** Appended to the row's message after a colon (sentence case, quoted values). */
  readonly detail?: string;
  /** Sent as `error.data`. */
  readonly data?: unknown;
  /** The `Allow` header of a 405. */
  readonly allow?: string;
  /** The `Retry-After` header (seconds) of a 429 or 503. */
  readonly retryAfterSeconds?: number;
  /** Headers the answer carries besides `Content-Type` (e.g. `Mcp-Session-Id`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The HTTP answer to a JSON-RPC error response sent as a 4xx/5xx body ({@link httpErrorBody}: no `id` member when
 * the id is unknown, field bug B45). A 413 also sends `Connection: close` (the unread rest of the body is not
 * worth draining).
 * @param httpStatus - The status.
 * @param jsonrpcError - The body.
 * @param headers - Extra headers (`Allow`, `Retry-After`).
 */
export function errorOutput(
  httpStatus: HttpStatusCode,
  jsonrpcError: JsonRpcErrorResponse,
  headers?: Readonly<Record<string, string>>,
): HttpOutput {
  let all = headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers };
  if (httpStatus === HttpStatus.PayloadTooLarge) all = { ...all, connection: 'close' };
  return { status: httpStatus, headers: all, body: httpErrorBody(jsonrpcError) };
}

/**
 * The HTTP answer refusing a request with the row `name` of {@link HttpRefusal}: the one place every endpoint and
 * the session table build a refusal from.
 * @param name - A row of {@link HttpRefusal}.
 * @param options - Id, detail, data and extra headers; see {@link RefusalOutputOptions}.
 * @example
 * refusalOutput('methodNotAllowed', { detail: "'PUT'", allow: 'GET, POST, DELETE' }) // 405, Allow, JSON-RPC body
 */
export function refusalOutput(name: HttpRefusalName, options: RefusalOutputOptions = NO_OPTIONS): HttpOutput {
  const { httpStatus, jsonrpcError } = httpRefusal(name, options);
  let headers = options.headers;
  if (options.allow !== undefined) headers = { ...headers, allow: options.allow };
  if (options.retryAfterSeconds !== undefined) headers = { ...headers, 'retry-after': String(options.retryAfterSeconds) };
  return errorOutput(httpStatus, jsonrpcError, headers);
}

/**
 * `output` (an HTTP error answer built before the request's id was at hand, e.g. by the session table's admission)
 * with its JSON-RPC error body carrying `id`: JSON-RPC 2.0 §5, the error response's id is the request's when it
 * could be read. An answer without a JSON-RPC error body is returned as it is.
 * @param output - An answer from {@link refusalOutput} or {@link errorOutput}.
 * @param id - The id of the request it refuses.
 */
export function withRequestId(output: HttpOutput, id: JsonRpcId): HttpOutput {
  if (typeof output.body !== 'string') return output;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output.body);
  } catch {
    return output;
  }
  if (typeof parsed !== 'object' || parsed === null || !('error' in parsed)) return output;
  const { error } = parsed as Pick<JsonRpcErrorResponse, 'error'>;
  return { ...output, body: httpErrorBody({ jsonrpc: '2.0', id, error }) };
}
