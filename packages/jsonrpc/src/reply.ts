/**
 * The replies a dispatcher sends: a success response, the -32603 stand-in, and the serialization of a reply
 * that never fails (a value JSON cannot carry becomes -32603 for that response alone).
 *
 * @see https://www.jsonrpc.org/specification §5
 */
import { errorResponse } from './classify.js';
import { echoId } from './echo.js';
import { ErrorCode, ErrorMessage } from './errors.js';
import { silentLogger, type Logger } from './logger.js';
import { JSONRPC_VERSION, type JsonRpcId, type JsonRpcResponse } from './message.js';

/** `{ jsonrpc: "2.0", id, result }`, an `undefined` result sent as `null`. */
export function successResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result: result === undefined ? null : result };
}

/** The -32603 "Internal error" response for `id`: what is sent when a handler failed with a non-wire error. */
export function internalError(id: JsonRpcId | null): JsonRpcResponse {
  return errorResponse(id, { code: ErrorCode.InternalError, message: ErrorMessage[ErrorCode.InternalError] });
}

/**
 * Serializes a reply produced by {@link Dispatcher.handle}. A value `JSON.stringify` cannot serialize (too
 * deeply nested, a `BigInt`, a cycle) is replaced, per response, by -32603 "Internal error" for that response's
 * id, so a reply always goes out.
 *
 * @param reply - One response or a batch reply.
 * @param logger - Receives the serialization failure. @default silentLogger
 * @returns The JSON text (no trailing newline).
 */
export function stringifyReply(reply: JsonRpcResponse | readonly JsonRpcResponse[], logger: Logger = silentLogger): string {
  try {
    return JSON.stringify(reply);
  } catch (error) {
    if (!Array.isArray(reply)) {
      const single = reply as JsonRpcResponse;
      logger.error('Response could not be serialized: sending -32603 instead', { id: echoId(single.id), error });
      return JSON.stringify(internalError(single.id));
    }
    const parts = (reply as readonly JsonRpcResponse[]).map((member) => stringifyReply(member, logger));
    return `[${parts.join(',')}]`;
  }
}

/**
 * What is sent in place of a response the transport could not send (typically a result that cannot be
 * serialized): the same id with -32603 "Internal error"; an error response keeps its code and message (its `data`,
 * the likely culprit, is dropped).
 */
export function unsendableStandIn(response: JsonRpcResponse): JsonRpcResponse {
  return 'error' in response && response.error.code !== ErrorCode.InternalError
    ? errorResponse(response.id, { code: response.error.code, message: response.error.message })
    : internalError(response.id);
}
