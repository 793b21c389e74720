// 2025-11-25 core tasks, over a real session (the in-memory pair of ./testing): whole wire messages.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcMessage } from '@switchboard/jsonrpc';
import { McpError } from '../../protocol/errors.js';
import { connectRawClient, type RawClient } from '../../testing/index.js';
import { ToolError } from '../features/tools.js';
import { McpServer } from '../mcpServer.js';
import type { McpServerOptions } from '../options.js';

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) as unknown;

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const clients: RawClient[] = [];
let server: McpServer | undefined;

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = undefined;
});

interface Fixture {
  readonly server: McpServer;
  readonly gate: { promise: Promise<void>; resolve: (value: void) => void };
  readonly aborted: string[];
}

function makeServer(options: McpServerOptions = {}): Fixture {
  const s = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, ...options });
  const gate = deferred();
  const aborted: string[] = [];
  s.tool('plain', {}, () => ({ content: [{ type: 'text', text: 'plain' }] }));
  s.tool('job', { task: true, inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async ({ n }, ctx) => {
    ctx.signal.addEventListener('abort', () => aborted.push('job'));
    await gate.promise;
    return { content: [{ type: 'text', text: `done ${String(n)}` }] };
  });
  s.tool('forever', { task: { required: true, pollIntervalMs: 50 } }, (_args, ctx) => new Promise((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => {
      aborted.push('forever');
      reject(new Error('stopped'));
    });
  }));
  s.tool('oops', { task: true }, () => {
    throw new ToolError('it broke');
  });
  s.tool('protocol', { task: true }, () => {
    throw new McpError(-32603, 'Backend unavailable', { retry: true });
  });
  s.tool('ask', { task: true }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `Hello, ${String((answer.content as { name?: string } | undefined)?.name)}!` }] };
  });
  server = s;
  return { server: s, gate, aborted };
}

async function session(s: McpServer, init: { protocolVersion?: string; capabilities?: Record<string, unknown> } = {}): Promise<RawClient> {
  const client = await connectRawClient(s);
  clients.push(client);
  await client.initialize(init);
  return client;
}

async function waitForStatus(client: RawClient, taskId: string, status: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const got = await client.request(`poll-${taskId}-${i}`, 'tasks/get', { taskId });
    if ((got as { result?: { status?: string } }).result?.status === status) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`Task ${taskId} never reached "${status}"`);
}

describe('2025-11-25 core tasks: negotiation', () => {
  it('advertises the tasks capability and execution.taskSupport only at 2025-11-25', async () => {
    const { server: s } = makeServer();
    const c25 = await connectRawClient(s);
    clients.push(c25);
    const init = await c25.initialize();
    expect((init as { result: { capabilities: Record<string, unknown> } }).result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    await c25.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = (await c25.request(2, 'tools/list')) as { result: { tools: { name: string; execution?: unknown }[] } };
    expect(list.result.tools.map((t) => [t.name, t.execution])).toEqual([
      ['plain', undefined],
      ['job', { taskSupport: 'optional' }],
      ['forever', { taskSupport: 'required' }],
      ['oops', { taskSupport: 'optional' }],
      ['protocol', { taskSupport: 'optional' }],
      ['ask', { taskSupport: 'optional' }],
    ]);

    const c06 = await connectRawClient(s);
    clients.push(c06);
    const init06 = (await c06.initialize({ protocolVersion: '2025-06-18' })) as { result: { capabilities: Record<string, unknown> } };
    expect(init06.result.capabilities.tasks).toBeUndefined();
    const list06 = (await c06.request(2, 'tools/list')) as { result: { tools: Record<string, unknown>[] } };
    expect(list06.result.tools.every((t) => !('execution' in t))).toBe(true);
    // No tasks before 2025-11-25: a required tool runs as a plain call there, and tasks/get does not exist.
    expect(await c06.request(3, 'tasks/get', { taskId: 'x' })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: "tasks/get" (not a method of 2025-06-18)' } });
  });

  it('refuses a required tool called without params.task, and params.task on a tool without task support (-32601)', async () => {
    const { server: s } = makeServer();
    const c = await session(s);
    expect(await c.request(1, 'tools/call', { name: 'forever' })).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: tool "forever" must be called as a task (with "params.task")' },
    });
    expect(await c.request(2, 'tools/call', { name: 'plain', task: {} })).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: tool "plain" does not support task-augmented execution' },
    });
    expect(await c.request(3, 'tools/call', { name: 'job', task: 5 })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: "task" must be an object' } });
    // Without params.task, an optional tool is a plain call.
    expect(await c.request(4, 'tools/call', { name: 'plain' })).toEqual({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'plain' }] } });
  });

  it('ignores params.task when the server has no task-capable tool (no tasks capability)', async () => {
    server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger });
    server.tool('plain', {}, () => ({ content: [{ type: 'text', text: 'plain' }] }));
    const c = await session(server);
    expect(await c.request(1, 'tools/call', { name: 'plain', task: { ttl: 1000 } })).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'plain' }] } });
  });
});

describe('2025-11-25 core tasks: lifecycle', () => {
  it('creates a task, reports it working, blocks tasks/result until the tool ends, then answers its result with the related-task _meta', async () => {
    const { server: s, gate } = makeServer();
    const c = await session(s);
    const created = (await c.request(1, 'tools/call', { name: 'job', arguments: { n: 7 }, task: { ttl: 60_000 } })) as { result: { task: { taskId: string } } };
    const taskId = created.result.task.taskId;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toEqual({
      jsonrpc: '2.0', id: 1,
      result: { task: { taskId, status: 'working', createdAt: ISO, lastUpdatedAt: ISO, ttl: 60_000, pollInterval: 1000 } },
    });
    expect(await c.request(2, 'tasks/get', { taskId })).toEqual({
      jsonrpc: '2.0', id: 2, result: { taskId, status: 'working', createdAt: ISO, lastUpdatedAt: ISO, ttl: 60_000, pollInterval: 1000 },
    });
    await c.send({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId } });
    await new Promise((r) => setTimeout(r, 20));
    expect(c.received.some((m) => 'id' in m && m.id === 3)).toBe(false);
    gate.resolve();
    expect(await c.waitFor((m) => 'id' in m && m.id === 3 && !('method' in m))).toEqual({
      jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'done 7' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId } } },
    });
    expect(await c.request(4, 'tasks/get', { taskId })).toEqual({
      jsonrpc: '2.0', id: 4, result: { taskId, status: 'completed', createdAt: ISO, lastUpdatedAt: ISO, ttl: 60_000, pollInterval: 1000 },
    });
    // tasks/result of a final task answers at once, again.
    expect(await c.request(5, 'tasks/result', { taskId })).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'done 7' }] } });
    // The optional status notification carries the Task, without related-task _meta.
    expect(await c.waitFor((m) => 'method' in m && m.method === 'notifications/tasks/status')).toEqual({
      jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId, status: 'completed', createdAt: ISO, lastUpdatedAt: ISO, ttl: 60_000, pollInterval: 1000 },
    });
  });

  it('fails the task for a tool result with isError (tasks/result still answers that result) and for a JSON-RPC error (tasks/result answers it)', async () => {
    const { server: s } = makeServer();
    const c = await session(s);
    const oops = ((await c.request(1, 'tools/call', { name: 'oops', task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(await c.request(2, 'tasks/result', { taskId: oops })).toEqual({
      jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'it broke' }], isError: true, _meta: { 'io.modelcontextprotocol/related-task': { taskId: oops } } },
    });
    expect(await c.request(3, 'tasks/get', { taskId: oops })).toMatchObject({ result: { taskId: oops, status: 'failed', statusMessage: 'The tool reported an error' } });
    const protocol = ((await c.request(4, 'tools/call', { name: 'protocol', task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(await c.request(5, 'tasks/result', { taskId: protocol })).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32603, message: 'Backend unavailable', data: { retry: true } } });
    expect(await c.request(6, 'tasks/get', { taskId: protocol })).toMatchObject({ result: { status: 'failed', statusMessage: 'Backend unavailable' } });
  });

  it('cancels a working task (its handler is aborted) and refuses to cancel it again or to give its result (-32602)', async () => {
    const { server: s, aborted } = makeServer();
    const c = await session(s);
    const taskId = ((await c.request(1, 'tools/call', { name: 'forever', task: { ttl: 5000 } })) as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(await c.request(2, 'tasks/cancel', { taskId })).toEqual({
      jsonrpc: '2.0', id: 2,
      result: { taskId, status: 'cancelled', statusMessage: 'The task was cancelled', createdAt: ISO, lastUpdatedAt: ISO, ttl: 5000, pollInterval: 50 },
    });
    expect(aborted).toEqual(['forever']);
    expect(await c.request(3, 'tasks/cancel', { taskId })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: `Invalid params: task "${taskId}" is already "cancelled"` } });
    expect(await c.request(4, 'tasks/result', { taskId })).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: `Invalid params: task "${taskId}" was cancelled: it has no result` } });
    expect(await c.request(5, 'tasks/get', { taskId })).toMatchObject({ result: { status: 'cancelled' } });
  });

  it('answers -32602 for an unknown task id on tasks/get, tasks/result and tasks/cancel', async () => {
    const { server: s } = makeServer();
    const c = await session(s);
    for (const [id, method] of [[1, 'tasks/get'], [2, 'tasks/result'], [3, 'tasks/cancel']] as const) {
      expect(await c.request(id, method, { taskId: 'nope' })).toEqual({
        jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params: unknown task "nope"', data: { taskId: 'nope' } },
      });
    }
    expect(await c.request(4, 'tasks/get', {})).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params: "taskId" must be a string' } });
  });

  it('lists the session\'s own tasks only, and refuses a cursor it did not issue', async () => {
    const { server: s, gate } = makeServer();
    const a = await session(s);
    const b = await session(s);
    const t1 = ((await a.request(1, 'tools/call', { name: 'job', task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    const t2 = ((await a.request(2, 'tools/call', { name: 'job', task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    await b.request(1, 'tools/call', { name: 'job', task: {} });
    const listed = (await a.request(3, 'tasks/list')) as { result: { tasks: { taskId: string; status: string }[]; nextCursor?: string } };
    expect(listed.result.tasks.map((t) => [t.taskId, t.status])).toEqual([[t1, 'working'], [t2, 'working']]);
    expect(listed.result.nextCursor).toBeUndefined();
    expect(((await b.request(2, 'tasks/list')) as { result: { tasks: unknown[] } }).result.tasks).toHaveLength(1);
    expect(await a.request(4, 'tasks/list', { cursor: 'bogus' })).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params: invalid cursor', data: { cursor: 'bogus' } } });
    gate.resolve();
  });

  it('a task outlives the connection that started it: another session reads its result by id', async () => {
    const { server: s, gate, aborted } = makeServer();
    const a = await session(s);
    const taskId = ((await a.request(1, 'tools/call', { name: 'job', arguments: { n: 1 }, task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    await a.close();
    clients.splice(clients.indexOf(a), 1);
    gate.resolve();
    const b = await session(s);
    expect(await b.request(1, 'tasks/result', { taskId })).toMatchObject({ result: { content: [{ type: 'text', text: 'done 1' }] } });
    expect(aborted).toEqual([]);
  });

  it('refuses a task past maxLiveTasks (-32603 with data.maxLiveTasks) and accepts one again once a slot is free', async () => {
    const { server: s } = makeServer({ tasks: { maxLiveTasks: 1 } });
    const c = await session(s);
    const first = ((await c.request(1, 'tools/call', { name: 'forever', task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(await c.request(2, 'tools/call', { name: 'forever', task: {} })).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Too many live tasks: this server runs at most "1" at once', data: { maxLiveTasks: 1 } },
    });
    await c.request(3, 'tasks/cancel', { taskId: first });
    expect(await c.request(4, 'tools/call', { name: 'forever', task: {} })).toMatchObject({ result: { task: { status: 'working' } } });
  });

  it('keeps a task for its TTL only: then its work is aborted and its id is unknown', async () => {
    const { server: s, aborted } = makeServer();
    const c = await session(s);
    const taskId = ((await c.request(1, 'tools/call', { name: 'forever', task: { ttl: 40 } })) as { result: { task: { taskId: string; ttl: number } } }).result.task.taskId;
    await new Promise((r) => setTimeout(r, 80));
    expect(aborted).toEqual(['forever']);
    expect(await c.request(2, 'tasks/get', { taskId })).toMatchObject({ error: { code: -32602 } });
  });

  it('a live elicitation from a task carries the related-task _meta and puts the task in input_required until answered', async () => {
    const { server: s } = makeServer();
    const c = await session(s, { capabilities: { elicitation: {} } });
    const taskId = ((await c.request(1, 'tools/call', { name: 'ask', task: {} })) as { result: { task: { taskId: string } } }).result.task.taskId;
    const ask = (await c.waitFor((m) => 'method' in m && m.method === 'elicitation/create')) as JsonRpcMessage & { id: number | string };
    expect(ask).toEqual({
      jsonrpc: '2.0', id: ask.id, method: 'elicitation/create',
      params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } }, _meta: { 'io.modelcontextprotocol/related-task': { taskId } } },
    });
    await waitForStatus(c, taskId, 'input_required');
    await c.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(await c.request(2, 'tasks/result', { taskId })).toMatchObject({ result: { content: [{ type: 'text', text: 'Hello, Ada!' }] } });
  });
});
