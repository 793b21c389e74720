/**
 * @switchboard/mcp — the Model Context Protocol itself, shared by both sides: revisions and eras, the typed protocol
 * errors and codes, the wire types, notifications, the `_meta` envelope key and the request metadata headers.
 * The server is `./server`, the client `./client`, the HTTP handler `./http`, stdio `./stdio`, the Node HTTP
 * adapter `./node`, the stores and bus `./stores`.
 * @packageDocumentation
 */
export {
  LATEST_LEGACY_REVISION,
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  PROTOCOL_REVISIONS,
  REVISION_FEATURES,
  isLegacyRevision,
  isModernRevision,
  type Era,
  type LegacyRevision,
  type ModernRevision,
  type ProtocolRevision,
} from './protocol/revisions.js';
export {
  ClientRequestError,
  McpError,
  McpErrorCode,
  MissingClientCapabilityError,
  ResourceNotFoundError,
  UnsupportedProtocolVersionError,
  mcpErrorFromWire,
  resourceNotFoundCode,
} from './protocol/errors.js';
export {
  CANCELLED_METHOD,
  LOGGING_LEVEL_RANK,
  PROGRESS_METHOD,
  cancelledNotification,
  missingClientCapability,
  parseCancelled,
  parseProgressToken,
  progressParams,
  type CancelledParams,
  type ProgressParams,
} from './protocol/notifications.js';
export type { McpServerTransport } from './protocol/transport.js';
export {
  DEFAULT_CALL_TOOL_NAME,
  DEFAULT_SEARCH_TOOL_NAME,
  MAX_SEARCH_QUERY_LENGTH,
  SEARCH_TOOL_ANNOTATIONS,
  toolSearchTools,
  type ToolSearchNames,
} from './protocol/toolSearchTools.js';
export type {
  Annotations,
  AudioContent,
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  ContentBlock,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  EmbeddedResource,
  GetPromptResult,
  Icon,
  ImageContent,
  Implementation,
  InitializeResult,
  ListRootsResult,
  LoggingLevel,
  Meta,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceLink,
  ResourceTemplate,
  Root,
  SamplingMessage,
  ServerCapabilities,
  TextContent,
  Tool,
  ToolAnnotations,
} from './protocol/types.js';
export { LOGGING_LEVELS } from './protocol/types.js';
export { createStderrLogger, type StderrLoggerOptions } from './logger.js';
export { CACHEABLE_METHODS, type CacheableMethod } from './protocol/methods.js';
export { scopesGranted } from './protocol/auth/authInfo.js';
export type { AuthInfo } from './protocol/auth/authInfo.js';
export { TASKS_EXTENSION } from './protocol/inbound.js';
export { PROTOCOL_VERSION_META_KEY } from './protocol/envelope.js';
export { compileParamHeaders, decodeHeaderValue, encodeHeaderValue, paramHeaderMismatch } from './protocol/paramHeaders.js';
export type { CompileParamHeadersOptions, ParamHeader, ParamHeaderType } from './protocol/paramHeaders.js';
