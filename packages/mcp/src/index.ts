/**
 * @switchboard/mcp — MCP server and client on the Switchboard JSON-RPC engine.
 * @packageDocumentation
 */
export * from './protocol/revisions.js';
export * from './protocol/errors.js';
export type * from './protocol/types.js';
export { LOGGING_LEVELS } from './protocol/types.js';
export * from './server/index.js';
export { createStderrLogger, type StderrLoggerOptions } from './logger.js';
