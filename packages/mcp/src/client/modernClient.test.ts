/**
 * The 2026-07-28 features through McpClient against our own McpServer in memory (`inMemoryConnector`), whole wire
 * messages from the connector's tap: multi round-trip requests driven by the callbacks, the response cache,
 * subscriptions/listen, and callToolAsTask in both task flavours (the extension, and 2025-11-25 core tasks).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRpcMessage, Logger } from '@switchboard/jsonrpc';
import type { ProtocolRevision } from '../protocol/revisions.js';
import { McpServer, ToolError } from '../server/mcpServer.js';
import type { McpServerOptions } from '../server/options.js';
import { InMemoryNotificationBus } from '../stores/notificationBus.js';
import { inMemoryConnector } from '../testing/index.js';
import { NotSupportedError } from './errors.js';
import { McpClient } from './mcpClient.js';
import type { McpClientOptions } from './options.js';
import { TASKS_EXTENSION } from '../protocol/inbound.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const SUB = 'io.modelcontextprotocol/subscriptionId';
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const settle = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ASK = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } as const;

const clients: McpClient[] = [];
const servers: McpServer[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

function makeServer(options: McpServerOptions = {}): { server: McpServer; bus: InMemoryNotificationBus } {
  const bus = new InMemoryNotificationBus();
  const server = new McpServer({ name: 'modern', version: '1' }, { logger: silent, bus, ...options });
  server.tool('greet', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(ASK, { key: 'who' });
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name)}!` }] };
  });
  server.prompt('hello', {}, async (_args, ctx) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hi ${String((await ctx.elicit(ASK, { key: 'who' })).content?.name)}` } }] }));
  server.resource('test://me', { name: 'me' }, async (uri, ctx) => ({ contents: [{ uri, text: String((await ctx.elicit(ASK, { key: 'who' })).content?.name) }] }));
  server.resource('test://static', { name: 'static' }, (uri) => ({ contents: [{ uri, text: 'S' }] }));
  server.tool('job', { task: { pollIntervalMs: 5 } }, async ({ n }: { n?: number }) => {
    await settle(20);
    return { content: [{ type: 'text', text: `job ${String(n)} done` }] };
  });
  server.tool('job_fails', { task: { pollIntervalMs: 5 } }, () => {
    throw new ToolError('job broke');
  });
  server.tool('job_asks', { task: { pollIntervalMs: 5 } }, async (_args, ctx) => {
    const answer = await ctx.elicit(ASK, { key: 'who' });
    return { content: [{ type: 'text', text: `asked ${String(answer.content?.name)}` }] };
  });
  servers.push(server);
  return { server, bus };
}

async function connect(server: McpServer, options: Partial<McpClientOptions> = {}) {
  const wire: { dir: 'toServer' | 'toClient'; message: JsonRpcMessage }[] = [];
  const connector = inMemoryConnector(server, {
    tap: (dir, message) => {
      for (const m of Array.isArray(message) ? message : [message]) wire.push({ dir, message: JSON.parse(JSON.stringify(m)) as JsonRpcMessage });
    },
  });
  const client = await McpClient.connect({ connector, logger: silent, verdictStore: new InMemoryEraVerdictStore(), ...options });
  clients.push(client);
  const sent = (method?: string): Record<string, any>[] =>
    wire.filter((w) => w.dir === 'toServer' && (method === undefined || (w.message as { method?: string }).method === method)).map((w) => w.message as Record<string, any>);
  return { client, wire, sent };
}

const accept = (name: string) => () => Promise.resolve({ action: 'accept' as const, content: { name } });

describe('multi round-trip requests through McpClient', () => {
  it('callTool answers input_required with onElicitation and retries as a new request with the exact requestState', async () => {
    const { client, sent } = await connect(makeServer().server, { onElicitation: accept('Ada') });
    expect(client.era).toBe('modern');
    expect(await client.callTool({ name: 'greet', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }], resultType: 'complete', _meta: expect.any(Object) });
    const calls = sent('tools/call');
    expect(calls).toHaveLength(2);
    const envelope = { [PV]: '2026-07-28', [CAPS]: { elicitation: {} }, [INFO]: { name: 'switchboard-client', version: expect.any(String) } };
    expect(calls[0]).toEqual({ jsonrpc: '2.0', id: calls[0]!.id, method: 'tools/call', params: { name: 'greet', arguments: {}, _meta: { ...envelope, progressToken: expect.anything() } } });
    expect(calls[1]).toEqual({
      jsonrpc: '2.0',
      id: calls[1]!.id,
      method: 'tools/call',
      params: { name: 'greet', arguments: {}, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } }, requestState: expect.any(String), _meta: { ...envelope, progressToken: expect.anything() } },
    });
    expect(calls[1]!.id).not.toBe(calls[0]!.id);
  });

  it('getPrompt and readResource drive their rounds too', async () => {
    const { client } = await connect(makeServer().server, { onElicitation: accept('Bo') });
    expect((await client.getPrompt({ name: 'hello' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hi Bo' } }]);
    expect((await client.readResource({ uri: 'test://me' })).contents).toEqual([{ uri: 'test://me', text: 'Bo' }]);
  });

  it('without onElicitation the client declares no elicitation and the server refuses with -32021', async () => {
    const { client } = await connect(makeServer().server);
    await expect(client.callTool({ name: 'greet' })).rejects.toMatchObject({ code: -32021 });
  });
});

describe('the response cache through McpClient', () => {
  it('serves a fresh list from the cache, and a list-changed notification on a listen stream drops it', async () => {
    const { server } = makeServer({ cache: { ttlMs: 60_000, scope: 'public' } });
    const { client, sent } = await connect(server);
    const first = await client.listTools();
    const second = await client.listTools();
    expect(second).toEqual(first);
    expect(sent('tools/list')).toHaveLength(1);
    const sub = await client.listen({ toolsListChanged: true });
    server.tool('late', {}, () => ({ content: [] }));
    for (let i = 0; i < 50 && sent('tools/list').length === 1; i++) {
      await settle();
      if ((await client.listTools()).tools.some((t) => t.name === 'late')) break;
    }
    expect(sent('tools/list')).toHaveLength(2);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('late');
    expect(sent('tools/list')).toHaveLength(2);
    await sub.close();
  });

  it('keeps each read under its uri, and caches nothing with cache: false or ttlMs 0', async () => {
    const { server } = makeServer({ cache: { ttlMs: 60_000 } });
    const { client, sent } = await connect(server);
    await client.readResource({ uri: 'test://static' });
    await client.readResource({ uri: 'test://static' });
    expect(sent('resources/read')).toHaveLength(1);
    const off = await connect(server, { cache: false });
    await off.client.readResource({ uri: 'test://static' });
    await off.client.readResource({ uri: 'test://static' });
    expect(off.sent('resources/read')).toHaveLength(2);
    const zero = await connect(makeServer().server);
    await zero.client.listPrompts();
    await zero.client.listPrompts();
    expect(zero.sent('prompts/list')).toHaveLength(2);
  });

  it('an unknown tool drops the cached tool list; a refused cursor drops every cached page of its list', async () => {
    const { server } = makeServer({ cache: { ttlMs: 60_000 }, pageSize: 2 });
    const { client, sent } = await connect(server);
    const page1 = await client.listTools();
    await client.listTools({ cursor: page1.nextCursor! });
    await client.listTools();
    expect(sent('tools/list')).toHaveLength(2);
    await expect(client.listTools({ cursor: 'no-such-cursor' })).rejects.toMatchObject({ code: -32602 });
    await client.listTools();
    await client.listTools({ cursor: page1.nextCursor! });
    expect(sent('tools/list')).toHaveLength(5);
    await expect(client.callTool({ name: 'no_such_tool' })).rejects.toMatchObject({ code: -32602 });
    await client.listTools();
    expect(sent('tools/list')).toHaveLength(6);
  });

  it('never caches the result of a read that needed input (a retry)', async () => {
    const { server } = makeServer({ cache: { ttlMs: 60_000 } });
    const { client, sent } = await connect(server, { onElicitation: accept('Cy') });
    await client.readResource({ uri: 'test://me' });
    await client.readResource({ uri: 'test://me' });
    expect(sent('resources/read')).toHaveLength(4);
  });
});

describe('listen through McpClient', () => {
  it('acknowledges, demultiplexes by subscriptionId, and close() sends notifications/cancelled for the listen request', async () => {
    const { server, bus } = makeServer({ capabilities: { resources: { subscribe: true, listChanged: true } } });
    const heard: string[] = [];
    const { client, sent, wire } = await connect(server, { notifications: { resourceUpdated: (p) => heard.push(`app ${p.uri}`) } });
    const a = await client.listen({ resourceSubscriptions: ['test://a'] });
    const b = await client.listen({ resourceSubscriptions: ['test://b'] });
    expect(a.acknowledged).toEqual({ resourceSubscriptions: ['test://a'] });
    a.on((n) => heard.push(`a ${String(n.params.uri)}`));
    b.on((n) => heard.push(`b ${String(n.params.uri)}`));
    await bus.publish({ type: 'resource_updated', uri: 'test://b' });
    await bus.publish({ type: 'resource_updated', uri: 'test://a' });
    await settle();
    expect(heard).toEqual(['app test://b', 'b test://b', 'app test://a', 'a test://a']);
    const [listenA] = sent('subscriptions/listen');
    expect(listenA).toMatchObject({ id: a.id, params: { notifications: { resourceSubscriptions: ['test://a'] } } });
    expect(wire.find((w) => w.dir === 'toClient' && (w.message as any).method === 'notifications/subscriptions/acknowledged' && (w.message as any).params._meta[SUB] === a.id)).toBeDefined();
    expect(await a.close()).toEqual({ reason: 'client' });
    await settle();
    expect(sent('notifications/cancelled')).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: a.id, reason: expect.any(String), _meta: { [PV]: '2026-07-28' } } }]);
    // The other subscription goes on.
    await bus.publish({ type: 'resource_updated', uri: 'test://b' });
    await settle();
    expect(heard.slice(-1)).toEqual(['b test://b']);
    // Closing the client closes its subscriptions.
    await client.close();
    expect(await b.closed).toEqual({ reason: 'client' });
  });

  it('a server that closes ends the subscription gracefully', async () => {
    const { server } = makeServer({ capabilities: { tools: { listChanged: true } } });
    const { client } = await connect(server);
    const sub = await client.listen({ toolsListChanged: true });
    await server.close();
    expect(await sub.closed).toEqual({ reason: 'server' });
  });

  it('after the connection drops, the client reconnects and listens again; the same subscription goes on', async () => {
    const { server, bus } = makeServer({ capabilities: { tools: { listChanged: true } } });
    let listens = 0;
    const connector = inMemoryConnector(server, { tap: (dir, m) => void (dir === 'toServer' && (m as { method?: string }).method === 'subscriptions/listen' && listens++) });
    const client = await McpClient.connect({ connector, logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    clients.push(client);
    const sub = await client.listen({ toolsListChanged: true });
    const heard: unknown[] = [];
    sub.on((n) => heard.push(n.params._meta));
    await connector.drop({ reason: 'the server process died' });
    for (let i = 0; i < 200 && listens < 2; i++) await settle();
    await settle(20);
    // A new connection (a second session on the server), and the same filter sent again as a new request.
    expect(connector.sessions).toHaveLength(2);
    expect(listens).toBe(2);
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    await settle();
    expect(heard).toEqual([{ [SUB]: sub.id }]);
    expect(await sub.close()).toEqual({ reason: 'client' });
  });

  it('is NotSupportedError on a legacy session', async () => {
    const { client } = await connect(makeServer().server, { era: 'legacy' });
    await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(NotSupportedError);
  });
});

describe('callToolAsTask through McpClient', () => {
  it('2026-07-28: the extension is declared on the call and the task requests only, and the task completes', async () => {
    const { client, sent } = await connect(makeServer().server);
    await client.callTool({ name: 'job', arguments: { n: 0 } });
    const task = await client.callToolAsTask({ name: 'job', arguments: { n: 1 } }, { pollIntervalMs: 5 });
    expect(task.taskId).toEqual(expect.any(String));
    expect(await task.result()).toEqual({ content: [{ type: 'text', text: 'job 1 done' }] });
    const [plain, asTask] = sent('tools/call');
    expect(plain!.params._meta[CAPS]).toEqual({});
    expect(asTask!.params._meta[CAPS]).toEqual({ extensions: { [TASKS_EXTENSION]: {} } });
    for (const get of sent('tasks/get')) expect(get.params).toEqual({ taskId: task.taskId, _meta: expect.objectContaining({ [CAPS]: { extensions: { [TASKS_EXTENSION]: {} } } }) });
  });

  it('2026-07-28: a task asking for input is answered with the callbacks through tasks/update; isError completes', async () => {
    const { client, sent } = await connect(makeServer().server, { onElicitation: accept('Di') });
    const asking = await client.callToolAsTask({ name: 'job_asks' }, { pollIntervalMs: 5 });
    expect(await asking.result()).toEqual({ content: [{ type: 'text', text: 'asked Di' }] });
    expect(sent('tasks/update')).toEqual([expect.objectContaining({ params: expect.objectContaining({ taskId: asking.taskId, inputResponses: { who: { action: 'accept', content: { name: 'Di' } } } }) })]);
    const failing = await client.callToolAsTask({ name: 'job_fails' }, { pollIntervalMs: 5 });
    expect(await failing.result()).toEqual({ content: [{ type: 'text', text: 'job broke' }], isError: true });
  });

  it('2025-11-25: params.task, then tasks/get and tasks/result; input requests are live requests on the session', async () => {
    const { client, sent } = await connect(makeServer().server, { era: 'legacy', onElicitation: accept('Ed') });
    expect(client.protocolVersion).toBe('2025-11-25');
    const task = await client.callToolAsTask({ name: 'job', arguments: { n: 2 } }, { pollIntervalMs: 5, ttlMs: 60_000 });
    expect(sent('tools/call')[0]!.params).toEqual({ name: 'job', arguments: { n: 2 }, task: { ttl: 60_000 }, _meta: { progressToken: expect.anything() } });
    expect(await task.result()).toMatchObject({ content: [{ type: 'text', text: 'job 2 done' }] });
    expect(sent('tasks/result')).toHaveLength(1);
    const asking = await client.callToolAsTask({ name: 'job_asks' }, { pollIntervalMs: 5 });
    expect(await asking.result()).toMatchObject({ content: [{ type: 'text', text: 'asked Ed' }] });
    await expect(asking.update({})).rejects.toThrow(NotSupportedError);
    // 2025-11-25: a tool result with isError fails the task, and tasks/result still answers the result.
    const failing = await client.callToolAsTask({ name: 'job_fails' }, { pollIntervalMs: 5 });
    expect(await failing.result()).toMatchObject({ content: [{ type: 'text', text: 'job broke' }], isError: true });
    expect(failing.status).toBe('failed');
  });

  it('2025-11-25: a tool listed without taskSupport is called plainly (never with params.task), as a completed task', async () => {
    const { server } = makeServer();
    server.tool('plain', {}, () => ({ content: [{ type: 'text', text: 'plain' }] }));
    const { client, sent } = await connect(server, { era: 'legacy' });
    const tools = await client.listTools();
    expect(tools.tools.find((t) => t.name === 'job')).toMatchObject({ execution: { taskSupport: 'optional' } });
    const task = await client.callToolAsTask({ name: 'plain' });
    expect(task).toMatchObject({ taskId: undefined, status: 'completed' });
    expect(await task.result()).toMatchObject({ content: [{ type: 'text', text: 'plain' }] });
    expect(sent('tools/call')[0]!.params.task).toBeUndefined();
  });

  it('2025-11-25: aborting while tasks/result waits rejects with RequestAbortedError and sends tasks/cancel', async () => {
    let asked!: () => void;
    const question = new Promise<void>((resolve) => (asked = resolve));
    const { client, sent } = await connect(makeServer().server, {
      era: 'legacy',
      onElicitation: (_params, ctx) => {
        asked();
        return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('gone'))));
      },
    });
    const controller = new AbortController();
    const task = await client.callToolAsTask({ name: 'job_asks' }, { pollIntervalMs: 5, signal: controller.signal });
    const outcome = task.result();
    await question;
    for (let i = 0; i < 100 && sent('tasks/result').length === 0; i++) await settle();
    controller.abort(new Error('user left'));
    await expect(outcome).rejects.toMatchObject({ name: 'RequestAbortedError', method: 'tools/call' });
    expect(sent('tasks/cancel')).toEqual([expect.objectContaining({ params: expect.objectContaining({ taskId: task.taskId }) })]);
  });

  it('a revision without core tasks is NotSupportedError', async () => {
    const revisions: ProtocolRevision[] = ['2025-06-18'];
    const { client } = await connect(makeServer({ revisions }).server);
    await expect(client.callToolAsTask({ name: 'job' })).rejects.toThrow(NotSupportedError);
  });
});
