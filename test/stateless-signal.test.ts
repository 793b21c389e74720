/**
 * Issue 21: a 2026-07-28 request over Streamable HTTP makes no `AbortController` unless its handler reads
 * `ctx.signal` (the exchange's signal is made when first read), and the signal, once read, still aborts when the
 * client goes away (MCP 2026-07-28 basic/transports/streamable-http.mdx "Cancellation": closing the response stream
 * cancels the request). Runs the built package (`@switchboard/mcp/*`), through the Web handler and `serveHttp`.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@switchboard/mcp/server';
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };

function modernCall(id: number, name: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { text: 'hi' }, _meta: META } }),
  };
}

/** Counts `new AbortController()` made through the global while `run` runs (the library reads the global at each call). */
async function countControllers(run: () => Promise<void>): Promise<number> {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await run();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}

function makeServer(events: string[]): McpServer {
  const server = new McpServer({ name: 'signal-test', version: '1.0.0' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => ({ content: [{ type: 'text', text: String(text) }] }));
  server.tool('watch', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const signal = ctx.signal;
    await new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => {
        events.push('aborted');
        resolve();
      }, { once: true });
    });
    return { content: [{ type: 'text', text: 'aborted' }] };
  });
  server.tool('read', { inputSchema: { type: 'object' } }, (_args, ctx) => ({ content: [{ type: 'text', text: String(ctx.signal.aborted) }] }));
  return server;
}

describe('a 2026-07-28 request makes its AbortController only when the handler reads ctx.signal', () => {
  let served: ServeHttpHandle | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('Web handler: none for a handler that does not read it, one for a handler that does', async () => {
    const handler = createMcpHttpHandler({ server: makeServer([]), responseMode: 'json' });
    // The Requests are made before counting (a Web Request makes its own signal).
    const requests = new Map<number, Request>();
    for (const [id, name] of [[1, 'echo'], ...Array.from({ length: 10 }, (_, i) => [i + 2, 'echo']), [20, 'read']] as [number, string][]) {
      requests.set(id, new Request('http://localhost/mcp', modernCall(id, name)));
    }
    const call = async (id: number, _name: string): Promise<unknown> => {
      const res = await handler.fetch(requests.get(id)!);
      expect(res.status).toBe(200);
      return ((await res.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text;
    };
    // Warm up once outside the count (lazy module state of the first request).
    await call(1, 'echo');
    expect(await countControllers(async () => {
      for (let id = 2; id < 12; id++) expect(await call(id, 'echo')).toBe('hi');
    })).toBe(0);
    expect(await countControllers(async () => {
      expect(await call(20, 'read')).toBe('false');
    })).toBe(1);
    await handler.close();
  });

  it('Node listener: a handler that reads the signal still sees it abort when the client goes away', async () => {
    const events: string[] = [];
    served = await serveHttp({ server: makeServer(events), port: 0, responseMode: 'json' });
    const url = new URL(served.url);
    // node:http, not fetch: the client side makes no AbortController of its own here.
    const post = (id: number, name: string): { done: Promise<string>; request: http.ClientRequest } => {
      const init = modernCall(id, name);
      let request!: http.ClientRequest;
      const done = new Promise<string>((resolve, reject) => {
        request = http.request(url, { method: 'POST', headers: init.headers as Record<string, string> }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
          res.on('error', reject);
        });
        request.on('error', reject);
        request.end(init.body as string);
      });
      return { done, request };
    };
    const quiet = await countControllers(async () => {
      for (let id = 1; id <= 5; id++) expect(await post(id, 'echo').done).toContain('"text":"hi"');
    });
    expect(quiet).toBe(0);
    const watching = post(9, 'watch');
    watching.done.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    watching.request.destroy();
    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['aborted']);
  });
});
