/**
 * `@switchboard/mcp/analytics`: failure analytics for MCP servers (runtime-neutral). Every request classified as
 * exactly one {@link OutcomeClass} by {@link classifyOutcome}; counts, error ratios, latency percentiles and top
 * wire error messages per tool, method, client, revision, user and server version in a bounded store.
 */
export { classifyOutcome, OUTCOME_CLASSES, UNSUPPORTED_PROTOCOL_VERSION_CODE } from './classify.js';
export type { OutcomeClass, OutcomeFacts, ClassifiedOutcome } from './classify.js';
export { attachAnalytics, createAnalytics, defaultUserOf } from './analytics.js';
export type { Analytics, AnalyticsOptions, AnalyticsRecord } from './analytics.js';
export { AnalyticsStore, DEFAULT_ANALYTICS_LIMITS } from './store.js';
export type { AnalyticsLimits, AnalyticsEntry, AnalyticsBucket, AnalyticsSnapshot, RecentFailure } from './store.js';
export { OTHER_KEY } from './dimension.js';
export type { AnalyticsRow, FailingKey, LatencySnapshot } from './dimension.js';
export { LatencyHistogram, HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_BUCKETS } from './histogram.js';
