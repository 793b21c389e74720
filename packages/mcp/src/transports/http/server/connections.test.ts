/**
 * The Node adapter's connection limits on a real socket: slow headers and slow bodies are cut
 * after their (small, test-set) timeouts, SSE streams and silent long calls are not, and `maxConnections` refuses
 * connections beyond the cap and admits again once one closes. Servers on 127.0.0.1, port 0.
 */
import http from 'node:http';
import net from 'node:net';
import { silentLogger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { serveHttp } from '../../node/index.js';
import type { ServeHttpHandle, ServeHttpOptions } from '../../node/index.js';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } } });

function createServer(): McpServer {
  const server = new McpServer({ name: 'connections-test', version: '1.0.0' }, { logger: silentLogger });
  server.tool('nap', { inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } }, async (args: { ms?: number }) => {
    await new Promise((resolve) => setTimeout(resolve, args.ms ?? 0));
    return { content: [{ type: 'text', text: 'rested' }] };
  });
  // More than the loopback socket buffers take (a few MiB each way), so a client that does not read stalls it.
  server.tool('big', {}, () => ({ content: [{ type: 'text', text: 'x'.repeat(32 * 1024 * 1024) }] }));
  return server;
}

let served: ServeHttpHandle | undefined;
const sockets: net.Socket[] = [];

async function start(options: Partial<ServeHttpOptions>): Promise<ServeHttpHandle> {
  served = await serveHttp({ server: createServer(), responseMode: 'json', ...options });
  return served;
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await served?.close();
  served = undefined;
});

interface Ended {
  /** Milliseconds from connect to close. */
  readonly afterMs: number;
  /** Everything the server sent. */
  readonly received: string;
}

/** A raw connection that writes `bytes` and waits for the server to close it. */
function rawConnection(port: number, bytes: string): { readonly socket: net.Socket; readonly ended: Promise<Ended> } {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  const start = Date.now();
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {});
  socket.on('connect', () => {
    if (bytes !== '') socket.write(bytes);
  });
  const ended = new Promise<Ended>((resolve) => socket.on('close', () => resolve({ afterMs: Date.now() - start, received })));
  return { socket, ended };
}

/** A legitimate initialize over a fresh connection: its status. */
function initialize(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(INIT);
  });
}

const TIMEOUT_408 = /^HTTP\/1\.1 408 Request Timeout\r\n/;

describe('serveHttp timeouts', () => {
  it('a client that never finishes its headers gets 408 and is closed after headersTimeoutMs; others get through', async () => {
    const { port } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 1000 });
    const silent = rawConnection(port, '');
    const slow = rawConnection(port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
    expect(await initialize(port)).toBe(200);
    for (const { ended } of [silent, slow]) {
      const { afterMs, received } = await ended;
      expect(received).toMatch(TIMEOUT_408);
      expect(afterMs).toBeGreaterThanOrEqual(250);
      expect(afterMs).toBeLessThan(2000);
    }
  });

  it('a body that does not arrive within requestTimeoutMs gets 408 and the connection is closed; others get through', async () => {
    const { port } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 500 });
    const slow = rawConnection(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${INIT.length}\r\n\r\n${INIT.slice(0, 10)}`);
    expect(await initialize(port)).toBe(200);
    const { afterMs, received } = await slow.ended;
    expect(received).toMatch(TIMEOUT_408);
    expect(afterMs).toBeGreaterThanOrEqual(450);
    expect(afterMs).toBeLessThan(2500);
    expect(served?.handler.sessionCount).toBe(1);
  });

  it.each([50, 0])('an SSE stream (keep-alive every %i ms) outlives every timeout tenfold', async (sseKeepAliveMs) => {
    const { port } = await start({ headersTimeoutMs: 100, requestTimeoutMs: 200, keepAliveTimeoutMs: 100, idleTimeoutMs: 200, sseKeepAliveMs, httpSse: true });
    const stream = rawConnection(port, 'GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
    const outcome = await Promise.race([stream.ended, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 2000))]);
    expect(outcome).toBe('open');
    stream.socket.destroy();
    const sent = await stream.ended;
    expect(sent.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(sent.received).toContain('event: endpoint\ndata: /messages?sessionId=');
    const keepAlives = sent.received.split('\n: keep-alive').length - 1;
    if (sseKeepAliveMs > 0) expect(keepAlives).toBeGreaterThanOrEqual(10);
  });

  it.each([
    ['direct', 'json'],
    ['direct', 'sse'],
    ['fetch', 'json'],
    ['fetch', 'sse'],
  ] as const)('%s, %s answer: a tool call silent for 5× idleTimeoutMs is answered on its connection', async (via, responseMode) => {
    // Every timeout below the call's 1000 ms of silence; the header and request ones not so tight that a test worker
    // stalled for 100 ms (the whole suite on two cores) has its `initialize` refused with 408 before it is read.
    const { port } = await start({ via, responseMode, idleTimeoutMs: 200, headersTimeoutMs: 400, requestTimeoutMs: 500 });
    const init = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INIT });
    expect(init.status).toBe(200);
    const id = init.headers.get('mcp-session-id') as string;
    await init.text();
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nap', arguments: { ms: 1000 } } });
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, body: call });
    const body = await res.text();
    const answer = responseMode === 'json' ? body : (/^data: (\{.*\})$/m.exec(body)?.[1] ?? body);
    expect(JSON.parse(answer)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'rested' }] } });
  });

  it('a client that stops reading a buffered answer is cut after idleTimeoutMs', async () => {
    const { port, httpServer } = await start({ idleTimeoutMs: 300 });
    const connections = (): Promise<number> => new Promise((resolve, reject) => httpServer.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    const id = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', agent: false, headers: { connection: 'close', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.headers['mcp-session-id'])));
      });
      req.on('error', reject);
      req.end(INIT);
    });
    await vi.waitFor(async () => expect(await connections()).toBe(0));
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'big', arguments: {} } });
    const stalled = rawConnection(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: ${id}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${call.length}\r\n\r\n${call}`);
    stalled.socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await connections()).toBe(1);
    await vi.waitFor(async () => expect(await connections()).toBe(0), { timeout: 5000, interval: 50 });
  });

  it.each([
    [{ headersTimeoutMs: -1 }, RangeError, 'Invalid option headersTimeoutMs: expected a whole number of milliseconds from 0 to 2147483647, got -1'],
    [{ requestTimeoutMs: '30s' }, TypeError, 'Invalid option requestTimeoutMs: expected a whole number of milliseconds, got "30s"'],
    [{ keepAliveTimeoutMs: 1.5 }, RangeError, 'Invalid option keepAliveTimeoutMs: expected a whole number of milliseconds from 0 to 2147483647, got 1.5'],
    [{ idleTimeoutMs: Number.NaN }, RangeError, 'Invalid option idleTimeoutMs: expected a whole number of milliseconds from 0 to 2147483647, got NaN'],
    [{ headersTimeoutMs: 40_000 }, RangeError, 'Invalid option headersTimeoutMs: expected at most requestTimeoutMs (30000), got 40000'],
    [{ maxConnections: 0 }, RangeError, 'Invalid option maxConnections: expected a positive integer or Infinity, got 0'],
  ] as const)('validates %o', async (options, type, message) => {
    await expect(serveHttp({ server: createServer(), ...(options as object) })).rejects.toThrow(new type(message));
  });
});

describe('serveHttp maxConnections', () => {
  it('refuses a connection beyond the cap (closed unanswered) while every held one is fresh (under 1 s, nothing to reclaim), and admits again once one closes', async () => {
    const { port } = await start({ maxConnections: 3, headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
    const held = [rawConnection(port, ''), rawConnection(port, ''), rawConnection(port, '')];
    await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
    // Let the server accept all three before the fourth arrives.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const extra = rawConnection(port, 'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const refused = await extra.ended;
    expect(refused.received).toBe('');
    expect(refused.afterMs).toBeLessThan(1000);
    (held[0] as { socket: net.Socket }).socket.destroy();
    await held[0]?.ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await initialize(port)).toBe(200);
  });
});

describe('serveHttp connections per address', () => {
  it('one remote address holds at most maxConnectionsPerAddress connections (fresh ones are not reclaimed); the host itself (127.0.0.1) is exempt', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 3 });
    // 127.0.0.2 is another loopback address on Linux: a peer other than the host itself.
    const from = (localAddress: string): { socket: net.Socket; closed: Promise<boolean> } => {
      const socket = net.connect({ port, host: '127.0.0.1', localAddress });
      sockets.push(socket);
      socket.on('error', () => {});
      const closed = new Promise<boolean>((resolve) => {
        socket.on('close', () => resolve(true));
        setTimeout(() => resolve(false), 1000);
      });
      return { socket, closed };
    };
    const held = [from('127.0.0.2'), from('127.0.0.2'), from('127.0.0.2')];
    await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
    const extra = from('127.0.0.2');
    expect(await extra.closed).toBe(true);
    const self = [from('127.0.0.1'), from('127.0.0.1'), from('127.0.0.1'), from('127.0.0.1')];
    expect(await Promise.all(self.map(({ closed }) => closed))).toEqual([false, false, false, false]);
    expect(await initialize(port)).toBe(200);
    // A slot of that address frees when one of its connections closes.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((r) => setTimeout(r, 50));
    expect(await from('127.0.0.2').closed).toBe(false);
  });
});

describe('serveHttp connection share: reclaim order within one caller', () => {
  it('a caller at its share gives back its own oldest half-sent request for a new connection, not its idle or streaming ones', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 3, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000 });
    // 127.0.0.2 is a caller with a share (only the host's own addresses have none while no proxy is trusted).
    const from = (bytes: string): { socket: net.Socket; closed: Promise<void> } => {
      const socket = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' }, () => socket.write(bytes));
      sockets.push(socket);
      socket.on('error', () => {});
      socket.resume();
      return { socket, closed: new Promise((resolve) => socket.on('close', () => resolve())) };
    };
    const idle = from('GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const half = from(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${INIT.length}\r\n\r\n{`);
    const late = from(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${INIT.length}\r\n\r\n{`);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const fourth = from(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${INIT.length}\r\n\r\n${INIT}`);
    let answer = '';
    fourth.socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await half.closed;
    await vi.waitFor(() => expect(answer).toMatch(/^HTTP\/1\.1 200 /), { timeout: 5000 });
    expect(idle.socket.destroyed).toBe(false);
    expect(late.socket.destroyed).toBe(false);
  });
});
