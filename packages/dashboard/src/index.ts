/**
 * `@switchboard/dashboard`: a live web page of the failure analytics (`@switchboard/mcp/analytics`) for a
 * Switchboard server (`createDashboard`, mounted on an opt-in path) and, through the gateway, for any MCP server
 * (`createProxyAnalytics` on a `createProxyServer` front; `switchboard dashboard` does both). Charts by Chart.js,
 * served from the installed package: no CDN, no build step at run time. Node only (it reads its page's files).
 */
export { createDashboard, DEFAULT_DASHBOARD_MAX_STREAMS, DEFAULT_DASHBOARD_PATH, DEFAULT_DASHBOARD_PUSH_INTERVAL_MS } from './dashboard.js';
export type { Dashboard, DashboardOptions, DashboardSource } from './dashboard.js';
export { createProxyAnalytics } from './proxyAnalytics.js';
export type { ProxyAnalytics } from './proxyAnalytics.js';
