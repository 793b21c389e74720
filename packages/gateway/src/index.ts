/**
 * `@switchboard/gateway`: MCP servers of any era and transport behind one Switchboard endpoint — a proxy per
 * upstream (the era bridge) and a gateway over many. It sits at the edge: it builds on `@switchboard/mcp`'s server
 * and client entries, which never import each other.
 * @packageDocumentation
 */
export { ProxyServer, createProxyServer } from './proxy/proxyServer.js';
export { DEFAULT_CALLER_SESSION_IDLE_MS, DEFAULT_MAX_CALLER_SESSIONS, type SessionPerCallerOptions } from './proxy/callerSessions.js';
export {
  DEFAULT_HOLD_TIMEOUT_MS,
  DEFAULT_MAX_HELD_REQUESTS,
  DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS,
  DEFAULT_UPSTREAM_CAPABILITIES,
  type ProxyServerOptions,
  type UpstreamClientOptions,
} from './proxy/options.js';
export { createGateway, DEFAULT_GATEWAY_INFO } from './gateway.js';
export type { Gateway, GatewayChanges, GatewayMiddlewareOptions, GatewayOptions, GatewaySearchOptions, GatewayUpstreamOptions } from './gateway.js';
export { connectorFor } from './config/connector.js';
export type { UpstreamEndpoint } from './config/connector.js';
export {
  backoffDelayMs,
  backoffPolicy,
  DEFAULT_BACKOFF_INITIAL_DELAY_MS,
  DEFAULT_BACKOFF_JITTER,
  DEFAULT_BACKOFF_MAX_DELAY_MS,
  DEFAULT_BACKOFF_MULTIPLIER,
  MAX_BACKOFF_DELAY_MS,
} from './fanout/backoff.js';
export type { BackoffOptions, BackoffPolicy } from './fanout/backoff.js';
export { DEFAULT_MAX_CATALOG_TOOLS, namespaced } from './fanout/catalog.js';
export type { CatalogPrompt, CatalogResource, CatalogSnapshot, CatalogTool, NamespaceRule } from './fanout/catalog.js';
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_HEALTH_CHECK_INTERVAL_MS, DEFAULT_MAX_ITEMS_PER_LIST, DEFAULT_MAX_UPSTREAMS, UpstreamPool } from './fanout/pool.js';
export type { HealthListener, UpstreamPoolOptions } from './fanout/pool.js';
export { CompiledToolPolicy } from './fanout/toolPolicy.js';
export type { PolicedTool, ToolPolicy } from './fanout/toolPolicy.js';
export { UpstreamDeadlineError } from './fanout/upstream.js';
export type { UpstreamHealth, UpstreamLink, UpstreamLinkInit, UpstreamListing, UpstreamSpec, UpstreamState } from './fanout/upstream.js';
export { GATEWAY_CONFIG_SCHEMA, GATEWAY_CONFIG_SCHEMA_ID } from './config/configSchema.js';
export { GatewayConfigError, gatewayOptionsFromConfig, parseGatewayConfig, upstreamOptionsFromConfig, validateGatewayConfig } from './config/gatewayConfig.js';
export type { GatewayAuthConfig, GatewayConfig, GatewayConfigContext, UpstreamConfig } from './config/gatewayConfig.js';
