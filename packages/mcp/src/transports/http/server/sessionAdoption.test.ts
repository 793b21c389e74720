/**
 * A session opened on one handler is served by another sharing its session store (two instances behind a load
 * balancer with no sticky sessions), in process through the Web handler: the second rebuilds the session from its
 * record (`SessionRecord.state`); with the `cluster` option, state changes, answers to server→client requests and
 * the session's end cross too. The SDK client over real sockets is in `test/cluster.test.ts`.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { createMcpHttpHandler } from '../index.js';
import type { McpHttpHandler } from '../index.js';
import { InMemoryClusterBus, InMemoryEventStore, InMemoryLeaseStore, InMemoryNotificationBus, InMemorySessionStore } from '../../../stores/index.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'probe', version: '7' } },
});

interface Shared {
  readonly sessionStore: InMemorySessionStore;
  readonly eventStore: InMemoryEventStore;
  readonly bus: InMemoryClusterBus | undefined;
  readonly notifications: InMemoryNotificationBus;
  readonly leases?: InMemoryLeaseStore;
}

/** A lease store in which an instance can be made to look dead: its renewals are refused, so its lease runs out. */
class DyingLeases extends InMemoryLeaseStore {
  readonly dead = new Set<string>();

  override acquire(key: string, request: { readonly holder: string; readonly ttlMs: number; readonly value?: unknown }): Promise<boolean> {
    return this.dead.has(request.holder) ? Promise.resolve(false) : super.acquire(key, request);
  }
}

function instance(name: string, shared: Shared, sessionIdleTimeoutMs?: number): McpHttpHandler {
  const server = new McpServer({ name: 'adoption-test', version: '1.0.0' }, { logger: silentLogger, capabilities: { tools: {}, logging: {} }, bus: shared.notifications });
  server.tool('who', {}, (_args, ctx) => ({ content: [{ type: 'text', text: `${name} ${ctx.session?.clientInfo?.version ?? '-'}` }] }));
  server.tool('log', {}, async (_args, ctx) => {
    await ctx.log('debug', 'debug line');
    await ctx.log('error', 'error line');
    return { content: [{ type: 'text', text: name }] };
  });
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
    return { content: [{ type: 'text', text: `${name}: ${(answer.content as { text: string }).text}` }] };
  });
  server.tool('slow', {}, async (_args, ctx) => {
    await ctx.log('info', 'started');
    await new Promise((resolve) => setTimeout(resolve, (ctx.requestId as number) >= 100 ? 3000 : 150));
    return { content: [{ type: 'text', text: `${name} done` }] };
  });
  return createMcpHttpHandler({
    server,
    logger: silentLogger,
    sessionStore: shared.sessionStore,
    eventStore: shared.eventStore,
    cluster: shared.bus === undefined ? undefined : { bus: shared.bus, leases: shared.leases, instanceId: name, leaseTtlMs: 60 },
    sessionIdleTimeoutMs,
  });
}

function send(handler: McpHttpHandler, headers: Record<string, string>, body: string, method = 'POST'): Promise<Response> {
  return handler.fetch(new Request('http://localhost/mcp', { method, body: method === 'POST' ? body : undefined, headers: { ...HEADERS, ...headers } }));
}

async function open(handler: McpHttpHandler): Promise<Record<string, string>> {
  const res = await send(handler, {}, INIT);
  expect(res.status).toBe(200);
  await res.text();
  return { 'mcp-session-id': res.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-11-25' };
}

const call = (id: number, name: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

function shared(cluster: boolean): Shared {
  return { sessionStore: new InMemorySessionStore(), eventStore: new InMemoryEventStore(), bus: cluster ? new InMemoryClusterBus() : undefined, notifications: new InMemoryNotificationBus() };
}

describe('a session served by another instance sharing the session store', () => {
  it('is rebuilt from its record: initialized, at its revision, with its client info', async () => {
    const s = shared(false);
    const a = instance('a', s);
    const b = instance('b', s);
    const headers = await open(a);
    expect(b.sessionCount).toBe(0);
    expect((await send(b, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
    const res = await send(b, headers, call(1, 'who'));
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    expect(await res.json()).toMatchObject({ id: 1, result: { content: [{ text: 'b 7' }] } });
    expect(b.sessionCount).toBe(1);
    // An id no instance knows is still 404; asked again soon, the store is not read again.
    let reads = 0;
    const get = s.sessionStore.get.bind(s.sessionStore);
    s.sessionStore.get = (id) => {
      reads++;
      return get(id);
    };
    for (let i = 0; i < 3; i++) expect((await send(b, { ...headers, 'mcp-session-id': 'no-such-session' }, call(2, 'who'))).status).toBe(404);
    expect(reads).toBe(1);
    await a.close();
    await b.close();
  });

  it('while the session store fails: a request of a session held elsewhere and a new session are 503 + Retry-After with the request id, never 404', async () => {
    const s = shared(false);
    const a = instance('a', s);
    const b = instance('b', s);
    const headers = await open(a);
    const down = (): Promise<never> => Promise.reject(new Error('store down'));
    // Own properties shadow the prototype's methods while the store is down; deleting them brings them back.
    Object.assign(s.sessionStore, { get: down, create: down });
    try {
      // B holds no copy and cannot read the record: the session may be live, so not 404 (the client would drop it).
      const onB = await send(b, headers, call(3, 'who'));
      expect(onB.status).toBe(503);
      expect(onB.headers.get('retry-after')).toBe('1');
      expect(await onB.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Service Unavailable: the session store cannot be reached; retry later' } });
      // A holds it: served as before.
      expect((await send(a, headers, call(4, 'who'))).status).toBe(200);
      const refused = await send(a, {}, INIT);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 0, error: { code: -32000 } });
      expect(refused.headers.get('mcp-session-id')).toBeNull();
    } finally {
      delete (s.sessionStore as { get?: unknown }).get;
      delete (s.sessionStore as { create?: unknown }).create;
    }
    // Back: B serves the session (the failure was not remembered as "no such session").
    expect((await send(b, headers, call(5, 'who'))).status).toBe(200);
    await a.close();
    await b.close();
  });

  it('with cluster: a log level set on one instance holds on the other; an answer to a sampling request crosses; DELETE ends it everywhere', async () => {
    const s = shared(true);
    const a = instance('a', s);
    const b = instance('b', s);
    const headers = await open(a);
    await send(a, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await send(b, headers, call(1, 'who'));
    // logging/setLevel on b; the call on a sends only the error line (its POST is SSE: the log lines come first).
    expect((await send(b, headers, '{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}')).status).toBe(200);
    const logged = await (await send(a, { ...headers, accept: 'text/event-stream, application/json' }, call(3, 'log'))).text();
    expect(logged).toContain('error line');
    expect(logged).not.toContain('debug line');
    expect((await s.sessionStore.get(headers['mcp-session-id'] as string))?.state?.logLevelRank).toBeGreaterThan(0);

    // A sampling request raised on a; its answer POSTed to b.
    const asked = a.fetch(new Request('http://localhost/mcp', { method: 'POST', body: call(4, 'ask'), headers: { ...HEADERS, ...headers } }));
    const answer = await asked;
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('sampling/createMessage')) text += new TextDecoder().decode((await reader.read()).value);
    const request = JSON.parse(/data: (\{.*"sampling\/createMessage".*\})/u.exec(text)![1]!) as { id: string };
    expect(request.id).toMatch(/^a:\d+$/u);
    const reply = JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'm' } });
    expect((await send(b, headers, reply)).status).toBe(202);
    while (!text.includes('"id":4')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('a: yes');

    expect((await send(b, headers, '', 'DELETE')).status).toBe(200);
    expect(a.sessionCount + b.sessionCount).toBe(0);
    expect((await send(a, headers, call(5, 'who'))).status).toBe(404);
    await a.close();
    await b.close();
  });

  it('with leases: a stream resumed on another instance while its instance lives is followed until it finishes there', async () => {
    const s = { ...shared(true), leases: new InMemoryLeaseStore() };
    const a = instance('a', s);
    const b = instance('b', s);
    const headers = await open(a);
    await send(b, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const controller = new AbortController();
    const res = await a.fetch(new Request('http://localhost/mcp', { method: 'POST', body: call(1, 'slow'), headers: { ...HEADERS, ...headers }, signal: controller.signal }));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('started')) text += new TextDecoder().decode((await reader.read()).value);
    const lastEventId = [...text.matchAll(/^id: (.+)$/gmu)].at(-1)![1]!;
    expect(lastEventId.startsWith((await s.sessionStore.get(headers['mcp-session-id'] as string))!.streamPrefix!)).toBe(true);
    // The client loses the stream; the call goes on on a.
    await reader.cancel();
    const resume = () => send(b, { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId }, '', 'GET');
    // On b, the stream is a's and a lives: the connection follows it, carries the answer a stores, and then ends
    // (MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery").
    const first = await resume();
    expect(first.status).toBe(200);
    const followed = await first.text();
    expect(followed).toContain('a done');
    expect(followed.match(/"id":1\b/g)).toHaveLength(1);
    // Resumed again from the same event, the replay carries the answer a stored.
    const second = await resume();
    const replay = (second.body as ReadableStream<Uint8Array>).getReader();
    let replayed = '';
    while (!replayed.includes('"id":1')) replayed += new TextDecoder().decode((await replay.read()).value);
    expect(replayed).toContain('a done');
    await replay.cancel();
    await a.close();
    await b.close();
  });

  it('with leases: when the instance holding a resumed stream dies (its lease runs out), each call it ran gets -32603 instance_lost', async () => {
    const leases = new DyingLeases();
    const s = { ...shared(true), leases };
    const a = instance('a', s);
    const b = instance('b', s);
    const headers = await open(a);
    await send(b, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const res = await a.fetch(new Request('http://localhost/mcp', { method: 'POST', body: call(100, 'slow'), headers: { ...HEADERS, ...headers } }));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('started')) text += new TextDecoder().decode((await reader.read()).value);
    const lastEventId = [...text.matchAll(/^id: (.+)$/gmu)].at(-1)![1]!;
    await reader.cancel();
    // a "dies": it renews its lease no more (as after SIGKILL), which runs out within leaseTtlMs (60 ms).
    leases.dead.add('a');
    const resumed = await send(b, { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId }, '', 'GET');
    const body = await resumed.text();
    const error = JSON.parse(/^data: (.*"id":100.*)$/mu.exec(body)![1]!) as unknown;
    expect(error).toEqual({ jsonrpc: '2.0', id: 100, error: { code: -32603, message: 'Internal error: the server instance running this request stopped before answering', data: { reason: 'instance_lost' } } });
    await a.close();
    await b.close();
  });

  it('an instance lets go of its copy of a session idle there but used elsewhere, and rebuilds it when asked again', async () => {
    const s = shared(true);
    const a = instance('a', s, 200);
    const b = instance('b', s, 200);
    const headers = await open(a);
    await send(b, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(b.sessionCount).toBe(1);
    // Used on a every 50 ms for 400 ms: its record stays fresh, b's copy goes idle.
    for (let i = 0; i < 8; i++) {
      expect((await send(a, headers, call(10 + i, 'who'))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(b.sessionCount).toBe(0);
    expect(a.sessionCount).toBe(1);
    expect(await s.sessionStore.get(headers['mcp-session-id'] as string)).toBeDefined();
    expect(await (await send(b, headers, call(20, 'who'))).json()).toMatchObject({ result: { content: [{ text: 'b 7' }] } });
    expect(b.sessionCount).toBe(1);
    await a.close();
    await b.close();
  });

  it('a session id that no session can have (not visible ASCII, or over 256 characters) is 404 without asking the store', async () => {
    class CountingStore extends InMemorySessionStore {
      gets = 0;
      override get(sessionId: string): ReturnType<InMemorySessionStore['get']> {
        this.gets++;
        return super.get(sessionId);
      }
    }
    const store = new CountingStore();
    const b = instance('B', { ...shared(false), sessionStore: store });
    for (const id of ['has space', 'x'.repeat(257), 'caf\u00e9']) {
      const res = await send(b, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, call(1, 'who'));
      expect(res.status).toBe(404);
    }
    expect(store.gets).toBe(0);
    const unknown = await send(b, { 'mcp-session-id': 'well-formed-but-unknown', 'mcp-protocol-version': '2025-11-25' }, call(1, 'who'));
    expect([unknown.status, store.gets]).toEqual([404, 1]);
    await b.close();
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A GET stream kept open on `h` (the session is busy there); returns its reader to cancel later. */
async function listen(h: McpHttpHandler, headers: Record<string, string>): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await send(h, { ...headers, accept: 'text/event-stream' }, '', 'GET');
  expect(res.status).toBe(200);
  return (res.body as ReadableStream<Uint8Array>).getReader();
}

/**
 * Instances A and B on one shared store (`cluster` or not), idle timeout 100 ms; a session opened on A with a GET
 * stream kept open there (busy), 400 ms later: A still holds it and its record is still stored. `bServedFirst`: B
 * served a session of its own first, so its reaper runs meanwhile.
 */
async function busyOnA(cluster: boolean, bServedFirst: boolean) {
  const s = shared(cluster);
  const a = instance('a', s, 100);
  const b = instance('b', s, 100);
  if (bServedFirst) await send(b, await open(b), '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  const headers = await open(a);
  expect((await send(a, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
  const stream = await listen(a, headers);
  await sleep(400);
  // A's own reaper keeps it (busy): one instance serves it as long as the stream is open.
  expect(a.sessionCount).toBe(1);
  expect(await s.sessionStore.get(headers['mcp-session-id'] as string)).toBeDefined();
  const close = async (): Promise<void> => {
    await stream.cancel();
    await a.close();
    await b.close();
  };
  return { a, b, headers, close };
}

describe('a session busy on one instance whose record idled past its TTL (a shared store)', () => {
  for (const cluster of [false, true]) {
    it(`cluster=${cluster}: a session with a GET stream open on A is served by B after its POSTs idled past the timeout`, async () => {
      const { b, headers, close } = await busyOnA(cluster, false);
      const res = await send(b, headers, call(1, 'who'));
      expect(res.status).toBe(200);
      await res.text();
      await close();
    });

    it(`cluster=${cluster}: B's reaper does not delete the record of a session busy on A`, async () => {
      const { a, headers, close } = await busyOnA(cluster, true);
      // And the session is still served on A, where it is busy.
      const res = await send(a, headers, call(2, 'who'));
      expect(res.status).toBe(200);
      await res.text();
      await close();
    });
  }

  it('cluster: a request in flight on A longer than the timeout; a notification for the session lands on B meanwhile', async () => {
    const s = shared(true);
    const a = instance('a', s, 100);
    const b = instance('b', s, 100);
    const headers = await open(a);
    expect((await send(a, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
    const slow = send(a, { ...headers, accept: 'text/event-stream, application/json' }, call(100, 'slow'));
    const res = await slow;
    const reading = res.text();
    await sleep(400);
    const note = await send(b, headers, '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}');
    expect(note.status).toBe(202);
    expect(await s.sessionStore.get(headers['mcp-session-id'] as string)).toBeDefined();
    void reading.catch(() => undefined);
    await a.close();
    await b.close();
  });
});
