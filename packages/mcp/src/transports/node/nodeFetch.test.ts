/**
 * `createNodeFetch` / `nodeFetch`: against a tiny node:http server on 127.0.0.1 (headers both ways, bodies, a body
 * that streams and never ends, abort before and after the answer, socket failures with their Node codes, no
 * redirects), and as the `fetch` of McpClient over Streamable HTTP against our own server in both eras (JSON and
 * SSE answers, the legacy GET stream, a 2026-07-28 listen stream, a cancelled call, a reset keep-alive socket, a
 * server restart).
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CancellationSource, type CancelListener, type Logger } from '@switchboard/jsonrpc';
import { McpClient } from '../../client/mcpClient.js';
import { InMemoryEraVerdictStore } from '../../client/verdicts.js';
import { ConnectionClosedError } from '../../protocol/clientErrors.js';
import { McpServer } from '../../server/mcpServer.js';
import { InMemoryNotificationBus } from '../../stores/notificationBus.js';
import { streamableHttp } from '../http/client/clientConnectors.js';
import { DIRECT_REQUEST, isAbort, isStaleSocket } from '../http/client/clientHttp.js';
import { StreamableHttpClientTransport } from '../http/client/streamableHttpClient.js';
import { createMcpHttpHandler } from '../http/server/handler.js';
import { createNodeFetch, nodeFetch, type NodeFetch } from './nodeFetch.js';
import { toNodeListener } from './listener.js';
import { serveHttp, type ServeHttpHandle } from './serveHttp.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const settle = (ms = 10): Promise<void> => new Promise((r) => setTimeout(r, ms));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A node:http server on 127.0.0.1, port 0, closed after the test. */
async function tiny(listener: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function ownFetch(): NodeFetch {
  const fetch = createNodeFetch({ maxSockets: 4 });
  cleanups.push(() => fetch.destroy());
  return fetch;
}

function readAll(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });
}

describe('createNodeFetch against a node:http server', () => {
  it('sends method, headers and a string or byte body; answers status, statusText, joined headers and the body', async () => {
    const seen: { method?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
    const { url } = await tiny((req, res) => {
      void readAll(req).then((body) => {
        seen.push({ method: req.method, headers: req.headers, body });
        res.writeHead(201, 'Made', [['content-type', 'application/json'], ['x-many', 'a'], ['x-many', 'b']]);
        res.end('{"ok":true}');
      });
    });
    const fetch = ownFetch();
    const response = await fetch(`${url}/mcp?x=1`, { method: 'POST', headers: new Headers({ 'x-token': 'secret', accept: 'application/json' }), body: 'héllo' });
    expect([response.status, response.statusText, response.ok]).toEqual([201, 'Made', true]);
    expect(response.headers.get('x-many')).toBe('a, b');
    expect(await response.json()).toEqual({ ok: true });
    // A caller's Transfer-Encoding is dropped: the body goes with its Content-Length (a Fetch forbidden request-header).
    await fetch(url, { method: 'PUT', headers: { 'X-Record': 'yes', 'Transfer-Encoding': 'chunked' }, body: new TextEncoder().encode('bytes') });
    expect(seen[0]).toMatchObject({ method: 'POST', headers: { 'x-token': 'secret', accept: 'application/json', 'content-length': '6' }, body: 'héllo' });
    expect(seen[1]).toMatchObject({ method: 'PUT', headers: { 'x-record': 'yes', 'content-length': '5' }, body: 'bytes' });
    expect(seen[1]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('a 3xx is returned as it is; a 204 has a null body; connections are kept alive', async () => {
    const ports = new Set<number>();
    const { url } = await tiny((req, res) => {
      ports.add(req.socket.remotePort as number);
      if (req.url === '/moved') res.writeHead(307, { location: '/elsewhere' }).end('go');
      else res.writeHead(204).end();
    });
    const fetch = ownFetch();
    const moved = await fetch(`${url}/moved`);
    expect([moved.status, moved.headers.get('location'), await moved.text()]).toEqual([307, '/elsewhere', 'go']);
    const empty = await fetch(`${url}/none`, { method: 'DELETE' });
    expect([empty.status, empty.body]).toEqual([204, null]);
    expect(ports.size).toBe(1);
  });

  it('the body streams: an SSE event is read before the stream ends; cancelling the body closes the socket and lets go of the signal', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const { url } = await tiny((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: first\n\n');
      req.socket.on('close', closed);
    });
    const controller = new AbortController();
    const response = await ownFetch()(url, { method: 'GET', signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe('id: 1\ndata: first\n\n');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await reader.cancel();
    await serverSawClose;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort before the answer rejects with the AbortError and the server sees the connection close', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const { url } = await tiny((req) => req.socket.on('close', closed));
    const controller = new AbortController();
    const pending = ownFetch()(url, { method: 'POST', body: '{}', signal: controller.signal });
    await settle(30);
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(isAbort(error, new AbortController().signal)).toBe(true);
    await serverSawClose;
  });

  it('an abort while the body streams errors the read with the reason; an aborted signal rejects at once', async () => {
    const { url } = await tiny((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
    });
    const fetch = ownFetch();
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const reason = new Error('enough');
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await expect(fetch(url, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('socket failures are TypeError("fetch failed") with the Node error code in cause; a reset socket is stale, a refusal is not', async () => {
    const { url, server } = await tiny((req) => req.socket.destroy());
    const fetch = ownFetch();
    const reset = await fetch(url, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(TypeError);
    expect(reset).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } });
    expect(isStaleSocket(reset)).toBe(true);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const refused = await fetch(url).catch((e: unknown) => e);
    expect(refused).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    expect(isStaleSocket(refused)).toBe(false);
  });

  it('a body cut short errors the stream with TypeError("terminated"); other URL schemes and body types are refused', async () => {
    const { url } = await tiny((req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('part');
      setTimeout(() => req.socket.destroy(), 10);
    });
    const fetch = ownFetch();
    const response = await fetch(url);
    await expect(response.text()).rejects.toMatchObject({ name: 'TypeError' });
    await expect(fetch('file:///etc/hosts')).rejects.toMatchObject({ message: 'fetch failed', cause: { message: 'Unsupported URL scheme: "file:": nodeFetch speaks http: and https:' } });
    await expect(fetch(url, { method: 'POST', body: new Blob(['x']) })).rejects.toMatchObject({ message: 'fetch failed' });
  });
});

describe('the Streamable HTTP client on the direct request: a JSON body that fails while it is read', () => {
  it('fails its request with ConnectionClosedError: the transport closed mid-body, or the body cut short', async () => {
    const { url } = await tiny((req, res) => {
      void readAll(req).then(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"jsonrpc":"2.0",');
        if (req.headers['mcp-method'] === 'ping') setTimeout(() => req.socket.destroy(), 20);
      });
    });
    const open = (): StreamableHttpClientTransport => {
      const transport = new StreamableHttpClientTransport({ url: `${url}/mcp`, fetch: ownFetch(), logger: silent });
      transport.setProtocol({ era: 'modern', revision: '2026-07-28' });
      return transport;
    };
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    const closing = open();
    const pending = closing.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }).catch((e: unknown) => e);
    await settle(50);
    await closing.close();
    expect(await pending).toMatchObject({ name: 'ConnectionClosedError', reason: 'the transport closed' });
    const cut = open();
    const error = await cut.send({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: meta } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ cause: { name: 'TypeError', message: 'terminated' } });
    await cut.close();
  });
});

/** A cancellation that counts its listeners registered and not removed. */
class CountedCancellation extends CancellationSource {
  live = 0;
  override onCancel(listener: CancelListener): void {
    this.live++;
    super.onCancel(listener);
  }
  override offCancel(listener: CancelListener): void {
    this.live--;
    super.offCancel(listener);
  }
}

describe('the direct request of createNodeFetch (what the Streamable HTTP client sends requests with)', () => {
  const post = (url: string, abort = new CancellationSource(), headers: readonly string[] = ['content-type', 'application/json'], maxJsonBytes = 1024) =>
    ownFetch()[DIRECT_REQUEST](new URL(url), { method: 'POST', headers, body: '{"hé":1}', abort, maxJsonBytes });

  it('a 2xx JSON answer comes with its body read as text within a bound; the headers given are sent, not changed', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const { url } = await tiny((req, res) => {
      seen.push(req.headers);
      void readAll(req).then((body) => res.writeHead(200, [['content-type', 'application/json'], ['x-many', 'a'], ['x-many', 'b']]).end(`{"echo":${body}}`));
    });
    // A listed content-length is replaced by the body's own, a listed transfer-encoding dropped (the body's framing
    // is the request's own); Host is the URL's unless listed.
    const headers = ['content-type', 'application/json', 'x-token', 'secret', 'content-length', '999', 'transfer-encoding', 'chunked'];
    const counted = new CountedCancellation();
    const answer = await post(`${url}/mcp?x=1`, counted, headers);
    expect(counted.live).toBe(0);
    expect([answer.status, answer.header('content-type'), answer.header('x-many'), answer.header('absent')]).toEqual([200, 'application/json', 'a, b', undefined]);
    expect(answer.json).toEqual({ text: '{"echo":{"hé":1}}', complete: true });
    expect(seen[0]).toMatchObject({ 'x-token': 'secret', 'content-length': '9', host: new URL(url).host });
    expect(seen[0]?.['transfer-encoding']).toBeUndefined();
    expect(headers).toEqual(['content-type', 'application/json', 'x-token', 'secret', 'content-length', '999', 'transfer-encoding', 'chunked']);
    await post(url, undefined, ['host', 'mcp.example', 'content-type', 'application/json']);
    expect(seen[1]).toMatchObject({ host: 'mcp.example', 'content-type': 'application/json' });
    // A field node:http refuses (CR/LF in a value) rejects before anything is sent.
    await expect(post(url, undefined, ['x-token', 'a\r\nx-injected: 1'])).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(seen).toHaveLength(2);
    const cut = await post(url, undefined, undefined, 5);
    expect(cut.json).toEqual({ text: '{"ech', complete: false });
  });

  it('any other answer becomes the Response fetch gives: an SSE body streams and an abort errors it with the reason', async () => {
    const { url } = await tiny((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const controller = new CancellationSource();
    const answer = await post(url, controller);
    expect(answer.json).toBeUndefined();
    const response = answer.response();
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    const reason = new Error('enough');
    controller.cancel(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });

  it('fails as fetch does: the AbortError before the answer, "fetch failed" for a socket error; a JSON body read fails with the reason once aborted, "terminated" when cut short', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const { url } = await tiny((req, res) => {
      if (req.url === '/hang') req.socket.on('close', closed);
      else if (req.url === '/slow') res.writeHead(200, { 'content-type': 'application/json' }).write('{');
      else if (req.url === '/cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{');
        setTimeout(() => req.socket.destroy(), 10);
      } else req.socket.destroy();
    });
    const before = new CancellationSource();
    const pending = post(`${url}/hang`, before);
    await settle(30);
    before.cancel();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    await serverSawClose;
    const during = new CountedCancellation();
    const slow = post(`${url}/slow`, during);
    await settle(30);
    const reason = new Error('enough');
    during.cancel(reason);
    expect((await slow).json).toEqual({ error: reason });
    await expect(post(`${url}/slow`, during)).rejects.toBe(reason);
    expect(during.live).toBe(0);
    expect((await post(`${url}/cut`)).json).toMatchObject({ error: { name: 'TypeError', message: 'terminated' } });
    const reset = await post(`${url}/reset`).catch((e: unknown) => e);
    expect(reset).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } });
    expect(isStaleSocket(reset)).toBe(true);
  });
});

describe('header values with characters U+0080..U+00FF', () => {
  it('go as one byte each, as fetch sends them, on both paths; the body stays UTF-8', async () => {
    /** The raw bytes of each request's `x-t` value and body, from a TCP server that answers every request with a 200. */
    const seen: { value: string; body: string }[] = [];
    const server = net.createServer((socket) => {
      let bytes = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        bytes = Buffer.concat([bytes, chunk]);
        const head = bytes.indexOf('\r\n\r\n');
        if (head === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(bytes.subarray(0, head).toString('latin1'))?.[1]);
        if (bytes.length < head + 4 + length) return;
        const at = bytes.indexOf('x-t: ') + 5;
        seen.push({ value: bytes.subarray(at, bytes.indexOf('\r\n', at)).toString('hex'), body: bytes.subarray(head + 4, head + 4 + length).toString('hex') });
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const value = 'caf\u00e9';
    await (await globalThis.fetch(url, { method: 'POST', headers: { 'x-t': value }, body: '"é"' })).text();
    const fetch = ownFetch();
    await (await fetch(url, { method: 'POST', headers: { 'x-t': value }, body: '"é"' })).text();
    await fetch[DIRECT_REQUEST](new URL(url), { method: 'POST', headers: ['x-t', value], body: '"é"', abort: new CancellationSource(), maxJsonBytes: 64 });
    expect(seen).toEqual(Array(3).fill({ value: '636166e9', body: '22c3a922' }));
  });
});

describe.each(['legacy', 'modern'] as const)('McpClient with nodeFetch against our server (%s era)', (era) => {
  async function start(): Promise<{ client: McpClient; server: McpServer; bus: InMemoryNotificationBus; answers: string[]; sawAbort: Promise<void>; http: ServeHttpHandle }> {
    let noteAbort!: () => void;
    const sawAbort = new Promise<void>((resolve) => (noteAbort = resolve));
    const bus = new InMemoryNotificationBus();
    const server = new McpServer({ name: 'own', version: '1' }, { logger: silent, bus, capabilities: { tools: { listChanged: true } } });
    server.tool('echo', {}, (args: { text?: string }) => ({ content: [{ type: 'text', text: args.text ?? '' }] }));
    server.tool('slow', {}, async (_args, ctx) => {
      await ctx.progress(1, 2, 'half');
      await settle(20);
      return { content: [{ type: 'text', text: 'slow done' }] };
    });
    server.tool('wait', {}, async (_args, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      noteAbort();
      return { content: [] };
    });
    const http = await serveHttp({ server, port: 0 });
    const answers: string[] = [];
    const fetch = ownFetch();
    const recording: typeof fetch = Object.assign(async (input: string | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      answers.push(`fetch ${init?.method ?? 'GET'} ${response.status} ${response.headers.get('content-type') ?? ''}`);
      return response;
    }, {
      destroy: () => fetch.destroy(),
      [DIRECT_REQUEST]: async (...args: Parameters<NodeFetch[typeof DIRECT_REQUEST]>) => {
        const answer = await fetch[DIRECT_REQUEST](...args);
        answers.push(`direct ${args[1].method} ${answer.status} ${answer.header('content-type') ?? ''}`);
        return answer;
      },
    });
    const client = await McpClient.connect({ connector: streamableHttp({ url: http.url, fetch: recording }), era, logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    cleanups.push(async () => {
      await client.close();
      await http.close({ drainMs: 0 });
      await server.close();
    });
    return { client, server, bus, answers, sawAbort, http };
  }

  it('a JSON answer and an SSE answer (progress, then the result)', async () => {
    const { client, answers } = await start();
    expect(client.era).toBe(era);
    answers.length = 0;
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    const progress: unknown[] = [];
    expect(await client.callTool({ name: 'slow' }, { onprogress: (p) => progress.push(p) })).toMatchObject({ content: [{ type: 'text', text: 'slow done' }] });
    expect(progress).toMatchObject([{ progress: 1, total: 2, message: 'half' }]);
    // Requests go by the direct request: the JSON answer is read without a Response, the SSE one becomes one.
    expect(answers).toEqual(['direct POST 200 application/json', 'direct POST 200 text/event-stream']);
  });

  it('a cancelled call: the server sees the cancellation', async () => {
    const { client, sawAbort } = await start();
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait' }, { signal: controller.signal });
    await settle(50);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'request_aborted' });
    await sawAbort;
    expect(await client.callTool({ name: 'echo', arguments: { text: 'after' } })).toMatchObject({ content: [{ type: 'text', text: 'after' }] });
  });

  it('a server restart on the same port: the next safe request succeeds (a reset pooled socket is resent), then calls do', async () => {
    const { client, server, http } = await start();
    const port = http.port;
    await http.close({ drainMs: 0 });
    const again = await serveHttp({ server, port });
    cleanups.push(() => again.close({ drainMs: 0 }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'slow', 'wait']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'back' } })).toMatchObject({ content: [{ type: 'text', text: 'back' }] });
  });
});

describe('McpClient with nodeFetch: streams', () => {
  it('legacy: the GET stream stays open and carries a list change', async () => {
    const server = new McpServer({ name: 'own', version: '1' }, { logger: silent, capabilities: { tools: { listChanged: true } } });
    server.tool('echo', {}, () => ({ content: [] }));
    const http = await serveHttp({ server, port: 0 });
    let changed!: () => void;
    const heard = new Promise<void>((resolve) => (changed = resolve));
    const client = await McpClient.connect({ connector: streamableHttp({ url: http.url, fetch: nodeFetch }), era: 'legacy', logger: silent, verdictStore: new InMemoryEraVerdictStore(), notifications: { toolsListChanged: () => changed() } });
    cleanups.push(async () => {
      await client.close();
      await http.close({ drainMs: 0 });
      await server.close();
    });
    await settle(50);
    server.tool('later', {}, () => ({ content: [] }));
    await heard;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'later']);
  });

  it('modern: a listen stream delivers notifications; closing it ends the server side', async () => {
    const bus = new InMemoryNotificationBus();
    const server = new McpServer({ name: 'own', version: '1' }, { logger: silent, bus, capabilities: { tools: { listChanged: true } } });
    const http = await serveHttp({ server, port: 0 });
    const client = await McpClient.connect({ connector: streamableHttp({ url: http.url, fetch: nodeFetch }), era: 'modern', logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    cleanups.push(async () => {
      await client.close();
      await http.close({ drainMs: 0 });
      await server.close();
    });
    const before = bus.size;
    const sub = await client.listen({ toolsListChanged: true });
    const heard: unknown[] = [];
    sub.on((n) => heard.push(n));
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    for (let i = 0; i < 100 && heard.length === 0; i++) await settle(5);
    expect(heard).toEqual([{ method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': sub.id } } }]);
    expect(await sub.close()).toEqual({ reason: 'client' });
    for (let i = 0; i < 100 && bus.size !== before; i++) await settle(5);
    expect(bus.size).toBe(before);
  });
});

describe('McpClient with nodeFetch: a reset keep-alive socket', () => {
  it('a safe request is resent on a new connection; a tools/call is not', async () => {
    const server = new McpServer({ name: 'own', version: '1' }, { logger: silent });
    server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const listener = toNodeListener(createMcpHttpHandler({ server }));
    let resetNext = false;
    const methods: string[] = [];
    const { url } = await tiny((req, res) => {
      methods.push(String(req.headers['mcp-method']));
      if (resetNext) {
        resetNext = false;
        req.socket.destroy();
        return;
      }
      void listener(req, res);
    });
    const client = await McpClient.connect({ connector: streamableHttp({ url: `${url}/mcp`, fetch: ownFetch() }), era: 'modern', logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    cleanups.push(async () => {
      await client.close();
      await server.close();
    });
    methods.length = 0;
    resetNext = true;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(methods).toEqual(['tools/list', 'tools/list']);
    resetNext = true;
    const error = await client.callTool({ name: 'echo' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(String((error as Error).message)).toMatch(/ECONNRESET/);
  });
});
