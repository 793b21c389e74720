/**
 * The MCP client over HTTP against our own server on 127.0.0.1 (`serveHttp`): `McpClient.connect({ connector:
 * streamableHttp({ url }) })` in both eras, progress, server requests on a session, cancellation and timeouts, a
 * server restart, and the 2024-11-05 HTTP+SSE transport (directly and as the fallback of a Streamable HTTP URL).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpClient, RequestAbortedError, RequestTimeoutError, SessionExpiredError } from '../packages/mcp/src/client/index.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { httpSse, streamableHttp } from '../packages/mcp/src/transports/http/index.js';
import { serveHttp, type ServeHttpHandle } from '../packages/mcp/src/transports/node/index.js';
import type { Logger } from '@switchboard/jsonrpc';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let server: McpServer;
let http: ServeHttpHandle;
let client: McpClient | undefined;
let aborted: string[];

function makeServer(): McpServer {
  const made = new McpServer({ name: 'http-client-test', version: '1.0.0' }, { logger: quiet });
  made.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, (args: { a: number; b: number }) => ({
    content: [{ type: 'text', text: String(args.a + args.b) }],
  }));
  made.tool('steps', {}, async (_args, ctx) => {
    for (let i = 1; i <= 5; i++) {
      await sleep(100);
      await ctx.progress(i, 5);
    }
    await ctx.log('info', 'steps done');
    return { content: [{ type: 'text', text: 'stepped' }] };
  });
  made.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
  });
  made.tool('hang', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborted.push(ctx.session === undefined ? 'modern' : 'legacy');
    return { content: [] };
  });
  return made;
}

beforeEach(async () => {
  aborted = [];
  server = makeServer();
  http = await serveHttp({ server, port: 0 });
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await http.close({ drainMs: 0 });
  await server.close();
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(10);
}

for (const era of ['modern', 'legacy'] as const) {
  describe(`McpClient over Streamable HTTP, ${era} era`, () => {
    async function connect(extra: Partial<Parameters<typeof McpClient.connect>[0]> = {}): Promise<McpClient> {
      client = await McpClient.connect({ connector: streamableHttp({ url: http.url }), era, logger: quiet, ...extra });
      return client;
    }

    it('negotiates, lists and calls tools', async () => {
      const c = await connect();
      expect([c.era, c.protocolVersion, c.transportKind]).toEqual(era === 'modern' ? ['modern', '2026-07-28', 'streamable-http'] : ['legacy', '2025-11-25', 'streamable-http']);
      expect((await c.listAllTools()).map((t) => t.name)).toEqual(['add', 'steps', 'ask', 'hang']);
      const result = await c.callTool({ name: 'add', arguments: { a: 5, b: 3 } });
      expect(result.content).toEqual([{ type: 'text', text: '8' }]);
    });

    it('progress reaches onprogress and resets the timeout (5 × 100 ms of work within timeoutMs 300)', async () => {
      const c = await connect();
      const seen: number[] = [];
      const result = await c.callTool({ name: 'steps' }, { timeoutMs: 300, onprogress: (p) => seen.push(p.progress) });
      expect(result.content).toEqual([{ type: 'text', text: 'stepped' }]);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
    });

    it('a slow call times out with RequestTimeoutError, and the server sees the cancellation', async () => {
      const c = await connect();
      const error = (await c.callTool({ name: 'hang' }, { timeoutMs: 100 }).catch((e: unknown) => e)) as RequestTimeoutError;
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(error.timeoutMs).toBe(100);
      await until(() => aborted.length === 1);
      expect(aborted).toEqual([era]);
    });

    it('an aborted call: RequestAbortedError; the server stops the handler', async () => {
      const c = await connect();
      const controller = new AbortController();
      const call = c.callTool({ name: 'hang' }, { signal: controller.signal });
      await sleep(100);
      controller.abort();
      await expect(call).rejects.toThrow(RequestAbortedError);
      await until(() => aborted.length === 1);
      expect(aborted).toEqual([era]);
      // The connection is still usable.
      expect((await c.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).content).toEqual([{ type: 'text', text: '2' }]);
    });
  });
}

describe('McpClient over Streamable HTTP on a session', () => {
  it('answers a server request on the call stream with onElicitation; log messages reach the handler', async () => {
    const logs: unknown[] = [];
    client = await McpClient.connect({
      connector: streamableHttp({ url: http.url }),
      era: 'legacy',
      logger: quiet,
      onElicitation: () => Promise.resolve({ action: 'accept', content: { name: 'Ada' } }),
      notifications: { message: (params) => logs.push(params.data) },
    });
    expect((await client.callTool({ name: 'ask' })).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    await client.callTool({ name: 'steps' });
    await until(() => logs.length > 0);
    expect(logs).toEqual(['steps done']);
  });

  it('a server restart on the same port: the next call fails with SessionExpiredError, never the old session id', async () => {
    client = await McpClient.connect({ connector: streamableHttp({ url: http.url }), era: 'legacy', logger: quiet });
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const port = http.port;
    await http.close({ drainMs: 0 });
    // A restart takes a moment; starting at once would race the client's pooled sockets seeing the old ones close.
    await sleep(100);
    http = await serveHttp({ server, port });
    const error = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionExpiredError);
  });

  // The client re-initializing after SessionExpiredError is the core's reconnect work (McpClientOptions.reconnect);
  // this fails until it lands, and then must be turned into a plain `it`.
  it.fails('a server restart on the same port: the next call re-initializes and succeeds', async () => {
    client = await McpClient.connect({ connector: streamableHttp({ url: http.url }), era: 'legacy', logger: quiet });
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const port = http.port;
    await http.close({ drainMs: 0 });
    // A restart takes a moment; starting at once would race the client's pooled sockets seeing the old ones close.
    await sleep(100);
    http = await serveHttp({ server, port });
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } })).content).toEqual([{ type: 'text', text: '4' }]);
  });
});

describe('McpClient over the 2024-11-05 HTTP+SSE transport', () => {
  it('httpSse({ url }) connects to /sse and speaks a session', async () => {
    client = await McpClient.connect({ connector: httpSse({ url: new URL('/sse', http.url) }), logger: quiet });
    expect([client.era, client.transportKind]).toEqual(['legacy', 'http-sse']);
    expect((await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).content).toEqual([{ type: 'text', text: '42' }]);
  });

  it('a Streamable HTTP URL that is an HTTP+SSE endpoint falls back to it', async () => {
    client = await McpClient.connect({ connector: streamableHttp({ url: new URL('/sse', http.url) }), logger: quiet });
    expect([client.era, client.transportKind]).toEqual(['legacy', 'http-sse']);
    expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).content).toEqual([{ type: 'text', text: '3' }]);
  });
});
