/**
 * Two `serveHttp` instances (A and B, one process, each its own `McpServer`) sharing one real `redis-server` through
 * `redisStores`: what one instance writes, the other reads. A session opened on A is counted and scanned on B; the
 * events of an SSE stream A wrote, cut before its result, are replayed by B's event store after the client's
 * Last-Event-ID; a task created on A is read and cancelled through B over HTTP and stays cancelled on A; a tool
 * registered on A reaches B's bus listeners and the GET stream of a session held by B as
 * `notifications/tools/list_changed`, and a 2026-07-28 client's listen stream on B too; a 2026-07-28 `tasks/update`
 * that lands on B reaches the task running on A (`McpServerOptions.cluster`, in `serverOptions`), and one for a task
 * whose instance stopped fails the task. With the handler's cluster
 * option on the same Redis (in `httpOptions`), B serves a request of A's session, replays A's stream over HTTP, and
 * carries the client's answer to a sampling request A raised back to A (through `RedisClusterBus`). Without
 * redis-server the suite skips with one line naming the package.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import type { BusMessage } from '@switchboard/mcp/stores';
import { McpClient, streamableHttp, type ListenNotification } from '@switchboard/mcp/client';
import { describe, expect, it } from 'vitest';
import { startRedisInstance, useTwoRedisInstances, type RedisInstanceOptions } from './helpers/redisInstances.js';
import { INSTALL_REDIS, REDIS_SERVER } from './helpers/redisServer.js';

const REVISION = '2025-11-25';

/** Gates the tools of instance A wait on, released by the test. */
const gates = new Map<string, () => void>();
const gate = (name: string): Promise<void> => new Promise((resolve) => gates.set(name, resolve));

/** Each instance's tools (the test names the instance it sends each request to). */
const INSTANCES: RedisInstanceOptions = {
  keyPrefix: 'two:',
  tools(server, name) {
    server.tool('stream', {}, async (_args, ctx) => {
      await ctx.log('info', 'first');
      await gate('stream');
      return { content: [{ type: 'text', text: 'streamed' }] };
    });
    server.tool('whoami', {}, () => ({ content: [{ type: 'text', text: name }] }));
    server.tool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `from ${name}` } }], maxTokens: 10 });
      return { content: [{ type: 'text', text: `${name} got ${(answer.content as { text?: string }).text ?? '?'}` }] };
    });
    server.tool('ask_name', { task: { pollIntervalMs: 10 } }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'name' });
      return { content: [{ type: 'text', text: `${name} heard ${String(answer.content?.name)}` }] };
    });
    server.tool('job', { task: { pollIntervalMs: 10 } }, async () => {
      await gate('job');
      return { content: [{ type: 'text', text: 'done' }] };
    });
  },
};

function headers(session?: string): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, ...(session === undefined ? {} : { 'mcp-session-id': session }) };
}

/** Parses SSE text into events (`id`, parsed `data`). */
function events(text: string): { id: string | undefined; data: any }[] {
  return text.split('\n\n').filter((block) => /^data:/m.test(block)).map((block) => {
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n');
    return { id, data: data === '' ? undefined : JSON.parse(data) };
  });
}

async function rpc(url: string, body: unknown, session?: string): Promise<{ session: string | null; messages: any[] }> {
  const res = await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify(body) });
  const text = await res.text();
  const messages = (res.headers.get('content-type') ?? '').startsWith('text/event-stream') ? events(text).map((e) => e.data).filter((m) => m !== undefined) : text === '' ? [] : [JSON.parse(text)];
  return { session: res.headers.get('mcp-session-id'), messages };
}

/** A 2026-07-28 request over HTTP (its `_meta` envelope declaring the tasks extension; `Mcp-Method`, `Mcp-Name`). */
async function modernRpc(url: string, id: number, method: string, params: Record<string, unknown>, name: string): Promise<any> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
  });
  const text = await res.text();
  return (res.headers.get('content-type') ?? '').startsWith('text/event-stream') ? events(text).map((e) => e.data).find((m) => m?.id === id) : JSON.parse(text);
}

async function open(url: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const init = await rpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities, clientInfo: { name: 'c', version: '1' } } });
  const session = init.session as string;
  await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return session;
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(REDIS_SERVER === undefined)('two serveHttp instances sharing one Redis', () => {
  const two = useTwoRedisInstances({
    ...INSTANCES,
    beforeStop() {
      for (const release of gates.values()) release();
    },
  });

  it('a session opened on A is counted and scanned on B, with the revision it negotiated', async () => {
    const session = await open(two.a.url);
    expect(await two.b.stores.sessionStore.count()).toBe(1);
    const seen = await eventually(async () => {
      const records: unknown[] = [];
      await two.b.stores.sessionStore.scan((r) => void records.push(r));
      return records;
    }, (records) => (records[0] as { protocolVersion?: string } | undefined)?.protocolVersion === REVISION);
    expect(seen).toEqual([expect.objectContaining({ sessionId: session, transport: 'streamable-http', phase: 'initialized', protocolVersion: REVISION, streamPrefix: expect.stringMatching(/\.$/) })]);
    // With the cluster option (redisStores puts it in httpOptions), B serves a request of A's session: it rebuilds the
    // session from its record (the state A wrote to Redis).
    const onB = await rpc(two.b.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, session);
    expect(onB.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'B' }] } }]);
  });

  it("B's event store replays, after the client's Last-Event-ID, what A stored on a stream cut before its result", async () => {
    const session = await open(two.a.url);
    const abort = new AbortController();
    const res = await fetch(two.a.url, { method: 'POST', headers: { ...headers(session), accept: 'text/event-stream, application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'stream', arguments: {} } }), signal: abort.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Read until the log notification arrived, then drop the connection (the tool is still running on A).
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"first"')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const seen = events(text.slice(0, text.lastIndexOf('\n\n') + 2));
    const last = seen.at(-1)!;
    expect(last.data).toMatchObject({ method: 'notifications/message', params: { data: 'first' } });
    // Let A see the disconnection (the stream is then cut, and kept for resumption) before the result comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    gates.get('stream')!();
    const replayed = await eventually(async () => {
      const out: [string, any][] = [];
      const stream = await two.b.stores.eventStore.replayEventsAfter(last.id!, { send: (id, m) => void out.push([id, m]) });
      return { stream, out };
    }, ({ out }) => out.length > 0);
    expect(replayed.stream).toBe(last.id!.slice(0, last.id!.lastIndexOf('.')));
    expect(replayed.out).toEqual([[expect.stringMatching(new RegExp(`^${replayed.stream!.replace(/\./g, '\\.')}\\.\\d+$`)), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'streamed' }] } }]]);
    // An id of another session's stream names a stream that is not this one: the transport refuses it by its prefix.
    const record = await two.b.stores.sessionStore.get(session);
    expect(last.id!.startsWith(record!.streamPrefix!)).toBe(true);
    // Over HTTP: the client resumes on B with GET + Last-Event-ID and gets the result A stored.
    const resumed = await fetch(two.b.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': session, 'last-event-id': last.id! } });
    expect(resumed.status).toBe(200);
    const replay = events(await resumed.text());
    expect(replay.map((e) => e.data)).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'streamed' }] } }]);
    expect(replay[0]!.id).toBe(replayed.out[0]![0]);
  });

  it('a sampling request raised by a tool on A is answered by a POST that lands on B, and the tool finishes on A', async () => {
    const session = await open(two.a.url, { sampling: {} });
    const res = await fetch(two.a.url, { method: 'POST', headers: { ...headers(session), accept: 'text/event-stream, application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'ask', arguments: {} } }) });
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
    };
    await readUntil('sampling/createMessage');
    const request = events(text).map((e) => e.data).find((m) => m?.method === 'sampling/createMessage');
    expect(request.id).toMatch(/^A:/); // tagged with the instance that asked
    const answer = await fetch(two.b.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' } }) });
    expect(answer.status).toBe(202);
    await readUntil('"id":11');
    expect(events(text).map((e) => e.data).find((m) => m?.id === 11)).toEqual({ jsonrpc: '2.0', id: 11, result: { content: [{ type: 'text', text: 'A got hello' }] } });
    await reader.cancel();
  });

  it('a task created on A is read and cancelled through B, and stays cancelled on A when its work ends', async () => {
    const onA = await open(two.a.url);
    const created = await rpc(two.a.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'job', arguments: {}, task: { ttl: 60_000 } } }, onA);
    const taskId = created.messages[0].result.task.taskId as string;
    const onB = await open(two.b.url);
    expect((await rpc(two.b.url, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } }, onB)).messages[0]).toMatchObject({ id: 2, result: { taskId, status: 'working' } });
    expect((await rpc(two.b.url, { jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { taskId } }, onB)).messages[0]).toMatchObject({ id: 3, result: { taskId, status: 'cancelled' } });
    expect((await rpc(two.a.url, { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { taskId } }, onA)).messages[0]).toMatchObject({ id: 4, result: { taskId, status: 'cancelled' } });
    gates.get('job')!();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await rpc(two.a.url, { jsonrpc: '2.0', id: 5, method: 'tasks/get', params: { taskId } }, onA)).messages[0]).toMatchObject({ id: 5, result: { taskId, status: 'cancelled' } });
  });

  it('a 2026-07-28 tasks/update that lands on B reaches the task running on A (through the cluster bus), which ends', async () => {
    const created = await modernRpc(two.a.url, 1, 'tools/call', { name: 'ask_name', arguments: {} }, 'ask_name');
    const taskId = created.result.taskId as string;
    const asked = await eventually(() => modernRpc(two.b.url, 2, 'tasks/get', { taskId }, taskId), (m) => m.result?.status === 'input_required');
    expect(asked.result).toMatchObject({ status: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    const update = await modernRpc(two.b.url, 3, 'tasks/update', { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } }, taskId);
    expect(update).toMatchObject({ id: 3, result: { resultType: 'complete' } });
    const done = await eventually(() => modernRpc(two.b.url, 4, 'tasks/get', { taskId }, taskId), (m) => m.result?.status === 'completed');
    expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'A heard Ada' }] } });
  });

  it('a 2026-07-28 tasks/update for a task whose instance stopped fails the task (-32603 instance_lost), never acknowledged and lost', async () => {
    const c = await startRedisInstance(two.redis.url, 'C', INSTANCES);
    const created = await modernRpc(c.url, 1, 'tools/call', { name: 'ask_name', arguments: {} }, 'ask_name');
    const taskId = created.result.taskId as string;
    await eventually(() => modernRpc(two.b.url, 2, 'tasks/get', { taskId }, taskId), (m) => m.result?.status === 'input_required');
    // C stops: its server abandons the task (the record stays input_required) and gives its lease up.
    await c.close();
    const update = await modernRpc(two.b.url, 3, 'tasks/update', { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } }, taskId);
    expect(update).toMatchObject({ id: 3, error: { code: -32603, data: { reason: 'instance_lost', taskId } } });
    expect((await modernRpc(two.a.url, 4, 'tasks/get', { taskId }, taskId)).result).toMatchObject({ status: 'failed', error: { code: -32603, data: { reason: 'instance_lost' } } });
  });

  it("a tool registered on A reaches B's bus listeners and the GET stream of a session held by B", async () => {
    const heard: BusMessage[] = [];
    const stop = two.b.stores.bus.subscribe((m) => void heard.push(m));
    const onB = await open(two.b.url);
    const abort = new AbortController();
    const get = await fetch(two.b.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': onB }, signal: abort.signal });
    expect(get.status).toBe(200);
    const reader = get.body!.getReader();
    let text = '';
    const listChanged = (async () => {
      while (!text.includes('notifications/tools/list_changed')) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    two.a.server.tool('added-on-a', {}, () => ({ content: [] }));
    await eventually(() => Promise.resolve(heard.length), (n) => n > 0);
    await Promise.race([listChanged, new Promise((resolve) => setTimeout(resolve, 5000))]);
    abort.abort();
    stop();
    expect(heard).toEqual([{ type: 'list_changed', capability: 'tools' }]);
    expect(text).toContain('"method":"notifications/tools/list_changed"');
  });

  it("a tool registered on A reaches a 2026-07-28 client's listen stream on B", async () => {
    const client = await McpClient.connect({ connector: streamableHttp({ url: two.b.url }), era: 'modern', logger: silentLogger });
    try {
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.acknowledged).toMatchObject({ toolsListChanged: true });
      const heard: ListenNotification[] = [];
      subscription.on((n) => void heard.push(n));
      await new Promise((resolve) => setTimeout(resolve, 50));
      two.a.server.tool('added-on-a-for-listen', {}, () => ({ content: [] }));
      await eventually(() => Promise.resolve(heard.length), (n) => n > 0);
      expect(heard).toEqual([expect.objectContaining({ method: 'notifications/tools/list_changed' })]);
      await subscription.close();
    } finally {
      await client.close();
    }
  });
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
