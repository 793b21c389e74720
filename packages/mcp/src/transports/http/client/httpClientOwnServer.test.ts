/**
 * The HTTP client transports, used raw (a request sent as JSON, the response read from `onmessage`), against our
 * own server on 127.0.0.1 (`serveHttp`): Streamable HTTP on a session (2025-11-25) and at 2026-07-28, and the
 * 2024-11-05 HTTP+SSE endpoint.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { serveHttp, type ServeHttpHandle } from '../../node/index.js';
import { capture, collect } from './clientFakeServer.test.js';
import { httpSse, streamableHttp } from './clientConnectors.js';
import type { HttpSseClientTransport } from './httpSseClient.js';
import { closeRequestSseStream } from '../server/sessions/ssePolling.js';
import type { StreamableHttpClientTransport } from './streamableHttpClient.js';
import { compileParamHeaders } from '../../../protocol/paramHeaders.js';

const CLIENT_INFO = { name: 'raw-client', version: '1.0.0' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};
const REGION_SCHEMA = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } as const;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let server: McpServer;
let http: ServeHttpHandle;
let transport: StreamableHttpClientTransport | HttpSseClientTransport | undefined;
let sawAbort: Promise<void>;
let noteAbort: () => void;

beforeEach(async () => {
  sawAbort = new Promise<void>((resolve) => (noteAbort = resolve));
  server = new McpServer({ name: 'own', version: '1.0.0' }, { logger: capture() });
  server.tool('slow', {}, async (_args, ctx) => {
    await ctx.progress(1, 2, 'half');
    await sleep(50);
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
  });
  server.tool('poll', {}, async (_args, ctx) => {
    closeRequestSseStream(ctx, { retryMs: 20 });
    await sleep(100);
    return { content: [{ type: 'text', text: 'polled' }] };
  });
  server.tool('where', { inputSchema: REGION_SCHEMA }, (args: { region?: string }) => ({ content: [{ type: 'text', text: `in ${args.region ?? '?'}` }] }));
  server.tool('wait', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    noteAbort();
    return { content: [] };
  });
  http = await serveHttp({ server, port: 0 });
});

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await http.close({ drainMs: 0 });
  await server.close();
});

async function openStreamable(): Promise<{ t: StreamableHttpClientTransport; inbox: ReturnType<typeof collect> }> {
  const t = (await streamableHttp({ url: http.url }).open({ logger: capture() })) as StreamableHttpClientTransport;
  transport = t;
  return { t, inbox: collect(t) };
}

describe('Streamable HTTP client against our server, on a session (2025-11-25)', () => {
  async function session() {
    const { t, inbox } = await openStreamable();
    await t.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: CLIENT_INFO } });
    const init = await inbox.next((m) => m.id === 0);
    expect(init.result.protocolVersion).toBe('2025-11-25');
    expect(t.sessionId).toMatch(/^[\x21-\x7E]+$/);
    t.setProtocol({ era: 'legacy', revision: '2025-11-25' });
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return { t, inbox };
  }

  it('a tool call with progress: the notification, then the result', async () => {
    const { t, inbox } = await session();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'tok' } } });
    const result = await inbox.next((m) => m.id === 1);
    expect(result).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'slow done' }] } });
    const messages = inbox.received.map((m) => ('message' in m ? m.message : m));
    const progress = messages.findIndex((m: any) => m.method === 'notifications/progress');
    expect(messages[progress]).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 2, message: 'half' } });
    expect(progress).toBeLessThan(messages.indexOf(result));
  });

  it('a server request on the POST stream is answered with a POST of the response', async () => {
    const { t, inbox } = await session();
    await Promise.all([
      t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask' } }),
      (async () => {
        const ask = await inbox.next((m) => m.method === 'elicitation/create');
        await t.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } });
      })(),
    ]);
    expect(await inbox.next((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hello Ada' }] } });
  });

  it('a stream the server closes on purpose is resumed with GET + Last-Event-ID and the result arrives', async () => {
    const { t, inbox } = await session();
    await t.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'poll' } });
    expect(await inbox.next((m) => m.id === 3)).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'polled' }] } });
  });

  it('close() ends the session with DELETE: the id is unknown afterwards', async () => {
    const { t } = await session();
    const id = t.sessionId as string;
    await t.close();
    transport = undefined;
    const after = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    });
    expect(after.status).toBe(404);
  });

  it('a server restart on the same port: the next request fails with SessionExpiredError', async () => {
    const { t } = await session();
    const port = http.port;
    await http.close({ drainMs: 0 });
    http = await serveHttp({ server, port });
    const error = (await t.send({ jsonrpc: '2.0', id: 4, method: 'ping' }).catch((e: unknown) => e)) as Error;
    expect(error.name).toBe('SessionExpiredError');
    expect(t.sessionId).toBeUndefined();
  });
});

describe('Streamable HTTP client against our server at 2026-07-28', () => {
  it('the server checks the standard headers: Mcp-Method, Mcp-Name and an encoded Mcp-Param-Region pass', async () => {
    const { t, inbox } = await openStreamable();
    t.setProtocol({ era: 'modern', revision: '2026-07-28' });
    t.setToolParamHeaders('where', compileParamHeaders(REGION_SCHEMA, { toolName: 'where' }));
    await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'where', arguments: { region: 'Zürich' }, _meta: MODERN_META } });
    const answer = await inbox.next((m) => m.id === 1);
    expect(answer.result.content).toEqual([{ type: 'text', text: 'in Zürich' }]);
    expect(answer.result.resultType).toBe('complete');
  });

  it('without the Mcp-Param header the server refuses: the -32020 response is delivered (it carries the id)', async () => {
    const { t, inbox } = await openStreamable();
    t.setProtocol({ era: 'modern', revision: '2026-07-28' });
    await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'where', arguments: { region: 'eu' }, _meta: MODERN_META } });
    const answer = await inbox.next((m) => m.id === 2);
    expect(answer.error.code).toBe(-32020);
  });

  it('abandonRequest closes the stream: the server sees the cancellation', async () => {
    const { t } = await openStreamable();
    t.setProtocol({ era: 'modern', revision: '2026-07-28' });
    const sent = t.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait', _meta: MODERN_META } });
    await sleep(100);
    expect(t.abandonRequest(3)).toBe(true);
    await sent;
    await sawAbort;
  });
});

describe('HTTP+SSE client (2024-11-05) against our /sse endpoint', () => {
  it('GET /sse, the endpoint event, POSTs there, answers on the stream; the server closing the stream closes the transport', async () => {
    const t = (await httpSse({ url: new URL('/sse', http.url) }).open({ logger: capture() })) as HttpSseClientTransport;
    transport = t;
    const inbox = collect(t);
    expect(t.endpoint?.origin).toBe(new URL(http.url).origin);
    await t.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: CLIENT_INFO } });
    expect((await inbox.next((m) => m.id === 0)).result.protocolVersion).toBe('2024-11-05');
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    expect(await inbox.next((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'slow done' }] } });
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await http.close({ drainMs: 0 });
    await closed;
    expect(t.endFacts?.reason).toMatch(/^the SSE stream (ended|failed)/);
    http = await serveHttp({ server, port: 0 });
  });

  it('openHttpSse of a Streamable HTTP connector GETs the same URL', async () => {
    const connector = streamableHttp({ url: new URL('/sse', http.url) });
    const t = (await connector.openHttpSse?.({ logger: capture() })) as HttpSseClientTransport;
    transport = t;
    expect(t.kind).toBe('http-sse');
    expect(t.endpoint?.pathname).toBe('/messages');
  });
});
