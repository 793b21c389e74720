import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanKind, SpanStatusCode, trace, context } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Logger } from '@switchboard/jsonrpc';
import { McpClient } from '@switchboard/mcp/client';
import { McpError } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { createProxyServer } from '@switchboard/gateway';
import { otelSdk } from '../../../test/helpers/otelSdk.js';
import { analyticsMetrics, clientTelemetry, DURATION_BUCKETS_S, httpRefusalTelemetry, instrumentServer, serverTelemetry } from './index.js';
import { attachAnalytics } from '@switchboard/mcp/analytics';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function weatherServer(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' }, { logger: silent });
  server.tool('get_weather', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'sunny' }] }));
  server.tool('broken', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'no station' }], isError: true }));
  server.tool('refuse', { inputSchema: { type: 'object' } }, () => {
    throw new McpError(-32001, 'refused here');
  });
  return server;
}

let sdk: ReturnType<typeof otelSdk>;
beforeEach(() => {
  sdk = otelSdk();
});
afterEach(async () => {
  await sdk.shutdown();
});

function span(kind: SpanKind, name: string): ReadableSpan {
  const found = sdk.spans().filter((s) => s.kind === kind && s.name === name);
  expect(found, `one ${SpanKind[kind]} span "${name}" in ${sdk.spans().map((s) => `${SpanKind[s.kind]} ${s.name}`).join(', ')}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

async function connect(server: McpServer, era: 'legacy' | 'modern') {
  server.use(serverTelemetry(sdk.providers));
  return McpClient.connect({ connector: inMemoryConnector(server, { connect: { sessionId: 'session-1' } }), era, logger: silent, instrumentation: clientTelemetry(sdk.providers) });
}

describe.each([
  ['legacy', '2025-11-25'],
  ['modern', '2026-07-28'],
] as const)('spans and metrics per the MCP semantic conventions (%s era, in memory)', (era, revision) => {
  it('ok: CLIENT and SERVER spans "tools/call get_weather" in one trace, the server parented on _meta.traceparent', async () => {
    const client = await connect(weatherServer(), era);
    try {
      await client.callTool({ name: 'get_weather', arguments: {} });
    } finally {
      await client.close();
    }
    const c = span(SpanKind.CLIENT, 'tools/call get_weather');
    const s = span(SpanKind.SERVER, 'tools/call get_weather');
    expect(s.spanContext().traceId).toBe(c.spanContext().traceId);
    expect(s.parentSpanContext?.spanId).toBe(c.spanContext().spanId);
    const common = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': revision, 'network.transport': 'pipe' };
    expect(c.attributes).toMatchObject(common);
    expect(s.attributes).toMatchObject(common);
    expect(s.attributes['jsonrpc.request.id']).toEqual(expect.any(String));
    for (const x of [c, s]) {
      expect(x.attributes['error.type']).toBeUndefined();
      expect(x.status.code).toBe(SpanStatusCode.UNSET);
    }
    // mcp.session.id only on a session (never on 2026-07-28 traffic).
    expect(s.attributes['mcp.session.id']).toBe(era === 'legacy' ? 'session-1' : undefined);
  });

  it('tool_error, a refused call (-32001) and an unknown tool (-32602, not a server error)', async () => {
    const client = await connect(weatherServer(), era);
    try {
      await client.callTool({ name: 'broken', arguments: {} });
      await expect(client.callTool({ name: 'refuse', arguments: {} })).rejects.toThrow('refused here');
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close();
    }
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const broken = span(kind, 'tools/call broken');
      expect(broken.attributes['error.type']).toBe('tool_error');
      expect(broken.status.code).toBe(SpanStatusCode.ERROR);
      const refused = span(kind, 'tools/call refuse');
      expect(refused.attributes).toMatchObject({ 'error.type': '-32001', 'rpc.response.status_code': '-32001' });
      expect(refused.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refused here' });
    }
    const clientUnknown = span(SpanKind.CLIENT, 'tools/call nope');
    expect(clientUnknown.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    const serverUnknown = span(SpanKind.SERVER, 'tools/call nope');
    expect(serverUnknown.attributes['rpc.response.status_code']).toBe('-32602');
    expect(serverUnknown.attributes['error.type']).toBeUndefined();
    expect(serverUnknown.status.code).toBe(SpanStatusCode.UNSET);

    const points = await sdk.histograms();
    expect(new Set(points.map((p) => p.name))).toEqual(new Set(['mcp.client.operation.duration', 'mcp.server.operation.duration', 'mcp.client.session.duration']));
    for (const p of points) {
      expect(p.unit).toBe('s');
      expect(p.boundaries).toEqual(DURATION_BUCKETS_S);
      expect(p.attributes['mcp.session.id']).toBeUndefined();
      expect(p.attributes['jsonrpc.request.id']).toBeUndefined();
    }
    const serverBroken = points.find((p) => p.name === 'mcp.server.operation.duration' && p.attributes['gen_ai.tool.name'] === 'broken');
    expect(serverBroken?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'error.type': 'tool_error', 'mcp.protocol.version': revision });
    expect(serverBroken?.count).toBe(1);
  });
});

describe('trace context from own members only', () => {
  it('a traceparent or a _meta on a polluted Object.prototype parents no server span', async () => {
    const FOREIGN_TRACE = '0af7651916cd43dd8448eb211c80319c';
    const server = weatherServer();
    server.use(serverTelemetry(sdk.providers));
    // Raw messages: what the server reads is exactly what is sent (an McpClient in the same realm would read the
    // polluted prototype itself while building its request).
    const raw = await connectRawClient(server);
    await raw.initialize();
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto['traceparent'] = `00-${FOREIGN_TRACE}-b7ad6b7169203331-01`;
      await raw.request(1, 'tools/call', { name: 'get_weather', arguments: {}, _meta: { progressToken: 'p' } });
      delete proto['traceparent'];
      proto['_meta'] = { traceparent: `00-${FOREIGN_TRACE}-b7ad6b7169203331-01` };
      await raw.request(2, 'tools/call', { name: 'get_weather', arguments: {} });
    } finally {
      delete proto['traceparent'];
      delete proto['_meta'];
      await raw.close();
    }
    const spans = sdk.spans().filter((x) => x.kind === SpanKind.SERVER && x.name === 'tools/call get_weather');
    expect(spans).toHaveLength(2);
    for (const x of spans) {
      expect(x.spanContext().traceId).not.toBe(FOREIGN_TRACE);
      expect(x.parentSpanContext).toBeUndefined();
    }
  });
});

describe('trace context through the gateway', () => {
  it('one trace crosses McpClient → createProxyServer → upstream server, each hop parented on the one before', async () => {
    const upstream = weatherServer();
    upstream.use(serverTelemetry(sdk.providers));
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent }, client: { logger: silent, instrumentation: clientTelemetry(sdk.providers) } });
    front.use(serverTelemetry(sdk.providers));
    const client = await McpClient.connect({ connector: inMemoryConnector(front), logger: silent, instrumentation: clientTelemetry(sdk.providers) });
    const root = sdk.providers.tracerProvider.getTracer('test').startSpan('root');
    try {
      await context.with(trace.setSpan(context.active(), root), () => client.callTool({ name: 'get_weather', arguments: {} }));
    } finally {
      root.end();
      await client.close();
      await front.close();
    }
    const calls = sdk.spans().filter((s) => s.name === 'tools/call get_weather');
    // client → front server → front's upstream client → upstream server
    expect(calls.map((s) => SpanKind[s.kind])).toEqual(['SERVER', 'CLIENT', 'SERVER', 'CLIENT']);
    const [upstreamServer, frontClient, frontServer, downstreamClient] = calls as [ReadableSpan, ReadableSpan, ReadableSpan, ReadableSpan];
    for (const s of calls) expect(s.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(downstreamClient.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(frontServer.parentSpanContext?.spanId).toBe(downstreamClient.spanContext().spanId);
    expect(frontClient.parentSpanContext?.spanId).toBe(frontServer.spanContext().spanId);
    expect(upstreamServer.parentSpanContext?.spanId).toBe(frontClient.spanContext().spanId);
  });
});

describe('instrumentServer: what no middleware sees', () => {
  const envelope = (revision: string) => ({
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  });

  it('a refused modern request (-32022) is a SERVER span with error.type "-32022" and a histogram point; a -32601 refusal has no error.type', async () => {
    const server = weatherServer();
    const detach = instrumentServer(server, sdk.providers);
    const refused = await server.handle({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_weather', arguments: {}, _meta: envelope('2099-01-01') } });
    expect(refused).toMatchObject({ error: { code: -32022 } });
    // A session-only method without a session: -32601, which a server must not count as an error (mcp.md).
    expect(await server.handle({ jsonrpc: '2.0', id: 8, method: 'logging/setLevel', params: { level: 'info' } })).toMatchObject({ error: { code: -32601 } });
    const s = span(SpanKind.SERVER, 'tools/call get_weather');
    expect(s.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'mcp.protocol.version': '2099-01-01', 'error.type': '-32022', 'rpc.response.status_code': '-32022', 'jsonrpc.request.id': '7' });
    expect(s.status.code).toBe(SpanStatusCode.ERROR);
    const setLevel = span(SpanKind.SERVER, 'logging/setLevel');
    expect(setLevel.attributes['rpc.response.status_code']).toBe('-32601');
    expect(setLevel.attributes['error.type']).toBeUndefined();
    expect(setLevel.status.code).toBe(SpanStatusCode.UNSET);
    const points = (await sdk.histograms()).filter((p) => p.name === 'mcp.server.operation.duration');
    expect(points.find((p) => p.attributes['error.type'] === '-32022')?.count).toBe(1);
    expect(points.find((p) => p.attributes['mcp.method.name'] === 'logging/setLevel')?.count).toBe(1);

    detach();
    await server.handle({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_weather', arguments: {}, _meta: envelope('2099-01-01') } });
    expect(sdk.spans()).toHaveLength(2);
  });

  it('one legacy session is one mcp.server.session.duration point and one mcp.client.session.duration point once the client closes', async () => {
    const server = weatherServer();
    instrumentServer(server, sdk.providers);
    const client = await McpClient.connect({ connector: inMemoryConnector(server), era: 'legacy', logger: silent, instrumentation: clientTelemetry(sdk.providers) });
    await client.callTool({ name: 'get_weather', arguments: {} });
    expect((await sdk.histograms()).filter((p) => p.name.endsWith('.session.duration'))).toEqual([]);
    await client.close();
    await vi.waitFor(() => expect(server.sessions.size).toBe(0));
    const points = (await sdk.histograms()).filter((p) => p.name.endsWith('.session.duration'));
    expect(points.map((p) => p.name).sort()).toEqual(['mcp.client.session.duration', 'mcp.server.session.duration']);
    for (const p of points) {
      expect(p.count).toBe(1);
      expect(p.unit).toBe('s');
      expect(p.boundaries).toEqual(DURATION_BUCKETS_S);
      expect(p.attributes).toEqual({ 'mcp.protocol.version': '2025-11-25', 'network.transport': 'pipe' });
    }
  });
});

describe('httpRefusalTelemetry: what the HTTP handler turns away before the server sees a message', () => {
  it('a foreign Origin (403, -32000), a -32022 (error.type "-32022", a histogram point), an unknown session (404, -32001)', async () => {
    const handler = createMcpHttpHandler({ server: weatherServer(), responseMode: 'json', onRefused: httpRefusalTelemetry(sdk.providers) });
    const post = (headers: Record<string, string>, body: unknown) =>
      handler.fetch(new Request('http://localhost/mcp', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }));
    try {
      expect((await post({ origin: 'http://evil.example' }, {})).status).toBe(403);
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } };
      const era = await post({ 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: {}, _meta: meta } });
      expect(((await era.json()) as { error: { code: number } }).error.code).toBe(-32022);
      expect((await post({ 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(404);
    } finally {
      await handler.close();
    }
    const servers = sdk.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers.map((s) => s.name)).toEqual(['POST /mcp', 'tools/call', 'POST /mcp']);
    const origin = servers[0]!;
    expect(servers[2]!.attributes).toMatchObject({ 'http.response.status_code': 404, 'rpc.response.status_code': '-32001', 'error.type': '-32001' });
    expect(origin.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 403, 'http.route': '/mcp', 'network.transport': 'tcp', 'network.protocol.name': 'http' });
    // The handler's 403 carries a JSON-RPC error (-32000) in its body: its code decides, as on every MCP span.
    expect(origin.attributes).toMatchObject({ 'rpc.response.status_code': '-32000', 'error.type': '-32000' });
    expect(origin.status.code).toBe(SpanStatusCode.ERROR);
    expect(origin.attributes['mcp.method.name']).toBeUndefined();
    const refused = span(SpanKind.SERVER, 'tools/call');
    expect(refused.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'rpc.response.status_code': '-32022', 'error.type': '-32022', 'http.response.status_code': 400 });
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
    const points = (await sdk.histograms()).filter((p) => p.name === 'mcp.server.operation.duration');
    expect(points.map((p) => [p.attributes['error.type'], p.count])).toEqual([['-32022', 1]]);
  });
});

describe('analyticsMetrics: the failure analytics as OpenTelemetry counters', () => {
  it('one cumulative point per row and class, per method, tool and client; users only when asked', async () => {
    const server = weatherServer();
    const { analytics } = attachAnalytics(server);
    const detach = analyticsMetrics(analytics, sdk.providers);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'host', version: '2' } };
    const callTool = (id: number, name: string) => server.handle({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: meta } });
    await callTool(1, 'get_weather');
    await callTool(2, 'broken');
    await callTool(3, 'broken');
    await callTool(4, 'nope');
    analytics.record({ outcome: { kind: 'client', code: 'request_timeout' }, method: 'tools/call', tool: 'get_weather', user: 'alice' });
    const points = (await sdk.sums()).map((p) => ({ name: p.name, unit: p.unit, value: p.value, attributes: p.attributes }));
    expect(points).toEqual(expect.arrayContaining([
      { name: 'switchboard.mcp.requests', unit: '{request}', value: 2, attributes: { 'mcp.method.name': 'tools/call', 'switchboard.mcp.outcome': 'tool_error' } },
      { name: 'switchboard.mcp.tool.requests', unit: '{request}', value: 2, attributes: { 'gen_ai.tool.name': 'broken', 'switchboard.mcp.outcome': 'tool_error' } },
      { name: 'switchboard.mcp.tool.requests', unit: '{request}', value: 1, attributes: { 'gen_ai.tool.name': 'get_weather', 'switchboard.mcp.outcome': 'timeout' } },
      { name: 'switchboard.mcp.tool.requests', unit: '{request}', value: 1, attributes: { 'gen_ai.tool.name': 'nope', 'switchboard.mcp.outcome': 'protocol_error' } },
      { name: 'switchboard.mcp.client.requests', unit: '{request}', value: 2, attributes: { 'switchboard.mcp.client': 'host/2', 'switchboard.mcp.outcome': 'tool_error' } },
    ]));
    expect(points.filter((p) => p.name === 'switchboard.mcp.tool.requests')).toHaveLength(4); // no zero points
    expect(points.some((p) => p.name === 'switchboard.mcp.user.requests')).toBe(false);
    detach();
    const users = analyticsMetrics(analytics, { ...sdk.providers, users: true });
    const after = await sdk.sums();
    expect(after.find((p) => p.name === 'switchboard.mcp.user.requests')).toMatchObject({ value: 1, attributes: { 'user.id': 'alice', 'switchboard.mcp.outcome': 'timeout' } });
    users();
  });
});
