/**
 * `@switchboard/otel` over real transports: an McpClient against `serveHttp` on 127.0.0.1 (both eras: spans,
 * `network.transport` `tcp`, `server.address`/`server.port`, the session id of a legacy HTTP session on both sides),
 * and against a stdio child process that runs `serverTelemetry` itself and reports the server span it is inside.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Logger } from '@switchboard/jsonrpc';
import { McpClient, InMemoryEraVerdictStore, streamableHttp } from '@switchboard/mcp/client';
import { serveHttp } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { clientTelemetry, serverTelemetry } from '@switchboard/otel';
import { otelSdk } from './helpers/otelSdk.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

let sdk: ReturnType<typeof otelSdk>;
beforeEach(() => {
  sdk = otelSdk();
});
afterEach(async () => {
  await sdk.shutdown();
});

function only(kind: SpanKind, name: string): ReadableSpan {
  const found = sdk.spans().filter((s) => s.kind === kind && s.name === name);
  expect(found, `${SpanKind[kind]} ${name}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

describe.each([
  ['legacy', '2025-11-25'],
  ['modern', '2026-07-28'],
] as const)('over HTTP (serveHttp on 127.0.0.1, %s era)', (era, revision) => {
  it('ok, tool_error and -32602: spans on both sides with tcp, server.address/port and the session id on a session only', async () => {
    const server = new McpServer({ name: 'weather', version: '1.0.0' }, { logger: silent });
    server.use(serverTelemetry(sdk.providers));
    server.tool('get_weather', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'sunny' }] }));
    server.tool('broken', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'no station' }], isError: true }));
    const http = await serveHttp({ server, port: 0 });
    const client = await McpClient.connect({
      connector: streamableHttp({ url: http.url }),
      era,
      logger: silent,
      verdictStore: new InMemoryEraVerdictStore(),
      instrumentation: clientTelemetry({ ...sdk.providers, serverAddress: '127.0.0.1', serverPort: http.port }),
    });
    try {
      await client.callTool({ name: 'get_weather', arguments: {} });
      await client.callTool({ name: 'broken', arguments: {} });
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close();
      await http.close({ drainMs: 0 });
      await server.close();
    }
    const c = only(SpanKind.CLIENT, 'tools/call get_weather');
    const s = only(SpanKind.SERVER, 'tools/call get_weather');
    expect(s.parentSpanContext?.spanId).toBe(c.spanContext().spanId);
    expect(c.attributes).toMatchObject({ 'network.transport': 'tcp', 'network.protocol.name': 'http', 'server.address': '127.0.0.1', 'server.port': http.port, 'mcp.protocol.version': revision });
    expect(s.attributes).toMatchObject({ 'network.transport': 'tcp', 'network.protocol.name': 'http', 'mcp.protocol.version': revision, 'gen_ai.operation.name': 'execute_tool' });
    if (era === 'legacy') {
      expect(s.attributes['mcp.session.id']).toEqual(expect.any(String));
      expect(c.attributes['mcp.session.id']).toBe(s.attributes['mcp.session.id']);
    } else {
      expect(s.attributes['mcp.session.id']).toBeUndefined();
      expect(c.attributes['mcp.session.id']).toBeUndefined();
    }
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      expect(only(kind, 'tools/call broken').attributes['error.type']).toBe('tool_error');
    }
    expect(only(SpanKind.CLIENT, 'tools/call nope').status.code).toBe(SpanStatusCode.ERROR);
    expect(only(SpanKind.SERVER, 'tools/call nope').status.code).toBe(SpanStatusCode.UNSET);
  });
});

/** A stdio server whose tool answers with the server span it runs in (its own SDK, in the child process). */
const STDIO_SERVER = `
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { McpServer } from '@switchboard/mcp/server';
import { serveStdio } from '@switchboard/mcp/stdio';
import { serverTelemetry } from '@switchboard/otel';
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const server = new McpServer({ name: 'stdio-otel', version: '1.0.0' });
server.use(serverTelemetry({ tracerProvider: new TracerProvider(), propagator: new W3CTraceContextPropagator() }));
server.tool('whoami', {}, () => {
  const span = trace.getActiveSpan();
  const facts = { name: span.name, kind: span.kind, traceId: span.spanContext().traceId, parentSpanId: span.parentSpanContext?.spanId, attributes: span.attributes };
  return { content: [{ type: 'text', text: JSON.stringify(facts) }] };
});
await serveStdio(server);
`;

describe('over stdio (a child process)', () => {
  it('the client span is pipe; the child server span is pipe, SERVER, and parented on the client span through _meta.traceparent', async () => {
    const client = await McpClient.connect({
      connector: spawnStdio({ command: process.execPath, args: ['--input-type=module', '-e', STDIO_SERVER], cwd: ROOT }),
      logger: silent,
      verdictStore: new InMemoryEraVerdictStore(),
      instrumentation: clientTelemetry(sdk.providers),
    });
    let text: string;
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      text = (result.content[0] as { text: string }).text;
    } finally {
      await client.close();
    }
    const served = JSON.parse(text) as { name: string; kind: number; traceId: string; parentSpanId: string; attributes: Record<string, unknown> };
    const c = only(SpanKind.CLIENT, 'tools/call whoami');
    expect(c.attributes['network.transport']).toBe('pipe');
    expect(served).toMatchObject({ name: 'tools/call whoami', kind: SpanKind.SERVER, traceId: c.spanContext().traceId, parentSpanId: c.spanContext().spanId });
    expect(served.attributes).toMatchObject({ 'network.transport': 'pipe', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'whoami' });
  });
});
