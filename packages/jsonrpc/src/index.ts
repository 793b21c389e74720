/**
 * @switchboard/jsonrpc — a zero-dependency JSON-RPC 2.0 engine.
 * @packageDocumentation
 */
export * from './message.js';
export * from './errors.js';
export type { Logger } from './logger.js';
export { silentLogger } from './logger.js';
export type { Inbound, InboundSingle } from './classify.js';
export { parseMessage, classifyValue, isValidId, errorResponse } from './classify.js';
export { DEFAULT_MAX_JSON_DEPTH, exceedsJsonDepth, parseJson } from './json.js';
export type { ParseJsonOptions, ParsedJson } from './json.js';
export type { Transport, TransportSendOptions, TransportMessageExtra } from './transport.js';
export * from './dispatcher.js';
export * from './peer.js';
export * from './ndjson.js';
export * from './memory.js';
