/**
 * Streamable HTTP for the modern era (2026-07-28) on the wire: every row of the status table the HTTP layer
 * decides, the request metadata headers, the stateless exchange (JSON or SSE, no session id, no event ids, 202 for
 * notifications, closing the stream cancels), and a session of the legacy era served by the same endpoint at the
 * same time. Through the Web handler (`web`) and the direct Node adapter over a socket on 127.0.0.1 (`node`); the
 * cancellation rows also through the Node adapter's fetch path (`node-fetch`).
 *
 * The server: a real `McpServer` behind {@link ModernServer}, which records what reached `handle` and answers
 * `wait` and `subscriptions/listen` itself to observe the request's signal; the last block serves the same rows
 * from McpServer alone (results, server/discover, ctx.signal, listen streams, input requests).
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import { silentLogger } from '@switchboard/jsonrpc';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Transport } from '@switchboard/jsonrpc';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { PROTOCOL_VERSION_META_KEY } from '../../../protocol/envelope.js';
import { compileParamHeaders, encodeHeaderValue } from '../../../protocol/paramHeaders.js';
import type { ParamHeader } from '../../../protocol/paramHeaders.js';
import { PROTOCOL_REVISIONS } from '../../../protocol/revisions.js';
import type { ProtocolRevision } from '../../../protocol/revisions.js';
import type { ServerCapabilities } from '../../../protocol/types.js';
import { createMcpHttpHandler } from '../index.js';
import type { McpHttpHandlerOptions } from '../index.js';
import type { HttpConnectOptions, HttpHandleOptions, HttpSessionHandle, McpHttpServerLike } from './serverLike.js';
import { serveHttp } from '../../node/index.js';

const MODERN = '2026-07-28';
const ACCEPT_BOTH = 'application/json, text/event-stream';
/** A modern-era complete result as the server sends it: `resultType` and its identity in `_meta`. */
function complete(result: Record<string, unknown>): Record<string, unknown> {
  return { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-http-test', version: '1.0.0' } } };
}

const META = { [PROTOCOL_VERSION_META_KEY]: MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const REGION_SCHEMA = {
  type: 'object',
  properties: { region: { type: ['string', 'null'], 'x-mcp-header': 'Region' }, query: { type: 'string' } },
} as const;

/** The real server under test: its tools, and a record of what its handlers saw. */
function createServer(seen: string[]): McpServer {
  const server = new McpServer({ name: 'modern-http-test', version: '1.0.0' }, { logger: silentLogger });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) =>
    ({ content: [{ type: 'text', text: `echo:${args.text ?? ''}` }] }));
  server.tool('sql', { inputSchema: REGION_SCHEMA }, (args: { region?: string | null }) =>
    ({ content: [{ type: 'text', text: `region:${String(args.region)}` }] }));
  server.tool('steps', {}, async (_args, ctx) => {
    await ctx.progress(1, 2, 'half');
    await sleep(20);
    return { content: [{ type: 'text', text: 'steps:done' }] };
  });
  server.tool('slow', {}, async () => {
    await sleep(150);
    return { content: [{ type: 'text', text: 'slow:done' }] };
  });
  server.tool('wait', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    seen.push('wait: ctx.signal aborted');
    return { content: [{ type: 'text', text: 'never sent' }] };
  });
  server.tool('needs_sampling', {}, async (_args, ctx) => {
    await ctx.sample({ messages: [], maxTokens: 1 });
    return { content: [{ type: 'text', text: 'unreachable' }] };
  });
  seen.length = 0;
  return server;
}

/**
 * The modern surface over a real McpServer (see the module comment): `handle(message, { channel, signal, extra })`
 * answers through the server's own session-free `handle` with the facts read from `_meta`; `wait` and
 * `subscriptions/listen` are answered here, to observe the request's signal.
 */
class ModernServer implements McpHttpServerLike {
  readonly servedRevisions: readonly ProtocolRevision[];
  readonly handled: (JsonRpcRequest | JsonRpcNotification)[] = [];
  readonly events: string[] = [];
  readonly #server: McpServer;
  readonly #headers = new Map<string, readonly ParamHeader[]>([['sql', compileParamHeaders(REGION_SCHEMA)], ['echo', compileParamHeaders({})]]);

  constructor(server: McpServer, served: readonly ProtocolRevision[] = PROTOCOL_REVISIONS) {
    this.#server = server;
    this.servedRevisions = served;
  }

  get logger(): McpServer['logger'] {
    return this.#server.logger;
  }

  get capabilities(): ServerCapabilities {
    return this.#server.capabilities;
  }

  connect(transport: Transport, options?: HttpConnectOptions): Promise<HttpSessionHandle> {
    return this.#server.connect(transport, options);
  }

  paramHeaders(toolName: string): readonly ParamHeader[] | undefined {
    return this.#headers.get(toolName);
  }

  readonly handle = async (message: JsonRpcRequest | JsonRpcNotification, options: HttpHandleOptions = {}): Promise<JsonRpcResponse | undefined> => {
    this.handled.push(message);
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (message.method === 'tools/call' && params.name === 'hear') {
      // Listens through the request's cancellation only: no signal is read.
      const cancellation = options.contextRequest?.cancellation;
      await new Promise<void>((resolve) => cancellation?.onCancel(() => {
        this.events.push(`cancelled:${String((message as JsonRpcRequest).id)}`);
        resolve();
      }));
      return undefined;
    }
    const signal = options.signal;
    signal?.addEventListener('abort', () => this.events.push(`aborted:${'id' in message ? String(message.id) : message.method}`), { once: true });
    if (!('id' in message)) return undefined;
    if (message.method === 'subscriptions/listen' || (message.method === 'tools/call' && params.name === 'wait')) {
      if (message.method === 'subscriptions/listen') {
        await options.channel?.notify('notifications/subscriptions/acknowledged', { _meta: { 'io.modelcontextprotocol/subscriptionId': message.id }, notifications: {} });
      }
      await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      return undefined;
    }
    return this.#server.handle(message, options);
  };
}

// ---------------------------------------------------------------------------------------------------------
// Targets

type PathKind = 'web' | 'node' | 'node-fetch';

interface Exchange {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

interface Target {
  /** Sends one request; `signal` aborts it (the client goes away). */
  send(method: string, init: { headers?: Record<string, string>; body?: string; signal?: AbortSignal }): Promise<Response>;
  close(): Promise<void>;
}

function rawRequest(port: number, method: string, init: { headers?: Record<string, string>; body?: string; signal?: AbortSignal }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: '/mcp', headers: init.headers, agent: false, signal: init.signal }, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      resolve(new Response(Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>, { status: res.statusCode ?? 0, headers }));
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

async function startTarget(kind: PathKind, server: McpHttpServerLike, options: Partial<McpHttpHandlerOptions> = {}): Promise<Target> {
  if (kind === 'web') {
    const handler = createMcpHttpHandler({ server, ...options });
    return {
      send: (method, init) => handler.fetch(new Request('http://localhost/mcp', { method, headers: init.headers, body: init.body, signal: init.signal })),
      close: () => handler.close(),
    };
  }
  const handle = await serveHttp({ server, ...options, via: kind === 'node' ? 'direct' : 'fetch' });
  return { send: (method, init) => rawRequest(handle.port, method, init), close: () => handle.close() };
}

async function read(res: Response): Promise<Exchange> {
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The JSON-RPC messages of an SSE body (or the one JSON body). */
function messages(exchange: Exchange): unknown[] {
  if (!(exchange.headers.get('content-type') ?? '').startsWith('text/event-stream')) return exchange.text === '' ? [] : [JSON.parse(exchange.text)];
  return exchange.text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as unknown);
}

let nextId = 1;

/** A modern request body with its standard headers (overridable; `undefined` removes one). */
function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}): { headers: Record<string, string>; body: string; id: number } {
  const id = nextId++;
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const all: Record<string, string | undefined> = {
    'Content-Type': 'application/json',
    Accept: ACCEPT_BOTH,
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
    ...(name === undefined ? {} : { 'Mcp-Name': encodeHeaderValue(name) }),
    ...headers,
  };
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(all)) if (value !== undefined) clean[key] = value;
  return { headers: clean, id, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: META, ...params } }) };
}

function initialize(id: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } } });
}

// ---------------------------------------------------------------------------------------------------------

describe.each(['web', 'node'] as const)('modern Streamable HTTP via %s', (kind) => {
  const seen: string[] = [];
  let server: ModernServer;
  let t: Target;

  beforeEach(async () => {
    server = new ModernServer(createServer(seen));
    t = await startTarget(kind, server, { sseKeepAliveMs: 30 });
  });

  afterEach(async () => {
    await t.close();
  });

  async function post(request: { headers: Record<string, string>; body: string }): Promise<Exchange> {
    return read(await t.send('POST', request));
  }

  async function refused(request: { headers: Record<string, string>; body: string; id: number }, status: number, code: number): Promise<Record<string, unknown>> {
    const answer = await post(request);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    const body = JSON.parse(answer.text) as { error: Record<string, unknown> };
    // sep-2575-http-server-error-jsonrpc-id: an error answer carries the request's id.
    expect(body).toMatchObject({ jsonrpc: '2.0', id: request.id, error: { code } });
    return body.error;
  }

  it('a request: one JSON answer with the result, no Mcp-Session-Id, handed to handle() with no session', async () => {
    const request = modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const answer = await post(request);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(JSON.parse(answer.text)).toEqual({ jsonrpc: '2.0', id: request.id, result: complete({ content: [{ type: 'text', text: 'echo:hi' }] }) });
    expect(server.handled).toHaveLength(1);
  });

  it('a stale Mcp-Session-Id and a Last-Event-ID are ignored on modern traffic', async () => {
    const request = modern('tools/list', {}, { 'Mcp-Session-Id': 'no-such-session', 'Last-Event-ID': 'x.1.1' });
    const answer = await post(request);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(messages(answer)).toMatchObject([{ id: request.id, result: { tools: expect.any(Array) as unknown[] } }]);
  });

  it('a notification first: an SSE answer, the notification then the response, no event ids, X-Accel-Buffering: no', async () => {
    const request = modern('tools/call', { name: 'steps', _meta: { ...META, progressToken: 'p1' } });
    const answer = await post(request);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(answer.headers.get('x-accel-buffering')).toBe('no');
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(answer.text).not.toMatch(/^id:/m);
    expect(messages(answer)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'half' } },
      { jsonrpc: '2.0', id: request.id, result: complete({ content: [{ type: 'text', text: 'steps:done' }] }) },
    ]);
  });

  it('a long SSE answer carries keep-alive comments', async () => {
    // Nothing within sseAfterMs (50 ms): the answer becomes a stream, kept alive every 30 ms until it ends. Read
    // until a comment arrives rather than counting on a tool's timing (flaky under load).
    const controller = new AbortController();
    const res = await t.send('POST', { ...modern('tools/call', { name: 'wait' }), signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': keep-alive\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe(': keep-alive\n\n'.repeat(text.length / ': keep-alive\n\n'.length));
    await reader.cancel();
    controller.abort();
  });

  it('a client that accepts only JSON gets JSON (its notifications are dropped)', async () => {
    const request = modern('tools/call', { name: 'steps', _meta: { ...META, progressToken: 'p1' } }, { Accept: 'application/json' });
    const answer = await post(request);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(answer.text)).toMatchObject({ id: request.id, result: { content: [{ text: 'steps:done' }] } });
  });

  it('-32021 from the handler is HTTP 400 with the JSON error; other in-band errors stay 200', async () => {
    const error = await refused(modern('tools/call', { name: 'needs_sampling' }), 400, -32021);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    const unknownTool = modern('tools/call', { name: 'nope' });
    const answer = await post(unknownTool);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ id: unknownTool.id, error: { code: -32602 } });
  });

  it('a notification POST is 202 with no body; notifications/cancelled cancels nothing (B23)', async () => {
    const waiting = t.send('POST', modern('tools/call', { name: 'wait' }));
    await sleep(30);
    const cancel = await read(await t.send('POST', {
      headers: { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'notifications/cancelled' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN } } }),
    }));
    expect(cancel).toMatchObject({ status: 202, text: '' });
    expect(cancel.headers.get('mcp-session-id')).toBeNull();
    const other = await read(await t.send('POST', {
      headers: { 'Content-Type': 'application/json', 'MCP-Protocol-Version': MODERN },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN } } }),
    }));
    expect(other).toMatchObject({ status: 202, text: '' });
    await sleep(20);
    expect(server.events).toEqual([]);
    expect(server.handled.map((m) => m.method)).toEqual(['tools/call', 'notifications/whatever']);
    void waiting.then((res) => res.body?.cancel()).catch(() => undefined);
  });

  describe('headers against the body (-32020, HTTP 400)', () => {
    it('MCP-Protocol-Version must be there and equal the body claim, before the revision is checked', async () => {
      await refused(modern('tools/list', {}, { 'MCP-Protocol-Version': undefined }), 400, -32020);
      await refused(modern('tools/list', {}, { 'MCP-Protocol-Version': '2025-11-25' }), 400, -32020);
      // Header 2026-07-28 with a body claiming v999.0.0: the mismatch wins over the unsupported version.
      const mismatch = modern('server/discover', { _meta: { ...META, [PROTOCOL_VERSION_META_KEY]: 'v999.0.0' } });
      expect((await refused(mismatch, 400, -32020)).message).toBe("Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match the body's protocol version 'v999.0.0'");
      // A claim that is no string (or an empty one) is a malformed envelope, named as such: nothing to match.
      for (const claim of [7, '', null]) {
        const malformed = await refused(modern('tools/list', { _meta: { ...META, [PROTOCOL_VERSION_META_KEY]: claim } }), 400, -32602);
        expect(malformed.message).toContain('"io.modelcontextprotocol/protocolVersion" in params._meta must be a non-empty string');
      }
    });

    it('Mcp-Method must be there and equal the method: names without case, values with it, white space trimmed', async () => {
      await refused(modern('tools/list', {}, { 'Mcp-Method': undefined }), 400, -32020);
      const wrong = await refused(modern('tools/list', {}, { 'Mcp-Method': 'prompts/list' }), 400, -32020);
      expect(wrong.message).toBe("Header mismatch: Mcp-Method header value 'prompts/list' does not match the body's method 'tools/list'");
      await refused(modern('tools/list', {}, { 'Mcp-Method': 'TOOLS/LIST' }), 400, -32020);
      for (const name of ['mcp-method', 'MCP-METHOD']) {
        const answer = await post(modern('tools/list', {}, { 'Mcp-Method': undefined, [name]: 'tools/list' }));
        expect(answer.status).toBe(200);
      }
      expect((await post(modern('tools/list', {}, { 'Mcp-Method': '  tools/list \t' }))).status).toBe(200);
    });

    it('Mcp-Name must be there and equal params.name or params.uri, decoded from base64', async () => {
      await refused(modern('tools/call', { name: 'echo' }, { 'Mcp-Name': undefined }), 400, -32020);
      const wrong = await refused(modern('tools/call', { name: 'echo' }, { 'Mcp-Name': 'wrong_tool_name' }), 400, -32020);
      expect(wrong.message).toBe("Header mismatch: Mcp-Name header value 'wrong_tool_name' does not match the body's params.name 'echo'");
      await refused(modern('resources/read', { uri: 'test://a' }, { 'Mcp-Name': 'test://b' }), 400, -32020);
      await refused(modern('tools/call', { name: 'echo' }, { 'Mcp-Name': '=?base64?ZWNobw?=' }), 400, -32020);
      expect((await post(modern('tools/call', { name: 'echo' }, { 'Mcp-Name': '  echo  ' }))).status).toBe(200);
      expect((await post(modern('tools/call', { name: 'echo' }, { 'Mcp-Name': '=?base64?ZWNobw==?=' }))).status).toBe(200);
      expect((await post(modern('tools/call', { name: 'echo' }, { 'mcp-name': 'echo', 'Mcp-Name': undefined }))).status).toBe(200);
    });

    it('Mcp-Param-* per x-mcp-header: present, base64, literal, absent, null', async () => {
      const ok = async (args: Record<string, unknown>, headers: Record<string, string | undefined>, text: string): Promise<void> => {
        const answer = await post(modern('tools/call', { name: 'sql', arguments: args }, headers));
        expect(answer.status).toBe(200);
        expect(messages(answer)).toMatchObject([{ result: { content: [{ text }] } }]);
      };
      await ok({ region: 'us-west1' }, { 'Mcp-Param-Region': 'us-west1' }, 'region:us-west1');
      await ok({ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8=?=' }, 'region:Hello');
      await ok({ region: 'SGVsbG8=' }, { 'Mcp-Param-Region': 'SGVsbG8=' }, 'region:SGVsbG8=');
      await ok({ region: '=?base64?SGVsbG8=' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8=' }, 'region:=?base64?SGVsbG8=');
      await ok({ query: 'q' }, {}, 'region:undefined');
      await ok({ region: null }, {}, 'region:null');
      const missing = await refused(modern('tools/call', { name: 'sql', arguments: { region: 'eu' } }), 400, -32020);
      expect(missing.message).toBe('Header mismatch: Mcp-Param-Region header is missing, but arguments.region is "eu"');
      await refused(modern('tools/call', { name: 'sql', arguments: { region: 'Hello' } }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }), 400, -32020);
      await refused(modern('tools/call', { name: 'sql', arguments: { region: 'Hello' } }, { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }), 400, -32020);
      await refused(modern('tools/call', { name: 'sql', arguments: { region: 'eu' } }, { 'Mcp-Param-Region': 'EU' }), 400, -32020);
    });
  });

  describe('the envelope and the method (neutral rungs over HTTP)', () => {
    it('a missing or malformed _meta field is -32602, HTTP 400, with the id', async () => {
      const bare = (params: Record<string, unknown>): { headers: Record<string, string>; body: string; id: number } => {
        const request = modern('server/discover');
        return { ...request, body: JSON.stringify({ jsonrpc: '2.0', id: request.id, method: 'server/discover', params }) };
      };
      await refused(bare({}), 400, -32602);
      await refused(bare({ _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }), 400, -32602);
      await refused(bare({ _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN } }), 400, -32602);
      await refused(bare({ _meta: { ...META, 'io.modelcontextprotocol/logLevel': 'loud' } }), 400, -32602);
    });

    it('an unsupported revision is -32022 with data.supported and data.requested, HTTP 400', async () => {
      const request = modern('server/discover', { _meta: { ...META, [PROTOCOL_VERSION_META_KEY]: 'v999.0.0' } }, { 'MCP-Protocol-Version': 'v999.0.0' });
      const error = await refused(request, 400, -32022);
      expect(error.data).toEqual({ supported: [...PROTOCOL_REVISIONS].reverse(), requested: 'v999.0.0' });
    });

    it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'unknown/method'])('%s claiming 2026-07-28 is -32601, HTTP 404', async (method) => {
      const error = await refused(modern(method), 404, -32601);
      expect(error.message).toContain(method);
    });

    it('a method behind a capability the server does not advertise is -32601, HTTP 404', async () => {
      await refused(modern('prompts/list'), 404, -32601);
    });

    it('a batch holding a modern request is refused whole: -32600, HTTP 400', async () => {
      const request = modern('tools/list');
      const answer = await post({ headers: request.headers, body: `[${request.body}]` });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted at 2026-07-28' },
      });
    });
  });

  it('subscriptions/listen is always an SSE stream (406 when the client cannot take one)', async () => {
    const json = await refused(modern('subscriptions/listen', { notifications: {} }, { Accept: 'application/json' }), 406, -32000);
    expect(json.message).toMatch(/text\/event-stream/);
    const controller = new AbortController();
    const res = await t.send('POST', { ...modern('subscriptions/listen', { notifications: {} }), signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^event: message\ndata: \{"jsonrpc":"2.0","method":"notifications\/subscriptions\/acknowledged"/);
    await reader.cancel();
    controller.abort();
    await vi.waitFor(() => expect(server.events.filter((e) => e.startsWith('aborted'))).toHaveLength(1));
  });

  it('a legacy session on the same endpoint at the same time: both served, the session keeps its id', async () => {
    const waiting = modern('tools/call', { name: 'wait' });
    const controller = new AbortController();
    const pending = t.send('POST', { ...waiting, signal: controller.signal }).catch(() => undefined);
    await sleep(20);
    const init = await read(await t.send('POST', { headers: { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH }, body: initialize('i1') }));
    const sessionId = init.headers.get('mcp-session-id');
    expect(init.status).toBe(200);
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const headers = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, 'Mcp-Session-Id': sessionId as string, 'MCP-Protocol-Version': '2025-11-25' };
    expect((await read(await t.send('POST', { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }))).status).toBe(202);
    const list = await read(await t.send('POST', { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'l1', method: 'tools/list' }) }));
    expect(list.headers.get('mcp-session-id')).toBe(sessionId);
    expect(messages(list)).toMatchObject([{ id: 'l1', result: { tools: expect.any(Array) as unknown[] } }]);
    // A modern request meanwhile, with the session's id on it: served statelessly, the id not echoed.
    const call = await post(modern('tools/call', { name: 'echo', arguments: { text: 'both' } }, { 'Mcp-Session-Id': sessionId as string }));
    expect(call.headers.get('mcp-session-id')).toBeNull();
    expect(messages(call)).toMatchObject([{ result: { content: [{ text: 'echo:both' }] } }]);
    controller.abort();
    await pending;
  });
});

describe.each(['web', 'node', 'node-fetch'] as const)('closing the response stream cancels the request via %s', (kind) => {
  let server: ModernServer;
  let t: Target;

  beforeEach(async () => {
    server = new ModernServer(createServer([]));
    t = await startTarget(kind, server, { sseAfterMs: 20 });
  });

  afterEach(async () => {
    await t.close();
  });

  it('before the answer is decided (the client leaves while it waits): the signal aborts', async () => {
    const request = modern('tools/call', { name: 'wait' }, { Accept: 'application/json' });
    const controller = new AbortController();
    const pending = t.send('POST', { ...request, signal: controller.signal }).catch((error: unknown) => error);
    // The client leaves once the server is waiting on the request (a loaded machine may take a while to get there).
    await vi.waitFor(() => expect(server.handled).toHaveLength(1));
    expect(server.events).toEqual([]);
    controller.abort();
    await pending;
    await vi.waitFor(() => expect(server.events).toEqual([`aborted:${request.id}`]));
  });

  it('once it is an SSE stream: the signal aborts when the client cancels the stream', async () => {
    const request = modern('tools/call', { name: 'wait' });
    const controller = new AbortController();
    const res = await t.send('POST', { ...request, signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await res.body?.cancel();
    controller.abort();
    await vi.waitFor(() => expect(server.events).toEqual([`aborted:${request.id}`]));
  });

  it('once it is an SSE stream: cancelling the stream alone aborts the signal (the request carries no signal of its own)', async () => {
    // On the web path the stream's end is the only sign the client left: the exchange hears it as its stream's watcher.
    const request = modern('tools/call', { name: 'wait' });
    const res = await t.send('POST', request);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await res.body?.cancel();
    await vi.waitFor(() => expect(server.events).toEqual([`aborted:${request.id}`]));
  });

  it('the exchange is its own cancellation: a handler listening there (no signal) hears the client leave', async () => {
    const request = modern('tools/call', { name: 'hear' }, { Accept: 'application/json' });
    const controller = new AbortController();
    const pending = t.send('POST', { ...request, signal: controller.signal }).catch((error: unknown) => error);
    await vi.waitFor(() => expect(server.handled).toHaveLength(1));
    controller.abort();
    await pending;
    await vi.waitFor(() => expect(server.events).toEqual([`cancelled:${request.id}`]));
  });

  it('an answer that went out whole is not a cancellation', async () => {
    const request = modern('tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect((await read(await t.send('POST', request))).status).toBe(200);
    await sleep(30);
    expect(server.events).toEqual([]);
  });
});

describe.each(['web', 'node'] as const)('a server that serves only 2026-07-28 via %s', (kind) => {
  let t: Target;

  beforeEach(async () => {
    t = await startTarget(kind, new ModernServer(createServer([]), [MODERN]));
  });

  afterEach(async () => {
    await t.close();
  });

  it('GET and DELETE are 405 with Allow: POST (B26)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await read(await t.send(method, { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': 'x' } }));
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });

  it('has no 2024-11-05 HTTP+SSE endpoint unless it is asked for by name (it carries sessions only)', async () => {
    const server = new McpServer({ name: 'modern-only', version: '1.0.0' }, { logger: silentLogger, revisions: [MODERN] });
    const off = createMcpHttpHandler({ server });
    const on = createMcpHttpHandler({ server, httpSse: true });
    try {
      expect((await off.fetch(new Request('http://localhost/sse', { headers: { Accept: 'text/event-stream' } }))).status).toBe(404);
      const opened = await on.fetch(new Request('http://localhost/sse', { headers: { Accept: 'text/event-stream' } }));
      expect(opened.status).toBe(200);
      await opened.body?.cancel();
    } finally {
      await off.close();
      await on.close();
    }
  });

  it('initialize is -32022 naming the revisions served, HTTP 400, with its id', async () => {
    const answer = await read(await t.send('POST', { headers: { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH }, body: initialize('i1') }));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: 'i1', error: { code: -32022, data: { supported: [MODERN], requested: '2025-11-25' } } });
  });

  it('modern requests are served', async () => {
    const answer = await read(await t.send('POST', modern('tools/list')));
    expect(answer.status).toBe(200);
  });
});

describe("responseMode 'sse' (the conformance server's)", () => {
  it('a result is an SSE stream, a -32021 answer still HTTP 400 JSON', async () => {
    const t = await startTarget('node', new ModernServer(createServer([])), { responseMode: 'sse' });
    try {
      const call = modern('tools/call', { name: 'echo', arguments: { text: 's' } });
      const answer = await read(await t.send('POST', call));
      expect(answer.headers.get('content-type')).toBe('text/event-stream');
      expect(messages(answer)).toEqual([{ jsonrpc: '2.0', id: call.id, result: complete({ content: [{ type: 'text', text: 'echo:s' }] }) }]);
      const missing = modern('tools/call', { name: 'needs_sampling' });
      const refused = await read(await t.send('POST', missing));
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(refused.text)).toMatchObject({ id: missing.id, error: { code: -32021 } });
    } finally {
      await t.close();
    }
  });
});

describe('a server that serves no modern revision', () => {
  it('refuses modern requests with -32022 naming the session-based revisions', async () => {
    const t = await startTarget('web', new McpServer({ name: 'legacy-only', version: '1.0.0' }, { logger: silentLogger, revisions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] }));
    try {
      const answer = await read(await t.send('POST', modern('tools/list')));
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: -32022, data: { supported: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: MODERN } } });
    } finally {
      await t.close();
    }
  });
});

describe.each(['web', 'node'] as const)('McpServer itself over modern HTTP via %s', (kind) => {
  const seen: string[] = [];
  let server: McpServer;
  let t: Target;

  beforeEach(async () => {
    server = createServer(seen);
    server.tool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return { content: [{ type: 'text', text: `ask:${JSON.stringify(answer.content)}` }] };
    });
    t = await startTarget(kind, server, { sseAfterMs: 20 });
  });

  afterEach(async () => {
    await t.close();
    await server.close();
  });

  it('answers carry resultType and the server identity in _meta, on JSON and on SSE answers', async () => {
    // A client accepting JSON only, so the answer's type does not hang on timing.
    const json = modern('tools/call', { name: 'echo', arguments: { text: 'j' } }, { Accept: 'application/json' });
    const answer = await read(await t.send('POST', json));
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(answer.text)).toEqual({ jsonrpc: '2.0', id: json.id, result: complete({ content: [{ type: 'text', text: 'echo:j' }] }) });
    const sse = modern('tools/call', { name: 'steps', _meta: { ...META, progressToken: 7 } });
    const stream = await read(await t.send('POST', sse));
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(messages(stream).at(-1)).toEqual({ jsonrpc: '2.0', id: sse.id, result: complete({ content: [{ type: 'text', text: 'steps:done' }] }) });
  });

  it('server/discover: 200 with the supported versions, no Mcp-Session-Id', async () => {
    const request = modern('server/discover');
    const answer = await read(await t.send('POST', request));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    const body = JSON.parse(answer.text) as { id: number; result: { supportedVersions: string[]; resultType: string } };
    expect(body.id).toBe(request.id);
    expect(body.result.resultType).toBe('complete');
    expect([...body.result.supportedVersions].sort()).toEqual([...PROTOCOL_REVISIONS]);
  });

  it('closing the stream aborts the real handler\'s ctx.signal, and nothing more is sent', async () => {
    const controller = new AbortController();
    const res = await t.send('POST', { ...modern('tools/call', { name: 'wait' }), signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await res.body?.cancel();
    controller.abort();
    for (let i = 0; i < 50 && seen.length === 0; i++) await sleep(10);
    expect(seen).toEqual(['wait: ctx.signal aborted']);
  });

  it('subscriptions/listen: the acknowledgement first, a tools list change tagged with the subscription, then the graceful close', async () => {
    const listen = modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const res = await t.send('POST', listen);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (pattern: string): Promise<void> => {
      while (!text.includes(pattern)) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    };
    await until('acknowledged');
    server.tool('added_later', {}, () => ({ content: [] }));
    await until('list_changed');
    void server.close();
    await until('"resultType"');
    const tag = { 'io.modelcontextprotocol/subscriptionId': listen.id };
    const events = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: tag, notifications: { toolsListChanged: true } } });
    expect(events[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: tag } });
    expect(events.at(-1)).toMatchObject({ jsonrpc: '2.0', id: listen.id, result: { resultType: 'complete', _meta: tag } });
    await reader.cancel().catch(() => undefined);
  });

  it('an input request: ctx.elicit answers input_required as a 200 JSON answer, and the retry completes', async () => {
    const capabilities = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const first = modern('tools/call', { name: 'ask', _meta: { ...META, ...capabilities } }, { Accept: 'application/json' });
    const answer = await read(await t.send('POST', first));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(answer.text) as { result: { resultType: string; inputRequests: Record<string, { method: string }>; requestState?: string } };
    expect(body.result.resultType).toBe('input_required');
    expect(Object.values(body.result.inputRequests)).toMatchObject([{ method: 'elicitation/create' }]);
    const [key] = Object.keys(body.result.inputRequests);
    const retry = modern('tools/call', {
      name: 'ask',
      _meta: { ...META, ...capabilities },
      inputResponses: { [key as string]: { action: 'accept', content: { name: 'Ada' } } },
      ...(body.result.requestState === undefined ? {} : { requestState: body.result.requestState }),
    }, { Accept: 'application/json' });
    const done = await read(await t.send('POST', retry));
    expect(JSON.parse(done.text)).toEqual({ jsonrpc: '2.0', id: retry.id, result: complete({ content: [{ type: 'text', text: 'ask:{"name":"Ada"}' }] }) });
  });
});
