import { describe, expect, it, vi } from 'vitest';
import { silentLogger, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpError } from '../../protocol/errors.js';
import { McpServer } from '../mcpServer.js';
import { connectRawClient } from '../../testing/index.js';
import type { MiddlewareCall } from './call.js';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'modern-host', version: '2' } };

const request = (id: number, method: string, params?: Record<string, unknown>): JsonRpcRequest => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const modern = (id: number, method: string, params: Record<string, unknown> = {}): JsonRpcRequest => request(id, method, { ...params, _meta: META });

function makeServer(): McpServer {
  const server = new McpServer({ name: 'chain', version: '1' }, { logger: silentLogger });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.tool('signal', {}, (_args, ctx) => ({ content: [{ type: 'text', text: String(ctx.signal.aborted) }] }));
  server.prompt('greet', {}, () => ({ messages: [] }));
  return server;
}

const text = (response: unknown): string => (response as { result: { content: { text: string }[] } }).result.content[0]!.text;

describe('McpServer.use: the middleware chain', () => {
  it('runs middlewares in the order added, the first outermost, around the operation', async () => {
    const server = makeServer();
    const order: string[] = [];
    server.use(async (call, next) => {
      order.push(`a in ${call.method}`);
      const result = await next();
      order.push('a out');
      return result;
    });
    server.use(async (_call, next) => {
      order.push('b in');
      const result = await next();
      order.push('b out');
      return result;
    });
    const response = await server.handle(request(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }));
    expect(text(response)).toBe('3');
    expect(order).toEqual(['a in tools/call', 'b in', 'b out', 'a out']);
  });

  it('runs a filtered middleware only for the methods it names', async () => {
    const server = makeServer();
    const seen: string[] = [];
    server.use({ methods: ['tools/call'] }, (call, next) => {
      seen.push(call.method);
      return next();
    });
    await server.handle(request(1, 'tools/list'));
    await server.handle(request(2, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }));
    await server.handle(request(3, 'prompts/list'));
    expect(seen).toEqual(['tools/call']);
  });

  it('gives the call the facts of the request: name, tool, era, revision, client, caller, authInfo, id', async () => {
    const server = makeServer();
    const calls: Record<string, unknown>[] = [];
    const snapshot = (call: MiddlewareCall): Record<string, unknown> => ({
      method: call.method,
      id: call.id,
      isNotification: call.isNotification,
      name: call.name,
      tool: call.tool?.name,
      era: call.era,
      revision: call.revision,
      client: call.clientInfo?.name,
      caller: call.caller,
      authInfo: call.authInfo,
      session: call.session === undefined ? 'none' : 'a session',
    });
    server.use((call, next) => {
      calls.push(snapshot(call));
      return next();
    });
    await server.handle(modern(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }), { extra: { caller: 'address:203.0.113.7', authInfo: { clientId: 'app' } } });
    const raw = await connectRawClient(server);
    await raw.initialize({ protocolVersion: '2025-06-18' });
    await raw.request(2, 'prompts/get', { name: 'greet' });
    expect(calls).toEqual([
      { method: 'tools/call', id: 1, isNotification: false, name: 'add', tool: 'add', era: 'modern', revision: MODERN, client: 'modern-host', caller: 'address:203.0.113.7', authInfo: { clientId: 'app' }, session: 'none' },
      { method: 'initialize', id: 'init', isNotification: false, name: undefined, tool: undefined, era: 'legacy', revision: undefined, client: undefined, caller: undefined, authInfo: undefined, session: 'a session' },
      { method: 'notifications/initialized', id: undefined, isNotification: true, name: undefined, tool: undefined, era: 'legacy', revision: '2025-06-18', client: 'raw-client', caller: undefined, authInfo: undefined, session: 'a session' },
      { method: 'prompts/get', id: 2, isNotification: false, name: 'greet', tool: undefined, era: 'legacy', revision: '2025-06-18', client: 'raw-client', caller: undefined, authInfo: undefined, session: 'a session' },
    ]);
    await raw.close();
  });

  it('passes changed params to the rest of the chain and the operation', async () => {
    const server = makeServer();
    const inner: unknown[] = [];
    server.use((call, next) => next({ params: { ...(call.params as object), arguments: { a: 40, b: 2 } } }));
    server.use((call, next) => {
      inner.push(call.params);
      return next();
    });
    const response = await server.handle(request(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }));
    expect(text(response)).toBe('42');
    expect(inner).toEqual([{ name: 'add', arguments: { a: 40, b: 2 } }]);
  });

  it('gives the handler the signal passed to next(), as ctx.signal', async () => {
    const server = makeServer();
    const controller = new AbortController();
    controller.abort();
    server.use((_call, next) => next({ signal: controller.signal }));
    expect(text(await server.handle(request(1, 'tools/call', { name: 'signal', arguments: {} })))).toBe('true');
  });

  it('answers with a result a middleware returns without calling next(); the operation does not run', async () => {
    const server = makeServer();
    const handler = vi.fn(() => ({ content: [] }));
    server.tool('never', {}, handler);
    server.use(() => ({ content: [{ type: 'text', text: 'from middleware' }] }));
    expect(await server.handle(request(1, 'tools/call', { name: 'never', arguments: {} }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'from middleware' }] },
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('completes a 2026-07-28 result a middleware made itself (resultType, serverInfo), and leaves the operation\'s as it was', async () => {
    const server = makeServer();
    server.use({ methods: ['prompts/get'] }, () => ({ messages: [] }));
    server.use({ methods: ['tools/call'] }, (_call, next) => next());
    const own = await server.handle(modern(1, 'prompts/get', { name: 'greet' }));
    expect(own).toEqual({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'chain', version: '1' } }, messages: [] } });
    const passed = await server.handle(modern(2, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }));
    expect(passed).toMatchObject({ result: { resultType: 'complete', content: [{ type: 'text', text: '3' }] } });
  });

  it('answers an McpError with its code, message and data; any other error with -32603 and none of its text', async () => {
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const server = new McpServer({ name: 'errors', version: '1' }, { logger });
    server.tool('t', {}, () => ({ content: [] }));
    server.use({ methods: ['tools/call'] }, () => {
      throw new McpError(-32602, 'Invalid params: refused by policy', { rule: 7 });
    });
    server.use({ methods: ['tools/list'] }, () => Promise.reject(new Error('secret database password')));
    expect(await server.handle(request(1, 'tools/call', { name: 't' }))).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: refused by policy', data: { rule: 7 } } });
    const crashed = await server.handle(request(2, 'tools/list'));
    expect(crashed).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } });
    expect(JSON.stringify(crashed)).not.toContain('secret');
    expect(logger.error).toHaveBeenCalledWith('Handler failed: "tools/list"', expect.objectContaining({ error: expect.any(Error) }));
  });

  it('sees notifications too, whose result is dropped', async () => {
    const server = makeServer();
    const seen: string[] = [];
    server.use((call, next) => {
      if (call.isNotification) seen.push(call.method);
      return next();
    });
    const raw = await connectRawClient(server);
    await raw.initialize();
    await raw.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    await raw.request(1, 'ping');
    expect(seen).toEqual(['notifications/initialized', 'notifications/roots/list_changed']);
    expect(raw.received.filter((m) => !('id' in m))).toEqual([]);
    await raw.close();
  });

  it('never sees what the protocol refuses: a request before initialize, an unknown method, a bad 2026-07-28 envelope', async () => {
    const server = makeServer();
    const seen: string[] = [];
    server.use((call, next) => {
      seen.push(call.method);
      return next();
    });
    const raw = await connectRawClient(server);
    expect(await raw.request(1, 'tools/list')).toMatchObject({ error: { code: expect.any(Number) } });
    await raw.initialize();
    expect(await raw.request(2, 'no/such/method')).toMatchObject({ error: { code: -32601 } });
    await raw.close();
    const badEnvelope = request(3, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': 'none' } });
    expect(await server.handle(badEnvelope)).toMatchObject({ error: { code: -32602 } });
    expect(await server.handle(modern(4, 'initialize'))).toMatchObject({ error: { code: -32601 } });
    expect(seen).toEqual(['initialize', 'notifications/initialized']);
  });

  it('runs a handler in its message\'s turn when the middlewares call next() at once: a pipelined request sees the session initialize made', async () => {
    const server = makeServer();
    server.use(async (_call, next) => {
      const result = await next();
      return result;
    });
    const raw = await connectRawClient(server);
    void raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'eager', version: '1' } } });
    void raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    void raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await raw.waitFor((m) => 'id' in m && m.id === 2)).toMatchObject({ result: { tools: expect.any(Array) } });
    await raw.close();
  });

  it('is added or removed at any time, also after connect; a disposer removes one middleware', async () => {
    const server = makeServer();
    const raw = await connectRawClient(server);
    await raw.initialize();
    const seen: string[] = [];
    const dispose = server.use((call, next) => {
      seen.push(`x ${call.method}`);
      return next();
    });
    await raw.request(1, 'ping');
    dispose();
    dispose();
    await raw.request(2, 'ping');
    expect(seen).toEqual(['x ping']);
    await raw.close();
  });

  it('refuses a second next() from one middleware run, and a malformed middleware or filter at use()', async () => {
    const server = makeServer();
    server.use(async (_call, next) => {
      await next();
      return next();
    });
    expect(await server.handle(request(1, 'ping'))).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(() => server.use('nope' as never)).toThrow(TypeError);
    expect(() => server.use({ methods: 'tools/call' } as never, (_c, next) => next())).toThrow(/"methods" must be an array/);
    expect(() => server.use({ methods: ['tools/call'] }, undefined as never)).toThrow(/expected a function/);
  });
});
