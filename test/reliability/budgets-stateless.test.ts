/**
 * The shared budgets of the stateless (2026-07-28) path (the standing reliability suite): finished task results,
 * live tasks, listen streams and their subscribed URIs, and the SSE bytes nobody reads. Each is bounded in total
 * (in bytes where memory is at stake) and shared per caller: memory stays within the budget under a flood, and
 * while an attacker holds a budget full, a newcomer (another caller) still lists, listens and runs a task within
 * seconds.
 *
 * Callers are told apart by the handler's `callerIdentity` (here a test header, `x-caller`: every test client
 * comes from 127.0.0.1). Servers bind 127.0.0.1 on a port of their own. The listen flood runs on the Web handler:
 * over loopback sockets the kernel's buffers would swallow megabytes per stream before the server's own buffer
 * grows, while a Web response body nobody reads queues every byte in the server's stream, what the budget bounds.
 *
 * Smoke sizes by default; full sizes with `STRESS=1`, printing `reliability budgets …` figure lines.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@switchboard/jsonrpc';
import { InMemoryNotificationBus, InMemoryTaskStore } from '@switchboard/mcp/stores';
import { McpServer, type McpServerOptions } from '@switchboard/mcp/server';
import { createMcpHttpHandler, type McpHttpHandler } from '@switchboard/mcp/http';
import { SseDecoder } from '@switchboard/mcp/client';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { call, open, type OpenExchange } from './http-wire.js';

const STRESS = process.env.STRESS === '1';
const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
const MiB = 1024 * 1024;

let served: ServeHttpHandle | undefined;
let web: McpHttpHandler | undefined;
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await served?.close();
  await web?.close();
  served = undefined;
  web = undefined;
});

function figure(name: string, figures: Record<string, unknown>): void {
  process.stderr.write(`reliability budgets ${name} ${JSON.stringify(figures)}\n`);
}

function makeServer(options: McpServerOptions = {}): McpServer {
  return new McpServer({ name: 'budgets', version: '1' }, { logger: silentLogger, revisions: [MODERN], ...options });
}

/** Serves `server` over a real socket; callers are named by the `x-caller` header. */
async function serve(server: McpServer): Promise<string> {
  served = await serveHttp({ server, host: '127.0.0.1', port: 0, logger: silentLogger, callerIdentity: (facts) => facts.header('x-caller') });
  return `http://127.0.0.1:${served.port}/mcp`;
}

let nextId = 1;

/** The body and headers of a modern request of `caller`. */
function modern(caller: string, method: string, params: Record<string, unknown> = {}): { body: unknown; headers: Record<string, string> } {
  const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
  return {
    body: { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } },
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method, 'x-caller': caller, ...(name === undefined ? {} : { 'mcp-name': name }) },
  };
}

/** One modern request of `caller`, its response message. */
async function rpc(url: string, caller: string, method: string, params: Record<string, unknown> = {}): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }> {
  const answer = await call(url, modern(caller, method, params));
  const response = answer.messages.find((m) => typeof m === 'object' && m !== null && 'id' in m);
  if (response === undefined) throw new Error(`no response to ${method}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return response as { result?: Record<string, unknown> };
}

/** `promise`, or a rejection naming `what` after `ms` (a newcomer must be served within seconds). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not served within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Polls `tasks/get` until the task is final. */
async function finalTask(url: string, caller: string, taskId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const got = await rpc(url, caller, 'tasks/get', { taskId });
    if (got.result === undefined || ['completed', 'failed', 'cancelled'].includes(String(got.result.status))) return got.result ?? got;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task ${taskId} never finished`);
}

function heapMiB(): number {
  return Math.round((process.memoryUsage().heapUsed / MiB) * 10) / 10;
}

describe('finished task results', () => {
  it('stay within the store\'s byte budget under a flood of multi-megabyte results from many callers, and the server still answers', async () => {
    const sizes = STRESS ? { callers: 16, calls: 8, resultBytes: 4 * MiB, total: 64 * MiB, perCaller: 16 * MiB } : { callers: 6, calls: 6, resultBytes: MiB, total: 8 * MiB, perCaller: 3 * MiB };
    const store = new InMemoryTaskStore({ maxStoredBytes: sizes.total, maxStoredBytesPerCaller: sizes.perCaller });
    const server = makeServer({ taskStore: store });
    // A distinct string per result (hex of random bytes), so nothing is shared between stored results.
    server.tool('big', { task: true }, () => ({ content: [{ type: 'text', text: randomBytes(sizes.resultBytes / 2).toString('hex') }] }));
    server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const url = await serve(server);
    const heapBefore = heapMiB();
    let peak = 0;
    for (let round = 0; round < sizes.calls; round++) {
      const created = await Promise.all(Array.from({ length: sizes.callers }, (_, c) => rpc(url, `flood-${c}`, 'tools/call', { name: 'big', arguments: {} })));
      for (const [c, answer] of created.entries()) {
        expect(answer.result).toMatchObject({ resultType: 'task', status: 'working' });
        await finalTask(url, `flood-${c}`, String(answer.result?.taskId));
      }
      peak = Math.max(peak, store.storedBytes);
      expect(store.storedBytes).toBeLessThanOrEqual(sizes.total);
    }
    for (let c = 0; c < sizes.callers; c++) expect(store.holding(`flood-${c}`).bytes).toBeLessThanOrEqual(sizes.perCaller);
    const flooded = sizes.callers * sizes.calls * sizes.resultBytes;
    // The server still answers, and a newcomer's task still runs and keeps its result.
    expect((await rpc(url, 'newcomer', 'tools/call', { name: 'echo', arguments: {} })).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    const mine = await rpc(url, 'newcomer', 'tools/call', { name: 'big', arguments: {} });
    expect(await finalTask(url, 'newcomer', String(mine.result?.taskId))).toMatchObject({ status: 'completed' });
    figure('task-results', { results: sizes.callers * sizes.calls, resultMiB: sizes.resultBytes / MiB, floodedMiB: flooded / MiB, storedPeakMiB: Math.round((peak / MiB) * 10) / 10, budgetMiB: sizes.total / MiB, heapBeforeMiB: heapBefore, heapAfterMiB: heapMiB() });
  }, STRESS ? 300_000 : 60_000);

  it('a burst of quick tasks from one caller does not evict another caller\'s finished, unfetched task before its TTL', async () => {
    const sizes = STRESS ? { burst: 5000, maxTasks: 2000, perCaller: 200 } : { burst: 400, maxTasks: 200, perCaller: 50 };
    const store = new InMemoryTaskStore({ maxTasks: sizes.maxTasks, maxTasksPerCaller: sizes.perCaller });
    const server = makeServer({ taskStore: store });
    server.tool('quick', { task: true }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: typeof args.tag === 'string' ? args.tag : '' }] }));
    const url = await serve(server);
    const victim = await rpc(url, 'victim', 'tools/call', { name: 'quick', arguments: { tag: 'mine' } });
    const victimId = String(victim.result?.taskId);
    expect(await finalTask(url, 'victim', victimId)).toMatchObject({ status: 'completed' });
    const started = Date.now();
    for (let sent = 0; sent < sizes.burst; sent += 50) {
      await Promise.all(Array.from({ length: 50 }, () => rpc(url, 'attacker', 'tools/call', { name: 'quick', arguments: {} })));
    }
    const after = await within(5000, 'tasks/get of the victim', rpc(url, 'victim', 'tasks/get', { taskId: victimId }));
    expect(after.result).toMatchObject({ taskId: victimId, status: 'completed', result: { content: [{ type: 'text', text: 'mine' }] } });
    expect(store.holding('attacker').tasks).toBeLessThanOrEqual(sizes.perCaller);
    figure('task-eviction', { burst: sizes.burst, maxTasksPerCaller: sizes.perCaller, attackerKept: store.holding('attacker').tasks, victimKept: true, ms: Date.now() - started });
  }, STRESS ? 300_000 : 60_000);
});

describe('live tasks', () => {
  it('an attacker\'s long tasks hold only its share of maxLiveTasks: a newcomer\'s call still becomes a task within seconds', async () => {
    const sizes = STRESS ? { maxLive: 1000, perCaller: 100, asks: 150 } : { maxLive: 20, perCaller: 5, asks: 20 };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = makeServer({ tasks: { maxLiveTasks: sizes.maxLive, maxLiveTasksPerCaller: sizes.perCaller } });
    server.tool('long', { task: true }, async () => {
      await gate;
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const url = await serve(server);
    cleanups.push(release);
    // The attacker asks for as many long tasks as it can; past its share each call runs on its request (MCP
    // 2026-07-28 tasks extension: the server decides per request whether a call becomes a task), left waiting
    // here and cut at the end.
    const hanging: OpenExchange[] = [];
    cleanups.push(() => hanging.forEach((ex) => ex.cut()));
    let tasks = 0;
    for (let i = 0; i < sizes.asks; i++) {
      const ex = await open(url, modern('attacker', 'tools/call', { name: 'long', arguments: {} }));
      hanging.push(ex);
      if (String(ex.headers['content-type']).startsWith('application/json')) {
        const body = JSON.parse(await ex.done) as { result?: { resultType?: string } };
        if (body.result?.resultType === 'task') tasks++;
      }
    }
    const started = Date.now();
    const listed = await within(5000, 'tools/list', rpc(url, 'newcomer', 'tools/list'));
    expect(listed.result).toMatchObject({ tools: [{ name: 'long' }] });
    const mine = await within(5000, 'the newcomer\'s tools/call', rpc(url, 'newcomer', 'tools/call', { name: 'long', arguments: {} }));
    expect(mine.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(tasks).toBe(sizes.perCaller);
    figure('live-tasks', { maxLiveTasks: sizes.maxLive, perCaller: sizes.perCaller, attackerAsked: sizes.asks, attackerTasks: tasks, newcomerMs: Date.now() - started });
    release();
  }, 60_000);
});

describe('listen streams', () => {
  it('the unread bytes of idle listeners stay within maxSseBufferBytesTotal under a stream of changes, and the server still answers', async () => {
    const sizes = STRESS ? { listeners: 400, callers: 20, perStream: MiB, total: 16 * MiB, publishes: 400 } : { listeners: 80, callers: 8, perStream: 256 * 1024, total: 2 * MiB, publishes: 120 };
    const bus = new InMemoryNotificationBus();
    const server = makeServer({ bus });
    server.resource('test://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: 'r' }] }));
    server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    web = createMcpHttpHandler({ server, callerIdentity: (facts) => facts.header('x-caller'), maxSseBufferBytes: sizes.perStream, maxSseBufferBytesTotal: sizes.total });
    const handler = web;
    const uri = `test://r/${'u'.repeat(4000)}`;
    const post = (caller: string, method: string, params: Record<string, unknown> = {}): Promise<Response> => {
      const { body, headers } = modern(caller, method, params);
      return handler.fetch(new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      }));
    };
    // Idle listeners: their response bodies are never read.
    const idle: Response[] = [];
    for (let i = 0; i < sizes.listeners; i++) idle.push(await post(`idle-${i % sizes.callers}`, 'subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }));
    cleanups.push(() => idle.forEach((res) => void res.body?.cancel().catch(() => {})));
    const heapBefore = heapMiB();
    let peak = 0;
    for (let i = 0; i < sizes.publishes; i++) {
      // Not awaited: a congested listen stream holds its delivery until the client reads (backpressure), and these
      // never read; the server publishes list changes the same way.
      void bus.publish({ type: 'resource_updated', uri });
      await new Promise((resolve) => setImmediate(resolve));
      peak = Math.max(peak, handler.bufferedSseBytes);
      expect(handler.bufferedSseBytes).toBeLessThanOrEqual(sizes.total);
    }
    // The server still answers, and a newcomer's listen is acknowledged.
    const echo = await within(5000, 'tools/call', post('newcomer', 'tools/call', { name: 'echo', arguments: {} }).then((res) => res.text()));
    expect(echo).toContain('"text":"ok"');
    const listen = await post('newcomer', 'subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } });
    const first = await within(5000, 'the newcomer\'s listen', firstEvent(listen));
    expect(JSON.parse(first)).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    void listen.body?.cancel().catch(() => {});
    const produced = sizes.listeners * sizes.publishes * (uri.length + 150);
    figure('listen-sse', { listeners: sizes.listeners, publishes: sizes.publishes, producedMiB: Math.round(produced / MiB), bufferedPeakMiB: Math.round((peak / MiB) * 10) / 10, budgetMiB: sizes.total / MiB, heapBeforeMiB: heapBefore, heapAfterMiB: heapMiB() });
  }, STRESS ? 300_000 : 60_000);

  it('an idle listener does not hold the publisher: notifyResourceUpdated() resolves while the stream is congested', async () => {
    const server = makeServer();
    server.resource('test://r', { name: 'r' }, (u) => ({ contents: [{ uri: u, text: 'r' }] }));
    web = createMcpHttpHandler({ server });
    const uri = `test://r/${'u'.repeat(4000)}`;
    const { body, headers } = modern('idle', 'subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } });
    const idle = await web.fetch(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    }));
    cleanups.push(() => void idle.body?.cancel().catch(() => {}));
    // Past the stream's high-water mark (1 MiB) and below its cap (8 MiB): congested, not dropped.
    for (let i = 0; i < 300; i++) void server.notifyResourceUpdated(uri);
    expect(web.bufferedSseBytes).toBeGreaterThan(MiB);
    await within(5000, 'notifyResourceUpdated()', server.notifyResourceUpdated(uri));
  });

  it('an attacker holding the whole stream and URI budget loses its longest-held listeners to a newcomer, who lists, listens and runs a task within seconds', async () => {
    const sizes = STRESS ? { attackers: 8, perCaller: 100, uriChars: 80_000 } : { attackers: 4, perCaller: 5, uriChars: 32_000 };
    const maxStreams = sizes.attackers * sizes.perCaller;
    const server = makeServer({
      maxListenStreams: maxStreams,
      maxListenStreamsPerCaller: sizes.perCaller,
      maxSubscriptionCharsTotal: sizes.uriChars,
      maxListenUriCharsPerCaller: sizes.uriChars / sizes.attackers,
    });
    server.resource('test://r', { name: 'r' }, (u) => ({ contents: [{ uri: u, text: 'r' }] }));
    server.tool('quick', { task: true }, () => ({ content: [{ type: 'text', text: 'done' }] }));
    const url = await serve(server);
    // Each attacker takes its whole share of streams, and its streams together its whole share of URI characters.
    const uriChars = sizes.uriChars / sizes.attackers / sizes.perCaller;
    const streams: { ex: OpenExchange; caller: string }[] = [];
    cleanups.push(() => streams.forEach((s) => s.ex.cut()));
    for (let a = 0; a < sizes.attackers; a++) {
      for (let i = 0; i < sizes.perCaller; i++) {
        const uri = `test://r/${a}-${i}-`.padEnd(uriChars, 'x');
        const ex = await open(url, modern(`attacker-${a}`, 'subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }));
        await ex.waitForEvents(1);
        streams.push({ ex, caller: `attacker-${a}` });
      }
    }
    // Past its share an attacker is refused.
    const over = await rpc(url, 'attacker-0', 'subscriptions/listen', { notifications: {} });
    expect(over.error).toMatchObject({ code: -32602, data: { maxListenStreamsPerCaller: sizes.perCaller } });
    const started = Date.now();
    const listed = await within(5000, 'tools/list', rpc(url, 'newcomer', 'tools/list'));
    expect(listed.result).toMatchObject({ tools: [{ name: 'quick' }] });
    // The newcomer's listen needs a stream slot and URI characters: both budgets are full.
    const mine = await open(url, modern('newcomer', 'subscriptions/listen', { notifications: { resourceSubscriptions: ['test://r/newcomer'.padEnd(uriChars, 'n')] } }));
    cleanups.push(() => mine.cut());
    await within(5000, 'the newcomer\'s listen', mine.waitForEvents(1, 5000));
    expect(JSON.parse(mine.events[0]?.data ?? '{}')).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    // An attacker's longest-held stream ended with the graceful listen result (MCP 2026-07-28 subscriptions).
    const ended = streams[0] as { ex: OpenExchange };
    const body = await within(5000, 'the reclaimed stream', ended.ex.done);
    expect(body).toContain('"resultType":"complete"');
    const task = await within(5000, 'the newcomer\'s task', rpc(url, 'newcomer', 'tools/call', { name: 'quick', arguments: {} }));
    expect(task.result).toMatchObject({ resultType: 'task' });
    figure('listen-budget', { maxListenStreams: maxStreams, perCaller: sizes.perCaller, uriChars: sizes.uriChars, newcomerMs: Date.now() - started });
  }, STRESS ? 120_000 : 60_000);
});

/** The data of the first SSE event of a Web response. */
async function firstEvent(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new SseDecoder();
  const text = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended before its first event');
    for (const event of decoder.push(text.decode(value, { stream: true }))) {
      if (event.data !== '') {
        reader.releaseLock();
        return event.data;
      }
    }
  }
}
