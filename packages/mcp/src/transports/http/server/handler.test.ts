/**
 * The MCP HTTP handler end to end, with a real McpServer, through three paths that must behave identically:
 * - `web`: `handler.fetch(new Request(...))` called directly;
 * - `node`: `serveHttp` (the direct Node adapter) over a real socket on 127.0.0.1, port 0;
 * - `node-fetch`: `serveHttp({ via: 'fetch' })` (Node → Request → handler → Response → Node) over a socket.
 * Plus the legacy 2024-11-05 HTTP+SSE transport, and interop with the official SDK 1.32.2 client.
 */
import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import { silentLogger } from '@switchboard/jsonrpc';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import type { CallToolResult } from '../../../protocol/types.js';
import { closeRequestSseStream, createMcpHttpHandler } from '../index.js';
import { InMemoryEventStore } from '../../../stores/index.js';
import { SseDecoder } from '../../../client/index.js';
import { serveHttp } from '../../node/index.js';
import type { McpHttpHandlerOptions, McpHttpServerLike } from '../index.js';

type PathKind = 'web' | 'node' | 'node-fetch';
const PATHS: readonly PathKind[] = ['web', 'node', 'node-fetch'];

const ACCEPT_BOTH = 'application/json, text/event-stream';
const JSON_CT = 'application/json';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function text(t: string): CallToolResult {
  return { content: [{ type: 'text', text: t }] };
}

/** The server under test: one definition, many sessions. */
function createTestServer(): McpServer {
  const server = new McpServer({ name: 'http-test', version: '1.0.0' }, { logger: silentLogger });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) =>
    text(`echo:${args.text ?? ''}`));
  server.tool('slow', {
    inputSchema: { type: 'object', properties: { ms: { type: 'number' }, tag: { type: 'string' } } },
  }, async (args: { ms?: number; tag?: string }, ctx) => {
    await ctx.progress(1, 2, 'half');
    await sleep(args.ms ?? 200);
    return text(`slow:${args.tag ?? ''}`);
  });
  server.tool('poll', {}, async (_args, ctx) => {
    const closed = closeRequestSseStream(ctx, { retryMs: 20 });
    await sleep(150);
    return text(`poll:${closed}`);
  });
  server.tool('ask', {}, async (_args, ctx) => {
    try {
      const answer = await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        { timeoutMs: 5000 },
      );
      return text(`ask:${JSON.stringify(answer.content)}`);
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `ask failed: ${(error as Error).message}` }] };
    }
  });
  return server;
}

// ---------------------------------------------------------------------------------------------------------
// Targets

interface SendInit {
  readonly headers?: Record<string, string>;
  /** A string, or chunks sent without Content-Length (chunked / a stream). */
  readonly body?: string | readonly string[];
}

interface Target {
  readonly kind: PathKind;
  /** The socket port (Node paths) — `undefined` on the web path. */
  readonly port: number | undefined;
  send(method: string, path: string, init?: SendInit): Promise<Response>;
  close(): Promise<void>;
}

/** One HTTP/1.1 exchange over a fresh socket to 127.0.0.1, returned as a Web Response (streaming body). */
function rawRequest(port: number, method: string, path: string, init: SendInit = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: init.headers, agent: false }, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      resolve(new Response(Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>, { status: res.statusCode ?? 0, headers }));
    });
    req.on('error', reject);
    if (Array.isArray(init.body)) for (const chunk of init.body) req.write(chunk);
    else if (typeof init.body === 'string') req.write(init.body);
    req.end();
  });
}

async function startTarget(kind: PathKind, server: McpHttpServerLike, options: Partial<McpHttpHandlerOptions> = {}): Promise<Target> {
  if (kind === 'web') {
    const handler = createMcpHttpHandler({ server, ...options });
    return {
      kind,
      port: undefined,
      send(method, path, init = {}) {
        const requestInit: RequestInit & { duplex?: 'half' } = { method, headers: init.headers };
        if (typeof init.body === 'string') requestInit.body = init.body;
        else if (Array.isArray(init.body)) {
          const chunks = init.body.map((c) => new TextEncoder().encode(c));
          requestInit.body = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const c of chunks) controller.enqueue(c);
              controller.close();
            },
          });
          requestInit.duplex = 'half';
        }
        return handler.fetch(new Request(`http://localhost${path}`, requestInit));
      },
      close: () => handler.close(),
    };
  }
  const handle = await serveHttp({ server, ...options, via: kind === 'node' ? 'direct' : 'fetch' });
  expect(handle.url).toBe(`http://127.0.0.1:${handle.port}/mcp`);
  return {
    kind,
    port: handle.port,
    send: (method, path, init) => rawRequest(handle.port, method, path, init),
    close: () => handle.close(),
  };
}

// ---------------------------------------------------------------------------------------------------------
// SSE reading

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** Reads a response's SSE events as they arrive, with the package's {@link SseDecoder}. */
class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #sse = new SseDecoder();
  readonly #queue: SseEvent[] = [];
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  done = false;

  constructor(response: Response) {
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    this.#reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  /** The reconnection delay (ms) the stream last sent with `retry` (also in a block that carried no data). */
  get retryMs(): number | undefined {
    return this.#sse.retryMs;
  }

  /** The next event (including the priming event, whose data is empty); `undefined` at the end of the stream. */
  async next(timeoutMs = 5000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length === 0 && !this.done) {
      this.#pending ??= this.#reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      });
      const result = await Promise.race([this.#pending, timeout]);
      clearTimeout(timer);
      if (result === 'timeout') throw new Error('SSE read timed out');
      this.#pending = undefined;
      if (result.done) {
        this.done = true;
        break;
      }
      for (const event of this.#sse.push(this.#decoder.decode(result.value, { stream: true }))) {
        // An event without an id of its own on a stream that never set one: no `id` member.
        this.#queue.push({ ...event, id: event.id === '' ? undefined : event.id });
      }
    }
    return this.#queue.shift();
  }

  /** The next event that carries a JSON-RPC message, parsed. */
  async nextMessage(timeoutMs = 5000): Promise<any> {
    for (;;) {
      const event = await this.next(timeoutMs);
      if (event === undefined) return undefined;
      if (event.data !== '') return JSON.parse(event.data);
    }
  }

  /** All remaining events, until the server ends the stream. */
  async rest(timeoutMs = 5000): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let e = await this.next(timeoutMs); e !== undefined; e = await this.next(timeoutMs)) out.push(e);
    return out;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** The JSON-RPC message(s) of a response: JSON body, or the message events of an SSE body. */
async function messagesOf(res: Response): Promise<any[]> {
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const events = await new SseReader(res).rest();
    return events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data));
  }
  const body = (await res.json()) as unknown;
  return Array.isArray(body) ? body : [body];
}

async function onlyMessage(res: Response): Promise<any> {
  const messages = await messagesOf(res);
  expect(messages).toHaveLength(1);
  return messages[0];
}

// ---------------------------------------------------------------------------------------------------------
// Protocol helpers

function initBody(version = '2025-11-25', id: string | number = 'init', capabilities: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'probe', version: '0' } } });
}

function call(id: string | number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): string {
  const params: Record<string, unknown> = { name, arguments: args };
  if (meta !== undefined) params._meta = meta;
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

function ping(id: string | number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
}

interface Session {
  readonly id: string;
  readonly headers: Record<string, string>;
}

async function openSession(t: Target, version = '2025-11-25', capabilities: Record<string, unknown> = {}): Promise<Session> {
  const res = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody(version, 'init', capabilities) });
  expect(res.status).toBe(200);
  const id = res.headers.get('mcp-session-id');
  expect(id).toMatch(/^[\x21-\x7e]+$/);
  const init = await onlyMessage(res);
  expect(init).toMatchObject({ id: 'init', result: { protocolVersion: version } });
  const headers: Record<string, string> = { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-session-id': id as string };
  // 2025-03-26 has no MCP-Protocol-Version header (it arrived in 2025-06-18).
  if (version !== '2025-03-26' && version !== '2024-11-05') headers['mcp-protocol-version'] = version;
  const ack = await t.send('POST', '/mcp', { headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  expect(ack.status).toBe(202);
  expect(await ack.text()).toBe('');
  return { id: id as string, headers };
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/**
 * Starts a fresh test server behind `kind` before each test and stops both after it. Its tests are about SSE
 * streams (priming, event ids, resumption, history), so it forces `responseMode: 'sse'`; the default (`auto`,
 * adaptive answers) has its own block below.
 */
function useTarget(kind: PathKind, assign: (server: McpServer, target: Target) => void): void {
  let server: McpServer | undefined;
  let target: Target | undefined;
  beforeEach(async () => {
    server = createTestServer();
    target = await startTarget(kind, server, { responseMode: 'sse' });
    assign(server, target);
  });
  afterEach(async () => {
    await target?.close();
    await server?.close();
  });
}

function errorCode(body: any): number {
  return body.error.code as number;
}

// ---------------------------------------------------------------------------------------------------------

describe.each(PATHS)('Streamable HTTP via %s', (kind) => {
  let server: McpServer;
  let t: Target;
  useTarget(kind, (started, target) => {
    server = started;
    t = target;
  });

  it('session lifecycle: initialize → Mcp-Session-Id → requests → DELETE → 404', async () => {
    const s = await openSession(t);
    const list = await t.send('POST', '/mcp', { headers: s.headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(list.status).toBe(200);
    expect(list.headers.get('mcp-session-id')).toBe(s.id);
    const msg = await onlyMessage(list);
    expect(msg.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo', 'slow', 'poll', 'ask']);

    const echo = await onlyMessage(await t.send('POST', '/mcp', { headers: s.headers, body: call(3, 'echo', { text: 'hi' }) }));
    expect(echo).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'echo:hi' }] } });

    const del = await t.send('DELETE', '/mcp', { headers: s.headers });
    expect(del.status).toBe(200);
    await del.text();

    for (const [method, body] of [['POST', ping(4)], ['GET', undefined], ['DELETE', undefined]] as const) {
      const res = await t.send(method, '/mcp', { headers: { ...s.headers, accept: method === 'GET' ? 'text/event-stream' : ACCEPT_BOTH }, body });
      expect(res.status).toBe(404);
      expect(errorCode(await res.json())).toBe(-32001);
    }
  });

  it('a failed initialize leaves no session and sends no Mcp-Session-Id', async () => {
    const bad = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } });
    const res = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: bad });
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const msg = await onlyMessage(res);
    expect(msg.error.code).toBe(-32602);
  });

  it('400 for a missing session id on non-initialize requests (POST, GET, DELETE)', async () => {
    await openSession(t);
    const post = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: ping(1) });
    expect(post.status).toBe(400);
    const body = await post.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000 } }); // B45: the id is readable
    expect((await t.send('GET', '/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(400);
    expect((await t.send('DELETE', '/mcp')).status).toBe(400);
  });

  it('404 + -32001 "Session not found" for an unknown session id', async () => {
    const res = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-session-id': 'nope' }, body: ping(1) });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Session not found' } });
    const batch = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-session-id': 'nope' }, body: `[${ping(2)}]` });
    expect(await batch.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } });
  });

  it('405 with Allow for other methods; 404 for other paths', async () => {
    const res = await t.send('PUT', '/mcp', { headers: { 'content-type': JSON_CT }, body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
    await res.text();
    const other = await t.send('GET', '/elsewhere');
    expect(other.status).toBe(404);
    await other.text();
  });

  it('406 when Accept rules out every answer (POST and GET)', async () => {
    const s = await openSession(t);
    const post = await t.send('POST', '/mcp', { headers: { ...s.headers, accept: 'text/html' }, body: ping(1) });
    expect(post.status).toBe(406);
    expect(errorCode(await post.json())).toBe(-32000);
    const get = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'application/json' } });
    expect(get.status).toBe(406);
    await get.text();
  });

  it('415 for a non-JSON Content-Type', async () => {
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: { ...s.headers, 'content-type': 'text/plain' }, body: ping(1) });
    expect(res.status).toBe(415);
    expect(errorCode(await res.json())).toBe(-32000);
  });

  it('B21: Content-Type with parameters and mixed case is accepted', async () => {
    const s = await openSession(t);
    for (const ct of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const res = await t.send('POST', '/mcp', { headers: { ...s.headers, 'content-type': ct }, body: ping(ct) });
      expect(res.status).toBe(200);
      expect(await onlyMessage(res)).toEqual({ jsonrpc: '2.0', id: ct, result: {} });
    }
  });

  it('400 + -32700 with no id (B45) for a body that is not JSON', async () => {
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } });
  });

  it('notifications/responses-only POST → 202 with no body', async () => {
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('B22: MCP-Protocol-Version — unsupported or mismatched ⇒ 400, missing ⇒ the negotiated version', async () => {
    const s = await openSession(t);
    for (const header of ['1900-01-01', 'not-a-version', '2025-06-18']) {
      const res = await t.send('POST', '/mcp', { headers: { ...s.headers, 'mcp-protocol-version': header }, body: ping(1) });
      expect(res.status).toBe(400);
      expect(errorCode(await res.json())).toBe(-32000);
    }
    const { 'mcp-protocol-version': _omit, ...withoutHeader } = s.headers;
    const ok = await t.send('POST', '/mcp', { headers: withoutHeader, body: ping(2) });
    expect(ok.status).toBe(200);
    expect(await onlyMessage(ok)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // (e) the body's protocolVersion drives negotiation, not a header on initialize.
    const init = await t.send('POST', '/mcp', {
      headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-protocol-version': '2025-06-18' },
      body: initBody('2025-11-25'),
    });
    expect((await onlyMessage(init)).result.protocolVersion).toBe('2025-11-25');
  });

  it('B30: a second initialize on a live session is refused with 400 + -32600; the session keeps working', async () => {
    const s = await openSession(t);
    const again = await t.send('POST', '/mcp', { headers: s.headers, body: initBody('2024-11-05', 'init2', { sampling: {} }) });
    expect(again.status).toBe(400);
    const body = await again.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'init2', error: { code: -32600 } });
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: ping(3) });
    expect(await onlyMessage(res)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('initialize inside a batch is refused with 400 + -32600', async () => {
    const res = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: `[${initBody()}]` });
    expect(res.status).toBe(400);
    expect(errorCode(await res.json())).toBe(-32600);
  });

  it('batches: refused from a 2025-11-25 session, served from a 2025-03-26 session', async () => {
    const modern = await openSession(t, '2025-11-25');
    const refused = await t.send('POST', '/mcp', { headers: modern.headers, body: `[${ping('a')},${ping('b')}]` });
    expect(refused.status).toBe(400);
    expect(errorCode(await refused.json())).toBe(-32600);

    const old = await openSession(t, '2025-03-26');
    const res = await t.send('POST', '/mcp', { headers: old.headers, body: `[${ping('a')},{"jsonrpc":"2.0","method":"notifications/x"},${ping('b')},{"foo":1}]` });
    expect(res.status).toBe(200);
    const messages = await messagesOf(res);
    expect(messages.map((m) => m.id).sort()).toEqual(['a', 'b', null].sort());
    expect(messages.find((m) => m.id === null).error.code).toBe(-32600);
  });

  it('B05 (c): a batch of notifications only is 400 + one -32600 from a 2025-11-25 session, 202 from a 2025-03-26 one', async () => {
    const notifications = '[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","method":"notifications/y"}]';
    const modern = await openSession(t, '2025-11-25');
    const refused = await t.send('POST', '/mcp', { headers: modern.headers, body: notifications });
    expect(refused.status).toBe(400);
    expect(errorCode(await refused.json())).toBe(-32600);
    const old = await openSession(t, '2025-03-26');
    const accepted = await t.send('POST', '/mcp', { headers: old.headers, body: notifications });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
  });

  it('SSE: priming event (id + empty data + retry) first on POST streams of 2025-11-25 sessions, not of older ones', async () => {
    const s = await openSession(t, '2025-11-25');
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(1, 'echo', { text: 'x' }) }));
    const first = await reader.next();
    expect(first).toMatchObject({ data: '', retry: 1000 });
    expect(first?.id).toMatch(/^[0-9a-f]{32}\.\d+\.\d+$/);
    expect(first?.id).not.toContain(s.id);
    const second = await reader.next();
    expect(second?.event).toBe('message');
    expect(JSON.parse(second?.data ?? '')).toMatchObject({ id: 1, result: { content: [{ text: 'echo:x' }] } });
    expect(await reader.next()).toBeUndefined();

    const old = await openSession(t, '2025-06-18');
    const r2 = new SseReader(await t.send('POST', '/mcp', { headers: old.headers, body: call(1, 'echo', { text: 'y' }) }));
    const only = await r2.next();
    expect(JSON.parse(only?.data ?? '')).toMatchObject({ id: 1 });
    expect(only?.id).toBeDefined();
    expect(await r2.next()).toBeUndefined();
  });

  it('multiple concurrent POST SSE streams on one session; event ids unique and encode the stream', async () => {
    const s = await openSession(t);
    const tags = ['a', 'b', 'c', 'd', 'e'];
    const results = await Promise.all(tags.map(async (tag, i) => {
      const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(`c${i}`, 'slow', { ms: 100, tag }, { progressToken: `p${i}` }) });
      expect(res.status).toBe(200);
      return new SseReader(res).rest();
    }));
    const ids = new Set<string>();
    const streams = new Set<string>();
    results.forEach((events, i) => {
      const messages = events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data));
      // progress notification, then the response, on this request's own stream
      expect(messages[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: `p${i}`, progress: 1, total: 2 } });
      expect(messages[1]).toMatchObject({ id: `c${i}`, result: { content: [{ text: `slow:${tags[i]}` }] } });
      for (const e of events) {
        expect(e.id).toBeDefined();
        ids.add(e.id as string);
        streams.add((e.id as string).slice(0, (e.id as string).lastIndexOf('.')));
      }
    });
    expect(ids.size).toBe(results.reduce((n, events) => n + events.length, 0));
    expect(streams.size).toBe(tags.length);
  });

  it('GET opens the standalone stream (unrelated notifications go there); a second GET gets 409', async () => {
    const s = await openSession(t);
    const get = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream' } });
    expect(get.status).toBe(200);
    const reader = new SseReader(get);
    const conflict = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream' } });
    expect(conflict.status).toBe(409);
    await conflict.text();

    server.tool('late', {}, () => text('late'));
    expect(await reader.nextMessage()).toMatchObject({ method: 'notifications/tools/list_changed' });

    await reader.cancel();
    await eventually(async () => {
      const again = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream' } });
      if (again.status !== 200) {
        await again.text();
        return false;
      }
      await again.body?.cancel();
      return true;
    });
  });

  it('server→client requests travel on the POST stream and the client answers with a POST (202)', async () => {
    const s = await openSession(t, '2025-11-25', { elicitation: {} });
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(7, 'ask') }));
    const request = await reader.nextMessage();
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const answer = await t.send('POST', '/mcp', {
      headers: s.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } }),
    });
    expect(answer.status).toBe(202);
    await answer.text();
    expect(await reader.nextMessage()).toMatchObject({ id: 7, result: { content: [{ text: 'ask:{"name":"Ada"}' }] } });
    expect(await reader.next()).toBeUndefined();
  });

  it('B27: a client that disconnects mid-call does not crash the server; the result is kept for resumption', async () => {
    const s = await openSession(t);
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(5, 'slow', { ms: 200, tag: 'kept' }, { progressToken: 'p' }) }));
    const priming = await reader.next();
    expect(priming?.data).toBe('');
    await reader.cancel();
    await sleep(350);
    // The session survives: a later ping works.
    expect(await onlyMessage(await t.send('POST', '/mcp', { headers: s.headers, body: ping(6) }))).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
    // Disconnection is not cancellation: the response was produced and stored.
    const resumed = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': priming?.id as string } });
    expect(resumed.status).toBe(200);
    const replayed = (await new SseReader(resumed).rest()).map((e) => JSON.parse(e.data));
    expect(replayed).toHaveLength(2);
    expect(replayed[0]).toMatchObject({ method: 'notifications/progress' });
    expect(replayed[1]).toMatchObject({ id: 5, result: { content: [{ text: 'slow:kept' }] } });
  });

  it('SSE polling: the server closes the POST stream (retry), the client resumes with GET + Last-Event-ID and gets the result', async () => {
    const s = await openSession(t);
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(8, 'poll') }));
    const priming = await reader.next();
    expect(priming?.id).toBeDefined();
    expect(await reader.next()).toBeUndefined(); // closed by the server, no response yet
    expect(reader.retryMs).toBe(20); // the retry field sent just before closing
    const resumed = new SseReader(await t.send('GET', '/mcp', {
      headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': priming?.id as string },
    }));
    const result = await resumed.nextMessage();
    expect(result).toEqual({ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'poll:true' }] } });
    expect(await resumed.next()).toBeUndefined();
  });

  it('B34: resuming again with the same Last-Event-ID replays the same events (idempotent)', async () => {
    const s = await openSession(t);
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(9, 'poll') }));
    const priming = await reader.next();
    await reader.rest();
    const headers = { ...s.headers, accept: 'text/event-stream', 'last-event-id': priming?.id as string };
    // A resume that drops before any event arrives …
    const first = await t.send('GET', '/mcp', { headers });
    expect(first.status).toBe(200);
    await first.body?.cancel();
    // … and the next resume with the same id gets the result exactly once.
    const second = (await messagesOf(await t.send('GET', '/mcp', { headers }))).filter((m) => m.id === 9);
    expect(second).toHaveLength(1);
    const third = (await messagesOf(await t.send('GET', '/mcp', { headers }))).filter((m) => m.id === 9);
    expect(third).toEqual(second);
  });

  it('resuming a completed stream that ended with an error response keeps the connection open (SDK 1.x, typescript-sdk PR #2638)', async () => {
    const s = await openSession(t);
    const events = await new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(11, 'no_such_tool') })).rest();
    const last = events[events.length - 1];
    expect(JSON.parse(last?.data ?? '')).toMatchObject({ id: 11, error: { code: -32602 } });
    const resumed = new SseReader(await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': last?.id as string } }));
    await expect(resumed.next(300)).rejects.toThrow('timed out'); // open, idle
    // The standalone stream is still available (no 409 from the parked one), and DELETE ends everything.
    const get = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream' } });
    expect(get.status).toBe(200);
    await (await t.send('DELETE', '/mcp', { headers: s.headers })).text();
    expect(await resumed.next()).toBeUndefined();
    await get.body?.cancel();
  });

  it('SSE event ids never contain the session id (POST, GET and resumed streams), and resuming still works', async () => {
    const s = await openSession(t);
    const get = new SseReader(await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream' } }));
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(1, 'slow', { ms: 150 }, { progressToken: 'p' }) }));
    const post = [await reader.next(), await reader.next()]; // priming, progress
    await reader.cancel(); // cut before the response: the stream is kept for resumption
    // An unrelated notification goes to the GET stream.
    server.tool('late', {}, () => text('late'));
    const unrelated = await get.next();
    const resumed = await new SseReader(await t.send('GET', '/mcp', {
      headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': post[0]?.id as string },
    })).rest();
    expect(resumed.filter((e) => e.data !== '').map((e) => JSON.parse(e.data).id ?? JSON.parse(e.data).method)).toEqual(['notifications/progress', 1]);
    const ids = [...post, unrelated, ...resumed].map((e) => e?.id);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    for (const id of ids) {
      expect(id).toBeDefined();
      expect(id).not.toContain(s.id);
      // The id's longer parts (8 and 12 hex digits) only: a 4-digit part turns up in a random event id by chance
      // (about once in 250 runs), which says nothing about a leak.
      for (const part of s.id.split('-').filter((p) => p.length >= 8)) expect(id).not.toContain(part);
    }
    await get.cancel();
  });

  it('a POST stream delivered whole with its result leaves no history behind; a cut one keeps it', async () => {
    await t.close();
    const store = new InMemoryEventStore();
    t = await startTarget(kind, server, { eventStore: store, responseMode: 'sse' });
    const s = await openSession(t);
    const delivered: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const events = await new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(i, 'echo', { text: `m${i}` }) })).rest();
      expect(events.map((e) => e.id === undefined)).toEqual([false, false]); // priming and response, both with ids
      delivered.push(events[0]?.id as string);
      expect(JSON.parse(events[1]?.data ?? '')).toMatchObject({ id: i, result: { content: [{ text: `echo:m${i}` }] } });
    }
    expect(store.size).toBe(0);
    // A client that resumes such a stream anyway learns that its events are gone.
    const gone = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': delivered[0] as string } });
    expect(gone.status).toBe(400);
    await gone.text();
    // Cut before its response: kept, and the response is replayed on resumption.
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: s.headers, body: call(9, 'slow', { ms: 100, tag: 'cut' }) }));
    const priming = await reader.next();
    await reader.cancel();
    await sleep(200);
    expect(store.size).toBe(1);
    const replayed = await messagesOf(await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': priming?.id as string } }));
    expect(replayed.filter((m) => m.id === 9)).toEqual([{ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'slow:cut' }] } }]);
  });

  it('Last-Event-ID from another session or unknown ⇒ 400, never a cross-session replay', async () => {
    const a = await openSession(t);
    const b = await openSession(t);
    const reader = new SseReader(await t.send('POST', '/mcp', { headers: a.headers, body: call(1, 'echo', { text: 'secret' }) }));
    const priming = await reader.next();
    await reader.rest();
    for (const id of [priming?.id as string, 'garbage', `${b.id}.99.1`]) {
      const res = await t.send('GET', '/mcp', { headers: { ...b.headers, accept: 'text/event-stream', 'last-event-id': id } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).not.toContain('secret');
    }
  });

  it('DNS rebinding: Host evil.example.com → 403; a foreign Origin → 403; Host localhost:<port> → ok', async () => {
    const port = t.port ?? 3000;
    const evil = await t.send('POST', '/mcp', {
      headers: { host: 'evil.example.com', origin: 'http://evil.example.com', 'content-type': JSON_CT, accept: ACCEPT_BOTH },
      body: initBody(),
    });
    expect(evil.status).toBe(403);
    expect(errorCode(await evil.json())).toBe(-32000);
    const badOrigin = await t.send('POST', '/mcp', {
      headers: { host: `localhost:${port}`, origin: 'http://evil.example.com', 'content-type': JSON_CT, accept: ACCEPT_BOTH },
      body: initBody(),
    });
    expect(badOrigin.status).toBe(403);
    await badOrigin.text();
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const ok = await t.send('POST', '/mcp', {
        headers: { host, origin: `http://${host}`, 'content-type': JSON_CT, accept: ACCEPT_BOTH },
        body: initBody(),
      });
      expect(ok.status).toBe(200);
      await ok.text();
    }
  });

  it('B45: HTTP error bodies carry no id when it is unknown, and the id when it is known', async () => {
    const s = await openSession(t);
    const refusals: [string, string, SendInit][] = [
      ['POST', '/mcp', { headers: s.headers, body: '{nope' }],
      ['POST', '/mcp', { headers: s.headers, body: '[]' }],
      ['POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: `[${ping(1)}]` }],
      ['POST', '/mcp', { headers: { ...s.headers, 'mcp-session-id': 'gone' }, body: `[${ping(1)}]` }],
      ['POST', '/mcp', { headers: { ...s.headers, 'content-type': 'text/plain' }, body: ping(1) }],
      ['POST', '/mcp', { headers: { ...s.headers, host: 'evil.example.com' }, body: ping(1) }],
      ['PUT', '/mcp', { headers: s.headers, body: '{}' }],
      ['GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': 'garbage' } }],
      ['POST', '/messages', { headers: { 'content-type': JSON_CT }, body: '{nope' }],
    ];
    for (const [method, path, init] of refusals) {
      const res = await t.send(method, path, init);
      expect(res.status).toBeGreaterThanOrEqual(400);
      const body = await res.json();
      expect(body.jsonrpc).toBe('2.0');
      expect(typeof body.error.code).toBe('number');
      expect(body).not.toHaveProperty('id');
    }
    // Known ids are kept: the session refusals of one request (sep-2575-http-server-error-jsonrpc-id), B30's
    // second initialize, an invalid request whose id is readable.
    const known: SendInit[] = [
      { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: ping(1) },
      { headers: { ...s.headers, 'mcp-session-id': 'gone' }, body: ping(1) },
      { headers: { ...s.headers, accept: 'text/html' }, body: ping(1) },
      { headers: { ...s.headers, 'mcp-protocol-version': '1900-01-01' }, body: ping(1) },
    ];
    for (const init of known) {
      const res = await t.send('POST', '/mcp', init);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: expect.any(Number) as number } });
    }
    const again = await t.send('POST', '/mcp', { headers: s.headers, body: initBody('2025-11-25', 'init2') });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ id: 'init2', error: { code: -32600 } });
    const invalid = await t.send('POST', '/mcp', { headers: s.headers, body: '{"jsonrpc":"2.0","id":9,"method":5}' });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ id: 9, error: { code: -32600 } });
    // The 2024-11-05 endpoint reads the body before the session: its refusal of a readable request carries the id.
    const legacy = await t.send('POST', '/messages', { headers: { 'content-type': JSON_CT }, body: ping(1) });
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toMatchObject({ id: 1, error: { code: -32000 } });
  });

  it('a server without the modern era (connect alone) refuses a 2026-07-28 request: 400 + -32022 with the supported revisions', async () => {
    // The modern era itself is served in modern.test.ts; here a server as older structural users wrote them.
    const real = createTestServer();
    const legacyOnly = await startTarget(kind, { connect: (transport, options) => real.connect(transport, options), logger: real.logger });
    const res = await legacyOnly.send('POST', '/mcp', {
      headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 1, error: { code: -32022, data: { requested: '2026-07-28', supported: expect.arrayContaining(['2025-11-25']) } } });
    await legacyOnly.close();
  });

  it('a modern-era (2026-07-28) request is served on the same endpoint, with no session', async () => {
    const res = await t.send('POST', '/mcp', {
      headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    // JSON or one SSE event, as this endpoint's responseMode decides: the response is the same.
    const text = await res.text();
    const json = res.headers.get('content-type') === 'application/json' ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
    expect(JSON.parse(json)).toMatchObject({ id: 1, result: { resultType: 'complete', tools: expect.any(Array) as unknown[] } });
  });
});

describe.each(PATHS)('adaptive answers (responseMode auto, the default) via %s', (kind) => {
  let server: McpServer;
  let t: Target | undefined;

  beforeEach(() => {
    server = createTestServer();
  });

  afterEach(async () => {
    await t?.close();
    t = undefined;
    await server.close();
  });

  it('Accept of both types: initialize and a quick result alone are one application/json answer', async () => {
    t = await startTarget(kind, server);
    const init = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('application/json');
    const sessionId = init.headers.get('mcp-session-id') as string;
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect((await init.json()).result.protocolVersion).toBe('2025-11-25');
    const headers = { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect((await t.send('POST', '/mcp', { headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).status).toBe(202);
    const res = await t.send('POST', '/mcp', { headers, body: call(2, 'echo', { text: 'a' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(sessionId);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo:a' }] } });
  });

  it('a notification before the result makes the answer SSE: priming event, the progress notification, the result', async () => {
    t = await startTarget(kind, server);
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(3, 'slow', { ms: 10, tag: 'p' }, { progressToken: 'tok' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await new SseReader(res).rest();
    expect(events[0]).toMatchObject({ data: '', retry: 1000 });
    expect(events.slice(1).map((e) => JSON.parse(e.data))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 2, message: 'half' } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'slow:p' }] } },
    ]);
  });

  it('nothing within sseAfterMs makes the answer SSE (resumable); a result within it is JSON', async () => {
    t = await startTarget(kind, server, { sseAfterMs: 20 });
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(4, 'slow', { ms: 150, tag: 'late' }) });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await new SseReader(res).rest();
    expect(events[0]?.id).toMatch(/^[0-9a-f]{32}\.\d+\.\d+$/);
    expect(events.slice(1).map((e) => JSON.parse(e.data))).toEqual([{ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'slow:late' }] } }]);
    await t.close();

    t = await startTarget(kind, server, { sseAfterMs: 2000 });
    const s2 = await openSession(t);
    const json = await t.send('POST', '/mcp', { headers: s2.headers, body: call(5, 'slow', { ms: 50, tag: 'soon' }) });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(await json.json()).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'slow:soon' }] } });
  });

  it('closeRequestSseStream on an undecided exchange makes it SSE and closes it; the client resumes the result', async () => {
    t = await startTarget(kind, server);
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(6, 'poll') });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await new SseReader(res).rest();
    // The priming event and the retry hint, no message: the server closed the stream before the result.
    expect(events.filter((e) => e.data !== '')).toEqual([]);
    expect(events[0]?.id).toMatch(/\S/);
    const resumed = await t.send('GET', '/mcp', { headers: { ...s.headers, accept: 'text/event-stream', 'last-event-id': events[0]?.id as string } });
    const replay = await new SseReader(resumed).rest();
    expect(replay.map((e) => JSON.parse(e.data))).toEqual([{ jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'poll:true' }] } }]);
  });

  it('responseMode sse still forces SSE for a quick result', async () => {
    t = await startTarget(kind, server, { responseMode: 'sse' });
    const s = await openSession(t);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(7, 'echo', { text: 's' }) });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await new SseReader(res).rest();
    expect(events.slice(1).map((e) => JSON.parse(e.data))).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'echo:s' }] } }]);
  });
});

describe.each(PATHS)('Streamable HTTP options via %s', (kind) => {
  let server: McpServer;
  let t: Target | undefined;

  beforeEach(() => {
    server = createTestServer();
  });

  afterEach(async () => {
    await t?.close();
    t = undefined;
    await server.close();
  });

  it('B19: in JSON mode, Accept: application/json alone (and */*, application/*) is answered with JSON', async () => {
    t = await startTarget(kind, server, { responseMode: 'json' });
    for (const accept of ['application/json', '*/*', 'application/*']) {
      const init = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept }, body: initBody() });
      expect(init.status).toBe(200);
      expect(init.headers.get('content-type')).toBe('application/json');
      const sessionId = init.headers.get('mcp-session-id') as string;
      expect((await init.json()).result.protocolVersion).toBe('2025-11-25');
      const res = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept, 'mcp-session-id': sessionId }, body: call(2, 'echo', { text: 'j' }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo:j' }] } });
    }
    const refused = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: 'text/event-stream' }, body: initBody() });
    expect(refused.status).toBe(406);
    await refused.text();
  });

  it('JSON mode: a server→client request fails fast instead of hanging (B25)', async () => {
    t = await startTarget(kind, server, { responseMode: 'json' });
    const s = await openSession(t, '2025-11-25', { elicitation: {} });
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(3, 'ask') });
    const body = await res.json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toMatch(/single JSON body/);
  });

  it('JSON mode: a batch is answered with one array (even of one member): invalid members first, then the responses in member order', async () => {
    t = await startTarget(kind, server, { responseMode: 'json' });
    const s = await openSession(t, '2025-03-26');
    const one = await t.send('POST', '/mcp', { headers: s.headers, body: `[${call(1, 'echo', { text: 'a' })}]` });
    expect(one.headers.get('content-type')).toBe('application/json');
    // JSON-RPC 2.0 §6: the answer to a batch is an array, whatever the number of responses in it.
    expect(await one.json()).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'echo:a' }] } }]);
    const mixed = await t.send('POST', '/mcp', {
      headers: s.headers,
      body: `[${call(2, 'slow', { ms: 100, tag: 'late' })},{"foo":1},${call(3, 'echo', { text: 'b' })}]`,
    });
    const body = await mixed.json();
    // The invalid member is refused before dispatch; the slow call finishes last but keeps its place.
    expect(body.map((m: { id: unknown }) => m.id)).toEqual([null, 2, 3]);
    expect(body[0].error.code).toBe(-32600);
    expect(body[1].result.content[0].text).toBe('slow:late');
  });

  it('JSON mode: a call in flight when its session is deleted is answered 404 + -32001', async () => {
    t = await startTarget(kind, server, { responseMode: 'json' });
    const s = await openSession(t);
    const pending = t.send('POST', '/mcp', { headers: s.headers, body: call(4, 'slow', { ms: 2000 }) });
    await sleep(100);
    const deleted = await t.send('DELETE', '/mcp', { headers: s.headers });
    expect(deleted.status).toBe(200);
    await deleted.text();
    const res = await pending;
    expect(res.status).toBe(404);
    expect(errorCode(await res.json())).toBe(-32001);
  });

  it('413 for a body over maxBodyBytes (with and without Content-Length); the server goes on', async () => {
    t = await startTarget(kind, server, { maxBodyBytes: 1024 });
    const s = await openSession(t);
    const big = call(1, 'echo', { text: 'x'.repeat(2000) });
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: big });
    expect(res.status).toBe(413);
    expect(errorCode(await res.json())).toBe(-32000);
    const chunked = await t.send('POST', '/mcp', { headers: s.headers, body: [big.slice(0, 800), big.slice(800, 1600), big.slice(1600)] });
    expect(chunked.status).toBe(413);
    await chunked.text();
    expect(await onlyMessage(await t.send('POST', '/mcp', { headers: s.headers, body: ping(2) }))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('413 reaches a fetch client that is still sending a large body (Content-Length and streamed)', async () => {
    t = await startTarget(kind, server, { maxBodyBytes: 1024 });
    // A client that declares a large Content-Length and keeps sending while it waits for the answer.
    if (t.port !== undefined) {
      const socket = net.connect(t.port, '127.0.0.1');
      let received = '';
      socket.on('data', (d: Buffer) => {
        received += d.toString('latin1');
      });
      socket.on('error', () => {});
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n');
      const deadline = Date.now() + 2000;
      while (!received.includes('\r\n\r\n') && !socket.destroyed && Date.now() < deadline) {
        socket.write(Buffer.alloc(64 * 1024, 120));
        await sleep(10);
      }
      socket.destroy();
      expect(received.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect(received.toLowerCase()).toContain('connection: close');
    }
    const s = await openSession(t);
    const big = call(1, 'echo', { text: 'x'.repeat(8 * 1024 * 1024) });
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    for (const streamed of [false, true]) {
      let sent = 0;
      const body = streamed
        ? new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ >= 128) controller.close();
            else controller.enqueue(chunk);
          },
        })
        : big;
      const init = { method: 'POST', headers: s.headers, body, duplex: 'half' } as RequestInit;
      const res = t.port === undefined
        ? await t.send('POST', '/mcp', { headers: s.headers, body: big })
        : await fetch(`http://127.0.0.1:${t.port}/mcp`, init);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    expect(await onlyMessage(await t.send('POST', '/mcp', { headers: s.headers, body: ping(2) }))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('idle sessions are reaped after sessionIdleTimeoutMs', async () => {
    t = await startTarget(kind, server, { sessionIdleTimeoutMs: 100 });
    const s = await openSession(t);
    await sleep(400);
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: ping(1) });
    expect(res.status).toBe(404);
    await res.text();
  });

  it('maxSessions caps live sessions (503), DELETE frees a slot', async () => {
    t = await startTarget(kind, server, { maxSessions: 1 });
    const s = await openSession(t);
    // Two requests after the handshake: the session is within its grace (sessionGraceMs), not reclaimable.
    for (const id of [1, 2]) await (await t.send('POST', '/mcp', { headers: s.headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }) })).text();
    const second = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
    expect(second.status).toBe(503);
    await second.text();
    await (await t.send('DELETE', '/mcp', { headers: s.headers })).text();
    await openSession(t);
  });

  it.each(['sse', 'json'] as const)('%s mode: a 2025-03-26 batch over the Dispatcher limit gets one -32600 and registers no id', async (responseMode) => {
    // The handler's own limit is raised so the batch reaches the session, whose Dispatcher (limit 100) refuses it.
    t = await startTarget(kind, server, { responseMode, maxBatchSize: 1000 });
    const s = await openSession(t, '2025-03-26');
    const batch = `[${Array.from({ length: 101 }, (_, i) => ping(i + 1)).join(',')}]`;
    const res = await t.send('POST', '/mcp', { headers: s.headers, body: batch });
    expect(await messagesOf(res)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batch of 101 messages exceeds the limit of 100' } },
    ]);
    // No id of the refused batch stays in flight.
    const after = await t.send('POST', '/mcp', { headers: s.headers, body: ping(1) });
    expect(await onlyMessage(after)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('a batch over maxBatchSize is refused as a whole (400, one -32600) before any member is handled, on every path', async () => {
    t = await startTarget(kind, server);
    const old = await openSession(t, '2025-03-26');
    const modern = await openSession(t, '2025-11-25');
    const pings = `[${Array.from({ length: 101 }, (_, i) => ping(i + 1)).join(',')}]`;
    const invalid = `[${new Array<string>(200_000).fill('1').join(',')}]`;
    const notifications = `[${new Array<string>(101).fill('{"jsonrpc":"2.0","method":"notifications/x"}').join(',')}]`;
    const { reader, endpoint } = await (async () => {
      const res = await t.send('GET', '/sse', { headers: { accept: 'text/event-stream' } });
      const r = new SseReader(res);
      return { reader: r, endpoint: (await r.next())?.data as string };
    })();
    const targets: [string, Record<string, string>][] = [
      ['/mcp', old.headers],
      ['/mcp', modern.headers],
      ['/mcp', { 'content-type': JSON_CT, accept: ACCEPT_BOTH }],
      [endpoint, { 'content-type': JSON_CT }],
    ];
    for (const [path, headers] of targets) {
      for (const [body, length] of [[pings, 101], [invalid, 200_000], [notifications, 101]] as const) {
        const started = Date.now();
        const res = await t.send('POST', path, { headers, body });
        expect(res.status).toBe(400);
        const text = await res.text();
        expect(text.length).toBeLessThan(200);
        expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: batch of ${length} messages exceeds the limit of 100` } });
        expect(Date.now() - started).toBeLessThan(1000);
      }
    }
    await reader.cancel();
    // A batch at the limit is served.
    const full = await t.send('POST', '/mcp', { headers: old.headers, body: `[${Array.from({ length: 100 }, (_, i) => ping(i + 1)).join(',')}]` });
    expect(full.status).toBe(200);
    expect(await messagesOf(full)).toHaveLength(100);
  });

  it.each(['sse', 'json'] as const)('%s mode: a result that cannot be serialized is answered with -32603 for its id', async (responseMode) => {
    server.tool('cyclic', {}, () => {
      const result: Record<string, unknown> = { content: [{ type: 'text', text: 'loop' }] };
      result.self = result;
      return result as unknown as CallToolResult;
    });
    server.tool('bigint', {}, () => ({ content: [{ type: 'text', text: 'big' }], _meta: { n: 10n } }) as unknown as CallToolResult);
    t = await startTarget(kind, server, { responseMode });
    const s = await openSession(t);
    for (const [id, name] of [[5, 'cyclic'], ['b', 'bigint']] as const) {
      const res = await t.send('POST', '/mcp', { headers: s.headers, body: call(id, name) });
      expect(res.status).toBe(200);
      expect(await messagesOf(res)).toEqual([{ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } }]);
    }
    // The ids are free again and the session goes on.
    expect(await onlyMessage(await t.send('POST', '/mcp', { headers: s.headers, body: ping(5) }))).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    // A batch answer with one such member: no member is routed before all are serialized; the Peer's stand-in
    // replaces that member alone (-32603), and the other keeps its answer.
    const old = await openSession(t, '2025-03-26');
    const batch = await t.send('POST', '/mcp', { headers: old.headers, body: `[${call('x', 'cyclic')},${ping('y')}]` });
    const messages = await messagesOf(batch);
    expect(messages.map((m) => [m.id, m.error?.code, m.result]).sort()).toEqual([['x', -32603, undefined], ['y', undefined, {}]]);
  });

  it.each(['sse', 'json'] as const)('%s mode: notifications/cancelled ends the cancelled request\'s exchange and frees its id', async (responseMode) => {
    t = await startTarget(kind, server, { responseMode });
    const s = await openSession(t);
    const started = Date.now();
    const pending = t.send('POST', '/mcp', { headers: s.headers, body: call(7, 'slow', { ms: 3000 }) });
    await sleep(100);
    const cancel = await t.send('POST', '/mcp', {
      headers: s.headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } }),
    });
    expect(cancel.status).toBe(202);
    await cancel.text();
    const res = await pending;
    if (responseMode === 'sse') {
      expect(res.status).toBe(200);
      const events = await new SseReader(res).rest(2000);
      // No response for the cancelled request; at most the priming event and the progress notification.
      expect(events.filter((e) => e.data !== '' && JSON.parse(e.data).id === 7)).toEqual([]);
    } else {
      // JSON mode: nothing will be answered, so the exchange ends with 202 and no body.
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    }
    expect(Date.now() - started).toBeLessThan(2500);
    // The id is no longer in flight.
    expect(await onlyMessage(await t.send('POST', '/mcp', { headers: s.headers, body: ping(7) }))).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('sessions that never complete the handshake are reaped after sessionHandshakeTimeoutMs; used ones stay', async () => {
    t = await startTarget(kind, server, { sessionHandshakeTimeoutMs: 100 });
    const used = await openSession(t);
    const init = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
    const halfOpen = init.headers.get('mcp-session-id') as string;
    await init.text();
    const legacy = await t.send('GET', '/sse', { headers: { accept: 'text/event-stream' } });
    const legacyReader = new SseReader(legacy);
    const endpoint = (await legacyReader.next())?.data as string;
    await sleep(400);
    const gone = await t.send('POST', '/mcp', { headers: { ...used.headers, 'mcp-session-id': halfOpen }, body: ping(1) });
    expect(gone.status).toBe(404);
    await gone.text();
    expect(await legacyReader.next()).toBeUndefined(); // the legacy stream was closed
    const legacyGone = await t.send('POST', endpoint, { headers: { 'content-type': JSON_CT }, body: ping(1) });
    expect(legacyGone.status).toBe(404);
    await legacyGone.text();
    expect(await onlyMessage(await t.send('POST', '/mcp', { headers: used.headers, body: ping(2) }))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('at maxSessions the oldest never-used session makes room; sessions within their grace are kept: 503 with a short Retry-After', async () => {
    t = await startTarget(kind, server, { maxSessions: 2 });
    const halfOpen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const init = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
      expect(init.status).toBe(200);
      halfOpen.push(init.headers.get('mcp-session-id') as string);
      await init.text();
    }
    // Both slots hold sessions that never came back: the oldest is closed to admit the new one.
    const a = await openSession(t);
    const first = await t.send('POST', '/mcp', { headers: { ...a.headers, 'mcp-session-id': halfOpen[0] as string }, body: ping(1) });
    expect(first.status).toBe(404);
    await first.text();
    // The second half-open session is still there; two requests on each live session put both within their grace.
    for (const headers of [{ ...a.headers, 'mcp-session-id': halfOpen[1] as string }, a.headers]) {
      for (const id of [1, 2]) {
        const res = await t.send('POST', '/mcp', { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }) });
        expect(res.status).toBe(200);
        await res.text();
      }
    }
    const refused = await t.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
    expect(refused.status).toBe(503);
    // Retry-After: when the first of them leaves its grace (sessionGraceMs, 10 s by default).
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(10);
    expect(errorCode(await refused.json())).toBe(-32000);
  });

  it('allowedHosts replaces the loopback defaults; eventStore: null disables priming and resumption', async () => {
    t = await startTarget(kind, server, { allowedHosts: ['mcp.example.com'], eventStore: null, responseMode: 'sse' });
    const local = await t.send('POST', '/mcp', { headers: { host: 'localhost', 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
    expect(local.status).toBe(403);
    await local.text();
    const res = await t.send('POST', '/mcp', { headers: { host: 'mcp.example.com:8443', 'content-type': JSON_CT, accept: ACCEPT_BOTH }, body: initBody() });
    expect(res.status).toBe(200);
    const sessionId = res.headers.get('mcp-session-id') as string;
    await res.text();
    const headers = { host: 'mcp.example.com', 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-session-id': sessionId };
    const events = await new SseReader(await t.send('POST', '/mcp', { headers, body: ping(1) })).rest();
    expect(events).toEqual([{ event: 'message', data: '{"jsonrpc":"2.0","id":1,"result":{}}' }]);
    const resume = await t.send('GET', '/mcp', { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': 'x.1' } });
    expect(resume.status).toBe(400);
    await resume.text();
  });
});

describe.each(PATHS)('Origin validation via %s (MCP 2025-11-25 basic/transports.mdx "Security Warning")', (kind) => {
  let server: McpServer;
  let t: Target | undefined;
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };

  beforeEach(() => {
    server = createTestServer();
    warnings.length = 0;
  });

  afterEach(async () => {
    await t?.close();
    t = undefined;
    await server.close();
  });

  /** The Host a client of this target sends by default (the socket's address, or a made-up one on the web path). */
  function ownHost(target: Target): string {
    return target.port === undefined ? 'localhost:3000' : `127.0.0.1:${target.port}`;
  }

  function initialize(target: Target, headers: Record<string, string>): Promise<Response> {
    return target.send('POST', '/mcp', { headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, ...headers }, body: initBody() });
  }

  async function expectServed(res: Response): Promise<void> {
    expect(res.status).toBe(200);
    expect(await onlyMessage(res)).toMatchObject({ jsonrpc: '2.0', id: 'init', result: { protocolVersion: '2025-11-25' } });
  }

  async function expectForbidden(res: Response, origin: string): Promise<void> {
    expect(res.status).toBe(403);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: `Forbidden: Origin header not allowed: '${origin}' is not the server's origin and is not in allowedOrigins` },
    });
  }

  it('loopback defaults: no Origin and the same origin are served; another port, scheme, host, or null is 403', async () => {
    t = await startTarget(kind, server);
    const host = ownHost(t);
    await expectServed(await initialize(t, { host }));
    await expectServed(await initialize(t, { host, origin: `http://${host}` }));
    const [name] = host.split(':') as [string];
    for (const origin of [`http://${name}:1`, `http://${name}`, `https://${host}`, `http://${name === 'localhost' ? '127.0.0.1' : 'localhost'}:${host.split(':')[1]}`, 'http://evil.example.com', 'null']) {
      await expectForbidden(await initialize(t, { host, origin }), origin);
    }
    expect(server.sessions.size).toBe(2);
  });

  it('a non-loopback bind (Host validation off, as serveHttp does for 0.0.0.0): the same origin is served, others are 403', async () => {
    t = await startTarget(kind, server, { dnsRebindingProtection: false });
    const host = 'mcp.example.com:8080';
    await expectServed(await initialize(t, { host }));
    await expectServed(await initialize(t, { host, origin: 'http://mcp.example.com:8080' }));
    await expectServed(await initialize(t, { host: 'mcp.example.com', origin: 'http://mcp.example.com:80' }));
    for (const origin of ['http://evil.example.com', 'http://mcp.example.com:9090', 'https://mcp.example.com:8080', 'null']) {
      await expectForbidden(await initialize(t, { host, origin }), origin);
    }
  });

  it('allowedOrigins adds origins to the same origin; others stay 403', async () => {
    t = await startTarget(kind, server, { allowedOrigins: ['http://localhost:5173'] });
    const host = ownHost(t);
    await expectServed(await initialize(t, { host, origin: 'http://localhost:5173' }));
    await expectServed(await initialize(t, { host, origin: `http://${host}` }));
    await expectForbidden(await initialize(t, { host, origin: 'http://localhost:5174' }), 'http://localhost:5174');
  });

  it('allowAnyOrigin: true opts out (with a warning); Host validation still applies', async () => {
    t = await startTarget(kind, server, { allowAnyOrigin: true, logger });
    const host = ownHost(t);
    await expectServed(await initialize(t, { host, origin: 'http://evil.example.com' }));
    await expectServed(await initialize(t, { host, origin: 'null' }));
    const foreignHost = await initialize(t, { host: 'evil.example.com', origin: 'http://evil.example.com' });
    expect(foreignHost.status).toBe(403);
    expect((await foreignHost.json()).error.message).toBe("Forbidden: Host header not allowed: 'evil.example.com'");
    expect(warnings.filter((w) => w.includes('allowAnyOrigin'))).toHaveLength(1);
  });

  it('X-Forwarded-Proto counts only with trustProxy (TLS terminated by a proxy)', async () => {
    const headers = { host: 'mcp.example.com', origin: 'https://mcp.example.com', 'x-forwarded-proto': 'https' };
    t = await startTarget(kind, server, { dnsRebindingProtection: false });
    await expectForbidden(await initialize(t, headers), 'https://mcp.example.com');
    await t.close();
    t = await startTarget(kind, server, { dnsRebindingProtection: false, trustProxy: true });
    await expectServed(await initialize(t, headers));
    await expectForbidden(await initialize(t, { ...headers, 'x-forwarded-proto': 'http' }), 'https://mcp.example.com');
  });

  it('the 2024-11-05 endpoints check Origin too: GET /sse and POST /messages', async () => {
    t = await startTarget(kind, server, { dnsRebindingProtection: false });
    const host = 'mcp.example.com:8080';
    const stream = await t.send('GET', '/sse', { headers: { host, origin: 'http://mcp.example.com:8080', accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const reader = new SseReader(stream);
    const endpoint = (await reader.next())?.data as string;
    await expectForbidden(await t.send('GET', '/sse', { headers: { host, origin: 'http://evil.example.com', accept: 'text/event-stream' } }), 'http://evil.example.com');
    await expectForbidden(await t.send('POST', endpoint, { headers: { host, origin: 'null', 'content-type': JSON_CT }, body: ping(1) }), 'null');
    const ok = await t.send('POST', endpoint, { headers: { host, origin: 'http://mcp.example.com:8080', 'content-type': JSON_CT }, body: ping(1) });
    expect(ok.status).toBe(202);
    await ok.text();
    expect(await reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await reader.cancel();
  });
});

describe.each(PATHS)('legacy HTTP+SSE (2024-11-05) via %s', (kind) => {
  let t: Target;
  useTarget(kind, (_server, target) => {
    t = target;
  });

  async function connect(): Promise<{ reader: SseReader; endpoint: string }> {
    const res = await t.send('GET', '/sse', { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = new SseReader(res);
    const first = await reader.next();
    expect(first?.event).toBe('endpoint');
    expect(first?.data).toMatch(/^\/messages\?sessionId=[0-9a-f-]{36}$/);
    return { reader, endpoint: first?.data as string };
  }

  it('end to end: endpoint event, POST → 202 "Accepted", responses as event: message', async () => {
    const { reader, endpoint } = await connect();
    const init = await t.send('POST', endpoint, { headers: { 'content-type': JSON_CT }, body: initBody('2024-11-05') });
    expect(init.status).toBe(202);
    expect(await init.text()).toBe('Accepted');
    const initEvent = await reader.next();
    expect(initEvent?.event).toBe('message');
    expect(JSON.parse(initEvent?.data ?? '')).toMatchObject({ id: 'init', result: { protocolVersion: '2024-11-05' } });
    expect((await t.send('POST', endpoint, { headers: { 'content-type': JSON_CT }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).status).toBe(202);
    expect((await t.send('POST', endpoint, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: call(2, 'echo', { text: 'old' }) })).status).toBe(202);
    expect(await reader.nextMessage()).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo:old' }] } });
    await reader.cancel();
  });

  it('errors: 400 missing sessionId / bad Content-Type / bad JSON, 404 unknown session, 403 foreign Host, 405', async () => {
    const { reader, endpoint } = await connect();
    const missing = await t.send('POST', '/messages', { headers: { 'content-type': JSON_CT }, body: ping(1) });
    expect(missing.status).toBe(400);
    await missing.text();
    const unknown = await t.send('POST', '/messages?sessionId=nope', { headers: { 'content-type': JSON_CT }, body: ping(1) });
    expect(unknown.status).toBe(404);
    await unknown.text();
    const plain = await t.send('POST', endpoint, { headers: { 'content-type': 'text/plain' }, body: ping(1) });
    expect(plain.status).toBe(400);
    await plain.text();
    const bad = await t.send('POST', endpoint, { headers: { 'content-type': JSON_CT }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect(errorCode(await bad.json())).toBe(-32700);
    const evil = await t.send('POST', endpoint, { headers: { host: 'evil.example.com', 'content-type': JSON_CT }, body: ping(1) });
    expect(evil.status).toBe(403);
    await evil.text();
    const evilSse = await t.send('GET', '/sse', { headers: { host: 'evil.example.com', accept: 'text/event-stream' } });
    expect(evilSse.status).toBe(403);
    await evilSse.text();
    const wrong = await t.send('GET', endpoint);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    await wrong.text();
    await reader.cancel();
  });

  it('closing the SSE stream ends the session (then 404)', async () => {
    const { reader, endpoint } = await connect();
    await reader.cancel();
    await eventually(async () => {
      const res = await t.send('POST', endpoint, { headers: { 'content-type': JSON_CT }, body: ping(1) });
      await res.text();
      return res.status === 404;
    });
  });
});

describe.each(['direct', 'fetch'] as const)('interop: official SDK 1.32.2 client via the Node adapter (%s)', (via) => {
  let server: McpServer;
  let handle: Awaited<ReturnType<typeof serveHttp>>;

  beforeEach(async () => {
    server = createTestServer();
    handle = await serveHttp({ server, via });
  });

  afterEach(async () => {
    await handle.close();
    await server.close();
  });

  it('StreamableHTTPClientTransport: tools, progress, SSE polling reconnection, terminateSession', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(handle.url));
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toEqual(['echo', 'slow', 'poll', 'ask']);
      expect(await client.callTool({ name: 'echo', arguments: { text: 'sdk' } })).toEqual({ content: [{ type: 'text', text: 'echo:sdk' }] });
      const progress: number[] = [];
      const slow = await client.callTool({ name: 'slow', arguments: { ms: 20, tag: 'p' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
      expect(slow).toEqual({ content: [{ type: 'text', text: 'slow:p' }] });
      expect(progress).toEqual([1]);
      // The server closes the POST stream; the SDK reconnects with GET + Last-Event-ID and gets the result.
      expect(await client.callTool({ name: 'poll', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'poll:true' }] });
      const sessionId = transport.sessionId as string;
      await transport.terminateSession();
      const after = await rawRequest(handle.port, 'POST', '/mcp', {
        headers: { 'content-type': JSON_CT, accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
        body: ping(1),
      });
      expect(after.status).toBe(404);
      await after.text();
    } finally {
      await client.close();
    }
  });

  it('SSEClientTransport (legacy 2024-11-05 HTTP+SSE) calls a tool on the same server', async () => {
    const client = new Client({ name: 'sdk-legacy', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL(handle.url.replace(/\/mcp$/, '/sse'))));
    try {
      expect(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } })).toEqual({ content: [{ type: 'text', text: 'echo:legacy' }] });
    } finally {
      await client.close();
    }
  });
});
