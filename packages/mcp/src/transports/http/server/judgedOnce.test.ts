/**
 * Each request is judged once: the Streamable HTTP ladder runs the inbound step (`protocol/inbound.ts`) on a modern
 * POST, between its header rungs, and hands the accepted message to the server with `judged: true`; the server's gate
 * (`server/inboundGate.ts`) then lets it through without running the step again. A message handed over without the
 * flag is still judged by the server (every other transport, and `McpServer.handle` called directly).
 */
import { silentLogger } from '@switchboard/jsonrpc';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Transport } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { PROTOCOL_VERSION_META_KEY } from '../../../protocol/envelope.js';
import { createMcpHttpHandler } from '../index.js';
import type { HttpConnectOptions, HttpHandleOptions, HttpSessionHandle, McpHttpServerLike } from './serverLike.js';

const MODERN = '2026-07-28';
const META = { [PROTOCOL_VERSION_META_KEY]: MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A real McpServer behind a server-like that records the options each modern message reached `handle` with. */
class RecordingServer implements McpHttpServerLike {
  readonly judged: (boolean | undefined)[] = [];
  readonly #server: McpServer;

  constructor(server: McpServer) {
    this.#server = server;
  }

  get servedRevisions() {
    return this.#server.servedRevisions;
  }

  get capabilities() {
    return this.#server.capabilities;
  }

  connect(transport: Transport, options?: HttpConnectOptions): Promise<HttpSessionHandle> {
    return this.#server.connect(transport, options);
  }

  paramHeaders(toolName: string) {
    return this.#server.paramHeaders(toolName);
  }

  handle = (message: JsonRpcRequest | JsonRpcNotification, options?: HttpHandleOptions): Promise<JsonRpcResponse | undefined> => {
    this.judged.push(options?.judged);
    return this.#server.handle(message, options);
  };
}

function post(body: unknown, headers: Record<string, string>): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, ...headers },
    body: JSON.stringify(body),
  });
}

function echoServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'judged-once', version: '1.0.0' }, { logger: silentLogger, ...options });
  server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  return server;
}

describe('each modern HTTP request is judged once', () => {
  it('the ladder hands every modern message it accepted to the server as judged', async () => {
    const server = new RecordingServer(echoServer());
    const handler = createMcpHttpHandler({ server });
    const call = await handler.fetch(post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: META } }, { 'mcp-method': 'tools/call', 'mcp-name': 'echo' }));
    expect(call.status).toBe(200);
    expect(await call.json()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'echo' }] } });
    const note = await handler.fetch(post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN } } }, {}));
    expect(note.status).toBe(202);
    expect(server.judged).toEqual([true, true]);
    await handler.close();
  });

  it('a refusal of the inbound step is the ladder\'s: the server never sees the message', async () => {
    const server = new RecordingServer(echoServer());
    const handler = createMcpHttpHandler({ server });
    const unknown = await handler.fetch(post({ jsonrpc: '2.0', id: 2, method: 'nope/nope', params: { _meta: META } }, { 'mcp-method': 'nope/nope' }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(server.judged).toEqual([]);
    await handler.close();
  });
});

describe('McpServer.handle: the judged hand-off', () => {
  // A server of the session-based revisions alone refuses a modern claim (-32022) in its gate.
  const claim = (id: number): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: META } });

  it('judges a message handed over without the flag', async () => {
    const server = echoServer({ revisions: ['2025-11-25'] });
    expect(await server.handle(claim(1))).toMatchObject({ id: 1, error: { code: -32022 } });
  });

  it('does not judge again a message the transport judged (the gate lets it through)', async () => {
    const server = echoServer({ revisions: ['2025-11-25'] });
    const response = await server.handle(claim(2), { judged: true });
    expect(response).toMatchObject({ id: 2, result: { tools: [{ name: 'echo' }] } });
  });
});
