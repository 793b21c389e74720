/**
 * @switchboard/mcp/http — serve an McpServer over HTTP: Streamable HTTP (the session-based revisions MCP
 * 2025-03-26 … 2025-11-25 and the stateless MCP 2026-07-28, on one endpoint) as a Web-standard
 * `(Request) => Promise<Response>` handler, and the deprecated 2024-11-05 HTTP+SSE transport beside it. The Node `http` adapter (`serveHttp`, `toNodeListener`) is `@switchboard/mcp/node`.
 *
 * @example
 * import { createMcpHttpHandler } from '@switchboard/mcp/http';
 * const handler = createMcpHttpHandler({ server });
 * export default { fetch: handler.fetch }; // Deno, Bun, Workers
 * @packageDocumentation
 */
export { createMcpHttpHandler } from './server/handler.js';
export type { McpHttpHandler } from './server/handler.js';
export {
  DEFAULT_HTTP_SSE_MESSAGES_PATH,
  DEFAULT_HTTP_SSE_PATH,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SSE_BUFFER_BYTES,
  DEFAULT_MAX_SSE_BUFFER_BYTES_TOTAL,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CALLER,
  DEFAULT_MCP_PATH,
  DEFAULT_SESSION_GRACE_MS,
  DEFAULT_SESSION_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_SSE_AFTER_MS,
  DEFAULT_SSE_KEEP_ALIVE_MS,
  DEFAULT_SSE_RETRY_MS,
  defaultCallerIdentity,
} from './server/handlerOptions.js';
export type { CallerFacts, HttpRefusalEvent, HttpSseOptions, McpHttpHandlerOptions } from './server/handlerOptions.js';
export { callerAddress, callerKey, compileTrustProxy, forwardingChain } from './server/callerIdentity.js';
export type { CallerSource, ProxyTrust, TrustProxy } from './server/callerIdentity.js';
export { DEFAULT_CORS_MAX_AGE_SECONDS } from './server/cors.js';
export type { McpCorsOptions } from './server/cors.js';
export { DEFAULT_CLUSTER_LEASE_TTL_MS } from './server/clusterOptions.js';
export type { HttpClusterOptions } from './server/clusterOptions.js';
export type {
  HttpChannelNotifyOptions,
  HttpClientChannel,
  HttpConnectOptions,
  HttpHandleOptions,
  HttpModernHandle,
  HttpSessionHandle,
  McpHttpServerLike,
} from './server/serverLike.js';
export { StreamableHttpSessionTransport } from './server/sessions/sessionTransport.js';
export { closeRequestSseStream } from './server/sessions/ssePolling.js';
export type { CloseSseStreamOptions } from './server/sessions/sessionTransport.js';
export { HttpSseSessionTransport } from './server/httpSse/httpSseTransport.js';
export type { SessionLease } from './server/sessions/sessionTransportBase.js';
export { LOOPBACK_HOSTS, isLoopbackHost } from './server/security.js';
export type { ResponseMode, ResponseShape } from './media.js';
export { HttpStatus } from './server/refusals.js';
export type { HttpStatusCode } from './server/refusals.js';
