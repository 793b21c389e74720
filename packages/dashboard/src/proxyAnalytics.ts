/**
 * `createProxyAnalytics`: failure analytics of any MCP server, seen through the gateway's front
 * (`createProxyServer` of `@switchboard/gateway`).
 *
 * The front's middleware sees what the front answered; some upstream failures it answers in other words: an
 * upstream that stopped answering becomes an `isError` result saying it did not answer in time, an upstream
 * connection that closed mid-call an `isError` result saying it is unavailable (a tool) or -32603 (anything
 * else). So the upstream client's instrumentation (`McpClientOptions.instrumentation`, which sees each upstream request end) tells the
 * front's analytics how the upstream request of the same front call ended, and a client failure there wins:
 * `request_timeout` → `timeout`, `connection_closed` and the other transport failures → `transport`,
 * `request_aborted` → `cancelled` (the words of `classifyOutcome`). Upstream JSON-RPC errors and `isError` results
 * are counted as the front answered them (`protocol_error` with the code, `tool_error`), and refusals on the front
 * (`McpServer.onRefused`, the HTTP handler's `onRefused`) as `refused` / `era_mismatch`.
 *
 * The front call and its upstream request are matched by the async context (`AsyncLocalStorage`): the upstream
 * request is made inside the front call's handler, so the instrumentation finds the front call's slot; requests the
 * proxy makes on its own (`initialize`, re-listing) find none and are not counted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createAnalytics, type Analytics, type AnalyticsOptions, type OutcomeFacts } from '@switchboard/mcp/analytics';
import { McpClientError, type ClientInstrumentation, type ClientRequestOutcome } from '@switchboard/mcp/client';
import type { McpServer, Middleware, MiddlewareCall } from '@switchboard/mcp/server';

/** What {@link createProxyAnalytics} returns. */
export interface ProxyAnalytics {
  /** The analytics (feed it to `createDashboard`, read `snapshot()`; `onHttpRefused` for the front's HTTP handler). */
  readonly analytics: Analytics;
  /**
   * The upstream client's instrumentation: pass it as `createProxyServer({ client: { instrumentation } })`. (One
   * instrumentation per client: to add OpenTelemetry's too, call both from one object.)
   */
  readonly instrumentation: ClientInstrumentation;
  /**
   * Attaches the analytics to the front: its middleware (added now; put it first so it times the others) and the
   * inbound step's refusals (`front.onRefused`).
   * @returns detach
   */
  attach(front: McpServer): () => void;
}

/** How the upstream side of one front call ended, when it says more than the front's answer. */
interface Slot {
  upstream: OutcomeFacts | undefined;
}

/** An upstream request's end, in the analytics' facts: a client failure (timeout, closed, aborted), else nothing. */
function upstreamFacts(outcome: ClientRequestOutcome): OutcomeFacts | undefined {
  if (outcome.kind !== 'error') return undefined;
  const error = outcome.error;
  return error instanceof McpClientError ? { kind: 'client', code: error.code } : undefined;
}

/**
 * Creates failure analytics for a proxy's front, fed by the front's middleware and its upstream client's
 * instrumentation (see the module comment).
 * @param options - As `createAnalytics` (`endedAs` is this function's own and is not taken)
 * @example
 * const watch = createProxyAnalytics();
 * const front = await createProxyServer({ upstream, client: { instrumentation: watch.instrumentation } });
 * watch.attach(front);
 * await serveHttp({ server: front, onRefused: watch.analytics.onHttpRefused });
 */
export function createProxyAnalytics(options: Omit<AnalyticsOptions, 'endedAs'> = {}): ProxyAnalytics {
  const current = new AsyncLocalStorage<Slot>();
  const slots = new WeakMap<MiddlewareCall, Slot>();
  const analytics = createAnalytics({ ...options, endedAs: (call) => slots.get(call)?.upstream });

  const middleware: Middleware = (call, next) => {
    if (call.isNotification) return next();
    const slot: Slot = { upstream: undefined };
    slots.set(call, slot);
    return current.run(slot, () => analytics.middleware(call, next));
  };

  const instrumentation: ClientInstrumentation = {
    onRequest: () => {
      const slot = current.getStore();
      if (slot === undefined) return undefined;
      // The last upstream request of the call to end decides (a resend after a reconnect that succeeded clears it).
      return { end: (outcome) => void (slot.upstream = upstreamFacts(outcome)) };
    },
  };

  return {
    analytics,
    instrumentation,
    attach(front) {
      const removeMiddleware = front.use(middleware);
      const removeListener = front.onRefused(analytics.onRefused);
      return () => {
        removeMiddleware();
        removeListener();
      };
    },
  };
}
