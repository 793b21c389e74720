/**
 * The failure analytics (`@switchboard/mcp/analytics`) as OpenTelemetry metrics: counters of requests per class,
 * broken down per method, tool, client and (opt-in) user, read from the analytics' snapshot when the SDK collects.
 *
 * The MCP semantic conventions' histograms (`mcp.server.operation.duration`, `server.ts`) carry `error.type` (the
 * code, `tool_error`); they have no word for a timeout, a closed connection, a refusal before dispatch or an era
 * mismatch, nor a client or user dimension. These counters are Switchboard's own names (`switchboard.mcp.*`,
 * outside the conventions' namespaces) for that breakdown, with the analytics' class words in
 * `switchboard.mcp.outcome` and the conventions' attributes where one exists (`mcp.method.name`,
 * `gen_ai.tool.name`, `user.id`). Cardinality is the store's: each dimension is capped (an `(other)` row past it).
 */
import { metrics, type BatchObservableResult, type Observable, type ObservableCounter } from '@opentelemetry/api';
import type { AnalyticsRow, AnalyticsSnapshot } from '@switchboard/mcp/analytics';
import { ATTR } from './conventions.js';
import { SCOPE_NAME, SCOPE_VERSION, type TelemetryProviders } from './instruments.js';

/** Options of {@link analyticsMetrics}. */
export interface AnalyticsMetricsOptions extends Pick<TelemetryProviders, 'meterProvider'> {
  /**
   * Also export the per-user counter (`user.id`). User identifiers may be personal data: export them only when you
   * may (hash them in the analytics' `userOf`). @default false
   */
  readonly users?: boolean | undefined;
}

/** The counters' names. */
const NAMES = {
  method: 'switchboard.mcp.requests',
  tool: 'switchboard.mcp.tool.requests',
  client: 'switchboard.mcp.client.requests',
  user: 'switchboard.mcp.user.requests',
} as const;
/** The analytics' class of a request (`ok`, `tool_error`, `protocol_error`, `refused`, …). */
const OUTCOME = 'switchboard.mcp.outcome';
/** A client's `name/version` (its `clientInfo`). */
const CLIENT = 'switchboard.mcp.client';
/** The core registry's user identifier. */
const USER_ID = 'user.id';

/**
 * Exports `analytics` as OpenTelemetry counters (monotonic, cumulative, unit `{request}`), each point one row of a
 * dimension and one class with a count above zero:
 * - `switchboard.mcp.requests` — `mcp.method.name`, `switchboard.mcp.outcome`;
 * - `switchboard.mcp.tool.requests` — `gen_ai.tool.name`, `switchboard.mcp.outcome`;
 * - `switchboard.mcp.client.requests` — `switchboard.mcp.client` (`name/version`), `switchboard.mcp.outcome`;
 * - `switchboard.mcp.user.requests` (only with `users: true`) — `user.id`, `switchboard.mcp.outcome`.
 * One snapshot is read per collection, for all of them.
 *
 * @returns a function that stops the export (removes the collection callback)
 * @example
 * const { analytics } = attachAnalytics(server);
 * analyticsMetrics(analytics, { meterProvider });
 */
export function analyticsMetrics(analytics: { snapshot(): AnalyticsSnapshot }, options: AnalyticsMetricsOptions = {}): () => void {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION);
  const counter = (name: string, description: string): ObservableCounter => meter.createObservableCounter(name, { unit: '{request}', description });
  const byMethod = counter(NAMES.method, 'MCP requests per method and failure class (Switchboard failure analytics).');
  const byTool = counter(NAMES.tool, 'MCP tool calls per tool and failure class (Switchboard failure analytics).');
  const byClient = counter(NAMES.client, 'MCP requests per client name/version and failure class (Switchboard failure analytics).');
  const byUser = options.users === true ? counter(NAMES.user, 'MCP requests per user and failure class (Switchboard failure analytics).') : undefined;
  const observables: Observable[] = [byMethod, byTool, byClient, ...(byUser === undefined ? [] : [byUser])];
  const callback = (result: BatchObservableResult): void => {
    const snapshot = analytics.snapshot();
    const dimensions: [ObservableCounter, readonly AnalyticsRow[], string][] = [
      [byMethod, snapshot.byMethod, ATTR.methodName],
      [byTool, snapshot.byTool, ATTR.toolName],
      [byClient, snapshot.byClient, CLIENT],
    ];
    if (byUser !== undefined) dimensions.push([byUser, snapshot.byUser, USER_ID]);
    // One point per row and class with a count above zero.
    for (const [counter, rows, key] of dimensions) {
      for (const row of rows) {
        for (const [outcome, count] of Object.entries(row.classes)) {
          if (count > 0) result.observe(counter, count, { [key]: row.key, [OUTCOME]: outcome });
        }
      }
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
