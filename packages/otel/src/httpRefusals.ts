/**
 * Spans of what the HTTP handler turns away before the server sees a message (a foreign `Host` or `Origin`, an
 * unknown session, a body too large, admission 429/503, a bad `MCP-Protocol-Version`, -32022 …): the handler's
 * `onRefused` hook (`HttpRefusalEvent` of `@switchboard/mcp/http`) given to {@link httpRefusalTelemetry}'s listener.
 *
 * A refusal names an MCP method only when the request said it in `Mcp-Method` (2026-07-28); its span is then named
 * and attributed like the server's own (mcp.md), else after the HTTP request (`POST /mcp`, HTTP semantic conventions
 * "Name": `{method} {target}`). The handler's refusals carry a JSON-RPC error in their body (-32000 for a foreign
 * Host or Origin, -32001 for an unknown session, -32022 …): its code decides, as for every MCP span (`error.type` =
 * the code, but for the five codes a server does not count). An answer without one follows HTTP's rule (core
 * semantic conventions v1.41.1, HTTP server spans: a 4xx is the client's doing, status UNSET; a 5xx is an error,
 * `error.type` = the status).
 */
import { SpanKind, SpanStatusCode, type Attributes, type Histogram } from '@opentelemetry/api';
import type { HttpRefusalEvent } from '@switchboard/mcp/http';
import { ATTR, EXECUTE_TOOL, METRIC, SERVER_NON_ERROR_CODES } from './conventions.js';
import { instrumentsOf, type TelemetryProviders } from './instruments.js';

/** HTTP attributes (core semantic conventions registry, `http.*`). */
const HTTP_ATTR = {
  requestMethod: 'http.request.method',
  statusCode: 'http.response.status_code',
  route: 'http.route',
} as const;

/**
 * A listener for the HTTP handler's `onRefused` that records each refusal as a SERVER span (see the module comment)
 * with `http.request.method`, `http.response.status_code`, `http.route` (the endpoint's path), `network.transport`
 * `tcp`, `network.protocol.name` `http`, and, when known, `mcp.method.name`, `gen_ai.operation.name`,
 * `rpc.response.status_code` and `error.type`; and, when the method is known, an `mcp.server.operation.duration`
 * point of 0 s (the refusal is immediate; the event carries no start time).
 *
 * @example
 * const refusedSpans = httpRefusalTelemetry();
 * await serveHttp({ server, onRefused: (event) => { refusedSpans(event); analytics.onHttpRefused(event); } });
 */
export function httpRefusalTelemetry(options: TelemetryProviders = {}): (event: HttpRefusalEvent) => void {
  const { tracer, histogram } = instrumentsOf(options);
  const duration: Histogram = histogram(METRIC.serverOperation, 'The duration of an MCP request or notification as observed on the receiver.');
  return (event) => {
    const method = event.mcpMethod;
    const attributes: Attributes = { [ATTR.networkTransport]: 'tcp', [ATTR.networkProtocolName]: 'http' };
    if (method !== undefined) attributes[ATTR.methodName] = method;
    if (method === 'tools/call') attributes[ATTR.operationName] = EXECUTE_TOOL;
    const code = event.code;
    let error: string | undefined;
    if (code !== undefined) {
      attributes[ATTR.statusCode] = String(code);
      if (!SERVER_NON_ERROR_CODES.has(code)) error = String(code);
    } else if (event.status >= 500) {
      error = String(event.status);
    }
    if (error !== undefined) attributes[ATTR.errorType] = error;
    const span = tracer.startSpan(method ?? `${event.httpMethod} ${event.path}`, {
      kind: SpanKind.SERVER,
      attributes: { ...attributes, [HTTP_ATTR.requestMethod]: event.httpMethod, [HTTP_ATTR.statusCode]: event.status, [HTTP_ATTR.route]: event.path },
    });
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, ...(event.message === undefined ? {} : { message: event.message }) });
    span.end();
    if (method !== undefined) duration.record(0, attributes);
  };
}
