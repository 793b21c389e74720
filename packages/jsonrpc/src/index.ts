/**
 * @switchboard/jsonrpc — a zero-dependency JSON-RPC 2.0 engine.
 *
 * Every public name is listed here; the modules behind it (the batch engine, the pending table, the inbound
 * scheduler) keep their internals to themselves.
 * @packageDocumentation
 */
export { JSONRPC_VERSION } from './message.js';
export type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from './message.js';
export { ErrorCode, ErrorMessage, JsonRpcError, JsonRpcLocalError, LocalErrorCode } from './errors.js';
export type { ErrorCodeValue, LocalErrorCodeValue } from './errors.js';
export type { Logger } from './logger.js';
export { neverThrowing, silentLogger } from './logger.js';
export type { Inbound, InboundSingle } from './classify.js';
export { classifyValue, errorResponse, isPlainObject, isValidId, parseMessage } from './classify.js';
export { echo, echoId, MAX_ECHO_CHARS } from './echo.js';
export { DEFAULT_MAX_JSON_DEPTH, parseJson } from './json.js';
export type { ParseJsonOptions, ParsedJson } from './json.js';
export type { Transport, TransportMessageExtra, TransportSendOptions } from './transport.js';
export { DEFAULT_MAX_BATCH_SIZE, Dispatcher, RESERVED_METHOD_PREFIX } from './dispatcher.js';
export type { DispatcherOptions, HandlerInterceptor, MethodHandler, MethodOptions, ParamsValidator } from './dispatcher.js';
export type { ContextFactory, ContextRequest, HandlerContext } from './handlerContext.js';
export { CancellationSource, cancellationOf, signalOf } from './cancellation.js';
export type { Cancellation, CancelListener } from './cancellation.js';
export { MAX_TIMER_MS, type TimerHandle } from './timers.js';
export type { Instrumentation, RequestEnd, RequestInfo, RequestOutcome } from './instrument.js';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './pending.js';
export type { PeerRequestOptions } from './pending.js';
export { Peer } from './peer.js';
export { DEFAULT_MAX_CONCURRENT_INBOUND, DEFAULT_MAX_QUEUED_INBOUND } from './peerOptions.js';
export type { PeerNotifyOptions, PeerOptions } from './peerOptions.js';
export { DEFAULT_MAX_LINE_BYTES, encodeNdjson, NdjsonDecoder, OVERSIZED_HEAD_BYTES } from './ndjson.js';
export type { NdjsonDecoderOptions, NdjsonEvent } from './ndjson.js';
export { oversizedLineId } from './cutLineId.js';
export { createMemoryTransportPair } from './memory.js';
