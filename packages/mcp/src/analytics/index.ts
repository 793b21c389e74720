/**
 * `@switchboard/mcp/analytics`: failure analytics for MCP servers (runtime-neutral). Every request classified as
 * exactly one {@link OutcomeClass} by {@link classifyOutcome}; counts, error ratios, latency percentiles and top
 * wire error messages per tool, method, client, revision, user and server version in a bounded store.
 */
export { classifyOutcome, OUTCOME_CLASSES, UNSUPPORTED_PROTOCOL_VERSION_CODE } from './classify.js';
export type { OutcomeClass, OutcomeFacts, ClassifiedOutcome } from './classify.js';
export { attachAnalytics, createAnalytics, defaultUserOf } from './analytics.js';
export type { Analytics, AnalyticsOptions, AnalyticsRecord } from './analytics.js';
export { AnalyticsStore, DEFAULT_ANALYTICS_LIMITS, OTHER_KEY } from './store.js';
export type { AnalyticsLimits, AnalyticsEntry, AnalyticsRow, AnalyticsBucket, AnalyticsSnapshot, FailingKey, LatencySnapshot, RecentFailure } from './store.js';
export { LatencyHistogram, HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_BUCKETS } from './histogram.js';
