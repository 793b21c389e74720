/**
 * Backpressure on SSE streams (a defect found in review): a handler flooding notifications at a client that does not read
 * must pause (its `await ctx.log()` waits) instead of growing the server's memory, must resume when the client
 * reads, and a sender that does not wait must get its stream dropped at `maxSseBufferBytes` (memory released; the
 * stream resumable from the event store). Real sockets on 127.0.0.1, port 0; the Web path through `handler.fetch`.
 */
import net from 'node:net';
import type { Logger } from '@switchboard/jsonrpc';
import { silentLogger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { createMcpHttpHandler } from '../index.js';
import { InMemoryEventStore } from '../../../stores/index.js';
import { serveHttp } from '../../node/index.js';
import type { McpHttpHandler } from '../index.js';
import type { ServeHttpHandle } from '../../node/index.js';

const VERSION = '2025-11-25';
const LINE = 'x'.repeat(1000);
/** Far more than the kernel's socket buffers on loopback (a few MiB) plus the high-water mark (1 MiB). */
const FLOOD = 40_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Counters {
  flooded: number;
  sprayed: boolean;
}

function floodServer(counters: Counters): McpServer {
  const server = new McpServer({ name: 'bp-test', version: '1.0.0' }, { logger: silentLogger });
  server.tool('flood', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async (args: { n?: number }, ctx) => {
    const n = args.n ?? FLOOD;
    for (let i = 0; i < n; i++) {
      await ctx.log('info', LINE);
      counters.flooded++;
    }
    return { content: [{ type: 'text', text: `flooded:${n}` }] };
  });
  server.tool('spray', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async (args: { n?: number }, ctx) => {
    await sleep(50); // the response is connected by now
    // A sender that does not wait: only the hard cap bounds it.
    for (let i = 0; i < (args.n ?? 0); i++) void ctx.log('info', LINE).catch(() => undefined);
    counters.sprayed = true;
    return { content: [{ type: 'text', text: 'sprayed' }] };
  });
  return server;
}

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bp', version: '1' } },
};

function callBody(name: string, n: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: { n } } });
}

async function openSession(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INIT) });
  await res.text();
  const sessionId = res.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  const ack = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sessionId as string, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await ack.text();
  return sessionId as string;
}

/** A raw HTTP/1.1 client socket that does not read until told to (the kernel buffers fill, then the server's). */
function rawRequest(port: number, head: string, body: string): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.write(`${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  return socket;
}

function postHead(sessionId: string): string {
  return 'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n'
    + `mcp-session-id: ${sessionId}\r\nmcp-protocol-version: ${VERSION}\r\n`;
}

/** Reads the socket to its end (or until `until` is seen in the tail), keeping only a bounded tail of the text. */
function readAll(socket: net.Socket, until?: string): Promise<{ tail: string; bytes: number }> {
  return new Promise((resolve) => {
    let tail = '';
    let bytes = 0;
    const done = (): void => resolve({ tail, bytes });
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-64 * 1024);
      if (until !== undefined && tail.includes(until)) {
        socket.off('end', done);
        socket.destroy();
        done();
      }
    });
    socket.once('end', done);
    socket.once('error', done);
  });
}

/** Waits until `read()` stops changing for `quietMs` (or `maxMs` passes); returns the last value. */
async function settled(read: () => number, quietMs = 300, maxMs = 10_000): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = read();
  let since = Date.now();
  while (Date.now() < deadline) {
    await sleep(50);
    const now = read();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) break;
  }
  return last;
}

let handle: ServeHttpHandle | undefined;
let handler: McpHttpHandler | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await handle?.close();
  await handler?.close();
  handle = undefined;
  handler = undefined;
});

describe('SSE backpressure (client not reading)', () => {
  for (const via of ['direct', 'fetch'] as const) {
    it(`Node adapter (${via}): the flooding handler pauses, memory stays bounded, and it completes once the client reads`, async () => {
      const counters: Counters = { flooded: 0, sprayed: false };
      handle = await serveHttp({ server: floodServer(counters), via, eventStore: null });
      const sessionId = await openSession(handle.url);
      const before = process.memoryUsage().rss;
      const socket = rawRequest(handle.port, postHead(sessionId), callBody('flood', FLOOD));
      sockets.push(socket);
      const paused = await settled(() => counters.flooded);
      // Paused well short of the end: bounded by the kernel's socket buffers plus the high-water mark.
      expect(paused).toBeGreaterThan(0);
      expect(paused).toBeLessThan(FLOOD);
      await sleep(300);
      expect(counters.flooded).toBe(paused);
      // Unbounded, the ~45 MB of events (as strings, several copies) would all be held here.
      expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
      // The client reads: everything proceeds to the response.
      const { tail, bytes } = await readAll(socket, '"flooded:');
      expect(tail).toContain(`"text":"flooded:${FLOOD}"`);
      expect(counters.flooded).toBe(FLOOD);
      expect(bytes).toBeGreaterThan(FLOOD * LINE.length);
    }, 30_000);
  }

  it('Web handler: the Response body is pull-based; the handler pauses until the body is read', async () => {
    const counters: Counters = { flooded: 0, sprayed: false };
    handler = createMcpHttpHandler({ server: floodServer(counters), eventStore: null });
    const url = 'http://localhost/mcp';
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await handler.fetch(new Request(url, { method: 'POST', headers, body: JSON.stringify(INIT) }));
    await init.text();
    const sessionId = init.headers.get('mcp-session-id') as string;
    const sessionHeaders = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION };
    await (await handler.fetch(new Request(url, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }))).text();
    const n = 10_000;
    const res = await handler.fetch(new Request(url, { method: 'POST', headers: sessionHeaders, body: callBody('flood', n) }));
    const paused = await settled(() => counters.flooded);
    // About the high-water mark (1 MiB) of 1 KB events.
    expect(paused).toBeLessThan(2000);
    const body = await res.text();
    expect(counters.flooded).toBe(n);
    expect(body).toContain(`"text":"flooded:${n}"`);
  }, 30_000);

  it('a sender that does not wait gets its stream dropped at maxSseBufferBytes; the client resumes from the event store', async () => {
    const counters: Counters = { flooded: 0, sprayed: false };
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const n = 20_000;
    handle = await serveHttp({
      server: floodServer(counters),
      logger,
      maxSseBufferBytes: 1024 * 1024,
      eventStore: new InMemoryEventStore({ maxEventsPerStream: n + 10 }),
      responseMode: 'sse', // the stream must be connected before the spray starts
    });
    const sessionId = await openSession(handle.url);
    const socket = rawRequest(handle.port, postHead(sessionId), callBody('spray', n));
    sockets.push(socket);
    for (let i = 0; i < 100 && !counters.sprayed; i++) await sleep(20);
    expect(counters.sprayed).toBe(true);
    expect(warnings.some((w) => w.includes('SSE stream dropped'))).toBe(true);
    // The connection was cut: what the kernel already held arrives, then the end, without the response.
    const { tail } = await readAll(socket);
    expect(tail).not.toContain('"sprayed"');
    const ids = [...tail.matchAll(/^id: (\S+)$/gm)];
    const lastId = ids.at(-1)?.[1];
    expect(lastId).toBeDefined();
    // Resume with Last-Event-ID: the rest of the stream, the response included.
    const resumed = net.connect(handle.port, '127.0.0.1');
    sockets.push(resumed);
    resumed.write('GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n'
      + `mcp-session-id: ${sessionId}\r\nmcp-protocol-version: ${VERSION}\r\nlast-event-id: ${lastId}\r\nconnection: close\r\n\r\n`);
    const rest = await readAll(resumed, '"sprayed"');
    expect(rest.tail).toContain('"sprayed"');
    expect(rest.bytes).toBeGreaterThan(0);
  }, 30_000);
});
