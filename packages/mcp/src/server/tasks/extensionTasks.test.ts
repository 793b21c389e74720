// The 2026-07-28 tasks extension, answered by McpServer.handle with the request's facts (whole responses).
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcParams, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { McpError } from '../../protocol/errors.js';
import { InMemoryClusterBus } from '../../stores/clusterBus.js';
import { InMemoryNotificationBus, type BusMessage } from '../../stores/notificationBus.js';
import { InMemoryTaskStore } from '../../stores/taskStore.js';
import type { ClientChannel } from '../channel.js';
import { ToolError } from '../features/tools.js';
import { McpServer } from '../mcpServer.js';

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown;
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_EXTENSION = { extensions: { [TASKS]: {} }, elicitation: {} };

class Channel implements ClientChannel {
  readonly sent: { method: string; params: JsonRpcParams | undefined }[] = [];
  notify(method: string, params?: JsonRpcParams): Promise<void> {
    this.sent.push({ method, params });
    return Promise.resolve();
  }
  request<T>(): Promise<T> {
    return Promise.reject(new Error('a modern request never reaches the client with a request'));
  }
}

/** The request's `_meta` envelope (MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"). */
const envelope = (clientCapabilities: Record<string, unknown> = WITH_EXTENSION): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
});

let nextId = 1;
let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function call(s: McpServer, method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>): Promise<JsonRpcResponse> {
  const own = (params._meta ?? {}) as Record<string, unknown>;
  const message: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { ...own, ...envelope(capabilities) } } };
  return (s.handle(message, { channel: new Channel() }) as Promise<JsonRpcResponse>).then(withoutServerInfo);
}

/**
 * Every modern-era result carries the server's identity in `_meta` (MCP 2026-07-28 basic/index.mdx "Per-response
 * protocol fields"): checked here once for every response, then left out so the assertions read the task shapes.
 */
function withoutServerInfo(response: JsonRpcResponse): JsonRpcResponse {
  if (!('result' in response)) return response;
  const { _meta: meta, ...rest } = response.result as Record<string, unknown>;
  expect(meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } });
  return { ...response, result: rest };
}

async function result(s: McpServer, method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await call(s, method, params, capabilities);
  if (!('result' in response)) throw new Error(`Expected a result, got ${JSON.stringify(response)}`);
  return response.result as Record<string, unknown>;
}

async function until(s: McpServer, taskId: string, done: (task: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const task = await result(s, 'tasks/get', { taskId });
    if (done(task)) return task;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`Task ${taskId} never got there`);
}

function makeServer(bus = new InMemoryNotificationBus()): { server: McpServer; release: () => void } {
  const s = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, bus });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  s.tool('greet', {}, () => ({ content: [{ type: 'text', text: 'Hello!' }] }));
  s.tool('slow', { task: { pollIntervalMs: 100, ttlMs: 60_000 } }, async () => {
    await gate;
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  s.tool('fails', { task: { required: true } }, () => {
    throw new ToolError('no luck');
  });
  s.tool('crashes', { task: true }, () => {
    throw new McpError(-32603, 'Backend unavailable');
  });
  s.tool('forever', { task: true }, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))));
  s.tool('two_questions', { task: true }, async (_args, ctx) => {
    const [a, b] = await Promise.all([
      ctx.elicit({ message: 'First?', requestedSchema: { type: 'object', properties: {} } }),
      ctx.elicit({ message: 'Second?', requestedSchema: { type: 'object', properties: {} } }),
    ]);
    return { content: [{ type: 'text', text: `${a.action} ${b.action}` }] };
  });
  s.tool('quick_or_slow', { task: { afterMs: 30 } }, async ({ ms }) => {
    await new Promise((r) => setTimeout(r, Number(ms)));
    return { content: [{ type: 'text', text: `after ${String(ms)}` }] };
  });
  server = s;
  return { server: s, release };
}

describe('2026-07-28 tasks extension', () => {
  it('answers a task-capable tool with the flat CreateTaskResult, then tasks/get with the DetailedTask as it goes', async () => {
    const { server: s, release } = makeServer();
    const created = await result(s, 'tools/call', { name: 'slow', arguments: {} });
    const taskId = created.taskId as string;
    expect(created).toEqual({ resultType: 'task', taskId, status: 'working', createdAt: ISO, lastUpdatedAt: ISO, ttlMs: 60_000, pollIntervalMs: 100 });
    expect(await result(s, 'tasks/get', { taskId })).toEqual({ resultType: 'complete', taskId, status: 'working', createdAt: ISO, lastUpdatedAt: ISO, ttlMs: 60_000, pollIntervalMs: 100 });
    release();
    expect(await until(s, taskId, (t) => t.status === 'completed')).toEqual({
      resultType: 'complete', taskId, status: 'completed', createdAt: ISO, lastUpdatedAt: ISO, ttlMs: 60_000, pollIntervalMs: 100,
      result: { content: [{ type: 'text', text: 'slow done' }] },
    });
  });

  it('completes a task whose tool result has isError, and fails one only for a JSON-RPC error (with error, no result)', async () => {
    const { server: s } = makeServer();
    const failing = (await result(s, 'tools/call', { name: 'fails' })).taskId as string;
    expect(await until(s, failing, (t) => t.status !== 'working')).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'no luck' }], isError: true } });
    const crashing = (await result(s, 'tools/call', { name: 'crashes' })).taskId as string;
    const crashed = await until(s, crashing, (t) => t.status !== 'working');
    expect(crashed).toEqual({
      resultType: 'complete', taskId: crashing, status: 'failed', statusMessage: 'Backend unavailable', createdAt: ISO, lastUpdatedAt: ISO, ttlMs: 3_600_000, pollIntervalMs: 1000,
      error: { code: -32603, message: 'Backend unavailable' },
    });
  });

  it('surfaces parallel input requests on tasks/get and takes their answers through tasks/update, one at a time', async () => {
    const { server: s } = makeServer();
    const taskId = (await result(s, 'tools/call', { name: 'two_questions' })).taskId as string;
    const waiting = await until(s, taskId, (t) => Object.keys((t.inputRequests as object | undefined) ?? {}).length === 2);
    expect(waiting).toEqual({
      resultType: 'complete', taskId, status: 'input_required', createdAt: ISO, lastUpdatedAt: ISO, ttlMs: 3_600_000, pollIntervalMs: 1000,
      inputRequests: {
        'elicitation-0': { method: 'elicitation/create', params: { message: 'First?', requestedSchema: { type: 'object', properties: {} } } },
        'elicitation-1': { method: 'elicitation/create', params: { message: 'Second?', requestedSchema: { type: 'object', properties: {} } } },
      },
    });
    // An answer that does not fit its input request is -32602, and the task takes none of that update's answers.
    expect(await call(s, 'tasks/update', { taskId, inputResponses: { 'elicitation-0': { action: 'accept', content: {} }, 'elicitation-1': { action: 'nope' } } })).toMatchObject({
      error: { code: -32602, message: 'Invalid params: input response "elicitation-1" (elicitation/create): "action" must be "accept", "decline" or "cancel"' },
    });
    expect(Object.keys((await result(s, 'tasks/get', { taskId })).inputRequests as object)).toEqual(['elicitation-0', 'elicitation-1']);
    expect(await result(s, 'tasks/update', { taskId, inputResponses: { 'elicitation-0': { action: 'accept', content: {} }, unknown: { ignored: true } } })).toEqual({ resultType: 'complete' });
    expect(await result(s, 'tasks/get', { taskId })).toMatchObject({ status: 'input_required', inputRequests: { 'elicitation-1': { method: 'elicitation/create' } } });
    expect(Object.keys((await result(s, 'tasks/get', { taskId })).inputRequests as object)).toEqual(['elicitation-1']);
    expect(await result(s, 'tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'decline' } } })).toEqual({ resultType: 'complete' });
    expect(await until(s, taskId, (t) => t.status === 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'accept decline' }] } });
    expect(await call(s, 'tasks/update', { taskId, inputResponses: 5 })).toMatchObject({ error: { code: -32602, message: 'Invalid params: "inputResponses" must be an object' } });
  });

  it('acknowledges tasks/cancel with an empty result, for a working task (then cancelled) and for a final one alike', async () => {
    const { server: s } = makeServer();
    const taskId = (await result(s, 'tools/call', { name: 'forever' })).taskId as string;
    expect(await call(s, 'tasks/cancel', { taskId })).toEqual({ jsonrpc: '2.0', id: nextId - 1, result: { resultType: 'complete' } });
    expect(await result(s, 'tasks/get', { taskId })).toMatchObject({ status: 'cancelled', statusMessage: 'The task was cancelled' });
    expect(await result(s, 'tasks/cancel', { taskId })).toEqual({ resultType: 'complete' });
  });

  it('two instances of a cluster (shared buses and task store): tasks/update and tasks/cancel received by the other reach the work', async () => {
    const bus = new InMemoryNotificationBus();
    const clusterBus = new InMemoryClusterBus();
    const taskStore = new InMemoryTaskStore();
    const stopped: string[] = [];
    const instances = ['a', 'b'].map((name) => {
      const s = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, bus, taskStore, cluster: { bus: clusterBus, instanceId: name } });
      s.tool('ask', { task: true }, async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'OK?', requestedSchema: { type: 'object', properties: {} } });
        return { content: [{ type: 'text', text: `${name} ${answer.action}` }] };
      });
      s.tool('forever', { task: true }, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
        stopped.push(name);
        reject(new Error('stopped'));
      })));
      return s;
    });
    const [a, b] = instances as [McpServer, McpServer];
    try {
      const asking = (await result(a, 'tools/call', { name: 'ask' })).taskId as string;
      await until(b, asking, (t) => t.status === 'input_required');
      // The answer lands on b, where the task does not run: the cluster bus takes it to a, and b acknowledges once a has it.
      expect(await result(b, 'tasks/update', { taskId: asking, inputResponses: { 'elicitation-0': { action: 'accept', content: {} } } })).toEqual({ resultType: 'complete' });
      expect(await until(b, asking, (t) => t.status === 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'a accept' }] } });
      // Cancelled through b: the work on a stops at once (it never writes to the store by itself).
      const running = (await result(a, 'tools/call', { name: 'forever' })).taskId as string;
      expect(await result(b, 'tasks/cancel', { taskId: running })).toEqual({ resultType: 'complete' });
      expect(stopped).toEqual(['a']);
      expect(await result(a, 'tasks/get', { taskId: running })).toMatchObject({ status: 'cancelled' });
    } finally {
      for (const one of instances) await one.close();
    }
  });

  it('answers a client without the extension synchronously, -32021 for a required tool and for tasks/*', async () => {
    const { server: s, release } = makeServer();
    release();
    expect(await result(s, 'tools/call', { name: 'slow' }, {})).toEqual({ content: [{ type: 'text', text: 'slow done' }], resultType: 'complete' });
    const data = { requiredCapabilities: { extensions: { [TASKS]: {} } } };
    expect(await call(s, 'tools/call', { name: 'fails' }, {})).toEqual({
      jsonrpc: '2.0', id: nextId - 1, error: { code: -32021, message: `Missing required client capability: the "${TASKS}" extension`, data },
    });
    for (const [method, params] of [['tasks/get', { taskId: 'x' }], ['tasks/update', { taskId: 'x', inputResponses: {} }], ['tasks/cancel', { taskId: 'x' }]] as const) {
      expect(await call(s, method, params, {})).toEqual({
        jsonrpc: '2.0', id: nextId - 1, error: { code: -32021, message: `Missing required client capability: "${method}" needs the "${TASKS}" extension`, data },
      });
    }
  });

  it('knows no tasks/result nor tasks/list (-32601), ignores a 2025-11-25 params.task, and answers -32602 for an unknown task id', async () => {
    const { server: s } = makeServer();
    expect(await call(s, 'tasks/result', { taskId: 'x' })).toMatchObject({ error: { code: -32601, message: 'Method not found: "tasks/result" (not a method of 2026-07-28)' } });
    expect(await call(s, 'tasks/list', {})).toMatchObject({ error: { code: -32601, message: 'Method not found: "tasks/list" (not a method of 2026-07-28)' } });
    expect(await result(s, 'tools/call', { name: 'greet', task: { ttl: 60_000 } })).toEqual({ content: [{ type: 'text', text: 'Hello!' }], resultType: 'complete' });
    expect(await call(s, 'tasks/get', { taskId: 'nope' })).toMatchObject({ error: { code: -32602, message: 'Invalid params: unknown task "nope"' } });
  });

  it('with afterMs, answers a fast call on its request and makes a task of a slow one', async () => {
    const { server: s } = makeServer();
    expect(await result(s, 'tools/call', { name: 'quick_or_slow', arguments: { ms: 1 } })).toEqual({ content: [{ type: 'text', text: 'after 1' }], resultType: 'complete' });
    const created = await result(s, 'tools/call', { name: 'quick_or_slow', arguments: { ms: 80 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(await until(s, created.taskId as string, (t) => t.status === 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'after 80' }] } });
  });

  it('publishes each change of a task on the bus as its DetailedTask (for notifications/tasks on listen streams)', async () => {
    const bus = new InMemoryNotificationBus();
    const heard: BusMessage[] = [];
    bus.subscribe((m) => void heard.push(m));
    const { server: s, release } = makeServer(bus);
    const taskId = (await result(s, 'tools/call', { name: 'slow' })).taskId as string;
    release();
    await until(s, taskId, (t) => t.status === 'completed');
    expect(heard.filter((m) => m.type === 'task')).toEqual([
      { type: 'task', task: { taskId, status: 'completed', createdAt: ISO, lastUpdatedAt: ISO, ttlMs: 60_000, pollIntervalMs: 100, result: { content: [{ type: 'text', text: 'slow done' }] } } },
    ]);
  });
});
