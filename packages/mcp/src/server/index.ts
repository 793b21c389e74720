/**
 * @switchboard/mcp/server — define an MCP server once, serve it over any transport.
 * @packageDocumentation
 */
export type {
  ClientRequestOptions,
  CompletionHandler,
  InferSchema,
  JsonSchema,
  JsonSchemaType,
  PromptArgs,
  PromptDefinition,
  PromptHandler,
  RequestContext,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  SchemaLike,
  ServerSession,
  StandardSchemaV1,
  TemplateVariables,
  ToolArgs,
  ToolDefinition,
  ToolHandler,
  ToolResult,
  ToolTaskOptions,
} from './types.js';
export type { ConnectOptions, HandleOptions, McpServerOptions, ServerClusterOptions, ServerTaskOptions, ToolSearchOptions, Visibility, VisibilityCaller, VisibilityItem } from './options.js';
export { McpServer, ToolError } from './mcpServer.js';
export { DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER, DEFAULT_MAX_LISTEN_URI_CHARS_PER_CALLER } from './options.js';
export type { CachePolicy } from './cachePolicy.js';
export type { InboundRefusalEvent, InboundRefusalListener } from './refusalEvents.js';
export { InputRequiredSignal, type InputRequest } from './inputRound.js';
export { InvalidInputResponseError } from './inputResponses.js';
export {
  RequestStateCodec,
  RequestStateError,
  RequestStateErrorCode,
  type RequestStateBinding,
  type RequestStateErrorCodeValue,
  type RequestStateKey,
  type RequestStateOptions,
  type OpenedRequestState,
} from './requestState.js';
export type { ClientChannel, ChannelNotifyOptions, ChannelRequestOptions } from './channel.js';
export type { RequestFacts } from './requestFacts.js';
export { SessionState, type SessionStateRecord } from './sessionState.js';
export { DEFAULT_TOOL_SEARCH_MAX_RESULTS, DEFAULT_TOOL_SEARCH_RESULTS } from './features/toolSearch.js';
export { DEFAULT_MAX_LIVE_TASKS, DEFAULT_MAX_LIVE_TASKS_PER_CALLER, TaskLimitError } from './tasks/runner.js';
export type { Middleware, MiddlewareCall, MiddlewareChanges, MiddlewareFilter, MiddlewareNext } from './middleware/call.js';
export { DEFAULT_TIMING_SLOW_MS, timingMiddleware, type TimingMiddlewareOptions } from './middleware/timing.js';
export {
  DEFAULT_RATE_LIMIT_BURST,
  DEFAULT_RATE_LIMIT_MAX_CALLERS,
  DEFAULT_RATE_LIMIT_PER_SECOND,
  RATE_LIMITED_CODE,
  RATE_LIMIT_STORE_FAILED_RETRY_MS,
  RateLimitedError,
  rateLimitMiddleware,
  type RateLimitMiddlewareOptions,
} from './middleware/rateLimit.js';
export { DEFAULT_TOOL_TIMEOUT_MS, toolTimeoutMiddleware, type ToolTimeoutMiddlewareOptions } from './middleware/toolTimeout.js';
export { coerceArgumentsMiddleware, type CoerceArgumentsMiddlewareOptions } from './middleware/coerceArguments.js';
export { DEFAULT_MAX_RESULT_BYTES, responseSizeMiddleware, type ResponseSizeMiddlewareOptions } from './middleware/responseSize.js';
