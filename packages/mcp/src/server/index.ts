/**
 * @switchboard/mcp/server — define an MCP server once, serve it over any transport.
 * @packageDocumentation
 */
export type {
  ClientRequestOptions,
  CompletionHandler,
  ConnectOptions,
  InferSchema,
  JsonSchema,
  JsonSchemaType,
  McpServerOptions,
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
  ServerTaskOptions,
  StandardSchemaV1,
  TemplateVariables,
  ToolArgs,
  ToolDefinition,
  ToolHandler,
  ToolResult,
  ToolTaskOptions,
} from './types.js';
export { DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER, DEFAULT_MAX_LISTEN_URI_CHARS_PER_CALLER, McpServer, ToolError, type HandleOptions } from './mcpServer.js';
export { CACHEABLE_METHODS, type CacheableMethod, type CachePolicy } from './cachePolicy.js';
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
export { InMemoryRequestStateStore, type InMemoryRequestStateStoreOptions, type RequestStateStore } from '../stores/requestStateStore.js';
export type { ClientChannel, ChannelNotifyOptions, ChannelRequestOptions } from './channel.js';
export type { RequestFacts } from './requestFacts.js';
export { SessionState, type SessionStateRecord } from './sessionState.js';
export {
  ClientRequestError,
  McpError,
  MissingClientCapabilityError,
  ResourceNotFoundError,
  UnsupportedProtocolVersionError,
} from '../protocol/errors.js';
export { InMemoryNotificationBus, type BusListener, type BusMessage, type NotificationBus } from '../stores/notificationBus.js';
export {
  FINAL_TASK_STATUSES,
  InMemoryTaskStore,
  isFinalTaskStatus,
  type InMemoryTaskStoreOptions,
  type NewTask,
  type TaskErrorObject,
  type TaskInputRequest,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  type TaskUpdate,
} from '../stores/taskStore.js';
export {
  DEFAULT_MAX_STORED_TASKS,
  DEFAULT_MAX_STORED_TASKS_PER_CALLER,
  DEFAULT_MAX_STORED_TASK_BYTES,
  DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER,
} from '../stores/taskQuota.js';
export { DEFAULT_MAX_LIVE_TASKS, DEFAULT_MAX_LIVE_TASKS_PER_CALLER, TaskLimitError } from './tasks/runner.js';
export { TASKS_EXTENSION } from './tasks/wire.js';
