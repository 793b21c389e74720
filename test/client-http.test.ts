/**
 * The MCP client over HTTP against our own server on 127.0.0.1 (`serveHttp`): `McpClient.connect({ connector:
 * streamableHttp({ url }) })` in both eras: progress, server requests on a session, cancellation and timeouts seen by
 * the server, a server restart as the wire shows it (the HTTP+SSE transport and its fallback are tested in
 * packages/mcp/src/client/transports.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryEraVerdictStore, McpClient, RequestAbortedError, RequestTimeoutError } from '../packages/mcp/src/client/index.js';
import { FakeHttpServer, isPost, legacySession } from './helpers/fakeHttpServer.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { streamableHttp, type FetchLike } from '../packages/mcp/src/client/index.js';
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

  it('a server restart on the same port: the next call re-initializes; after its 404 the old session id is never sent again', async () => {
    const sent: { readonly method: string; readonly session: string | null; readonly rpc: unknown }[] = [];
    const recording: FetchLike = (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: unknown }) : undefined;
      sent.push({ method: init?.method ?? 'GET', session: new Headers(init?.headers).get('mcp-session-id'), rpc: body?.method });
      return fetch(input, init);
    };
    client = await McpClient.connect({ connector: streamableHttp({ url: http.url, fetch: recording }), era: 'legacy', logger: quiet });
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const old = sent.at(-1)?.session;
    expect(old).toMatch(/^[\x21-\x7E]+$/);
    const port = http.port;
    await http.close({ drainMs: 0 });
    // A restart takes a moment; starting at once would race the client's pooled sockets seeing the old ones close.
    await sleep(100);
    http = await serveHttp({ server, port });
    const before = sent.length;
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } })).content).toEqual([{ type: 'text', text: '4' }]);
    const after = sent.slice(before);
    const expired = after.findIndex((r) => r.session === old);
    expect(after[expired]).toEqual({ method: 'POST', session: old, rpc: 'tools/call' });
    expect(after.slice(expired + 1).filter((r) => r.session === old)).toEqual([]);
    // A new session: initialize (no id), then the new id on everything (the GET stream too, not listed here).
    expect(after.slice(expired + 1).filter((r) => r.method === 'POST').map((r) => r.rpc)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(after[expired + 1]?.session).toBeNull();
  });
});

describe('McpClient over Streamable HTTP: the era probe', () => {
  it('a server/discover that gets no answer within probeTimeoutMs: its POST is closed (no notifications/cancelled), then initialize', async () => {
    let probeClosedAt: number | undefined;
    const fake = await FakeHttpServer.start(
      legacySession({
        other: (request, response) => {
          // The probe: never answered; the client must close the exchange itself.
          if (isPost(request, 'server/discover')) response.on('close', () => (probeClosedAt ??= Date.now()));
          else response.writeHead(404).end();
        },
      }),
    );
    try {
      const startedAt = Date.now();
      client = await McpClient.connect({ connector: streamableHttp({ url: fake.url }), probeTimeoutMs: 300, logger: quiet, verdictStore: new InMemoryEraVerdictStore() });
      expect([client.era, client.protocolVersion]).toEqual(['legacy', '2025-11-25']);
      await until(() => probeClosedAt !== undefined);
      expect(probeClosedAt! - startedAt).toBeGreaterThanOrEqual(250);
      expect(fake.requests.filter((r) => r.method === 'POST').map((r) => (r.json as { method?: unknown }).method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    } finally {
      await client?.close();
      client = undefined;
      await fake.close();
    }
  });
});

describe('McpClient over Streamable HTTP: the standalone GET stream', () => {
  it('is open before the first request: notifications/initialized waits for the GET to be answered', async () => {
    let getAnsweredAt: number | undefined;
    let pingAt: number | undefined;
    const base = legacySession({
      other: (request, response) => {
        if (isPost(request, 'ping')) {
          pingAt = Date.now();
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: (request.json as { id: unknown }).id, result: {} }));
        } else response.writeHead(404).end();
      },
    });
    const fake = await FakeHttpServer.start((request, response) => {
      if (request.method === 'GET') {
        // A slow GET: answered 300 ms late, then held open as an SSE stream.
        setTimeout(() => {
          getAnsweredAt = Date.now();
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write(': open\n\n');
        }, 300);
        return;
      }
      return base(request, response);
    });
    try {
      client = await McpClient.connect({ connector: streamableHttp({ url: fake.url }), era: 'legacy', logger: quiet });
      await client.ping();
      expect(getAnsweredAt).toBeDefined();
      expect(pingAt! >= getAnsweredAt!).toBe(true);
    } finally {
      await client?.close();
      client = undefined;
      await fake.close();
    }
  });
});

describe('McpClient over Streamable HTTP: a 400 for the session', () => {
  it('400 -32000 about the session (the SDK example\'s answer) re-initializes; any other 400 is an HttpStatusError', async () => {
    let refuseWith: string | undefined;
    const fake = await FakeHttpServer.start(
      legacySession({
        other: (request, response) => {
          const id = (request.json as { id?: unknown }).id;
          if (refuseWith !== undefined && request.headers['mcp-session-id'] === 'S1') {
            const message = refuseWith;
            refuseWith = undefined;
            response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
            return;
          }
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
        },
      }),
    );
    try {
      client = await McpClient.connect({ connector: streamableHttp({ url: fake.url }), era: 'legacy', logger: quiet });
      refuseWith = 'Bad Request: No valid session ID provided';
      await client.ping();
      const inits = fake.requests.filter((r) => isPost(r, 'initialize'));
      expect(inits).toHaveLength(2);
      expect(inits[1]!.headers['mcp-session-id']).toBeUndefined();
      refuseWith = 'Bad Request: the body is too large';
      await expect(client.ping()).rejects.toMatchObject({ name: 'HttpStatusError', status: 400, error: { code: -32000 } });
      expect(fake.requests.filter((r) => isPost(r, 'initialize'))).toHaveLength(2);
    } finally {
      await client?.close();
      client = undefined;
      await fake.close();
    }
  });
});

describe('McpClient over Streamable HTTP: a hostile retry', () => {
  it('retry: 1 on a GET stream that closes at once: reconnections are at least MIN_RECONNECT_DELAY_MS (100 ms) apart', async () => {
    let gets = 0;
    const base = legacySession({
      other: (_request, response) => {
        response.writeHead(404).end();
      },
    });
    const fake = await FakeHttpServer.start((request, response) => {
      if (request.method === 'GET') {
        gets++;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`id: e${gets}\nretry: 1\ndata: \n\n`);
        return;
      }
      return base(request, response);
    });
    try {
      client = await McpClient.connect({ connector: streamableHttp({ url: fake.url }), era: 'legacy', logger: quiet });
      const from = gets;
      await sleep(600);
      // 1 ms apart would be hundreds; the floor allows at most ~6 in 600 ms.
      expect(gets - from).toBeGreaterThanOrEqual(2);
      expect(gets - from).toBeLessThanOrEqual(7);
    } finally {
      await client?.close();
      client = undefined;
      await fake.close();
    }
  });
});

describe('McpClient over Streamable HTTP: a flood of server requests on a session', () => {
  it('200 sampling requests on one call stream: every one answered, at most 8 answer POSTs in flight at once', async () => {
    let inFlight = 0;
    let most = 0;
    let answered = 0;
    const fake = await FakeHttpServer.start(
      legacySession({
        capabilities: { tools: {} },
        other: (request, response) => {
          const message = request.json as { id?: unknown; method?: string; result?: unknown };
          if (message.method === 'tools/call') {
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            for (let i = 0; i < 200; i++) {
              response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: `s${i}`, method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } })}\n\n`);
            }
            const finish = setInterval(() => {
              if (answered < 200) return;
              clearInterval(finish);
              response.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'done' }] } })}\n\n`);
            }, 10);
            return;
          }
          if (message.result !== undefined) {
            // An answer to one of our requests: held 20 ms, so concurrent POSTs overlap.
            inFlight++;
            most = Math.max(most, inFlight);
            setTimeout(() => {
              inFlight--;
              answered++;
              response.writeHead(202).end();
            }, 20);
            return;
          }
          response.writeHead(404).end();
        },
      }),
    );
    try {
      client = await McpClient.connect({
        connector: streamableHttp({ url: fake.url }),
        era: 'legacy',
        logger: quiet,
        onSampling: () => Promise.resolve({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }),
      });
      expect((await client.callTool({ name: 'flood' })).content).toEqual([{ type: 'text', text: 'done' }]);
      expect(answered).toBe(200);
      expect(most).toBeLessThanOrEqual(8);
      expect(most).toBeGreaterThanOrEqual(2);
    } finally {
      await client?.close();
      client = undefined;
      await fake.close();
    }
  });
});
