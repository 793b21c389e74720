/**
 * A 413 must reach a client that is still sending an oversized body (a defect found in review): after the answer the Node
 * adapter drains the rest of the request (bounded by time, not bytes) and half-closes, instead of resetting the
 * connection under the client. The clients here behave like curl: they send the whole body before they read.
 * Real sockets on 127.0.0.1, port 0.
 */
import net from 'node:net';
import { silentLogger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { serveHttp } from '../../node/index.js';
import type { ServeHttpHandle } from '../../node/index.js';

const VERSION = '2025-11-25';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function openSession(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await res.text();
  return res.headers.get('mcp-session-id') as string;
}

interface Outcome {
  /** What was read from the connection (latin1), after the whole body was sent or sending failed. */
  readonly received: string;
  /** The write error, if sending failed (the connection was reset under the client). */
  readonly writeError: string | undefined;
}

/**
 * Sends a POST with `size` body bytes in `chunk`-byte pieces (`pauseMs` apart), reading nothing meanwhile, then
 * reads the answer.
 */
async function postLarge(port: number, sessionId: string, size: number, chunk: number, pauseMs: number): Promise<Outcome> {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.pause(); // read nothing from the kernel until the body is sent
  let writeError: string | undefined;
  socket.on('error', (error: NodeJS.ErrnoException) => {
    writeError ??= error.code ?? error.message;
  });
  const write = (data: string | Buffer): Promise<void> => new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    if (socket.write(data)) resolve();
    else {
      const done = (): void => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.once('drain', done);
      socket.once('close', done);
    }
  });
  await write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n'
    + `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: ${VERSION}\r\nContent-Length: ${size}\r\n\r\n`);
  const piece = Buffer.alloc(chunk, 0x78);
  for (let sent = 0; sent < size && !socket.destroyed; sent += chunk) {
    await write(sent + chunk <= size ? piece : piece.subarray(0, size - sent));
    if (pauseMs > 0) await sleep(pauseMs);
  }
  const received = await new Promise<string>((resolve) => {
    let text = '';
    if (socket.destroyed) return resolve(text);
    const timer = setTimeout(() => resolve(text), 10_000);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.resume();
  });
  return { received, writeError };
}

let handle: ServeHttpHandle | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await handle?.close();
  handle = undefined;
});

describe('413 for an oversized body reaches a client still sending it (Node adapter)', () => {
  for (const via of ['direct', 'fetch'] as const) {
    it(`${via}: a 5.2 MB body sent slowly in chunks`, async () => {
      const server = new McpServer({ name: 't', version: '1' }, { logger: silentLogger });
      handle = await serveHttp({ server, via });
      const sessionId = await openSession(handle.url);
      const { received, writeError } = await postLarge(handle.port, sessionId, 5_200_000, 64 * 1024, 5);
      expect(writeError).toBeUndefined();
      expect(received.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect(received.toLowerCase()).toContain('connection: close');
    }, 20_000);

    it(`${via}: a 50 MiB body sent at full speed`, async () => {
      const server = new McpServer({ name: 't', version: '1' }, { logger: silentLogger });
      handle = await serveHttp({ server, via });
      const sessionId = await openSession(handle.url);
      const { received, writeError } = await postLarge(handle.port, sessionId, 50 * 1024 * 1024, 1024 * 1024, 0);
      expect(writeError).toBeUndefined();
      expect(received.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      // The server goes on.
      const again = await fetch(handle.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{}' });
      await again.text();
      expect(again.status).toBeLessThan(500);
    }, 20_000);
  }
});
