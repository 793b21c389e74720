import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger, type JsonRpcMessage } from '@switchboard/jsonrpc';
import { connectRawClient } from '../testing/index.js';
import { McpServer, ToolError } from './mcpServer.js';
import type { MissingClientCapabilityError } from '../protocol/errors.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function makeServer(options: ConstructorParameters<typeof McpServer>[1] = {}) {
  const server = new McpServer({ name: 'test-server', version: '1.2.3' }, { logger: silentLogger, ...options });
  server.tool(
    'add',
    {
      description: 'Adds two integers',
      inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
    },
    ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.tool('fast', {}, async () => {
    await sleep(50);
    return { content: [{ type: 'text', text: 'fast done' }] };
  });
  server.tool('slow', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 5000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  server.tool('crash', {}, () => {
    throw new Error('secret database password in stack');
  });
  server.tool('visible-failure', {}, () => {
    throw new ToolError('The city "Atlantis" was not found');
  });
  server.tool('no-args', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  server.tool(
    'structured',
    { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
    (args: { bad?: boolean }) =>
      args.bad === true
        ? // Wrong on purpose (the types reject it): the server must catch it at run time.
          { content: [{ type: 'text', text: 'bad' }], structuredContent: { n: 'x' } as unknown as { n: number } }
        : { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } },
  );
  server.resource('test://a', { name: 'a', mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'A' }] }));
  server.resourceTemplate('test://items/{id}', { name: 'item', complete: { id: (v) => ['1', '2', '10'].filter((x) => x.startsWith(v)) } }, (uri, vars) => ({
    contents: [{ uri, text: `item ${String(vars.id)}` }],
  }));
  server.prompt(
    'greet',
    { description: 'Greets', arguments: [{ name: 'who', required: true }], complete: { who: () => Array.from({ length: 150 }, (_, i) => `n${i}`) } },
    (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.who}` } }] }),
  );
  return server;
}

const result = (m: JsonRpcMessage) => (m as { result: Record<string, any> }).result;
const error = (m: JsonRpcMessage) => (m as { error: { code: number; message: string; data?: unknown } }).error;

describe('McpServer lifecycle', () => {
  it('initialize answers the requested revision with capabilities and serverInfo', async () => {
    const c = await connectRawClient(makeServer());
    const r = result(await c.initialize({ protocolVersion: '2025-06-18' }));
    expect(r.protocolVersion).toBe('2025-06-18');
    expect(r.serverInfo).toEqual({ name: 'test-server', version: '1.2.3' });
    expect(r.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  it('initialize counter-offers the latest legacy revision for an unknown one', async () => {
    const c = await connectRawClient(makeServer());
    expect(result(await c.initialize({ protocolVersion: '1999-01-01' })).protocolVersion).toBe('2025-11-25');
  });

  it('B30: a second initialize is refused with -32600 and the negotiated state is kept', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize({ protocolVersion: '2025-11-25' });
    const second = await c.request('init2', 'initialize', { protocolVersion: '2024-11-05', capabilities: { sampling: {} }, clientInfo: { name: 'other', version: '9' } });
    expect(second).toMatchObject({ jsonrpc: '2.0', id: 'init2', error: { code: -32600 } });
    expect(c.session.protocolVersion).toBe('2025-11-25');
    expect(c.session.clientCapabilities).toEqual({});
    expect(await c.request(3, 'ping')).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('B31: ping before initialize is answered; tools/list before initialize gets -32600 with its id', async () => {
    const c = await connectRawClient(makeServer());
    expect(await c.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const r = await c.request(2, 'tools/list');
    expect(r).toMatchObject({ id: 2, error: { code: -32600 } });
  });

  it('initialize with a non-string protocolVersion is -32602', async () => {
    const c = await connectRawClient(makeServer());
    expect(await c.request(1, 'initialize', { protocolVersion: 5, capabilities: {} })).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it('an unknown method is -32601 (B08)', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(await c.request(9, 'tools/frobnicate')).toMatchObject({ id: 9, error: { code: -32601 } });
  });

  it('batches are refused at 2025-11-25 and served at 2025-03-26', async () => {
    const modern = await connectRawClient(makeServer());
    await modern.initialize({ protocolVersion: '2025-11-25' });
    await modern.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }]);
    const refused = await modern.waitFor((m) => 'error' in m);
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } });

    const old = await connectRawClient(makeServer());
    await old.initialize({ protocolVersion: '2025-03-26' });
    await old.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }, { jsonrpc: '2.0', id: 'b2', method: 'ping' }]);
    expect(await old.waitFor((m) => 'id' in m && m.id === 'b2')).toEqual({ jsonrpc: '2.0', id: 'b2', result: {} });
  });

  it('B05 (c): a batch of notifications only is one -32600 (id null) at 2025-11-25 and none of it is read; at 2025-03-26 it is read and answered with nothing', async () => {
    for (const [protocolVersion, refused] of [['2025-11-25', true], ['2025-03-26', false]] as const) {
      const aborted: string[] = [];
      const server = new McpServer({ name: 'batch-test', version: '1' }, { logger: silentLogger });
      server.tool('wait', {}, async (_args, ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted.push(String(ctx.requestId));
        return { content: [] };
      });
      const c = await connectRawClient(server);
      await c.initialize({ protocolVersion });
      void c.request(7, 'tools/call', { name: 'wait', arguments: {} }).catch(() => undefined); // cancelled or left waiting: never answered
      await new Promise((resolve) => setTimeout(resolve, 20));
      const before = c.received.length;
      await c.send([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }]);
      // A ping after it: whatever the batch got back arrived first.
      expect(await c.request('p', 'ping')).toMatchObject({ id: 'p', result: {} });
      const replies = c.received.slice(before).filter((m) => !('id' in m && m.id === 'p'));
      expect(replies).toEqual(refused ? [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) as unknown } }] : []);
      expect(aborted).toEqual(refused ? [] : ['7']);
      await c.close();
    }
  });
});

describe('McpServer tools', () => {
  it('tools/list lists each tool with an object-root inputSchema (B42)', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const tools = result(await c.request(2, 'tools/list')).tools as { name: string; inputSchema: { type: string } }[];
    expect(tools.map((t) => t.name)).toEqual(['add', 'fast', 'slow', 'crash', 'visible-failure', 'no-args', 'structured']);
    for (const t of tools) expect(t.inputSchema.type).toBe('object');
    expect(tools.find((t) => t.name === 'no-args')!.inputSchema).toEqual({ type: 'object' });
  });

  it('B42: a schema without an object root is refused at registration', () => {
    const server = makeServer();
    expect(() => server.tool('bad', { inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } }, () => ({ content: [] }))).toThrow(TypeError);
    expect(() => server.tool('bad2', { inputSchema: { type: 'string' } }, () => ({ content: [] }))).toThrow(TypeError);
  });

  it('tools/call runs the handler with validated arguments', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(result(await c.request(3, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))).toEqual({ content: [{ type: 'text', text: '5' }] });
  });

  it('B40: argument validation failures are isError results; a missing name is -32602', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const r4 = result(await c.request(4, 'tools/call', { name: 'add', arguments: { a: 'two', b: 2 } }));
    expect(r4.isError).toBe(true);
    expect(r4.content[0].text).toBe('Invalid arguments for tool "add": arguments/a: Instance type "string" is invalid. Expected "integer".');
    const r5 = result(await c.request(5, 'tools/call', { name: 'add', arguments: { a: 1 } }));
    expect(r5.isError).toBe(true);
    expect(r5.content[0].text).toBe('Invalid arguments for tool "add": arguments: Instance does not have required property "b".');
    expect(await c.request(6, 'tools/call', { arguments: { a: 1, b: 2 } })).toMatchObject({ id: 6, error: { code: -32602 } });
  });

  it('an unknown tool is a JSON-RPC -32602 error, not a tool result', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const r = await c.request(7, 'tools/call', { name: 'nope' });
    expect(error(r)).toEqual({ code: -32602, message: 'Invalid params: unknown tool "nope"', data: { name: 'nope' } });
  });

  it('a crashing handler yields a generic isError result with no exception text', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const r = await c.request(8, 'tools/call', { name: 'crash' });
    expect(JSON.stringify(r)).not.toContain('secret');
    expect(result(r)).toEqual({ isError: true, content: [{ type: 'text', text: 'Tool "crash" failed: internal error' }] });
  });

  it('a ToolError message reaches the model', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(result(await c.request(9, 'tools/call', { name: 'visible-failure' }))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'The city "Atlantis" was not found' }],
    });
  });

  it('a success result that breaks its own outputSchema is never sent (B41, server side)', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(result(await c.request(10, 'tools/call', { name: 'structured', arguments: {} })).structuredContent).toEqual({ n: 1 });
    expect(await c.request(11, 'tools/call', { name: 'structured', arguments: { bad: true } })).toMatchObject({ id: 11, error: { code: -32603, message: 'Internal error' } });
  });

  it('accepts a Standard Schema (zod 4) and hands the handler its parsed output', async () => {
    const server = makeServer();
    server.tool('zod', { inputSchema: z.object({ n: z.coerce.number(), tag: z.string().default('none') }) }, (args: { n: number; tag: string }) => ({
      content: [{ type: 'text', text: `${typeof args.n}:${args.n}:${args.tag}` }],
    }));
    const c = await connectRawClient(server);
    await c.initialize();
    const tools = result(await c.request(1, 'tools/list')).tools as { name: string; inputSchema: Record<string, unknown> }[];
    expect(tools.find((t) => t.name === 'zod')!.inputSchema).toMatchObject({ type: 'object', properties: { n: { type: 'number' } } });
    expect(result(await c.request(2, 'tools/call', { name: 'zod', arguments: { n: '4' } })).content[0].text).toBe('number:4:none');
    const bad = result(await c.request(3, 'tools/call', { name: 'zod', arguments: { n: 'x' } }));
    expect(bad.isError).toBe(true);
    // SEP-1303: a tool execution error the model can act on, located as a JSON Schema tool's would be.
    expect(bad.content[0].text).toMatch(/^Invalid arguments for tool "zod": arguments\/n: /);
  });

  it('B37: a cancelled request gets no response and its handler sees the abort', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    await c.send({ jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await sleep(20);
    await c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 21, reason: 'stop' } });
    await sleep(300);
    expect(c.received.some((m) => 'id' in m && m.id === 21)).toBe(false);
    expect(await c.request(22, 'ping')).toEqual({ jsonrpc: '2.0', id: 22, result: {} });
  });

  it('B36: a cancel racing the end of the handler never yields two responses or a crash', async () => {
    for (const offset of [-5, -1, 0, 1, 5, 60]) {
      const c = await connectRawClient(makeServer());
      await c.initialize();
      await c.send({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'fast', arguments: {} } });
      await sleep(50 + offset);
      await c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 11 } });
      expect(await c.request(12, 'ping')).toEqual({ jsonrpc: '2.0', id: 12, result: {} });
      await sleep(30);
      expect(c.received.filter((m) => 'id' in m && m.id === 11).length).toBeLessThanOrEqual(1);
    }
  });

  it('a cancel for an unknown id is ignored', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    await c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } });
    expect(await c.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('registering a tool on a live server sends notifications/tools/list_changed once', async () => {
    const server = makeServer();
    const c = await connectRawClient(server);
    await c.initialize();
    await sleep(10);
    const dispose = server.tool('late1', {}, () => ({ content: [] }));
    server.tool('late2', {}, () => ({ content: [] }));
    await c.waitFor((m) => 'method' in m && m.method === 'notifications/tools/list_changed');
    await sleep(20);
    expect(c.received.filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toHaveLength(1);
    dispose();
    await sleep(20);
    expect(c.received.filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toHaveLength(2);
  });
});

describe('McpServer context', () => {
  it('progress is sent only with a progressToken, and log respects logging/setLevel', async () => {
    const server = makeServer();
    server.tool('work', {}, async (_a, ctx) => {
      await ctx.progress(1, 2, 'half');
      await ctx.log('debug', 'hidden');
      await ctx.log('warning', { detail: 'shown' }, 'worker');
      return { content: [] };
    });
    const c = await connectRawClient(server);
    await c.initialize();
    expect(result(await c.request('lvl', 'logging/setLevel', { level: 'info' }))).toEqual({});
    await c.request(1, 'tools/call', { name: 'work', _meta: { progressToken: 'p1' } });
    await c.request(2, 'tools/call', { name: 'work' });
    const notes = c.received.filter((m) => 'method' in m);
    expect(notes).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'half' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', logger: 'worker', data: { detail: 'shown' } } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', logger: 'worker', data: { detail: 'shown' } } },
    ]);
    expect(await c.request(3, 'logging/setLevel', { level: 'loud' })).toMatchObject({ error: { code: -32602 } });
  });

  it('sample sends sampling/createMessage to the client and returns its result', async () => {
    const server = makeServer();
    server.tool('ask', {}, async (_a, ctx) => {
      const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q?' } }], maxTokens: 10 });
      return { content: [{ type: 'text', text: `got ${JSON.stringify(r.content)}` }] };
    });
    const c = await connectRawClient(server);
    await c.initialize({ capabilities: { sampling: {} } });
    await c.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask' } });
    const req = (await c.waitFor((m) => 'method' in m && m.method === 'sampling/createMessage')) as { id: number; params: unknown };
    expect(req.params).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'q?' } }], maxTokens: 10 });
    await c.send({ jsonrpc: '2.0', id: req.id, result: { role: 'assistant', content: { type: 'text', text: 'A' }, model: 'm' } });
    const r = await c.waitFor((m) => 'id' in m && m.id === 'call');
    expect(result(r).content[0].text).toBe('got {"type":"text","text":"A"}');
  });

  it('sample without the sampling capability fails inside the tool, not on the wire', async () => {
    const server = makeServer();
    server.tool('ask', {}, async (_a, ctx) => {
      try {
        await ctx.sample({ messages: [], maxTokens: 1 });
        return { content: [{ type: 'text', text: 'sent' }] };
      } catch (e) {
        const missing = e as MissingClientCapabilityError;
        return { content: [{ type: 'text', text: `${missing.name} ${missing.code} ${JSON.stringify(missing.requiredCapabilities)}` }] };
      }
    });
    const c = await connectRawClient(server);
    await c.initialize();
    // A local, typed error raised before anything is sent (it used to be a wire -32601).
    expect(result(await c.request(1, 'tools/call', { name: 'ask' })).content[0].text).toBe('MissingClientCapabilityError -32021 {"sampling":{}}');
    expect(c.received.some((m) => 'method' in m && m.method === 'sampling/createMessage')).toBe(false);
  });
});

describe('McpServer resources, prompts, completion, pagination', () => {
  it('reads static and templated resources; an unknown one is -32002 with the uri', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(result(await c.request(1, 'resources/read', { uri: 'test://a' }))).toEqual({ contents: [{ uri: 'test://a', mimeType: 'text/plain', text: 'A' }] });
    expect(result(await c.request(2, 'resources/read', { uri: 'test://items/42' }))).toEqual({ contents: [{ uri: 'test://items/42', text: 'item 42' }] });
    expect(error(await c.request(3, 'resources/read', { uri: 'test://zzz' }))).toEqual({ code: -32002, message: 'Resource not found: "test://zzz"', data: { uri: 'test://zzz' } });
    expect(result(await c.request(4, 'resources/list')).resources).toEqual([{ uri: 'test://a', name: 'a', mimeType: 'text/plain' }]);
    expect(result(await c.request(5, 'resources/templates/list')).resourceTemplates).toEqual([{ uriTemplate: 'test://items/{id}', name: 'item' }]);
    expect(result(await c.request(6, 'resources/subscribe', { uri: 'test://a' }))).toEqual({});
    expect(result(await c.request(7, 'resources/unsubscribe', { uri: 'test://a' }))).toEqual({});
  });

  it('resources/updated reaches subscribed sessions only', async () => {
    const server = makeServer();
    const a = await connectRawClient(server);
    const b = await connectRawClient(server);
    await a.initialize();
    await b.initialize();
    await a.request(1, 'resources/subscribe', { uri: 'test://a' });
    await server.notifyResourceUpdated('test://a');
    await a.waitFor((m) => 'method' in m && m.method === 'notifications/resources/updated');
    await sleep(20);
    expect(b.received.some((m) => 'method' in m && m.method === 'notifications/resources/updated')).toBe(false);
  });

  it('prompts/get checks required arguments; unknown prompt is -32602', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(result(await c.request(1, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } })).messages[0].content.text).toBe('Hello Ada');
    expect(await c.request(2, 'prompts/get', { name: 'greet' })).toMatchObject({ error: { code: -32602 } });
    expect(await c.request(3, 'prompts/get', { name: 'nope' })).toMatchObject({ error: { code: -32602 } });
  });

  it('completion/complete caps values at 100 and reports total and hasMore', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const r = result(await c.request(1, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } }));
    expect(r.completion.values).toHaveLength(100);
    expect(r.completion).toMatchObject({ total: 150, hasMore: true });
    const t = result(await c.request(2, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name: 'id', value: '1' } }));
    expect(t.completion.values).toEqual(['1', '10']);
    expect(await c.request(3, 'completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } })).toMatchObject({ error: { code: -32602 } });
  });

  it('B44: pages follow opaque cursors to the end; a bogus cursor is -32602, not page one', async () => {
    const server = new McpServer({ name: 'p', version: '1' }, { logger: silentLogger, pageSize: 2 });
    for (const n of ['a', 'b', 'c', 'd', 'e']) server.tool(n, {}, () => ({ content: [] }));
    const c = await connectRawClient(server);
    await c.initialize();
    const names: string[] = [];
    let cursor: string | undefined;
    let id = 0;
    do {
      const r = result(await c.request(++id, 'tools/list', cursor === undefined ? {} : { cursor }));
      names.push(...(r.tools as { name: string }[]).map((t) => t.name));
      cursor = r.nextCursor as string | undefined;
    } while (cursor !== undefined);
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await c.request(99, 'tools/list', { cursor: 'bogus' })).toMatchObject({ id: 99, error: { code: -32602 } });
    expect(await c.request(100, 'tools/list', { cursor: '' })).toMatchObject({ id: 100, error: { code: -32602 } });
  });

  it('__proto__ and constructor as names are plain unknown names', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(await c.request(1, 'tools/call', { name: '__proto__' })).toMatchObject({ error: { code: -32602 } });
    expect(await c.request(2, 'prompts/get', { name: 'constructor' })).toMatchObject({ error: { code: -32602 } });
    expect(await c.request(3, 'constructor')).toMatchObject({ error: { code: -32601 } });
  });
});

describe('McpServer method table (B07, B08, B09)', () => {
  it('B07: a notification method sent with an id is -32601; a request method sent without one runs nothing', async () => {
    let calls = 0;
    const server = makeServer();
    server.tool('count', {}, () => {
      calls++;
      return { content: [] };
    });
    const c = await connectRawClient(server);
    await c.initialize();
    expect(await c.request(7, 'notifications/initialized')).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(await c.request(8, 'notifications/cancelled', { requestId: 1 })).toMatchObject({ id: 8, error: { code: -32601 } });
    await c.send({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'count' } });
    await c.send({ jsonrpc: '2.0', method: 'tools/list' });
    expect(await c.request(9, 'ping')).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    expect(calls).toBe(0);
    expect(c.received.filter((m) => !('id' in m) || m.id !== 'init')).toHaveLength(3);
  });

  it('B08: methods of a capability the server does not advertise are -32601, not -32602', async () => {
    const server = new McpServer({ name: 'tools-only', version: '1' }, { logger: silentLogger });
    server.tool('t', {}, () => ({ content: [] }));
    const c = await connectRawClient(server);
    const init = await c.initialize();
    expect(result(init).capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
    let id = 0;
    for (const [method, params] of [
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'x' }],
      ['resources/list', {}],
      ['resources/read', { uri: 'test://x' }],
      ['resources/subscribe', { uri: 'test://x' }],
    ] as const) {
      expect(await c.request(++id, method, params)).toMatchObject({ id, error: { code: -32601 } });
    }
    expect(result(await c.request('last', 'tools/list')).tools).toHaveLength(1);
  });

  it('B09: tools/call with "arguments": null is -32602', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    expect(await c.request(4, 'tools/call', { name: 'no-args', arguments: null })).toMatchObject({ id: 4, error: { code: -32602 } });
    expect(await c.request(5, 'prompts/get', { name: 'greet', arguments: null })).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  it('2024-11-05 sessions are not offered the completions capability, which that revision lacks', async () => {
    const c = await connectRawClient(makeServer());
    const caps = result(await c.initialize({ protocolVersion: '2024-11-05' })).capabilities;
    expect(caps.completions).toBeUndefined();
    expect(caps.prompts).toEqual({ listChanged: true });
    expect(result(await c.request(2, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'n1' } })).completion.values).toHaveLength(100);
  });
});

describe('McpServer echoes of client input are capped (a huge name never makes a huge error)', () => {
  it('an unknown 4 MB tool name, resource URI or cursor is quoted in 200 characters plus an ellipsis', async () => {
    const server = new McpServer({ name: 'echo-cap', version: '0' });
    server.tool('t', {}, () => ({ content: [] }));
    server.resource('x://a', { name: 'a' }, () => ({ contents: [] }));
    const client = await connectRawClient(server);
    await client.initialize();
    const huge = 'n'.repeat(4 * 1024 * 1024);
    const shown = `${'n'.repeat(200)}…`;
    const tool = await client.request(1, 'tools/call', { name: huge });
    expect(tool).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Invalid params: unknown tool "${shown}"`, data: { name: shown } } });
    // Not a URI (no scheme): -32602, its echo capped too.
    const read = await client.request(2, 'resources/read', { uri: huge });
    expect(read).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: "uri" must be a URI', data: { uri: shown } } });
    const hugeUri = `x://${huge}`;
    const unknown = await client.request(4, 'resources/read', { uri: hugeUri });
    expect(unknown).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32002, message: `Resource not found: "${hugeUri.slice(0, 200)}…"`, data: { uri: `${hugeUri.slice(0, 200)}…` } } });
    const list = await client.request(3, 'tools/list', { cursor: huge });
    expect(JSON.stringify(list).length).toBeLessThan(1000);
    await client.close();
  });
});
