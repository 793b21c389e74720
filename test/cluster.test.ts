/**
 * Any request of a session on any instance (issue #26, the cross-instance part): two `serveHttp` instances in this
 * process share in-memory stores (sessions, events, the cluster bus, leases, the notification bus), behind a small
 * HTTP forwarder that sends each request to the next instance in turn (no stickiness) or, for the cases that must
 * cross, to the instance that did not serve the call. The official SDK v1 client (`Client` +
 * `StreamableHTTPClientTransport`) is the peer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../packages/mcp/src/server/mcpServer.js';
import { serveHttp, type ServeHttpHandle } from '../packages/mcp/src/transports/node/serveHttp.js';
import { toNodeListener } from '../packages/mcp/src/transports/node/listener.js';
import { createMcpHttpHandler } from '../packages/mcp/src/transports/http/server/handler.js';
import { InMemoryClusterBus } from '../packages/mcp/src/stores/clusterBus.js';
import { InMemoryEventStore } from '../packages/mcp/src/stores/eventStore.js';
import { InMemoryLeaseStore } from '../packages/mcp/src/stores/leaseStore.js';
import { InMemoryNotificationBus } from '../packages/mcp/src/stores/notificationBus.js';
import { InMemorySessionStore } from '../packages/mcp/src/stores/sessionStore.js';
import { closeRequestSseStream } from '../packages/mcp/src/transports/http/server/sessions/ssePolling.js';

interface Shared {
  readonly sessionStore: InMemorySessionStore;
  readonly eventStore: InMemoryEventStore;
  readonly bus: InMemoryClusterBus;
  readonly leases: InMemoryLeaseStore;
  readonly notifications: InMemoryNotificationBus;
}

interface Instance {
  readonly name: string;
  readonly server: McpServer;
  readonly http: ServeHttpHandle;
  /** Tool calls this instance ran, by tool name. */
  readonly ran: string[];
  /** Calls of `wait` whose signal aborted here. */
  aborted: number;
}

function shared(): Shared {
  return {
    sessionStore: new InMemorySessionStore(),
    eventStore: new InMemoryEventStore(),
    bus: new InMemoryClusterBus(),
    leases: new InMemoryLeaseStore(),
    notifications: new InMemoryNotificationBus(),
  };
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

async function instance(name: string, s: Shared, leaseTtlMs = 10_000): Promise<Instance> {
  const server = new McpServer({ name: 'cluster-test', version: '1.0.0' }, {
    capabilities: { tools: {}, resources: { subscribe: true }, logging: {} },
    bus: s.notifications,
  });
  const me: Instance = { name, server, http: undefined as unknown as ServeHttpHandle, ran: [], aborted: 0 };
  server.tool('whoami', { description: 'the instance', inputSchema: { type: 'object' } }, () => {
    me.ran.push('whoami');
    return text(name);
  });
  server.tool('log_both', { description: 'logs at debug and error', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    me.ran.push('log_both');
    await ctx.log('debug', `debug from ${name}`);
    await ctx.log('error', `error from ${name}`);
    return text(name);
  });
  server.tool('ask', { description: 'samples the client', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    me.ran.push('ask');
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `from ${name}` } }], maxTokens: 10 });
    return text(`${name} got ${(answer.content as { text?: string }).text ?? '?'}`);
  });
  server.tool('wait', { description: 'waits until cancelled', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    me.ran.push('wait');
    // A notification first: the answer becomes an SSE stream with event ids, which a client can resume elsewhere.
    await ctx.log('info', `waiting on ${name}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      ctx.signal.addEventListener('abort', () => {
        me.aborted++;
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    return text('waited');
  });
  server.tool('poll', { description: 'closes its SSE stream, then logs and answers', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    me.ran.push('poll');
    // MCP 2025-11-25 "SSE polling": the client resumes with GET + Last-Event-ID, and gets what comes after.
    closeRequestSseStream(ctx, { retryMs: 20 });
    await sleep(150);
    await ctx.log('info', `after the close on ${name}`);
    await sleep(50);
    return text(name);
  });
  server.resource('test://where', { name: 'where', mimeType: 'text/plain' }, (uri) => {
    me.ran.push('read');
    return { contents: [{ uri, mimeType: 'text/plain', text: name }] };
  });
  const handle = await serveHttp({
    server,
    port: 0,
    sessionStore: s.sessionStore,
    eventStore: s.eventStore,
    cluster: { bus: s.bus, leases: s.leases, instanceId: name, leaseTtlMs },
  });
  return Object.assign(me, { http: handle });
}

/** One request as the forwarder routed it. */
interface Routed {
  readonly to: string;
  readonly httpMethod: string;
  readonly body: unknown;
  readonly lastEventId: string | undefined;
}

/** Picks the instance for a request, or `undefined` for the next one in turn. */
type Choose = (body: unknown, next: Instance) => Instance | undefined;

/**
 * A round-robin HTTP forwarder: each request goes to the next live instance (a refused connection tries the next
 * one), unless `choose` picks another; SSE answers are streamed through.
 */
async function forwarder(instances: readonly Instance[], choose?: Choose): Promise<{ url: string; routed: Routed[]; server: http.Server }> {
  let turn = 0;
  const routed: Routed[] = [];
  const dead = new Set<Instance>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const attempt = (tries: number): void => {
        const live = instances.filter((i) => !dead.has(i));
        if (live.length === 0 || tries > instances.length) {
          res.writeHead(502).end();
          return;
        }
        const next = live[turn % live.length] as Instance;
        const chosen = choose?.(body, next);
        const target = chosen ?? next;
        // A request sent by `choose` does not take the next instance's turn.
        if (chosen === undefined) turn++;
        const upstream = http.request({ host: '127.0.0.1', port: target.http.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          routed.push({ to: target.name, httpMethod: req.method ?? '', body, lastEventId: req.headers['last-event-id'] as string | undefined });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          res.on('close', () => answer.destroy());
          // An instance that went away mid-answer: the client sees its connection cut, as without the forwarder.
          answer.on('close', () => {
            if (!answer.complete) res.destroy();
          });
        });
        upstream.on('error', () => {
          dead.add(target);
          if (!res.headersSent) attempt(tries + 1);
          else res.destroy();
        });
        upstream.end(raw);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, routed, server };
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function cluster(choose?: (instances: readonly Instance[]) => Choose, leaseTtlMs?: number) {
  const s = shared();
  const a = await instance('a', s, leaseTtlMs);
  const b = await instance('b', s, leaseTtlMs);
  cleanup.push(() => a.http.close(), () => b.http.close());
  const front = await forwarder([a, b], choose?.([a, b]));
  cleanup.push(() => new Promise<void>((resolve) => {
    front.server.closeAllConnections();
    front.server.close(() => resolve());
  }));
  const client = new Client({ name: 'cluster-test-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  const transport = new StreamableHTTPClientTransport(new URL(front.url), { reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 } });
  cleanup.push(() => client.close());
  return { s, a, b, front, client, transport };
}

function isResponse(body: unknown): body is { id: unknown } {
  return typeof body === 'object' && body !== null && 'id' in body && !('method' in body);
}

function methodOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'method' in body ? String((body).method) : undefined;
}

describe('a session served by any instance, no sticky sessions', () => {
  it('initialize on one instance; tools/call, resources/read and logging/setLevel served by both, state shared', async () => {
    const { a, b, front, client, transport } = await cluster();
    const logs: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push({ level: n.params.level, data: n.params.data }));
    await client.connect(transport);
    const served = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      served.add((result.content as { text: string }[])[0]!.text);
    }
    expect([...served].sort()).toEqual(['a', 'b']);
    const read = new Set<string>();
    for (let i = 0; i < 2; i++) read.add(((await client.readResource({ uri: 'test://where' })).contents[0] as { text: string }).text);
    expect(read.size).toBeGreaterThanOrEqual(1);
    // The level set on one instance holds on the other: only error lines arrive, from both instances.
    await client.setLoggingLevel('error');
    for (let i = 0; i < 4; i++) await client.callTool({ name: 'log_both', arguments: {} });
    expect(logs.map((l) => l.level)).toEqual(['error', 'error', 'error', 'error']);
    expect(new Set(logs.map((l) => l.data))).toEqual(new Set(['error from a', 'error from b']));
    expect(a.ran).toContain('log_both');
    expect(b.ran).toContain('log_both');
    // The forwarder alternated: both instances received POSTs of the one session.
    expect(new Set(front.routed.filter((r) => r.httpMethod === 'POST').map((r) => r.to))).toEqual(new Set(['a', 'b']));
    // The initialize ran on one instance only; the other rebuilt the session from the store.
    expect(front.routed.filter((r) => methodOf(r.body) === 'initialize')).toHaveLength(1);
  });

  it('a sampling request raised on one instance is answered through the other', async () => {
    // Every answer of the client goes to the instance that did NOT run the last call.
    let lastCall: string | undefined;
    const { front, client, transport } = await cluster((instances) => (body, next) => {
      if (methodOf(body) === 'tools/call') lastCall = next.name;
      if (isResponse(body)) return instances.find((i) => i.name !== lastCall);
      return undefined;
    });
    client.setRequestHandler(CreateMessageRequestSchema, (request) => ({
      role: 'assistant',
      content: { type: 'text', text: `echo ${(request.params.messages[0]!.content as { text: string }).text}` },
      model: 'test',
    }));
    await client.connect(transport);
    const answers = new Set<string>();
    for (let i = 0; i < 4; i++) answers.add((((await client.callTool({ name: 'ask', arguments: {} })).content as { text: string }[])[0]!).text);
    expect([...answers].sort()).toEqual(['a got echo from a', 'b got echo from b']);
    const responses = front.routed.filter((r) => isResponse(r.body));
    expect(responses).toHaveLength(4);
    // Each answer carries the id of the instance that asked, and landed on the other one.
    for (const r of responses) {
      const id = String((r.body as { id: unknown }).id);
      expect(id).toMatch(/^(a|b):\d+$/);
      expect(id.startsWith(`${r.to}:`)).toBe(false);
    }
  });

  it('a cancellation that lands on another instance stops the call where it runs', async () => {
    let lastCall: string | undefined;
    const { a, b, client, transport } = await cluster((instances) => (body, next) => {
      if (methodOf(body) === 'tools/call') lastCall = next.name;
      if (methodOf(body) === 'notifications/cancelled') return instances.find((i) => i.name !== lastCall);
      return undefined;
    });
    await client.connect(transport);
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
    await expect.poll(() => a.ran.length + b.ran.length).toBe(1);
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    await expect.poll(() => a.aborted + b.aborted, { timeout: 3000 }).toBe(1);
    // The call ran on one instance; the cancellation was received by the other.
    expect(lastCall).toBeDefined();
    expect((lastCall === 'a' ? a : b).aborted).toBe(1);
  });

  it('a resource update published on one instance reaches the GET stream held by the other', async () => {
    const { a, b, front, client, transport } = await cluster();
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.connect(transport);
    await client.subscribeResource({ uri: 'test://where' });
    await expect.poll(() => front.routed.some((r) => r.httpMethod === 'GET')).toBe(true);
    const streamHolder = front.routed.find((r) => r.httpMethod === 'GET')!.to;
    // Published by the server of the instance that does not hold the stream.
    await (streamHolder === 'a' ? b : a).server.notifyResourceUpdated('test://where');
    await expect.poll(() => updated).toEqual(['test://where']);
    await sleep(50);
    expect(updated).toEqual(['test://where']);
  });

  it('a POST stream closed on purpose and resumed on the other instance delivers the rest there, once', async () => {
    // Every bodiless request (the GET that resumes) goes to the instance that did not run the call.
    let lastCall: string | undefined;
    const { a, b, front, client, transport } = await cluster((instances) => (body, next) => {
      if (methodOf(body) === 'tools/call') lastCall = next.name;
      if (body === undefined && lastCall !== undefined) return instances.find((i) => i.name !== lastCall);
      return undefined;
    });
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    await client.connect(transport);
    const result = await client.callTool({ name: 'poll', arguments: {} });
    const ranOn = a.ran.includes('poll') ? 'a' : 'b';
    expect(b.ran.includes('poll')).toBe(ranOn === 'b');
    expect((result.content as { text: string }[])[0]!.text).toBe(ranOn);
    expect(logs).toEqual([`after the close on ${ranOn}`]);
    // One resumption, on the other instance, carried the log line and the result: the client did not have to come
    // back for them (before, that connection waited, ended when the call finished, and a second GET replayed them).
    const resumed = front.routed.filter((r) => r.httpMethod === 'GET' && r.lastEventId !== undefined);
    expect(resumed.map((r) => r.to)).toEqual([ranOn === 'a' ? 'b' : 'a']);
  });

  it('DELETE on one instance ends the session on every instance (404 after)', async () => {
    const { a, b, client, transport } = await cluster();
    await client.connect(transport);
    await client.callTool({ name: 'whoami', arguments: {} });
    await client.callTool({ name: 'whoami', arguments: {} });
    expect(a.http.handler.sessionCount).toBe(1);
    expect(b.http.handler.sessionCount).toBe(1);
    await transport.terminateSession();
    await expect.poll(() => a.http.handler.sessionCount + b.http.handler.sessionCount).toBe(0);
  });

  it('an instance that stops mid-call: the client resumes on another and gets a typed error, not a hang', async () => {
    let lastCall: Instance | undefined;
    const { a, b, client, transport } = await cluster(() => (body, next) => {
      if (methodOf(body) === 'tools/call') lastCall = next;
      return undefined;
    }, 300);
    await client.connect(transport);
    const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { timeout: 15_000 });
    await expect.poll(() => a.ran.length + b.ran.length).toBe(1);
    const victim = lastCall as Instance;
    await victim.http.close();
    const error = await call.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32603);
    expect((error as McpError).data).toEqual({ reason: 'instance_lost' });
    // The session goes on on the instance left.
    const left = victim === a ? b : a;
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect((result.content as { text: string }[])[0]!.text).toBe(left.name);
  });

  it('a session is served on another instance only to the principal that opened it (404 for another)', async () => {
    const s = shared();
    const servers: http.Server[] = [];
    const urls: string[] = [];
    for (const name of ['a', 'b']) {
      const server = new McpServer({ name: 'cluster-test', version: '1.0.0' }, { capabilities: { tools: {} }, bus: s.notifications });
      server.tool('whoami', { description: 'the instance', inputSchema: { type: 'object' } }, () => text(name));
      const handler = createMcpHttpHandler({ server, sessionStore: s.sessionStore, eventStore: s.eventStore, cluster: { bus: s.bus, instanceId: name } });
      cleanup.push(() => handler.close());
      const listener = toNodeListener(handler);
      // What an authentication middleware in front would set (Node: req.auth), from a test header.
      const web = http.createServer((req, res) => {
        (req as { auth?: unknown }).auth = { token: 't', clientId: String(req.headers['x-test-client']), scopes: [] };
        void listener(req, res);
      });
      await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
      servers.push(web);
      urls.push(`http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`);
      cleanup.push(() => new Promise<void>((resolve) => {
        web.closeAllConnections();
        web.close(() => resolve());
      }));
    }
    const post = (url: string, client: string, body: unknown, session?: string) => fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-test-client': client, ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }) },
      body: JSON.stringify(body),
    });
    const init = await post(urls[0]!, 'alice', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const stranger = await post(urls[1]!, 'mallory', call, session);
    expect(stranger.status).toBe(404);
    await stranger.text();
    const owner = await post(urls[1]!, 'alice', call, session);
    expect(owner.status).toBe(200);
    expect(await owner.json()).toMatchObject({ id: 1, result: { content: [{ text: 'b' }] } });
  });
});
