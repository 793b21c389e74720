import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair, silentLogger, type JsonRpcParams, type JsonRpcRequest } from '@switchboard/jsonrpc';
import type { ClientChannel } from './channel.js';
import type { RequestFacts } from './requestFacts.js';
import { McpServer } from './mcpServer.js';

/** A channel that records what handlers send and answers requests from a table. */
class RecordingChannel implements ClientChannel {
  readonly sent: { kind: 'notify' | 'request'; method: string; params: JsonRpcParams | undefined; relatedRequestId: unknown }[] = [];
  constructor(private readonly answers: Record<string, unknown> = {}) {}
  notify(method: string, params?: JsonRpcParams, options?: { relatedRequestId?: unknown }): Promise<void> {
    this.sent.push({ kind: 'notify', method, params, relatedRequestId: options?.relatedRequestId });
    return Promise.resolve();
  }
  request<T>(method: string, params?: JsonRpcParams, options?: { relatedRequestId?: unknown }): Promise<T> {
    this.sent.push({ kind: 'request', method, params, relatedRequestId: options?.relatedRequestId });
    return Promise.resolve(this.answers[method] as T);
  }
}

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'c', version: '1' },
  clientCapabilities: {},
  serverCapabilities: undefined,
  logLevelRank: 0,
  ...over,
});

/** The required `_meta` of a modern-era (2026-07-28) request, no client capability declared. */
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const req = (id: number, method: string, params?: Record<string, unknown>): JsonRpcRequest => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

function makeServer(): McpServer {
  const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, pageSize: 1 });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.tool('work', {}, async (_args, ctx) => {
    await ctx.progress(1, 2, 'half');
    await ctx.log('info', 'working', 'w');
    await ctx.log('debug', 'quiet');
    const sampled = await ctx.sample({ messages: [], maxTokens: 1 });
    return { content: [{ type: 'text', text: `${ctx.protocolVersion} ${ctx.clientInfo?.name} ${String(ctx.authInfo)} ${ctx.session === undefined ? 'undefined' : 'a session'} ${sampled.model}` }] };
  });
  server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'A' }] }));
  server.resourceTemplate('test://items/{id}', { name: 'item', complete: { id: (v) => ['1', '10', '2'].filter((x) => x.startsWith(v)) } }, (uri, { id }) => ({
    contents: [{ uri, text: `item ${id}` }],
  }));
  server.prompt('greet', { arguments: [{ name: 'who', required: true }] }, ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }] }));
  server.prompt('bye', {}, () => ({ messages: [] }));
  return server;
}

describe('McpServer.handle: one request, no connect() and no session', () => {
  it('answers every era-neutral operation', async () => {
    const server = makeServer();
    const channel = new RecordingChannel();
    const h = (message: JsonRpcRequest) => server.handle(message, { facts: facts(), channel });
    expect(server.sessions.size).toBe(0);
    expect(await h(req(1, 'ping'))).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const firstTools = await h(req(2, 'tools/list'));
    expect(firstTools).toMatchObject({ id: 2, result: { tools: [{ name: 'add' }], nextCursor: expect.any(String) } });
    const cursor = (firstTools as { result: { nextCursor: string } }).result.nextCursor;
    expect(await h(req(3, 'tools/list', { cursor }))).toEqual({ jsonrpc: '2.0', id: 3, result: { tools: [{ name: 'work', inputSchema: { type: 'object' } }] } });
    expect(await h(req(4, 'tools/list', { cursor: 'bogus' }))).toMatchObject({ id: 4, error: { code: -32602, message: 'Invalid params: invalid cursor' } });
    expect(await h(req(5, 'resources/list'))).toEqual({ jsonrpc: '2.0', id: 5, result: { resources: [{ uri: 'test://a', name: 'a' }] } });
    expect(await h(req(6, 'resources/templates/list'))).toEqual({ jsonrpc: '2.0', id: 6, result: { resourceTemplates: [{ uriTemplate: 'test://items/{id}', name: 'item' }] } });
    const prompts = await h(req(7, 'prompts/list'));
    expect(prompts).toMatchObject({ id: 7, result: { prompts: [{ name: 'greet' }], nextCursor: expect.any(String) } });
    expect(await h(req(8, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))).toEqual({ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: '5' }] } });
    expect(await h(req(9, 'tools/call', { name: 'nope' }))).toMatchObject({ id: 9, error: { code: -32602, message: 'Invalid params: unknown tool "nope"' } });
    expect(await h(req(10, 'resources/read', { uri: 'test://a' }))).toEqual({ jsonrpc: '2.0', id: 10, result: { contents: [{ uri: 'test://a', text: 'A' }] } });
    expect(await h(req(11, 'resources/read', { uri: 'test://items/7' }))).toEqual({ jsonrpc: '2.0', id: 11, result: { contents: [{ uri: 'test://items/7', text: 'item 7' }] } });
    expect(await h(req(12, 'resources/read', { uri: 'test://zzz' }))).toEqual({
      jsonrpc: '2.0', id: 12, error: { code: -32002, message: 'Resource not found: "test://zzz"', data: { uri: 'test://zzz' } },
    });
    expect(await h(req(13, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } }))).toEqual({
      jsonrpc: '2.0', id: 13, result: { messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }] },
    });
    expect(await h(req(14, 'prompts/get', { name: 'greet' }))).toMatchObject({ id: 14, error: { code: -32602, message: 'Invalid params: missing required argument "who" of prompt "greet"' } });
    expect(await h(req(15, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name: 'id', value: '1' } }))).toEqual({
      jsonrpc: '2.0', id: 15, result: { completion: { values: ['1', '10'], total: 2, hasMore: false } },
    });
    expect(channel.sent).toEqual([]);
  });

  it('tools/call reports progress and logs through the channel, samples through it, and reads the request facts', async () => {
    const server = makeServer();
    const channel = new RecordingChannel({ 'sampling/createMessage': { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm1' } });
    const env = facts({ clientCapabilities: { sampling: {} }, logLevelRank: 1, authInfo: 'token' });
    const reply = await server.handle(req(1, 'tools/call', { name: 'work', _meta: { progressToken: 'p' } }), { facts: env, channel });
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '2025-11-25 c token undefined m1' }] } });
    expect(channel.sent).toEqual([
      { kind: 'notify', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2, message: 'half' }, relatedRequestId: 1 },
      { kind: 'notify', method: 'notifications/message', params: { level: 'info', logger: 'w', data: 'working' }, relatedRequestId: 1 },
      { kind: 'request', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 }, relatedRequestId: 1 },
    ]);
  });

  it('a missing client capability escaping a tool is -32021 with data.requiredCapabilities on a modern request, a tool error on a legacy one', async () => {
    const server = makeServer();
    const channel = new RecordingChannel();
    const modern = await server.handle(req(1, 'tools/call', { name: 'work', _meta: { ...MODERN_META, progressToken: 'p' } }), { channel });
    expect(modern).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing required client capability: "sampling"', data: { requiredCapabilities: { sampling: {} } } } });
    // No logLevel on the modern request: no notifications/message; the progress token: its progress only; nothing asked.
    expect(channel.sent).toEqual([{ kind: 'notify', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2, message: 'half' }, relatedRequestId: 1 }]);
    const legacy = await server.handle(req(2, 'tools/call', { name: 'work' }), { facts: facts(), channel: new RecordingChannel() });
    expect(legacy).toEqual({
      jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Tool "work" failed: the client did not declare the "sampling" capability' }], isError: true },
    });
  });

  it('a polluted Object.prototype gives a request no progress token, and a modern one no log level or capabilities', async () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto['progressToken'] = 'inherited';
    proto['io.modelcontextprotocol/logLevel'] = 'debug';
    proto['io.modelcontextprotocol/clientCapabilities'] = { sampling: {} };
    try {
      const server = makeServer();
      const channel = new RecordingChannel();
      const message = JSON.parse(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":${JSON.stringify(MODERN_META)}}}`) as JsonRpcRequest;
      expect(await server.handle(message, { channel })).toMatchObject({ id: 1, error: { code: -32021 } });
      expect(channel.sent).toEqual([]);
      // A legacy request, its facts a plain object without a token of its own (the logs are the facts' level).
      const legacy = JSON.parse('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work","_meta":{}}}') as JsonRpcRequest;
      expect(await server.handle(legacy, { facts: facts(), channel })).toMatchObject({ id: 2, result: { isError: true } });
      expect(channel.sent.map((m) => m.method)).toEqual(['notifications/message', 'notifications/message']);
    } finally {
      delete proto['progressToken'];
      delete proto['io.modelcontextprotocol/logLevel'];
      delete proto['io.modelcontextprotocol/clientCapabilities'];
    }
  });

  it('a polluted Object.prototype declares no capability and gives no request a _meta', async () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto['sampling'] = {};
    proto['_meta'] = { progressToken: 'inherited' };
    try {
      const server = makeServer();
      const channel = new RecordingChannel();
      // The work tool reports progress, logs, then samples: a client that declared no sampling is refused it.
      const modern = JSON.parse(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":${JSON.stringify(MODERN_META)}}}`) as JsonRpcRequest;
      expect(await server.handle(modern, { channel })).toMatchObject({ id: 1, error: { code: -32021 } });
      const legacy = JSON.parse('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work"}}') as JsonRpcRequest;
      expect(await server.handle(legacy, { facts: facts({ logLevelRank: 9 }), channel })).toMatchObject({ id: 2, result: { isError: true } });
      expect(channel.sent).toEqual([]);
    } finally {
      delete proto['sampling'];
      delete proto['_meta'];
    }
  });

  it('a refusal event names the client only by a well-formed client info', async () => {
    const events: unknown[] = [];
    for (const clientInfo of [{ name: 5 }, { name: 'c', version: '1' }]) {
      const server = makeServer();
      server.onRefused((event) => events.push(event.clientInfo));
      const [client, serverSide] = createMemoryTransportPair();
      client.onmessage = () => {};
      await server.connect(serverSide);
      await client.start();
      await client.send({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo } });
      await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // A second initialize in a session is refused.
      await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } });
      await new Promise((r) => setTimeout(r, 20));
      await server.close();
    }
    expect(events).toEqual([undefined, { name: 'c', version: '1' }]);
  });

  it('resource not found is -32602 on a modern request, -32002 on a legacy one', async () => {
    const server = makeServer();
    expect(await server.handle(req(1, 'resources/read', { uri: 'test://zzz', _meta: MODERN_META }))).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Resource not found: "test://zzz"', data: { uri: 'test://zzz' } },
    });
    expect(await server.handle(req(2, 'resources/read', { uri: 'test://zzz' }), { facts: facts() })).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32002, message: 'Resource not found: "test://zzz"', data: { uri: 'test://zzz' } },
    });
  });

  it('a request whose _meta claims a revision the server does not serve is -32022 here too, as on every transport', async () => {
    const claim = { _meta: MODERN_META, name: 'add', arguments: { a: 1, b: 2 } };
    const legacyOnly = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, revisions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] });
    expect(await legacyOnly.handle(req(1, 'tools/call', claim), { facts: facts(), channel: new RecordingChannel() })).toEqual({
      jsonrpc: '2.0', id: 1, error: {
        code: -32022,
        message: 'Unsupported protocol version: "2026-07-28" (this server supports 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)',
        data: { supported: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '2026-07-28' },
      },
    });
    const future = { ...claim, _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } };
    expect(await makeServer().handle(req(2, 'tools/call', future))).toEqual({
      jsonrpc: '2.0', id: 2, error: {
        code: -32022,
        message: 'Unsupported protocol version: "2099-01-01" (this server supports 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)',
        data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '2099-01-01' },
      },
    });
  });

  it('a modern request ignores the facts it is given: its own envelope decides', async () => {
    const server = makeServer();
    const reply = await server.handle(req(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: MODERN_META }), { facts: facts({ serverCapabilities: {} }) });
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '2' }], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } } });
  });

  it('gates by the capabilities in the facts; the session-only requests are -32601 without a session; notifications get nothing', async () => {
    const server = makeServer();
    const channel = new RecordingChannel();
    expect(await server.handle(req(1, 'tools/list'), { facts: facts({ serverCapabilities: { prompts: {} } }), channel })).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: "tools/list" (the server does not advertise the "tools" capability)' },
    });
    for (const method of ['initialize', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
      expect(await server.handle(req(2, method, { protocolVersion: '2025-11-25', level: 'info', uri: 'test://a' }), { facts: facts(), channel })).toEqual({
        jsonrpc: '2.0', id: 2, error: { code: -32601, message: `Method not found: "${method}" (it exists only on a session)` },
      });
    }
    expect(await server.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { facts: facts(), channel })).toBeUndefined();
    // The 2026-07-28 requests are no legacy requests: without their envelope, the envelope is what is missing.
    for (const method of ['server/discover', 'subscriptions/listen']) {
      expect(await server.handle(req(3, method), { facts: facts(), channel })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: params._meta is required' } });
    }
    expect(channel.sent).toEqual([]);
  });
});
