/**
 * The `./client` entry of `@switchboard/mcp`: the MCP client, its options and errors, the era verdict store, and the
 * HTTP connectors (`streamableHttp`, `httpSse`) with their OAuth client (`oauth`). Runtime-neutral; the stdio connector (`spawnStdio`) is in
 * `@switchboard/mcp/stdio`.
 */
export { DEFAULT_CLIENT_INFO, McpClient } from './mcpClient.js';
export type {
  CallToolParams,
  CompleteParams,
  GetPromptParams,
  ListParams,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
} from './operations.js';
export {
  DEFAULT_CLIENT_TIMEOUT_MS,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_LIST_BYTES,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_TOTAL_TIMEOUT_FACTOR,
  DEFAULT_PROBE_TIMEOUT_MS,
  DEFAULT_RECONNECT_ATTEMPTS,
} from './options.js';
export type {
  ClientNotificationHandlers,
  ElicitationHandler,
  InputContext,
  ListRootsHandler,
  LogContext,
  LogMessageParams,
  McpClientOptions,
  RequestOptions,
  SamplingHandler,
} from './options.js';
export type { ClientConnectionEnd, ClientInstrumentation, ClientRequestInfo, ClientRequestObservation, ClientRequestOutcome } from './instrumentation.js';
export { InputRoundsExceededError, InvalidResultError, NegotiationError, NotSupportedError, PaginationLimitError } from './errors.js';
export type { PaginationStop } from './errors.js';
export { ACKNOWLEDGED_METHOD } from './listen.js';
export { LISTEN_BUFFER_LIMIT } from './notificationQueue.js';
export type { ListenEnd, ListenFilter, ListenNotification, ListenOptions, ListenSubscription } from './listen.js';
export { DEFAULT_CACHE_ENTRIES } from './responseCache.js';
export type { CachedResponse, SharedResponseStore } from './responseCache.js';
export { DEFAULT_TASK_MAX_POLL_INTERVAL_MS, DEFAULT_CLIENT_POLL_INTERVAL_MS } from './tasks.js';
export type { CallToolAsTaskOptions, ClientTask, ClientTaskStatus } from './tasks.js';
export { DEFAULT_MAX_VERDICTS, InMemoryEraVerdictStore } from './verdicts.js';
export type { EraVerdict, EraVerdictStore } from './verdicts.js';
export {
  AuthorizationError,
  ClientErrorCode,
  ConnectionClosedError,
  ConnectionRefusedError,
  HttpStatusError,
  McpClientError,
  RequestAbortedError,
  RequestTimeoutError,
  RedirectRefusedError,
  ResponseTooLargeError,
  SessionExpiredError,
  SpawnError,
} from '../protocol/clientErrors.js';
export type { ClientErrorCodeValue, ConnectionEndFacts, SpawnFailure } from '../protocol/clientErrors.js';
export type { ClientConnector, ClientConnectorOpenOptions, ClientProtocol, ClientTransport, ClientTransportKind } from '../protocol/transport.js';
export { httpSse, streamableHttp } from '../transports/http/client/clientConnectors.js';
export type { SseReconnectOptions, StreamableHttpClientOptions, StreamableHttpTransportInit } from '../transports/http/client/streamableHttpClientOptions.js';
export { StreamableHttpClientTransport } from '../transports/http/client/streamableHttpClient.js';
export { HttpSseClientTransport } from '../transports/http/client/httpSseClient.js';
export type { HttpSseClientOptions, HttpSseTransportInit } from '../transports/http/client/httpSseClient.js';
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_SSE_EVENT_BYTES } from '../transports/http/client/clientHttp.js';
export { SseDecoder } from '../transports/http/sse/sseDecoder.js';
export { MAX_STDERR_LINE_CHARS, StderrTail } from '../transports/stdio/stderrTail.js';
export type { StderrTailOptions } from '../transports/stdio/stderrTail.js';
export type { SseEvent } from '../transports/http/sse/sseDecoder.js';
export type { FetchLike, HttpClientHeaders, HttpClientRequestInit, HttpHeaderFields } from '../transports/http/client/clientHttp.js';
export { oauth, OAuthClientAuth } from '../transports/http/client/auth/oauthClient.js';
export { DEFAULT_MAX_STEP_UPS, DEFAULT_OAUTH_TIMEOUT_MS, DEFAULT_REFRESH_MARGIN_MS } from '../transports/http/client/auth/oauthOptions.js';
export type { OAuthAssertionRequest, OAuthAuthorizer, OAuthAuthorizeRequest, OAuthGrant, OAuthOptions, OAuthPreRegisteredClient } from '../transports/http/client/auth/oauthOptions.js';
export { idJagAssertion } from '../transports/http/client/auth/enterpriseAuth.js';
export type { IdJagAssertionOptions } from '../transports/http/client/auth/enterpriseAuth.js';
export { DEFAULT_MAX_OAUTH_ENTRIES, InMemoryOAuthStore } from '../transports/http/client/auth/oauthStore.js';
export type { OAuthClientInformation, OAuthStore, OAuthTokens } from '../transports/http/client/auth/oauthStore.js';
export { MAX_AUTH_RESENDS } from '../transports/http/client/auth/authorizedFetch.js';
export type { AuthRequestFacts, HttpClientAuth } from '../transports/http/client/auth/authorizedFetch.js';
