/**
 * Classification of inbound text (or an already-parsed JSON value) into exactly one JSON-RPC 2.0 kind.
 *
 * @see https://www.jsonrpc.org/specification §4, §4.1, §5, §6
 */
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './types.js';

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

export { parseMessage, classifyValue, isValidId, errorResponse } from './classify.js';
