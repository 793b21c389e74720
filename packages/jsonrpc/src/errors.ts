/**
 * Two error families, each with a typed `code`:
 * - wire errors ({@link JsonRpcError}): a numeric JSON-RPC `code`, a `message` and optional `data`; they are
 *   what goes on the wire in an error response (JSON-RPC 2.0 §5.1);
 * - local errors ({@link JsonRpcLocalError}): a string `code` describing something that happened on this side
 *   (connection closed, timeout, abort); they are never serialized.
 */
import type { JsonRpcErrorObject } from './message.js';

/**
 * The error codes JSON-RPC 2.0 itself defines (§5.1). -32000 to -32099 are reserved for implementation-defined
 * server errors.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** The numeric value of one of {@link ErrorCode}'s members. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The spec's standard message for each code (JSON-RPC 2.0 §5.1). */
export const ErrorMessage = {
  [ErrorCode.ParseError]: 'Parse error',
  [ErrorCode.InvalidRequest]: 'Invalid Request',
  [ErrorCode.MethodNotFound]: 'Method not found',
  [ErrorCode.InvalidParams]: 'Invalid params',
  [ErrorCode.InternalError]: 'Internal error',
} as const satisfies Record<ErrorCodeValue, string>;

/**
 * A wire error: throw it from a method handler to answer with exactly this error object.
 * Any other thrown value becomes -32603 "Internal error" with no text of its own on the wire.
 *
 * @example
 * throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "a" must be a number', { field: 'a' });
 */
export class JsonRpcError extends Error {
  /** The integer error code (JSON-RPC 2.0 §5.1). */
  readonly code: number;
  /** Optional structured detail, sent as `error.data`. */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }

  /** The error object as it goes on the wire (`data` omitted when undefined). */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Builds an error from a received error object. */
  static fromObject(error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data);
  }
}

/** The string codes of {@link JsonRpcLocalError}. */
export const LocalErrorCode = {
  /** The transport closed while the request was pending, or before it was sent. */
  ConnectionClosed: 'connection_closed',
  /** No response arrived within `timeoutMs` (or `maxTotalTimeoutMs`). */
  RequestTimeout: 'request_timeout',
  /** The caller's `AbortSignal` fired. */
  RequestAborted: 'request_aborted',
  /** The transport failed to send the message. */
  SendFailed: 'send_failed',
} as const;

/** The value of one of {@link LocalErrorCode}'s members. */
export type LocalErrorCodeValue = (typeof LocalErrorCode)[keyof typeof LocalErrorCode];

/**
 * A local failure: something that happened on this side of the connection. Never serialized onto the wire.
 * `cause` carries the underlying error or abort reason when there is one.
 */
export class JsonRpcLocalError extends Error {
  /** What happened; see {@link LocalErrorCode}. */
  readonly code: LocalErrorCodeValue;

  constructor(code: LocalErrorCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JsonRpcLocalError';
    this.code = code;
  }
}

/**
 * A {@link JsonRpcLocalError} with `cause` set only when there is one (so `'cause' in error` means a cause exists).
 * Internal to the engine: not exported from the package entry.
 */
export function localError(code: LocalErrorCodeValue, message: string, cause?: unknown): JsonRpcLocalError {
  return cause === undefined ? new JsonRpcLocalError(code, message) : new JsonRpcLocalError(code, message, { cause });
}
