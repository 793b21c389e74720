/**
 * JSON-RPC 2.0 wire shapes.
 *
 * @see https://www.jsonrpc.org/specification §4 (Request object), §4.1 (Notification), §5 (Response object),
 *   §5.1 (Error object), §6 (Batch)
 */

/** The protocol version member every message carries (JSON-RPC 2.0 §4: MUST be exactly "2.0"). */
export const JSONRPC_VERSION = '2.0' as const;

/**
 * A request id: a string or a number (JSON-RPC 2.0 §4). `null` is only legal in an error response whose
 * request id could not be read (§5), never in a request.
 */
export type JsonRpcId = string | number;

/** Structured params: an array (by position) or an object (by name) (JSON-RPC 2.0 §4.2). */
export type JsonRpcParams = readonly unknown[] | { readonly [key: string]: unknown };

/** A request: has an id and expects exactly one response (JSON-RPC 2.0 §4). */
export interface JsonRpcRequest {
  /** Exactly `"2.0"`. */
  readonly jsonrpc: typeof JSONRPC_VERSION;
  /** Echoed unchanged in the response (§4, §5). */
  readonly id: JsonRpcId;
  /** The method to invoke; names beginning with `rpc.` are reserved (§4). */
  readonly method: string;
  /** Structured params; may be omitted (§4.2). */
  readonly params?: JsonRpcParams;
}

/** A notification: a request without an id; the receiver never answers it (JSON-RPC 2.0 §4.1). */
export interface JsonRpcNotification {
  /** Exactly `"2.0"`. */
  readonly jsonrpc: typeof JSONRPC_VERSION;
  /** The method to invoke. */
  readonly method: string;
  /** Structured params; may be omitted (§4.2). */
  readonly params?: JsonRpcParams;
}

/** The error object of an error response (JSON-RPC 2.0 §5.1). `code` is an integer. */
export interface JsonRpcErrorObject {
  /** An integer; -32768 to -32000 are reserved for pre-defined errors (§5.1). */
  readonly code: number;
  /** A short description of the error. */
  readonly message: string;
  /** Optional structured detail, defined by the server. */
  readonly data?: unknown;
}

/** A successful response (JSON-RPC 2.0 §5): `result` and never `error`. */
export interface JsonRpcSuccessResponse {
  /** Exactly `"2.0"`. */
  readonly jsonrpc: typeof JSONRPC_VERSION;
  /** The id of the request being answered. */
  readonly id: JsonRpcId;
  /** The method's result; required, possibly `null`. */
  readonly result: unknown;
}

/**
 * An error response (JSON-RPC 2.0 §5): `error` and never `result`. `id` is `null` when the request's id
 * could not be determined (parse error, or an invalid request whose id is unreadable).
 */
export interface JsonRpcErrorResponse {
  /** Exactly `"2.0"`. */
  readonly jsonrpc: typeof JSONRPC_VERSION;
  /** The id of the request being answered, or `null` when it could not be determined. */
  readonly id: JsonRpcId | null;
  /** What went wrong (§5.1). */
  readonly error: JsonRpcErrorObject;
}

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

/** Any single JSON-RPC 2.0 message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
