// callToolAsTask, the 2026-07-28 tasks extension, against our own server's handle() (its task runner keeps the
// tasks between requests): whole requests as sent, polling, input requests through tasks/update, cancel.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcId, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { RequestAbortedError } from '../protocol/clientErrors.js';
import { McpError, mcpErrorFromWire } from '../protocol/errors.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { McpServer } from '../server/mcpServer.js';
import { ToolError } from '../server/features/tools.js';
import type { CoreSendOptions, InputQuestion, NotificationListener } from './clientCore.js';
import { NotSupportedError } from './errors.js';
import type { InputContext, McpClientOptions, RequestOptions } from './options.js';
import { callToolAsTask, withTasksExtension, type TasksHost } from './tasks.js';
import { TASKS_EXTENSION } from '../protocol/inbound.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown;

/** A modern ClientCore over `McpServer.handle`; `options.capabilities` replaces the envelope's, as the client's does. */
class HandleCore implements TasksHost {
  readonly era = 'modern' as const;
  readonly revision = '2026-07-28' as const;
  readonly logger = silentLogger;
  readonly sent: JsonRpcRequest[] = [];
  readonly asked: { question: InputQuestion; ctx: InputContext }[] = [];
  #nextId = 0;

  constructor(
    readonly server: McpServer,
    readonly options: McpClientOptions,
    readonly capabilities: ClientCapabilities = {},
  ) {}

  async send<T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T> {
    const id: JsonRpcId = this.#nextId++;
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: this.revision, [CAPS]: options?.capabilities ?? this.capabilities, ...options?.meta } } };
    this.sent.push(message);
    const response = (await this.server.handle(message)) as JsonRpcResponse;
    if ('error' in response) throw mcpErrorFromWire(response.error);
    const { _meta: _serverInfo, ...result } = response.result as Record<string, unknown>;
    return result as T;
  }

  answerInput(question: InputQuestion, ctx: InputContext): Promise<unknown> {
    this.asked.push({ question, ctx });
    return this.options.onElicitation!(question.params as never, ctx);
  }

  onNotification(_listener: NotificationListener): () => void {
    return () => {};
  }
}

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function makeServer(): { server: McpServer; gate: ReturnType<typeof deferred>; stopped: string[] } {
  const s = new McpServer({ name: 's', version: '1' }, { logger: silentLogger });
  const gate = deferred();
  const stopped: string[] = [];
  s.tool('job', { task: { pollIntervalMs: 5 } }, async () => {
    await gate.promise;
    return { content: [{ type: 'text', text: 'job done' }] };
  });
  s.tool('broken', { task: { pollIntervalMs: 5 } }, () => {
    throw new ToolError('it broke');
  });
  s.tool('protocol', { task: { pollIntervalMs: 5 } }, () => {
    throw new McpError(-32603, 'Backend unavailable', { retry: true });
  });
  s.tool('ask', { task: { pollIntervalMs: 5 } }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'name' });
    return { content: [{ type: 'text', text: `Hello, ${String((answer.content as { name?: string } | undefined)?.name)}!` }] };
  });
  s.tool('forever', { task: { pollIntervalMs: 5 } }, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
    stopped.push('forever');
    reject(new Error('stopped'));
  })));
  s.tool('quick', {}, () => ({ content: [{ type: 'text', text: 'at once' }] }));
  server = s;
  return { server: s, gate, stopped };
}

const start = (core: HandleCore) => ({ host: core, serverCapabilities: undefined, clientCapabilities: core.capabilities });

describe('callToolAsTask, the 2026-07-28 extension', () => {
  it('declares the extension on the call, polls tasks/get until completed and returns the tool result', async () => {
    const { server: s, gate } = makeServer();
    const core = new HandleCore(s, { connector: undefined as never }, { elicitation: {} });
    const task = await callToolAsTask(start(core), { name: 'job', arguments: {} }, { pollIntervalMs: 1 });
    expect(task).toMatchObject({ taskId: expect.any(String), status: 'working' });
    const caps = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
    expect(core.sent[0]).toEqual({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'job', arguments: {}, _meta: { [PV]: '2026-07-28', [CAPS]: caps } } });
    const outcome = task.result();
    expect(task.result()).toBe(outcome);
    await new Promise((r) => setTimeout(r, 400));
    // Asked for 1 ms (and the server for 5 ms): the client still waits at least MIN_TASK_POLL_INTERVAL_MS (100 ms)
    // between polls, growing while the status stays the same: ~100, ~250 ms, so 2 or 3 polls by now.
    const early = core.sent.length - 1;
    expect(early).toBeGreaterThanOrEqual(2);
    expect(early).toBeLessThanOrEqual(3);
    gate.resolve();
    expect(await outcome).toEqual({ content: [{ type: 'text', text: 'job done' }] });
    expect(task.status).toBe('completed');
    const polls = core.sent.slice(1);
    for (const poll of polls) expect(poll).toEqual({ jsonrpc: '2.0', id: poll.id, method: 'tasks/get', params: { taskId: task.taskId, _meta: { [PV]: '2026-07-28', [CAPS]: caps } } });
  });

  it('an isError tool result completes the task and is returned, not thrown', async () => {
    const core = new HandleCore(makeServer().server, { connector: undefined as never });
    const task = await callToolAsTask(start(core), { name: 'broken' }, { pollIntervalMs: 1 });
    expect(await task.result()).toEqual({ content: [{ type: 'text', text: 'it broke' }], isError: true });
    expect(task.status).toBe('completed');
  });

  it('a task that failed with a JSON-RPC error rejects with the typed error', async () => {
    const core = new HandleCore(makeServer().server, { connector: undefined as never });
    const task = await callToolAsTask(start(core), { name: 'protocol' }, { pollIntervalMs: 1 });
    const failure = task.result();
    await expect(failure).rejects.toThrow(McpError);
    await expect(failure).rejects.toMatchObject({ code: -32603, message: 'Backend unavailable', data: { retry: true } });
    expect(task.status).toBe('failed');
  });

  it('answers the task’s input requests with the callbacks through tasks/update, once per key', async () => {
    const core = new HandleCore(makeServer().server, { connector: undefined as never, onElicitation: () => Promise.resolve({ action: 'accept', content: { name: 'Ada' } }) }, { elicitation: {} });
    const task = await callToolAsTask(start(core), { name: 'ask' }, { pollIntervalMs: 1 });
    expect(await task.result()).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    const updates = core.sent.filter((m) => m.method === 'tasks/update');
    expect(updates).toEqual([
      {
        jsonrpc: '2.0',
        id: updates[0]!.id,
        method: 'tasks/update',
        params: { taskId: task.taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } }, _meta: { [PV]: '2026-07-28', [CAPS]: withTasksExtension({ elicitation: {} }) } },
      },
    ]);
    expect(core.asked).toEqual([{ question: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } }, ctx: { signal: expect.any(AbortSignal), era: 'modern', method: 'elicitation/create', key: 'name', taskId: expect.any(String) } }]);
  });

  it('an answer the server refuses in tasks/update (-32602) rejects result() with that typed error after one update: no loop', async () => {
    const core = new HandleCore(makeServer().server, { connector: undefined as never, onElicitation: () => Promise.resolve({ action: 'accept', content: { name: 7 } }) }, { elicitation: {} });
    const task = await callToolAsTask(start(core), { name: 'ask' }, { pollIntervalMs: 1 });
    const failure = task.result();
    await expect(failure).rejects.toBeInstanceOf(McpError);
    await expect(failure).rejects.toMatchObject({ code: -32602, message: 'Invalid params: input response "name" (elicitation/create): "content.name" must be a string' });
    expect(core.sent.filter((m) => m.method === 'tasks/update')).toHaveLength(1);
    await task.cancel();
  });

  it('poll() reads the status and the input requests; update() answers them by hand', async () => {
    const core = new HandleCore(makeServer().server, { connector: undefined as never }, { elicitation: {} });
    const task = await callToolAsTask(start(core), { name: 'ask' });
    for (let i = 0; i < 100 && (await task.poll()) !== 'input_required'; i++) await new Promise((r) => setTimeout(r, 2));
    expect(task.inputRequests).toEqual({ name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } });
    await task.update({ name: { action: 'accept', content: { name: 'Bo' } } });
    expect(await task.result()).toEqual({ content: [{ type: 'text', text: 'Hello, Bo!' }] });
  });

  it('cancel() sends tasks/cancel; result() then rejects with RequestAbortedError', async () => {
    const { server: s, stopped } = makeServer();
    const core = new HandleCore(s, { connector: undefined as never });
    const task = await callToolAsTask(start(core), { name: 'forever' }, { pollIntervalMs: 1 });
    await task.cancel();
    expect(core.sent.at(-1)).toMatchObject({ method: 'tasks/cancel', params: { taskId: task.taskId } });
    await expect(task.result()).rejects.toThrow(RequestAbortedError);
    expect(task.status).toBe('cancelled');
    expect(stopped).toEqual(['forever']);
    // A final task is left alone.
    const sent = core.sent.length;
    await task.cancel();
    expect(core.sent).toHaveLength(sent);
  });

  it('aborting the signal stops waiting and cancels the task', async () => {
    const { server: s, stopped } = makeServer();
    const core = new HandleCore(s, { connector: undefined as never });
    const controller = new AbortController();
    const task = await callToolAsTask(start(core), { name: 'forever' }, { pollIntervalMs: 1, signal: controller.signal });
    const outcome = task.result();
    setTimeout(() => controller.abort(new Error('user left')), 10);
    await expect(outcome).rejects.toThrow(RequestAbortedError);
    expect(core.sent.at(-1)).toMatchObject({ method: 'tasks/cancel', params: { taskId: task.taskId } });
    await new Promise((r) => setTimeout(r, 5));
    expect(stopped).toEqual(['forever']);
  });

  it('a call the server answers at once is a completed task without an id', async () => {
    const core = new HandleCore(makeServer().server, { connector: undefined as never });
    const task = await callToolAsTask(start(core), { name: 'quick' });
    expect(task).toMatchObject({ taskId: undefined, status: 'completed' });
    expect(await task.result()).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'at once' }] });
    await expect(task.update({})).rejects.toThrow(NotSupportedError);
  });

  it('backs off while the status stays the same, never polling faster than the server asks', async () => {
    const { server: s, gate } = makeServer();
    const core = new HandleCore(s, { connector: undefined as never });
    const task = await callToolAsTask(start(core), { name: 'job' }, { pollIntervalMs: 10, maxPollIntervalMs: 40 });
    const times: number[] = [];
    const send = core.send.bind(core);
    core.send = <T>(method: string, params: Record<string, unknown> | undefined, options?: RequestOptions): Promise<T> => {
      times.push(performance.now());
      return send<T>(method, params, options);
    };
    const outcome = task.result();
    await new Promise((r) => setTimeout(r, 200));
    gate.resolve();
    await outcome;
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // 10, 15, 22.5, 33.75, 40, 40 … ms (±10 % jitter): fewer polls than a fixed 10 ms would make, none much faster.
    expect(times.length).toBeLessThan(12);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(8);
  });
});

describe('callToolAsTask, legacy without core tasks', () => {
  it('is NotSupportedError before 2025-11-25 or when the server offers no task-augmented tools/call', async () => {
    const host = { era: 'legacy', revision: '2025-06-18', options: {}, logger: silentLogger } as unknown as TasksHost;
    await expect(callToolAsTask({ host, serverCapabilities: { tasks: { requests: { tools: { call: {} } } } }, clientCapabilities: {} }, { name: 'x' })).rejects.toThrow(
      'Not supported: "callToolAsTask" is not offered by the server: it did not advertise tasks.requests.tools.call (revision "2025-06-18")',
    );
    const at2025 = { ...host, revision: '2025-11-25' } as unknown as TasksHost;
    await expect(callToolAsTask({ host: at2025, serverCapabilities: { tasks: { list: {} } }, clientCapabilities: {} }, { name: 'x' })).rejects.toThrow(NotSupportedError);
  });
});

it('the created task’s fields are read from the flat CreateTaskResult', async () => {
  const core = new HandleCore(makeServer().server, { connector: undefined as never });
  const task = await callToolAsTask(start(core), { name: 'forever' });
  expect(await core.send('tasks/get', { taskId: task.taskId }, { meta: { [CAPS]: withTasksExtension({}) } })).toEqual({
    resultType: 'complete',
    taskId: task.taskId,
    status: 'working',
    createdAt: ISO,
    lastUpdatedAt: ISO,
    ttlMs: expect.any(Number),
    pollIntervalMs: 5,
  });
  await task.cancel();
});
