/**
 * `@switchboard/otel`: OpenTelemetry for Switchboard MCP servers and clients per the MCP semantic conventions
 * (`conventions.ts` names the version implemented). Depends only on `@opentelemetry/api` (a peer dependency); the
 * other Switchboard packages do not depend on it, so nothing is loaded and nothing costs when it is not used.
 */
export { clientTelemetry, type ClientTelemetryOptions } from './client.js';
export { instrumentServer, serverTelemetry, type ServerTelemetryOptions } from './server.js';
export { httpRefusalTelemetry } from './httpRefusals.js';
export { analyticsMetrics, type AnalyticsMetricsOptions } from './analyticsMetrics.js';
export { DURATION_BUCKETS_S, SEMCONV_VERSION } from './conventions.js';
export type { TelemetryProviders } from './instruments.js';
