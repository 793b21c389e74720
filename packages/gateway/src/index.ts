/**
 * `@switchboard/gateway`: MCP servers of any era and transport behind one Switchboard endpoint — a proxy per
 * upstream (the era bridge) and a gateway over many. It sits at the edge: it builds on `@switchboard/mcp`'s server
 * and client entries, which never import each other.
 * @packageDocumentation
 */
export { ProxyServer, createProxyServer } from './proxy/proxyServer.js';
export {
  DEFAULT_HOLD_TIMEOUT_MS,
  DEFAULT_MAX_HELD_REQUESTS,
  DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS,
  type ProxyServerOptions,
  type UpstreamClientOptions,
} from './proxy/options.js';
