/**
 * `createAnalytics`: the failure analytics of one server (or several), fed by the server's middleware chain and,
 * for what is turned away before dispatch, by {@link Analytics.record}.
 *
 * Why a module of `@switchboard/mcp` (entry `@switchboard/mcp/analytics`) and not a package: it has no dependency,
 * it is runtime-neutral, it needs only the middleware's types, and the server, the gateway, the CLI and the
 * OpenTelemetry package all want the same `classifyOutcome`; a package would add a release unit for ~600 lines.
 */
import { JsonRpcError, JsonRpcLocalError } from '@switchboard/jsonrpc';
import type { McpServer } from '../server/mcpServer.js';
import type { Middleware, MiddlewareCall } from '../server/middleware/call.js';
import type { InboundRefusalEvent } from '../server/refusalEvents.js';
import type { HttpRefusalEvent } from '../transports/http/server/handlerOptions.js';
import { UNSUPPORTED_PROTOCOL_VERSION_CODE, classifyOutcome, type ClassifiedOutcome, type OutcomeFacts } from './classify.js';
import { AnalyticsStore, type AnalyticsLimits, type AnalyticsSnapshot } from './store.js';

/**
 * The message of the HTTP handler's 400 to an unsupported `MCP-Protocol-Version` header (`unsupportedProtocolVersion`
 * in `transports/http/server/refusals.ts`; MCP 2025-11-25 basic/transports.mdx "Protocol Version Header": "If the
 * server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad
 * Request"): a revision the server does not serve, so `era_mismatch`, though its code is the generic -32000.
 */
const UNSUPPORTED_VERSION_HEADER_MESSAGE = 'Bad Request: unsupported MCP-Protocol-Version';

/** Options of {@link createAnalytics}. */
export interface AnalyticsOptions {
  /** The store's bounds (caps per dimension, message length, time buckets). @default `DEFAULT_ANALYTICS_LIMITS` */
  readonly limits?: AnalyticsLimits;
  /** The server's version, counted per server version (e.g. the `version` of its `serverInfo`). @default none */
  readonly serverVersion?: string;
  /**
   * The user a request is counted for: the authenticated identity, or `undefined` (not counted per user). Return
   * only an identifier you may keep (hash it if it is personal data).
   * @default `authInfo.subject`, else `authInfo.clientId` (strings only), else `undefined`
   */
  readonly userOf?: (call: MiddlewareCall) => string | undefined;
  /**
   * What another seam knows of how a request ended that its answer does not say, read as the request ends: facts to
   * count instead of the answer's, or `undefined` (the answer's class). A gateway is the case: its upstream timed out
   * or closed, and the front answered an `isError` result or -32603 (`createProxyAnalytics` of
   * `@switchboard/dashboard` uses it). The wire message counted stays the answer's. A throw is ignored (the answer's
   * class is counted). @default none
   */
  readonly endedAs?: (call: MiddlewareCall) => OutcomeFacts | undefined;
  /** The monotonic clock, in milliseconds (tests). @default `performance.now` */
  readonly now?: () => number;
  /** The wall clock of the time buckets, in milliseconds since the epoch (tests). @default `Date.now` */
  readonly wallClock?: () => number;
}

/** A request turned away or ended outside the middleware chain, given to {@link Analytics.record}. */
export interface AnalyticsRecord {
  /** How it ended (e.g. `{ kind: 'refused', status: 403 }`, `{ kind: 'error', code: -32022 }`). */
  readonly outcome: OutcomeFacts;
  /** The method, when known. @default `'(unknown)'` */
  readonly method?: string;
  readonly tool?: string;
  /** The client's `clientInfo`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  readonly revision?: string;
  readonly user?: string;
  /** Milliseconds it took. @default 0 */
  readonly durationMs?: number;
  /** The error message that went on the wire, if any (never an exception's own text). */
  readonly message?: string;
  /**
   * The W3C trace id of the request, if it carried one (kept with a failure in `recentFailures`): 32 lower-case hex
   * digits, not all zero (W3C Trace Context §3.2.2.3 `trace-id`); anything else is dropped (not counted, not kept).
   */
  readonly traceId?: string;
}

/** The failure analytics: attach {@link middleware} to a server, read {@link snapshot}. */
export interface Analytics {
  /** Records every request the server dispatches (attach with `server.use(analytics.middleware)`). */
  readonly middleware: Middleware;
  /** Records one request that ended outside the middleware chain (an HTTP refusal, an inbound-step refusal). */
  record(entry: AnalyticsRecord): void;
  /** Records one request the inbound step refused (a listener for `McpServer.onRefused`). */
  readonly onRefused: (event: InboundRefusalEvent) => void;
  /**
   * Records one request the HTTP handler turned away before dispatch: pass it as the handler's `onRefused`
   * (`createMcpHttpHandler({ server, onRefused: analytics.onHttpRefused })`). An unsupported revision (-32022, or the
   * 400 of an unsupported `MCP-Protocol-Version` header) is `era_mismatch`; every other status (a 400 such as a
   * token in the query or a missing `Mcp-Session-Id`, 401/403 auth, 403 Host/Origin, 404 unknown session, 413, 415,
   * 429 and 503 admission, …) is `refused`, whatever JSON-RPC code its body carries (kept in `codes`). A 403
   * `insufficient_scope` for a `tools/call` is counted under its tool (`event.toolName`).
   */
  readonly onHttpRefused: (event: HttpRefusalEvent) => void;
  /** Everything counted so far as plain JSON (shape: {@link AnalyticsSnapshot}). */
  snapshot(): AnalyticsSnapshot;
  /** The store (its `sizes` say how many rows it holds). */
  readonly store: AnalyticsStore;
}

/** The default {@link AnalyticsOptions.userOf}. */
export function defaultUserOf(call: MiddlewareCall): string | undefined {
  const auth = call.authInfo;
  return typeof auth === 'object' && auth !== null ? userOfAuth(auth) : undefined;
}

/** The text of an `isError` result as it went on the wire: its first text content item. */
function toolErrorText(result: unknown): string | undefined {
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return undefined;
  for (const item of content) {
    if (typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'text') {
      const text = (item as { text?: unknown }).text;
      if (typeof text === 'string') return text;
    }
  }
  return undefined;
}

/**
 * The trace id of a W3C `traceparent` (`version-traceid-parentid-flags`, W3C Trace Context §3.2: 32 lower-case hex
 * digits, not all zero) in `params._meta` (MCP 2026-07-28 basic/index.mdx "`_meta`": `traceparent` is reserved for
 * W3C Trace Context); `undefined` when there is none or it is malformed.
 */
function traceIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const traceparent = (meta as { traceparent?: unknown }).traceparent;
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent);
  return match === null || match[1] === ZERO_TRACE_ID ? undefined : match[1];
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;
const ZERO_TRACE_ID = '0'.repeat(32);
/** A whole trace id (W3C Trace Context §3.2.2.3: "32HEXDIGLC"). */
const TRACE_ID = /^[0-9a-f]{32}$/;

/** A request ended by its signal: cancelled by the client, or its connection closed. */
function abortedOutcome(call: MiddlewareCall): ClassifiedOutcome | undefined {
  const signal = call.signal;
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  if (reason instanceof JsonRpcLocalError) return classifyOutcome({ kind: 'local', code: reason.code });
  return classifyOutcome({ kind: 'cancelled' });
}

/**
 * Creates the failure analytics. Every dispatched request lands in exactly one class (see `classifyOutcome`) and is
 * counted in total, per method, per tool, per client `name/version`, per revision, per user and per server
 * version, with latency percentiles and, per tool, the most frequent error messages that went on the wire (the
 * text of an `isError` result, the message of a JSON-RPC error; a crashed handler's answer is -32603 "Internal
 * error", never its exception's text). Memory is bounded by `limits` whatever the traffic.
 *
 * What the inbound step refuses (-32022, an unserved era, a malformed envelope) and what the HTTP handler turns
 * away never reaches a middleware: feed those to {@link Analytics.record}.
 *
 * @example
 * const analytics = createAnalytics({ serverVersion: '1.4.0' });
 * server.use(analytics.middleware); // first, so it times everything
 * // later: JSON.stringify(analytics.snapshot())
 */
export function createAnalytics(options: AnalyticsOptions = {}): Analytics {
  const store = new AnalyticsStore(options.limits, options.wallClock);
  const now = options.now ?? (() => performance.now());
  const userOf = options.userOf ?? defaultUserOf;
  const serverVersion = options.serverVersion;
  const endedAs = options.endedAs;

  const finish = (call: MiddlewareCall, started: number, [answered, message]: readonly [ClassifiedOutcome, string | undefined]): void => {
    const client = call.clientInfo;
    let outcome = answered;
    if (endedAs !== undefined) {
      let facts: OutcomeFacts | undefined;
      try {
        facts = endedAs(call);
      } catch {
        facts = undefined;
      }
      if (facts !== undefined) outcome = classifyOutcome(facts);
    }
    const method = call.method;
    store.record({
      method,
      tool: method === 'tools/call' ? (call.name ?? '(none)') : undefined,
      client: client === undefined ? undefined : `${client.name}/${client.version}`,
      revision: call.revision,
      user: userOf(call),
      serverVersion,
      outcome,
      durationMs: now() - started,
      message,
      // Only a failure's trace is kept (the live tail), so only a failure pays for reading it.
      traceId: outcome.class === 'ok' ? undefined : traceIdOf(call.params),
    });
  };

  const middleware: Middleware = (call, next) => {
    if (call.isNotification) return next();
    const started = now();
    return next().then(
      (result) => {
        try {
          const isError = typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
          // A tool that honours a cancellation (or a closed connection) rejects, and the server answers that with an
          // isError result: only then is the signal read (reading it makes the request's AbortController, which an
          // ok result does not pay for; a handler that ignores its signal and succeeds is counted ok).
          const aborted = isError ? abortedOutcome(call) : undefined;
          if (aborted !== undefined) finish(call, started, [aborted, undefined]);
          else finish(call, started, [classifyOutcome({ kind: 'result', isError }), isError ? toolErrorText(result) : undefined]);
        } catch {
          // Counting never fails the request it counts.
        }
        return result;
      },
      (error: unknown) => {
        try {
          const aborted = abortedOutcome(call);
          if (aborted !== undefined) finish(call, started, [aborted, undefined]);
          // What goes on the wire: a JsonRpcError's code and message; anything else is answered -32603 "Internal error".
          else if (error instanceof JsonRpcError && Number.isInteger(error.code)) finish(call, started, [classifyOutcome({ kind: 'error', code: error.code }), error.message]);
          else finish(call, started, [classifyOutcome({ kind: 'error', code: -32603 }), 'Internal error']);
        } catch {
          // Counting never fails the request it counts.
        }
        throw error;
      },
    );
  };

  const record = (entry: AnalyticsRecord): void => {
    const client = entry.clientInfo;
    store.record({
      method: entry.method ?? '(unknown)',
      tool: entry.tool,
      client: client === undefined ? undefined : `${client.name}/${client.version}`,
      revision: entry.revision,
      user: entry.user,
      serverVersion,
      outcome: classifyOutcome(entry.outcome),
      durationMs: entry.durationMs ?? 0,
      message: entry.message,
      traceId: typeof entry.traceId === 'string' && TRACE_ID.test(entry.traceId) && entry.traceId !== ZERO_TRACE_ID ? entry.traceId : undefined,
    });
  };

  const onRefused = (event: InboundRefusalEvent): void => {
    const user = typeof event.authInfo === 'object' && event.authInfo !== null ? userOfAuth(event.authInfo) : undefined;
    record({
      outcome: { kind: 'error', code: event.code },
      method: event.method,
      ...(event.toolName === undefined ? {} : { tool: event.toolName }),
      ...(event.clientInfo === undefined ? {} : { clientInfo: event.clientInfo }),
      ...(event.revision === undefined ? {} : { revision: event.revision }),
      ...(user === undefined ? {} : { user }),
      message: event.message,
    });
  };

  const onHttpRefused = (event: HttpRefusalEvent): void => {
    const code = event.code;
    const user = typeof event.authInfo === 'object' && event.authInfo !== null ? userOfAuth(event.authInfo) : undefined;
    const outcome: OutcomeFacts =
      code === UNSUPPORTED_PROTOCOL_VERSION_CODE
        ? { kind: 'error', code }
        : event.status === 400 && event.message?.startsWith(UNSUPPORTED_VERSION_HEADER_MESSAGE) === true
          ? { kind: 'era_unserved' }
          : { kind: 'refused', status: event.status, code };
    const tool = typeof event.toolName === 'string' ? event.toolName : undefined;
    record({
      outcome,
      method: event.mcpMethod ?? (tool === undefined ? `HTTP ${event.httpMethod}` : 'tools/call'),
      ...(tool === undefined ? {} : { tool }),
      ...(user === undefined ? {} : { user }),
      ...(event.message === undefined ? {} : { message: event.message }),
    });
  };

  return { middleware, store, snapshot: () => store.snapshot(), record, onRefused, onHttpRefused };
}

/** `authInfo.subject`, else `authInfo.clientId` (non-empty strings). */
function userOfAuth(auth: object): string | undefined {
  const { subject, clientId } = auth as { subject?: unknown; clientId?: unknown };
  if (typeof subject === 'string' && subject !== '') return subject;
  return typeof clientId === 'string' && clientId !== '' ? clientId : undefined;
}

/**
 * Creates the analytics and attaches them to `server` in one call: its middleware (added now: put this first so it
 * times every other middleware) and its inbound-step refusals (`server.onRefused`).
 * @returns the analytics, and `detach` to remove both
 * @example
 * const { analytics } = attachAnalytics(server, { serverVersion: '1.4.0' });
 * app.get('/api/analytics', () => Response.json(analytics.snapshot()));
 */
export function attachAnalytics(server: McpServer, options: AnalyticsOptions = {}): { readonly analytics: Analytics; readonly detach: () => void } {
  const analytics = createAnalytics(options);
  const removeMiddleware = server.use(analytics.middleware);
  const removeListener = server.onRefused(analytics.onRefused);
  return {
    analytics,
    detach: () => {
      removeMiddleware();
      removeListener();
    },
  };
}
