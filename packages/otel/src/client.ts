/**
 * Client telemetry: the `instrumentation` of an `McpClient` (`clientTelemetry()`), which gives every request the
 * client puts on the wire a CLIENT span and a `mcp.client.operation.duration` measurement named and attributed per
 * the MCP semantic conventions (`conventions.ts`), and carries the span's context to the server in `params._meta`
 * (`traceparent`, `tracestate`, `baggage`; MCP 2026-07-28 basic/index.mdx "`_meta`").
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Histogram, type TextMapSetter } from '@opentelemetry/api';
import type { ClientInstrumentation, ClientRequestInfo, ClientRequestOutcome } from '@switchboard/mcp/client';
import { ATTR, EXECUTE_TOOL, isToolError, jsonRpcCodeOf, METRIC, nameOf, OTHER_ERROR, targetAttribute, TOOL_ERROR } from './conventions.js';
import { instrumentsOf, type TelemetryProviders } from './instruments.js';

/** Options of {@link clientTelemetry}. */
export interface ClientTelemetryOptions extends TelemetryProviders {
  /**
   * `server.address` of every request: the host of the server the client talks to (behind a gateway, the gateway's).
   * @default none (left out)
   */
  readonly serverAddress?: string | undefined;
  /** `server.port` of every request. @default none (left out) */
  readonly serverPort?: number | undefined;
}

const META_SETTER: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * The instrumentation of an `McpClient` (option `instrumentation`; see the module comment).
 *
 * Span: `{mcp.method.name} {target}`, kind CLIENT, parented on the active context, attributes `mcp.method.name`,
 * `gen_ai.tool.name` / `gen_ai.prompt.name`, `gen_ai.operation.name` (`execute_tool`), `mcp.protocol.version`,
 * `mcp.session.id` (an HTTP session's id, legacy era only), `jsonrpc.request.id` is not known before sending and is
 * left out, `network.transport` (`pipe` for stdio, `tcp` for HTTP), `server.address` / `server.port` when given;
 * on an error response `rpc.response.status_code` and `error.type` = the code; `tool_error` for `isError: true`; a
 * client-side failure has `error.type` = its `ClientErrorCode` (`request_timeout`, `connection_closed`, …), else `_OTHER`.
 *
 * Each connection (from the start of its transport to its close, whoever closed it) is one
 * `mcp.client.session.duration` measurement with `mcp.protocol.version` (once negotiated), `network.transport` and
 * `server.address` / `server.port` when given; `error.type` is left out (the client does not learn why a channel ended).
 *
 * @example
 * const client = await McpClient.connect({ connector: streamableHttp({ url }), instrumentation: clientTelemetry() });
 */
export function clientTelemetry(options: ClientTelemetryOptions = {}): ClientInstrumentation {
  const { tracer, propagator, histogram } = instrumentsOf(options);
  const duration: Histogram = histogram(METRIC.clientOperation, 'The duration of an MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.');
  const sessionDuration: Histogram = histogram(METRIC.clientSession, 'The duration of the MCP session as observed on the MCP client.');
  const { serverAddress, serverPort } = options;
  return {
    onConnection(transport) {
      const started = performance.now();
      return (end) => {
        const attributes: Attributes = {};
        if (end.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = end.protocolVersion;
        attributes[ATTR.networkTransport] = transport.kind === 'stdio' ? 'pipe' : 'tcp';
        if (transport.kind !== 'stdio') attributes[ATTR.networkProtocolName] = 'http';
        if (serverAddress !== undefined) attributes[ATTR.serverAddress] = serverAddress;
        if (serverPort !== undefined) attributes[ATTR.serverPort] = serverPort;
        sessionDuration.record((performance.now() - started) / 1000, attributes);
      };
    },
    onRequest(info) {
      const started = performance.now();
      const attributes = requestAttributes(info);
      if (serverAddress !== undefined) attributes[ATTR.serverAddress] = serverAddress;
      if (serverPort !== undefined) attributes[ATTR.serverPort] = serverPort;
      const method = info.method;
      const target = targetAttribute(method) === undefined ? undefined : nameOf(info.params);
      const spanAttributes: Attributes = { ...attributes };
      // mcp.md: mcp.session.id only when a session exists (never on 2026-07-28 traffic).
      const sessionId = info.era === 'modern' ? undefined : (info.transport as { readonly sessionId?: unknown }).sessionId;
      if (typeof sessionId === 'string') spanAttributes[ATTR.sessionId] = sessionId;
      const active = context.active();
      const span = tracer.startSpan(target === undefined ? method : `${method} ${target}`, { kind: SpanKind.CLIENT, attributes: spanAttributes }, active);
      const meta: Record<string, string> = {};
      propagator.inject(trace.setSpan(active, span), meta, META_SETTER);
      return {
        meta,
        end(outcome: ClientRequestOutcome) {
          const failure = failureOf(outcome);
          if (failure !== undefined) {
            if (failure.code !== undefined) {
              attributes[ATTR.statusCode] = String(failure.code);
              span.setAttribute(ATTR.statusCode, String(failure.code));
            }
            attributes[ATTR.errorType] = failure.type;
            span.setAttribute(ATTR.errorType, failure.type);
            span.setStatus({ code: SpanStatusCode.ERROR, ...(failure.message === undefined ? {} : { message: failure.message }) });
          }
          span.end();
          duration.record((performance.now() - started) / 1000, attributes);
        },
      };
    },
  };
}

/** What failed, if the request did: `error.type`, the JSON-RPC code of an error response, its message. */
function failureOf(outcome: ClientRequestOutcome): { readonly type: string; readonly code: number | undefined; readonly message: string | undefined } | undefined {
  if (outcome.kind === 'result') return isToolError(outcome.result) ? { type: TOOL_ERROR, code: undefined, message: undefined } : undefined;
  const error = outcome.error;
  const code = jsonRpcCodeOf(error);
  const message = error instanceof Error ? error.message : undefined;
  if (code !== undefined) return { type: String(code), code, message };
  const local = typeof error === 'object' && error !== null ? (error as { readonly code?: unknown }).code : undefined;
  return { type: typeof local === 'string' ? local : OTHER_ERROR, code: undefined, message };
}

/** The attributes of a request known before it is sent, shared by its span and its histogram measurement. */
function requestAttributes(info: ClientRequestInfo): Attributes {
  const method = info.method;
  const attributes: Attributes = { [ATTR.methodName]: method };
  const target = targetAttribute(method);
  const name = target === undefined ? undefined : nameOf(info.params);
  if (target !== undefined && name !== undefined) attributes[target] = name;
  if (method === 'tools/call') attributes[ATTR.operationName] = EXECUTE_TOOL;
  if (info.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = info.protocolVersion;
  const kind = info.transport.kind;
  attributes[ATTR.networkTransport] = kind === 'stdio' ? 'pipe' : 'tcp';
  if (kind !== 'stdio') attributes[ATTR.networkProtocolName] = 'http';
  return attributes;
}
