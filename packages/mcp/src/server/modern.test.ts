/**
 * The modern era (2026-07-28) through `McpServer.handle`, whole wire messages: `server/discover`, `resultType` and
 * the server's identity on every result, the cache hints of the six cacheable methods and their configuration,
 * cursors, log and progress notifications only when the request asked for them, cancellation by `signal`.
 * Multi round-trip requests are in inputRound.test.ts, listen streams in listen.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcParams, type JsonRpcRequest } from '@switchboard/jsonrpc';
import type { ClientChannel } from './channel.js';
import { connectRawClient } from '../testing/index.js';
import { McpServer } from './mcpServer.js';
import type { McpServerOptions } from './options.js';

/** Records what a handler sends; a modern request must never reach `request`. */
class RecordingChannel implements ClientChannel {
  readonly sent: { kind: 'notify' | 'request'; method: string; params: JsonRpcParams | undefined; relatedRequestId: unknown }[] = [];
  notify(method: string, params?: JsonRpcParams, options?: { relatedRequestId?: unknown }): Promise<void> {
    this.sent.push({ kind: 'notify', method, params, relatedRequestId: options?.relatedRequestId });
    return Promise.resolve();
  }
  request<T>(method: string, params?: JsonRpcParams, options?: { relatedRequestId?: unknown }): Promise<T> {
    this.sent.push({ kind: 'request', method, params, relatedRequestId: options?.relatedRequestId });
    return Promise.reject(new Error('no server to client request in the modern era'));
  }
}

const INFO = { name: 'modern', version: '1.0.0', title: 'Modern server' };
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': INFO };
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** A 2026-07-28 request: `params` plus the required `_meta`, `meta` over it. */
const modern = (id: number | string, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: '2026-07-28', [CAPS]: {}, ...meta } },
});
const DEFAULT_CACHE = { ttlMs: 0, cacheScope: 'private' };

function makeServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer(INFO, { logger: silentLogger, ...options });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.tool('work', {}, async (_args, ctx) => {
    await ctx.progress(1, 2, 'half');
    for (const level of ['debug', 'info', 'warning', 'error'] as const) await ctx.log(level, `at ${level}`, 'w');
    await ctx.progress(2, 2);
    return { content: [{ type: 'text', text: `done at ${ctx.protocolVersion}` }] };
  });
  server.tool('meta', {}, () => ({ content: [], _meta: { 'com.example/trace': 'x' } }));
  server.tool('hang', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    return { content: [{ type: 'text', text: 'aborted' }] };
  });
  server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'A' }] }));
  server.resourceTemplate('test://items/{id}', { name: 'item', complete: { id: (v) => ['1', '10', '2'].filter((x) => x.startsWith(v)) } }, (uri, { id }) => ({
    contents: [{ uri, text: `item ${id}` }],
  }));
  server.prompt('greet', { arguments: [{ name: 'who', required: true }] }, ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }] }));
  return server;
}

describe('server/discover', () => {
  it('answers the served revisions newest first, the capabilities, the instructions, the cache hints and the server identity in _meta', async () => {
    const server = makeServer({ instructions: 'Use add to add.' });
    expect(await server.handle(modern('d1', 'server/discover', {}, { 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }))).toEqual({
      jsonrpc: '2.0',
      id: 'd1',
      result: {
        supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        capabilities: { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} },
        instructions: 'Use add to add.',
        resultType: 'complete',
        ttlMs: 0,
        cacheScope: 'private',
        _meta: SERVER_INFO,
      },
    });
  });

  it('names only the revisions served, has no serverInfo member of its own, and never advertises the legacy tasks capability', async () => {
    const server = new McpServer({ name: 'm', version: '2' }, { logger: silentLogger, revisions: ['2025-11-25', '2026-07-28'], capabilities: { tasks: { list: {} } } });
    const reply = await server.handle(modern(1, 'server/discover'));
    expect(reply).toEqual({
      jsonrpc: '2.0', id: 1,
      result: { supportedVersions: ['2026-07-28', '2025-11-25'], capabilities: { logging: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'm', version: '2' } } },
    });
  });

  it('needs no clientInfo, but does need clientCapabilities (-32602)', async () => {
    const server = makeServer();
    expect(await server.handle(modern(1, 'server/discover'))).toMatchObject({ id: 1, result: { resultType: 'complete' } });
    expect(await server.handle({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: { [PV]: '2026-07-28' } } })).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32602, message: `Invalid params: "${CAPS}" is required in params._meta (an object)` },
    });
  });
});

describe('every modern result: resultType and the server identity; the six cacheable ones: ttlMs and cacheScope', () => {
  it('whole results of every operation', async () => {
    const server = makeServer();
    const cases: readonly (readonly [string, Record<string, unknown>, Record<string, unknown>])[] = [
      ['tools/list', {}, { tools: [
        { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
        { name: 'work', inputSchema: { type: 'object' } },
        { name: 'meta', inputSchema: { type: 'object' } },
        { name: 'hang', inputSchema: { type: 'object' } },
      ], ...DEFAULT_CACHE }],
      ['tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, { content: [{ type: 'text', text: '5' }] }],
      ['tools/call', { name: 'add', arguments: { a: 'x' } }, { content: [{ type: 'text', text: expect.stringMatching(/^Invalid arguments for tool "add": /) as unknown }], isError: true }],
      ['resources/list', {}, { resources: [{ uri: 'test://a', name: 'a' }], ...DEFAULT_CACHE }],
      ['resources/templates/list', {}, { resourceTemplates: [{ uriTemplate: 'test://items/{id}', name: 'item' }], ...DEFAULT_CACHE }],
      ['resources/read', { uri: 'test://a' }, { contents: [{ uri: 'test://a', text: 'A' }], ...DEFAULT_CACHE }],
      ['resources/read', { uri: 'test://items/7' }, { contents: [{ uri: 'test://items/7', text: 'item 7' }], ...DEFAULT_CACHE }],
      ['prompts/list', {}, { prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }] }], ...DEFAULT_CACHE }],
      ['prompts/get', { name: 'greet', arguments: { who: 'Ada' } }, { messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }] }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name: 'id', value: '1' } }, { completion: { values: ['1', '10'], total: 2, hasMore: false } }],
    ];
    let id = 0;
    for (const [method, params, result] of cases) {
      id += 1;
      expect({ method, reply: await server.handle(modern(id, method, params)) }).toEqual({ method, reply: { jsonrpc: '2.0', id, result: { ...result, resultType: 'complete', _meta: SERVER_INFO } } });
    }
  });

  it("a handler's own result _meta is kept beside the server identity", async () => {
    expect(await makeServer().handle(modern(1, 'tools/call', { name: 'meta' }))).toEqual({
      jsonrpc: '2.0', id: 1, result: { content: [], resultType: 'complete', _meta: { 'com.example/trace': 'x', ...SERVER_INFO } },
    });
  });

  it('errors stay errors: unknown tool, unknown prompt, missing argument -32602; resource not found -32602 with data.uri', async () => {
    const server = makeServer();
    expect(await server.handle(modern(1, 'tools/call', { name: 'nope' }))).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: unknown tool "nope"', data: { name: 'nope' } } });
    expect(await server.handle(modern(2, 'prompts/get', { name: 'greet' }))).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: missing required argument "who" of prompt "greet"' } });
    expect(await server.handle(modern(3, 'resources/read', { uri: 'test://zzz' }))).toEqual({
      jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Resource not found: "test://zzz"', data: { uri: 'test://zzz' } },
    });
  });

  it('the legacy era is not decorated: the same server answers a legacy request without resultType, _meta or cache hints', async () => {
    const facts = { protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: {}, serverCapabilities: undefined, logLevelRank: 0 };
    expect(await makeServer().handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'test://a' } }, { facts })).toEqual({
      jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'test://a', text: 'A' }] },
    });
  });
});

describe('cache hints are configurable', () => {
  const CACHEABLE: readonly (readonly [string, Record<string, unknown>])[] = [
    ['server/discover', {}], ['tools/list', {}], ['prompts/list', {}], ['resources/list', {}], ['resources/templates/list', {}], ['resources/read', { uri: 'test://a' }],
  ];
  const hints = async (server: McpServer): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown> = {};
    for (const [method, params] of CACHEABLE) {
      const reply = (await server.handle(modern(method, method, params))) as { result: { ttlMs: unknown; cacheScope: unknown } };
      out[method] = { ttlMs: reply.result.ttlMs, cacheScope: reply.result.cacheScope };
    }
    return out;
  };

  it('cache sets every cacheable method; cacheByMethod overrides one, field by field', async () => {
    const all = { ttlMs: 60_000, cacheScope: 'public' };
    expect(await hints(makeServer({ cache: { ttlMs: 60_000, scope: 'public' } }))).toEqual(Object.fromEntries(CACHEABLE.map(([m]) => [m, all])));
    const server = makeServer({ cache: { ttlMs: 60_000, scope: 'public' }, cacheByMethod: { 'tools/list': { ttlMs: 5 }, 'resources/read': { scope: 'private' }, 'server/discover': { ttlMs: 3_600_000 } } });
    expect(await hints(server)).toEqual({
      'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
      'tools/list': { ttlMs: 5, cacheScope: 'public' },
      'prompts/list': all,
      'resources/list': all,
      'resources/templates/list': all,
      'resources/read': { ttlMs: 60_000, cacheScope: 'private' },
    });
    // cacheByMethod alone: the others keep the default.
    expect(await hints(makeServer({ cacheByMethod: { 'prompts/list': { ttlMs: 10, scope: 'public' } } }))).toEqual({
      ...Object.fromEntries(CACHEABLE.map(([m]) => [m, DEFAULT_CACHE])),
      'prompts/list': { ttlMs: 10, cacheScope: 'public' },
    });
  });

  it('a policy that is no integer ≥ 0 or no known scope is refused when the server is built', () => {
    // The error names the policy; its wording is the core's, so only the detail is pinned here.
    for (const ttlMs of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => makeServer({ cache: { ttlMs } })).toThrow(RangeError);
      expect(() => makeServer({ cache: { ttlMs } })).toThrow(new RegExp(`^Invalid cache policy .*: ttlMs must be an integer >= 0, got ${String(ttlMs)}$`));
    }
    expect(() => makeServer({ cacheByMethod: { 'resources/read': { ttlMs: -5 } } })).toThrow(/^Invalid cache policy .*"resources\/read": ttlMs must be an integer >= 0, got -5$/);
    expect(() => makeServer({ cache: { scope: 'shared' as 'public' } })).toThrow(RangeError);
    expect(() => makeServer({ cache: { scope: 'shared' as 'public' } })).toThrow(/^Invalid cache policy .*: scope must be "public" or "private"/);
  });

  it('non-cacheable results carry no hints, whatever the policy', async () => {
    const server = makeServer({ cache: { ttlMs: 60_000, scope: 'public' } });
    for (const [method, params] of [['tools/call', { name: 'add', arguments: { a: 1, b: 1 } }], ['prompts/get', { name: 'greet', arguments: { who: 'x' } }], ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } }]] as const) {
      const reply = (await server.handle(modern(1, method, params))) as { result: Record<string, unknown> };
      expect({ method, keys: Object.keys(reply.result).filter((k) => k === 'ttlMs' || k === 'cacheScope') }).toEqual({ method, keys: [] });
    }
  });
});

describe('cursors', () => {
  it('a page cursor leads to the next page; the server never issues an empty cursor, and an unissued one (the empty string included) is -32602', async () => {
    const server = makeServer({ pageSize: 2 });
    const first = (await server.handle(modern(1, 'tools/list'))) as { result: { tools: { name: string }[]; nextCursor: string } };
    expect(first.result.tools.map((t) => t.name)).toEqual(['add', 'work']);
    expect(first.result.nextCursor).toMatch(/^.+$/);
    const second = await server.handle(modern(2, 'tools/list', { cursor: first.result.nextCursor }));
    expect(second).toEqual({
      jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'meta', inputSchema: { type: 'object' } }, { name: 'hang', inputSchema: { type: 'object' } }], resultType: 'complete', ...DEFAULT_CACHE, _meta: SERVER_INFO },
    });
    // The spec's rule for "" is the client's (it must not read "" as the end of the list); a server that never
    // issued "" treats it like any cursor it did not issue (field bug B44).
    for (const cursor of ['', 'bogus']) {
      expect(await server.handle(modern(3, 'tools/list', { cursor }))).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: invalid cursor', data: { cursor } } });
    }
  });
});

describe('notifications of a modern request: only what it asked for', () => {
  it('no logLevel: no notifications/message; no progressToken: no progress', async () => {
    const channel = new RecordingChannel();
    expect(await makeServer().handle(modern(1, 'tools/call', { name: 'work' }), { channel })).toEqual({
      jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done at 2026-07-28' }], resultType: 'complete', _meta: SERVER_INFO },
    });
    expect(channel.sent).toEqual([]);
  });

  it('with logLevel: the messages at or above it; with a progressToken: its progress, each tied to the request', async () => {
    const channel = new RecordingChannel();
    await makeServer().handle(modern(7, 'tools/call', { name: 'work' }, { [LOG_LEVEL]: 'warning', progressToken: 'p7' }), { channel });
    expect(channel.sent).toEqual([
      { kind: 'notify', method: 'notifications/progress', params: { progressToken: 'p7', progress: 1, total: 2, message: 'half' }, relatedRequestId: 7 },
      { kind: 'notify', method: 'notifications/message', params: { level: 'warning', logger: 'w', data: 'at warning' }, relatedRequestId: 7 },
      { kind: 'notify', method: 'notifications/message', params: { level: 'error', logger: 'w', data: 'at error' }, relatedRequestId: 7 },
      { kind: 'notify', method: 'notifications/progress', params: { progressToken: 'p7', progress: 2, total: 2 }, relatedRequestId: 7 },
    ]);
    const all = new RecordingChannel();
    await makeServer().handle(modern(8, 'tools/call', { name: 'work' }, { [LOG_LEVEL]: 'debug' }), { channel: all });
    expect(all.sent.map((s) => (s.params as { level?: string }).level)).toEqual(['debug', 'info', 'warning', 'error']);
  });

  it('a logLevel that is no level is -32602 before the handler runs', async () => {
    const channel = new RecordingChannel();
    expect(await makeServer().handle(modern(1, 'tools/call', { name: 'work' }, { [LOG_LEVEL]: 'verbose' }), { channel })).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Invalid params: "${LOG_LEVEL}" in params._meta must be one of debug, info, notice, warning, error, critical, alert, emergency` },
    });
    expect(channel.sent).toEqual([]);
  });
});

describe('cancellation of a modern request by its signal', () => {
  it('aborting the signal aborts ctx.signal and no response is given', async () => {
    const controller = new AbortController();
    const pending = makeServer().handle(modern(1, 'tools/call', { name: 'hang' }), { signal: controller.signal });
    controller.abort();
    expect(await pending).toBeUndefined();
  });

  it('a signal never aborted changes nothing', async () => {
    const controller = new AbortController();
    expect(await makeServer().handle(modern(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }), { signal: controller.signal })).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: '3' }] } });
  });
});

describe('revisions and eras of a server', () => {
  it('servedRevisions and eras: dual-era by default, or as configured; a bad list is refused', () => {
    expect([makeServer().servedRevisions, makeServer().eras]).toEqual([['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'], ['legacy', 'modern']]);
    expect(makeServer({ revisions: ['2026-07-28'] }).eras).toEqual(['modern']);
    expect(makeServer({ revisions: ['2025-11-25', '2024-11-05'] }).servedRevisions).toEqual(['2024-11-05', '2025-11-25']);
    expect(makeServer({ revisions: ['2025-11-25'] }).eras).toEqual(['legacy']);
    expect(() => makeServer({ revisions: [] })).toThrow(new TypeError('Invalid revisions: expected a non-empty array of protocol revisions'));
    expect(() => makeServer({ revisions: ['2024-10-07' as '2024-11-05'] })).toThrow(new TypeError('Invalid revisions: "2024-10-07" is not one of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28'));
  });

  it('initialize settles on a revision the server serves: the one asked for, else the newest legacy one it serves', async () => {
    const answer = async (revisions: McpServerOptions['revisions'], asked: string): Promise<unknown> => {
      const client = await connectRawClient(makeServer({ revisions }));
      const response = await client.request(1, 'initialize', { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } });
      await client.close();
      return (response as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    };
    expect(await answer(['2024-11-05', '2025-06-18'], '2025-11-25')).toBe('2025-06-18');
    expect(await answer(['2024-11-05', '2025-06-18'], '2024-11-05')).toBe('2024-11-05');
    expect(await answer(['2025-03-26', '2026-07-28'], '1999-01-01')).toBe('2025-03-26');
    expect(await answer(undefined, '2025-03-26')).toBe('2025-03-26');
  });
});
