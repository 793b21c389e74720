/**
 * Interop in the modern era (2026-07-28): the official v2 client (@modelcontextprotocol/client 2.4.0) pinned to
 * 2026-07-28 against the demo server, over stdio (`main.js --stdio` as its child process) and Streamable HTTP
 * (`main.js --port 0`); over HTTP, a v1 SDK client (@modelcontextprotocol/sdk 1.32.2) holds a session on the same
 * running server at the same time, and their calls interleave.
 *
 * The demo's elicitation step (execute_sql asks the user before sending more than 500 rows) is shown in both eras:
 * on the v1 session it is a live `elicitation/create` request to the client; on 2026-07-28 the call answers
 * `input_required` with the same form as an input request, the v2 client answers it through the same kind of
 * handler and retries with `inputResponses` and the opaque `requestState`, and the handler runs again from the
 * start (MCP 2026-07-28 basic/patterns/mrtr.mdx).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as V2Module from '@modelcontextprotocol/client';
import type { Client as ModernClientType, JSONRPCMessage, Transport as ModernTransport } from '@modelcontextprotocol/client';
import type { StdioClientTransport as ModernStdioType } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema as LegacyElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MAIN, DEMO_SERVER_INFO, ROOT, confirmForm, cpuSeconds, orderIds, recordingFetch, startDemoHttp, type DemoHttp, type RecordedExchange } from './helpers/demoServer.js';
import { isAlive } from './helpers/process.js';

const V2_MISSING = !existsSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'client', 'package.json'));
const TEST_MS = 30_000;

const MODERN = '2026-07-28';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': DEMO_SERVER_INFO };
const CLIENT_INFO = { name: 'switchboard-interop-v2', version: '1.0.0' };
const NARROW = 'narrow the query or set limit to 500 or less';
/** Runs for minutes in SQLite; the demo stops it after 5 s, or when its call is cancelled. */
const RUNAWAY = 'SELECT count(*) FROM order_items a, order_items b, order_items c';

/** What a client's elicitation handler saw, and what it answers. */
interface Elicitations {
  readonly seen: unknown[];
  answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> };
}


/** A JSON-RPC message as this test reads it. */
interface WireMessage {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** Wraps a v2 transport and records every message it carries, in order. */
class RecordingTransport implements ModernTransport {
  readonly sent: WireMessage[] = [];
  readonly received: WireMessage[] = [];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: ModernTransport['onmessage'];
  readonly #inner: ModernStdioType;

  constructor(inner: ModernStdioType) {
    this.#inner = inner;
    inner.onmessage = (message: JSONRPCMessage) => {
      this.received.push(message);
      this.onmessage?.(message);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get pid(): number | null {
    return this.#inner.pid;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

type ModernModule = typeof V2Module;

/** A v2 client pinned to 2026-07-28, with an elicitation handler when `elicitation` (the default). */
function modernClient(v2: ModernModule, elicitations: Elicitations, opts: { elicitation?: boolean } = {}): ModernClientType {
  const elicitation = opts.elicitation ?? true;
  const client = new v2.Client(CLIENT_INFO, {
    capabilities: elicitation ? { elicitation: {} } : {},
    versionNegotiation: { mode: { pin: MODERN } },
  });
  if (elicitation) {
    client.setRequestHandler('elicitation/create', (request) => {
      elicitations.seen.push(request.params);
      return elicitations.answer;
    });
  }
  return client;
}

describe.skipIf(V2_MISSING)('v2 client pinned to 2026-07-28, over stdio (main.js --stdio)', () => {
  let v2: ModernModule;
  let client: ModernClientType | undefined;
  let wire: RecordingTransport | undefined;
  const elicitations: Elicitations = { seen: [], answer: { action: 'decline' } };

  beforeAll(async () => {
    v2 = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    wire = new RecordingTransport(new StdioClientTransport({ command: process.execPath, args: [DEMO_MAIN, '--stdio'], cwd: ROOT, stderr: 'pipe' }));
    client = modernClient(v2, elicitations);
    await client.connect(wire);
  });

  afterAll(async () => {
    const pid = wire?.pid ?? null;
    await client?.close();
    if (pid !== null && isAlive(pid)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      throw new Error(`the demo stdio server (pid ${pid}) was still running after client.close()`);
    }
  });

  it('connects with server/discover (no initialize): 2026-07-28, the demo identity, capabilities and instructions', () => {
    expect(client!.getProtocolEra()).toBe('modern');
    expect(client!.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client!.getServerVersion()).toEqual(DEMO_SERVER_INFO);
    expect(client!.getServerCapabilities()).toEqual({
      logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {},
    });
    expect(client!.getInstructions()).toMatch(/^A sample shop database \(tables customers, products, orders, order_items\)/);
    const [discover] = wire!.sent;
    expect(discover).toEqual({
      jsonrpc: '2.0',
      id: expect.anything() as unknown,
      method: 'server/discover',
      params: {
        _meta: {
          [PROTOCOL_VERSION]: MODERN,
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    });
    expect(wire!.received[0]).toEqual({
      jsonrpc: '2.0',
      id: discover!.id,
      result: {
        resultType: 'complete',
        _meta: SERVER_INFO_META,
        ttlMs: 0,
        cacheScope: 'private',
        supportedVersions: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        capabilities: client!.getServerCapabilities(),
        instructions: client!.getInstructions(),
      },
    });
    expect(wire!.sent.map((m) => m.method)).not.toContain('initialize');
  });

  it('lists and calls tools; every result names the server in _meta', async () => {
    const { tools } = await client!.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute_sql', 'convert', 'get_time', 'add_numbers']);
    expect(await client!.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3 } }))
      .toEqual({ _meta: SERVER_INFO_META, content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } });
    expect(await client!.callTool({ name: 'convert', arguments: { value: 1, from: 'mile', to: 'km' } }))
      .toEqual({ _meta: SERVER_INFO_META, content: [{ type: 'text', text: '1 mi = 1.60934 km' }] });
    expect(await client!.callTool({ name: 'convert', arguments: { value: 1, from: 'km', to: 'kg' } }))
      .toEqual({ _meta: SERVER_INFO_META, content: [{ type: 'text', text: 'Cannot convert "km" (length) to "kg" (mass)' }], isError: true });
  }, TEST_MS);

  it('reads resources (a table schema, a row through the template) with their cache fields; an unknown row is -32602 with data.uri', async () => {
    const schema = await client!.readResource({ uri: 'sqlite://demo/schema/products' });
    expect(schema).toMatchObject({ _meta: SERVER_INFO_META, ttlMs: 0, cacheScope: 'private', contents: [{ uri: 'sqlite://demo/schema/products', mimeType: 'application/json' }] });
    expect(JSON.parse((schema.contents[0] as { text: string }).text)).toMatchObject({ table: 'products', rowCount: 40 });
    const row = await client!.readResource({ uri: 'sqlite://demo/products/1' });
    expect(row).toEqual({
      _meta: SERVER_INFO_META,
      ttlMs: 0,
      cacheScope: 'private',
      contents: [{ uri: 'sqlite://demo/products/1', mimeType: 'application/json', text: expect.stringMatching(/^\{"id":1,"name":"Mechanical keyboard",/) as unknown }],
    });
    // MCP 2026-07-28 server/resources.mdx "Error Handling": -32602 with the URI (-32002 before 2026-07-28).
    await expect(client!.readResource({ uri: 'sqlite://demo/products/99999' }))
      .rejects.toMatchObject({ code: -32602, data: { uri: 'sqlite://demo/products/99999' } });
  }, TEST_MS);

  it('gets the prompt and completes its argument', async () => {
    expect(await client!.getPrompt({ name: 'code_review', arguments: { language: 'go', focus: 'tests' } })).toEqual({
      _meta: SERVER_INFO_META,
      description: 'Review of go code',
      messages: [{ role: 'user', content: { type: 'text', text: expect.stringMatching(/^Please review the go code I am about to share\. Focus on tests\. /) as unknown } }],
    });
    expect(await client!.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'ja' } }))
      .toEqual({ _meta: SERVER_INFO_META, completion: { values: ['java', 'javascript'], total: 2, hasMore: false } });
  }, TEST_MS);

  it('elicitation on 2026-07-28: input_required with the form, the handler answers, the retry carries inputResponses and requestState', async () => {
    elicitations.seen.length = 0;
    elicitations.answer = { action: 'accept', content: { confirm: true } };
    const from = wire!.sent.length;
    const fromReceived = wire!.received.length;
    expect(await client!.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 501 } }))
      .toEqual({ _meta: SERVER_INFO_META, ...orderIds(501) });
    expect(elicitations.seen).toEqual([confirmForm(501)]);

    const [first, retry, ...rest] = wire!.sent.slice(from);
    const answers = wire!.received.slice(fromReceived);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ method: 'tools/call', params: { name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 501 } } });
    expect(first!.params).not.toHaveProperty('inputResponses');
    const inputRequired = answers.find((m) => m.id === first!.id);
    expect(inputRequired).toEqual({
      jsonrpc: '2.0',
      id: first!.id,
      result: {
        resultType: 'input_required',
        inputRequests: { confirm_rows: { method: 'elicitation/create', params: confirmForm(501) } },
        requestState: expect.any(String) as unknown,
        _meta: SERVER_INFO_META,
      },
    });
    expect(retry).toMatchObject({
      method: 'tools/call',
      params: {
        name: 'execute_sql',
        arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 501 },
        inputResponses: { confirm_rows: { action: 'accept', content: { confirm: true } } },
        requestState: inputRequired!.result!.requestState,
      },
    });
    expect(retry!.id).not.toEqual(first!.id);
    expect(answers.find((m) => m.id === retry!.id)?.result).toMatchObject({ resultType: 'complete', structuredContent: { rowCount: 501 } });
    // The modern era has no server → client requests: everything the server sent is a response.
    expect(answers.filter((m) => m.method !== undefined)).toEqual([]);
  }, TEST_MS);

  it('elicitation on 2026-07-28, declined: a tool error the model can act on', async () => {
    elicitations.seen.length = 0;
    elicitations.answer = { action: 'decline' };
    expect(await client!.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 600 } })).toEqual({
      _meta: SERVER_INFO_META,
      content: [{ type: 'text', text: `The user did not confirm sending 600 rows (decline): ${NARROW}` }],
      isError: true,
    });
    expect(elicitations.seen).toEqual([confirmForm(600)]);
  }, TEST_MS);

  it('a v2 client that declares no elicitation capability gets the tool error, not an input request', async () => {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const plainWire = new RecordingTransport(new StdioClientTransport({ command: process.execPath, args: [DEMO_MAIN, '--stdio'], cwd: ROOT, stderr: 'pipe' }));
    const plain = modernClient(v2, { seen: [], answer: { action: 'decline' } }, { elicitation: false });
    await plain.connect(plainWire);
    const pid = plainWire.pid;
    try {
      expect(await plain.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders', limit: 501 } })).toEqual({
        _meta: SERVER_INFO_META,
        content: [{
          type: 'text',
          text: 'The result has 501 rows; more than 500 need the user\'s confirmation, and this client cannot ask for it (no elicitation capability): '
            + NARROW,
        }],
        isError: true,
      });
      expect(plainWire.received.map((m) => m.result?.resultType)).not.toContain('input_required');
    } finally {
      await plain.close();
    }
    expect(pid !== null && isAlive(pid)).toBe(false);
  }, TEST_MS);
});

describe.skipIf(V2_MISSING)('v2 client with versionNegotiation auto, over stdio', () => {
  it('probes with server/discover, chooses 2026-07-28 on the dual-era demo, and every server process it started exits', async () => {
    const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');
    const v2 = await import('@modelcontextprotocol/client');
    const home = mkdtempSync(path.join(tmpdir(), 'switchboard-v2-auto-'));
    const pidFile = path.join(home, 'server-pids');
    const client = new v2.Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    try {
      // The SDK's own stdio transport probes on a short-lived sibling process, then starts the session's own: the preload
      // records both PIDs.
      await client.connect(new StdioClientTransport({
        command: process.execPath,
        args: ['--import', path.join(ROOT, 'test', 'fixtures', 'record-pid.mjs'), DEMO_MAIN, '--stdio'],
        env: { ...getDefaultEnvironment(), SWITCHBOARD_PID_FILE: pidFile },
        cwd: ROOT,
        stderr: 'pipe',
      }));
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(await client.callTool({ name: 'add_numbers', arguments: { a: 20, b: 22 } }))
        .toEqual({ _meta: SERVER_INFO_META, content: [{ type: 'text', text: '42' }], structuredContent: { sum: 42 } });
    } finally {
      await client.close();
    }
    const pids = [...new Set(readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number))];
    expect(pids).toHaveLength(2);
    const deadline = Date.now() + 5000;
    while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const alive = pids.filter(isAlive);
    for (const pid of alive) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
    rmSync(home, { recursive: true, force: true });
    expect(alive).toEqual([]);
  }, TEST_MS);
});

describe.skipIf(V2_MISSING)('one demo HTTP server: a v2 client on 2026-07-28 and a v1 session at the same time', () => {
  let demo: DemoHttp | undefined;
  let modern: ModernClientType | undefined;
  let legacy: LegacyClient | undefined;
  const modernHttp: RecordedExchange[] = [];
  const legacyHttp: RecordedExchange[] = [];
  const modernElicitations: Elicitations = { seen: [], answer: { action: 'accept', content: { confirm: true } } };
  const legacyElicitations: Elicitations = { seen: [], answer: { action: 'accept', content: { confirm: true } } };

  beforeAll(async () => {
    demo = await startDemoHttp();
    const v2 = await import('@modelcontextprotocol/client');
    legacy = new LegacyClient({ name: 'switchboard-interop-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    legacy.setRequestHandler(LegacyElicitRequestSchema, (request) => {
      legacyElicitations.seen.push(request.params);
      return legacyElicitations.answer;
    });
    await legacy.connect(new LegacyHttp(new URL(demo.url), { fetch: recordingFetch(legacyHttp) }));
    modern = modernClient(v2, modernElicitations);
    await modern.connect(new v2.StreamableHTTPClientTransport(new URL(demo.url), { fetch: recordingFetch(modernHttp) }));
  });

  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    expect(await demo?.stop()).toBe(0);
  });

  it('the v1 client has a session on a legacy revision, the v2 client none on 2026-07-28', () => {
    expect(legacy!.getServerVersion()).toEqual(DEMO_SERVER_INFO);
    expect(modern!.getServerVersion()).toEqual(DEMO_SERVER_INFO);
    expect(modern!.getNegotiatedProtocolVersion()).toBe(MODERN);
    const [initialize] = legacyHttp;
    expect(initialize?.body).toMatchObject({ method: 'initialize' });
    expect(initialize?.responseHeaders['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    for (const exchange of modernHttp) {
      expect(exchange.headers).not.toHaveProperty('mcp-session-id');
      expect(exchange.responseHeaders).not.toHaveProperty('mcp-session-id');
    }
  });

  it('interleaved calls of both clients are each answered in their own era', async () => {
    const v1 = legacy!;
    const v2 = modern!;
    const [v1Sum, v2Sum, v1Tools, v2Tools, v1Row, v2Row, v1Prompt, v2Prompt] = await Promise.all([
      v1.callTool({ name: 'add_numbers', arguments: { a: 1, b: 2 } }),
      v2.callTool({ name: 'add_numbers', arguments: { a: 3, b: 4 } }),
      v1.listTools(),
      v2.listTools(),
      v1.readResource({ uri: 'sqlite://demo/customers/1' }),
      v2.readResource({ uri: 'sqlite://demo/customers/2' }),
      v1.getPrompt({ name: 'code_review', arguments: { language: 'rust' } }),
      v2.getPrompt({ name: 'code_review', arguments: { language: 'zig' } }),
    ]);
    expect(v1Sum).toEqual({ content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } });
    expect(v2Sum).toEqual({ _meta: SERVER_INFO_META, content: [{ type: 'text', text: '7' }], structuredContent: { sum: 7 } });
    expect(v1Tools.tools.map((t) => t.name)).toEqual(['execute_sql', 'convert', 'get_time', 'add_numbers']);
    expect(v2Tools.tools).toEqual(v1Tools.tools);
    expect(v1Row.contents).toEqual([{ uri: 'sqlite://demo/customers/1', mimeType: 'application/json', text: expect.stringMatching(/^\{"id":1,/) as unknown }]);
    expect(v2Row).toMatchObject({ _meta: SERVER_INFO_META, ttlMs: 0, cacheScope: 'private', contents: [{ uri: 'sqlite://demo/customers/2', text: expect.stringMatching(/^\{"id":2,/) as unknown }] });
    expect(v1Prompt.description).toBe('Review of rust code');
    expect(v2Prompt).toMatchObject({ _meta: SERVER_INFO_META, description: 'Review of zig code' });
    // One after the other, alternating, on the same connections.
    for (let i = 0; i < 5; i++) {
      expect((await v1.callTool({ name: 'add_numbers', arguments: { a: i, b: 1 } })).structuredContent).toEqual({ sum: i + 1 });
      expect((await v2.callTool({ name: 'add_numbers', arguments: { a: i, b: 2 } })).structuredContent).toEqual({ sum: i + 2 });
    }
    const sessionIds = new Set(legacyHttp.slice(1).map((exchange) => exchange.headers['mcp-session-id']));
    expect(sessionIds).toEqual(new Set([legacyHttp[0]!.responseHeaders['mcp-session-id']]));
    for (const exchange of legacyHttp.slice(1)) expect(exchange.headers['mcp-protocol-version']).toBe('2025-11-25');
    for (const exchange of modernHttp) {
      expect(exchange.method).toBe('POST');
      expect(exchange.headers['mcp-protocol-version']).toBe(MODERN);
      expect(exchange.headers['mcp-method']).toBe((exchange.body as WireMessage).method);
      expect((exchange.body as WireMessage).params?._meta).toMatchObject({ [PROTOCOL_VERSION]: MODERN });
    }
  }, TEST_MS);

  it('the elicitation step in both eras at once: a live request on the v1 session, an input request for the v2 client', async () => {
    modernElicitations.seen.length = 0;
    legacyElicitations.seen.length = 0;
    const modernFrom = modernHttp.length;
    const [v1Rows, v2Rows] = await Promise.all([
      legacy!.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 600 } }),
      modern!.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 501 } }),
    ]);
    expect(v1Rows).toEqual(orderIds(600));
    expect(v2Rows).toEqual({ _meta: SERVER_INFO_META, ...orderIds(501) });
    expect(legacyElicitations.seen).toEqual([confirmForm(600)]);
    expect(modernElicitations.seen).toEqual([confirmForm(501)]);
    const calls = modernHttp.slice(modernFrom).map((exchange) => exchange.body as WireMessage);
    expect(calls.map((m) => m.method)).toEqual(['tools/call', 'tools/call']);
    expect(calls[0]!.params).not.toHaveProperty('inputResponses');
    expect(calls[1]!.params).toMatchObject({ inputResponses: { confirm_rows: { action: 'accept', content: { confirm: true } } }, requestState: expect.any(String) as unknown });
    // The v1 session is still served after all this.
    expect(await legacy!.ping()).toEqual({});
  }, TEST_MS);

  it('the v2 client aborting a call closes its response stream: the handler is cancelled and the runaway query stops', async () => {
    const aborting = new AbortController();
    const runaway = modern!.callTool({ name: 'execute_sql', arguments: { query: RUNAWAY } }, { signal: aborting.signal });
    await new Promise((resolve) => setTimeout(resolve, 500));
    aborting.abort();
    await expect(runaway).rejects.toThrow(/abort/i);
    // The v1 session is served meanwhile, and the server's CPU stays flat: a query left running would burn a whole
    // core, about 1 s of CPU in this second (MCP 2026-07-28 basic/patterns/cancellation.mdx: on HTTP, closing the
    // response stream is the cancellation).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const pid = demo!.child.pid!;
    const before = cpuSeconds(pid);
    expect((await legacy!.callTool({ name: 'add_numbers', arguments: { a: 1, b: 1 } })).structuredContent).toEqual({ sum: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = cpuSeconds(pid);
    if (before !== undefined && after !== undefined) expect(after - before).toBeLessThan(0.5);
  }, TEST_MS);
});

describe.runIf(V2_MISSING)('v2 client (@modelcontextprotocol/client 2.4.0)', () => {
  it.skip('skipped: @modelcontextprotocol/client is not installed', () => {});
});
