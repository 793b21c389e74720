/**
 * Test helpers (not a test suite of their own): a scripted `node:http` server on 127.0.0.1 that records every
 * request, and a harness around a client transport that collects what it delivers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Inbound, Logger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';

/** One request the fake server received. */
export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The JSON body, when it parsed. */
  readonly json: any;
}

export type FakeHandler = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface FakeServer {
  readonly url: string;
  readonly origin: string;
  readonly requests: Recorded[];
  /** Requests of one HTTP method. */
  of(method: string): Recorded[];
  /** Resolves once `count` requests of `method` arrived. */
  waitFor(method: string, count: number): Promise<Recorded[]>;
  close(): Promise<void>;
}

export async function fakeServer(handler: FakeHandler, path = '/mcp'): Promise<FakeServer> {
  const requests: Recorded[] = [];
  const waiters: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((raw, res) => {
    let body = '';
    raw.setEncoding('utf8');
    raw.on('data', (chunk: string) => (body += chunk));
    raw.on('end', () => {
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      const recorded: Recorded = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body, json };
      requests.push(recorded);
      for (const wake of waiters.splice(0)) wake();
      void Promise.resolve(handler(recorded, res, raw)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const of = (method: string): Recorded[] => requests.filter((r) => r.method === method);
  return {
    url: `${origin}${path}`,
    origin,
    requests,
    of,
    async waitFor(method, count) {
      while (of(method).length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return of(method);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Opens an SSE answer. */
export function sse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
}

/** One SSE event as text. */
export function event(data: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

export function capture(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** What a transport delivered, with a way to wait for the next message that matches. */
export function collect(transport: { onmessage?: ((message: Inbound) => void) | undefined }): {
  readonly received: Inbound[];
  next(match: (message: any) => boolean): Promise<any>;
} {
  const received: Inbound[] = [];
  const waiters: (() => void)[] = [];
  transport.onmessage = (message) => {
    received.push(message);
    for (const wake of waiters.splice(0)) wake();
  };
  return {
    received,
    async next(match) {
      for (;;) {
        const found = received.find((m) => 'message' in m && match(m.message));
        if (found !== undefined && 'message' in found) return found.message;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

describe('the fake server helper', () => {
  it('records requests and answers them', async () => {
    const fake = await fakeServer((req, res) => json(res, 200, { echo: req.json }));
    try {
      const res = await fetch(fake.url, { method: 'POST', body: '{"a":1}' });
      expect(await res.json()).toEqual({ echo: { a: 1 } });
      expect(fake.of('POST').map((r) => r.url)).toEqual(['/mcp']);
    } finally {
      await fake.close();
    }
  });
});
