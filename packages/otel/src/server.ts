/**
 * Server telemetry: a middleware (`server.use(serverTelemetry())`) that gives every inbound request a SERVER span
 * and a `mcp.server.operation.duration` measurement named and attributed per the MCP semantic conventions
 * (`conventions.ts`), in both eras, parented on the trace context the client put in `params._meta`.
 *
 * Requests the server's inbound step refuses before dispatch (era mismatch, malformed envelope, a session-only
 * method) never reach a middleware: {@link instrumentServer} installs the middleware and also hears those
 * (`McpServer.onRefused`) and the sessions' ends (`McpServer.onSessionClosed`, for `mcp.server.session.duration`).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Link, type TextMapGetter } from '@opentelemetry/api';
import type { InboundRefusalEvent, McpServer, Middleware, MiddlewareCall, ServerSession } from '@switchboard/mcp/server';
import { ATTR, EXECUTE_TOOL, isToolError, jsonRpcCodeOf, METRIC, nameOf, SERVER_NON_ERROR_CODES, targetAttribute, TOOL_ERROR } from './conventions.js';
import { instrumentsOf, type TelemetryProviders } from './instruments.js';

/** Options of {@link serverTelemetry}. */
export interface ServerTelemetryOptions extends TelemetryProviders {
  /**
   * `network.transport` of requests that arrive without HTTP facts (no caller named by an HTTP transport): `pipe`
   * for stdio (mcp.md). Requests over HTTP are `tcp`. @default 'pipe'
   */
  readonly networkTransport?: string | undefined;
}

/**
 * Reads the W3C fields of a `_meta` object (MCP 2026-07-28 basic/index.mdx "`_meta`": `traceparent`, `tracestate`,
 * `baggage`), own members only: a field on a polluted `Object.prototype` parents no span.
 */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  },
};

/** `params._meta` when it is an object of `params`' own. */
function metaOf(params: unknown): Record<string, unknown> | undefined {
  if (typeof params !== 'object' || params === null || !Object.hasOwn(params, '_meta')) return undefined;
  const meta = (params as { readonly _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/**
 * A middleware that traces and measures every inbound request (see the module comment). Install it first so that
 * its span covers the other middlewares: `server.use(serverTelemetry())`.
 *
 * Span: `{mcp.method.name} {target}` (target: `gen_ai.tool.name` of `tools/call`, `gen_ai.prompt.name` of
 * `prompts/get`), kind SERVER, attributes `mcp.method.name`, the target, `gen_ai.operation.name` (`execute_tool`),
 * `mcp.session.id` (legacy-era sessions with an id only), `mcp.protocol.version`, `jsonrpc.request.id`,
 * `network.transport`; on an error `rpc.response.status_code` and, unless the code is one a server must not count
 * as an error (-32700, -32600, -32601, -32602, -32002), `error.type` and status ERROR; `error.type` = `tool_error`
 * for a `CallToolResult` with `isError: true`. The parent is the context extracted from `params._meta`; an ambient
 * span (e.g. an HTTP server span) that is not that parent is linked.
 *
 * @example
 * const server = new McpServer({ name: 'weather', version: '1.0.0' });
 * server.use(serverTelemetry());
 */
export function serverTelemetry(options: ServerTelemetryOptions = {}): Middleware {
  return telemetryOf(options).middleware;
}

/**
 * Instruments `server` whole: installs {@link serverTelemetry}'s middleware (call it before any other `use`), and
 * also records
 * - every request the inbound step refuses before dispatch (`McpServer.onRefused`: -32022 unsupported revision, a
 *   malformed `_meta` envelope, a method its era or session does not serve, an undeclared client capability): a
 *   SERVER span named like the others with `mcp.method.name`, the target, `mcp.protocol.version` (the revision it
 *   claimed or its session negotiated), `jsonrpc.request.id`, `rpc.response.status_code`, `network.transport` (the
 *   `networkTransport` option: the event does not say which transport it came on), and, unless the code is one a
 *   server must not count (see {@link serverTelemetry}), `error.type` = the code and status ERROR; plus a
 *   `mcp.server.operation.duration` point of 0 s (the refusal is immediate and the event carries no start time);
 * - every legacy-era session, from its successful `initialize` to its close (whoever closed it): one
 *   `mcp.server.session.duration` measurement with `mcp.protocol.version` and `network.transport`; `error.type`
 *   is left out (the server does not learn why a connection ended). Modern-era traffic has no session.
 *
 * @returns a function that detaches all of it (middleware and listeners)
 * @example
 * const server = new McpServer({ name: 'weather', version: '1.0.0' });
 * const detach = instrumentServer(server);
 */
export function instrumentServer(server: McpServer, options: ServerTelemetryOptions = {}): () => void {
  const telemetry = telemetryOf(options);
  const disposers = [server.use(telemetry.middleware), server.onRefused(telemetry.refused), server.onSessionClosed(telemetry.sessionClosed)];
  return () => {
    for (const dispose of disposers) dispose();
  };
}

/** When a session's `initialize` began and the `network.transport` it came on. */
interface SessionStart {
  readonly started: number;
  readonly networkTransport: string;
}

/** The middleware and the listeners of one set of instruments. */
function telemetryOf(options: ServerTelemetryOptions): { readonly middleware: Middleware; readonly refused: (event: InboundRefusalEvent) => void; readonly sessionClosed: (session: ServerSession) => void } {
  const { tracer, propagator, histogram } = instrumentsOf(options);
  const duration: Histogram = histogram(METRIC.serverOperation, 'The duration of an MCP request or notification as observed on the receiver.');
  const sessionDuration: Histogram = histogram(METRIC.serverSession, 'The duration of the MCP session as observed on the MCP server.');
  const unframed = options.networkTransport ?? 'pipe';
  const sessions = new WeakMap<ServerSession, SessionStart>();
  const refused = (event: InboundRefusalEvent): void => {
    const method = event.method;
    const attributes: Attributes = { [ATTR.methodName]: method };
    const target = targetAttribute(method);
    const name = target === undefined ? undefined : event.toolName ?? undefined;
    if (target !== undefined && name !== undefined) attributes[target] = name;
    if (method === 'tools/call') attributes[ATTR.operationName] = EXECUTE_TOOL;
    if (event.revision !== undefined) attributes[ATTR.protocolVersion] = event.revision;
    attributes[ATTR.networkTransport] = unframed;
    const code = event.code;
    attributes[ATTR.statusCode] = String(code);
    const counted = !SERVER_NON_ERROR_CODES.has(code);
    if (counted) attributes[ATTR.errorType] = String(code);
    const spanAttributes: Attributes = { ...attributes };
    if (event.id !== null) spanAttributes[ATTR.requestId] = String(event.id);
    const span = tracer.startSpan(name === undefined ? method : `${method} ${name}`, { kind: SpanKind.SERVER, attributes: spanAttributes });
    if (counted) span.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
    span.end();
    duration.record(0, attributes);
  };
  const sessionClosed = (session: ServerSession): void => {
    const start = sessions.get(session);
    if (start === undefined) return;
    sessions.delete(session);
    const attributes: Attributes = {};
    if (session.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = session.protocolVersion;
    attributes[ATTR.networkTransport] = start.networkTransport;
    sessionDuration.record((performance.now() - start.started) / 1000, attributes);
  };
  const middleware: Middleware = (call, next) => {
    if (call.isNotification) return next();
    const started = performance.now();
    const attributes = requestAttributes(call, unframed);
    const method = call.method;
    const target = nameOf(call.params);
    const ambient = context.active();
    const meta = metaOf(call.params);
    const parent: Context = meta === undefined ? ambient : propagator.extract(ambient, meta, META_GETTER);
    const ambientSpan = trace.getSpanContext(ambient);
    const links: Link[] | undefined = ambientSpan !== undefined && parent !== ambient ? [{ context: ambientSpan }] : undefined;
    const spanAttributes: Attributes = { ...attributes };
    // mcp.md: mcp.session.id only when a session exists (never on 2026-07-28 traffic); jsonrpc.request.id not for a
    // null id. Both are span attributes only (unbounded values: not on the histogram).
    const sessionId = call.era === 'legacy' ? call.session?.id : undefined;
    if (sessionId !== undefined) spanAttributes[ATTR.sessionId] = sessionId;
    const id = call.id;
    if (id !== undefined && id !== null) spanAttributes[ATTR.requestId] = String(id);
    const span = tracer.startSpan(target === undefined || targetAttribute(method) === undefined ? method : `${method} ${target}`, { kind: SpanKind.SERVER, attributes: spanAttributes, ...(links === undefined ? {} : { links }) }, parent);
    const finish = (errorType: string | undefined, code: number | undefined, message: string | undefined): void => {
      if (code !== undefined) {
        attributes[ATTR.statusCode] = String(code);
        span.setAttribute(ATTR.statusCode, String(code));
      }
      if (errorType !== undefined) {
        attributes[ATTR.errorType] = errorType;
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
      }
      span.end();
      duration.record((performance.now() - started) / 1000, attributes);
    };
    return context.with(trace.setSpan(parent, span), next).then(
      (result) => {
        // A legacy session begins with its accepted initialize (mcp.server.session.duration).
        if (method === 'initialize' && call.session !== undefined) sessions.set(call.session, { started, networkTransport: call.caller === undefined ? unframed : 'tcp' });
        finish(isToolError(result) ? TOOL_ERROR : undefined, undefined, undefined);
        return result;
      },
      (error: unknown) => {
        // A thrown value without a JSON-RPC code goes on the wire as -32603 (McpServer.use).
        const code = jsonRpcCodeOf(error) ?? -32603;
        finish(SERVER_NON_ERROR_CODES.has(code) ? undefined : String(code), code, code === -32603 ? undefined : (error as Error).message);
        throw error;
      },
    );
  };
  return { middleware, refused, sessionClosed };
}

/** The attributes of a request known when it begins, shared by its span and its histogram measurement. */
function requestAttributes(call: MiddlewareCall, unframed: string): Attributes {
  const method = call.method;
  const attributes: Attributes = { [ATTR.methodName]: method };
  const target = targetAttribute(method);
  const name = target === undefined ? undefined : nameOf(call.params);
  if (target !== undefined && name !== undefined) attributes[target] = name;
  if (method === 'tools/call') attributes[ATTR.operationName] = EXECUTE_TOOL;
  const revision = call.revision;
  if (revision !== undefined) attributes[ATTR.protocolVersion] = revision;
  // An HTTP transport names the caller of every message (TransportMessageExtra.caller); stdio names none.
  attributes[ATTR.networkTransport] = call.caller === undefined ? unframed : 'tcp';
  if (call.caller !== undefined) attributes[ATTR.networkProtocolName] = 'http';
  return attributes;
}
