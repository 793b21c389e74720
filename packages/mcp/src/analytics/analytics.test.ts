import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer } from '../server/mcpServer.js';
import { rateLimitMiddleware } from '../server/middleware/rateLimit.js';
import type { RequestFacts } from '../server/requestFacts.js';
import { connectRawClient } from '../testing/index.js';
import { createMcpHttpHandler } from '../transports/http/server/handler.js';
import { attachAnalytics, createAnalytics } from './analytics.js';
import { OTHER_KEY, type AnalyticsRow } from './dimension.js';

const MODERN = '2026-07-28';
const modernMeta = (client: string) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: client, version: '2.0.0' },
});
const legacyFacts = (client: string, subject: string | undefined): RequestFacts => ({
  protocolVersion: '2025-11-25',
  clientInfo: { name: client, version: '1.0.0' },
  clientCapabilities: {},
  serverCapabilities: undefined,
  logLevelRank: 0,
  ...(subject === undefined ? {} : { authInfo: { subject } }),
});

let nextId = 1;
const call = (name: string, meta?: Record<string, unknown>): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: { name, arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) },
});

function makeServer(): McpServer {
  const server = new McpServer({ name: 'analytics-test', version: '3.1.0' }, { logger: silentLogger });
  server.tool('ok', {}, () => ({ content: [{ type: 'text', text: 'fine' }] }));
  server.tool('flaky', {}, () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }));
  server.tool('crash', {}, () => {
    throw new Error('secret stack detail');
  });
  server.prompt('broken', {}, () => {
    throw new Error('secret prompt detail');
  });
  server.tool('slow', {}, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error))));
  return server;
}

const row = (rows: readonly AnalyticsRow[], key: string): AnalyticsRow | undefined => rows.find((r) => r.key === key);

describe('attachAnalytics: a scripted mix of calls, each in exactly one class', () => {
  it('counts per class, tool, client, user and revision, both eras, in process and over a connection', async () => {
    const server = makeServer();
    // First, so it sees what every later middleware refuses.
    const { analytics } = attachAnalytics(server, { serverVersion: '3.1.0' });
    // Refuse the 2nd call of user "carol": the rate limit's 429.
    server.use(rateLimitMiddleware({ requestsPerSecond: 0.001, burst: 1, key: (c) => ((c.authInfo as { subject?: string } | undefined)?.subject === 'carol' ? 'carol' : undefined) }));
    const alice = { facts: legacyFacts('cli-a', 'alice') };
    const bob = { facts: legacyFacts('cli-b', 'bob') };

    // Legacy era, no session (McpServer.handle with facts): alice and bob.
    expect((await server.handle(call('ok'), alice))).toMatchObject({ result: { content: [{ text: 'fine' }] } }); // ok
    await server.handle(call('ok'), bob); // ok
    await server.handle(call('flaky'), alice); // tool_error
    await server.handle(call('flaky'), bob); // tool_error
    expect(await server.handle(call('nope'), alice)).toMatchObject({ error: { code: -32602 } }); // protocol_error (unknown tool)
    expect(await server.handle(call('crash'), bob)).toMatchObject({ result: { isError: true } }); // tool_error (a crashed tool is an isError result)
    const prompt: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method: 'prompts/get', params: { name: 'broken' } };
    expect(await server.handle(prompt, bob)).toMatchObject({ error: { code: -32603, message: 'Internal error' } }); // protocol_error -32603
    // Rate limit: carol's first call passes, the second is refused.
    const carol = { facts: legacyFacts('cli-a', 'carol') };
    await server.handle(call('ok'), carol); // ok
    expect(await server.handle(call('ok'), carol)).toMatchObject({ error: { code: 429 } }); // refused

    // Modern era: its own envelope.
    await server.handle(call('ok', modernMeta('cli-b'))); // ok
    await server.handle(call('flaky', modernMeta('cli-b'))); // tool_error
    const unsupported = { ...modernMeta('cli-b'), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    expect(await server.handle(call('ok', unsupported))).toMatchObject({ error: { code: -32022 } }); // era_mismatch (inbound step)

    // Cancelled: the caller's signal aborts while the tool waits.
    const controller = new AbortController();
    const pending = server.handle(call('slow'), { ...alice, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await pending).toBeUndefined(); // cancelled

    // Over a connection (in-memory transport, a real session): ok, then transport (the client goes away mid-call).
    const raw = await connectRawClient(server);
    await raw.initialize();
    expect(await raw.request(100, 'tools/call', { name: 'ok', arguments: {} })).toMatchObject({ result: {} }); // ok
    await raw.send({ jsonrpc: '2.0', id: 101, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await raw.close(); // transport
    await new Promise((resolve) => setTimeout(resolve, 5));

    // Timeout: what only a client or transport sees, recorded through the seam.
    analytics.record({ outcome: { kind: 'timeout' }, method: 'tools/call', tool: 'slow', clientInfo: { name: 'cli-a', version: '1.0.0' }, user: 'alice' });
    // Refused before dispatch by the HTTP handler (a bad Origin): no method known.
    analytics.record({ outcome: { kind: 'refused', status: 403 } });

    const snap = analytics.snapshot();
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap); // plain JSON
    const toolCalls = snap.byMethod.find((r) => r.key === 'tools/call')!;
    expect(snap.total.classes).toEqual({ ok: 6, tool_error: 4, protocol_error: 2, refused: 2, era_mismatch: 1, timeout: 1, cancelled: 1, transport: 1 });
    expect(snap.total.count).toBe(18); // the session's initialize (ok) and prompts/get included
    expect(row(snap.byMethod, 'initialize')?.classes.ok).toBe(1);
    expect(toolCalls.count).toBe(15);
    expect(snap.total.codes).toEqual({ '-32602': 1, '-32603': 1, '429': 1, '-32022': 1 });

    expect(row(snap.byTool, 'ok')).toMatchObject({ count: 7, errors: 2, classes: { ok: 5, refused: 1, era_mismatch: 1 } });
    expect(row(snap.byTool, 'flaky')).toMatchObject({ count: 3, errors: 3, classes: { tool_error: 3 }, topMessages: [{ message: 'disk full', count: 3 }] });
    expect(row(snap.byTool, 'nope')).toMatchObject({ count: 1, classes: { protocol_error: 1 }, codes: { '-32602': 1 } });
    const crash = row(snap.byTool, 'crash')!;
    expect(crash.topMessages).toEqual([{ message: 'Tool "crash" failed: internal error', count: 1 }]); // the wire text
    expect(row(snap.byMethod, 'prompts/get')).toMatchObject({ count: 1, classes: { protocol_error: 1 }, codes: { '-32603': 1 } });
    expect(JSON.stringify(snap)).not.toContain('secret'); // never an exception's own text
    expect(row(snap.byTool, 'slow')).toMatchObject({ count: 3, classes: { cancelled: 1, transport: 1, timeout: 1 } });

    expect(row(snap.byClient, 'cli-a/1.0.0')).toMatchObject({ count: 7, classes: { ok: 2, tool_error: 1, protocol_error: 1, refused: 1, cancelled: 1, timeout: 1 } });
    expect(row(snap.byClient, 'cli-b/1.0.0')).toMatchObject({ count: 4, classes: { ok: 1, tool_error: 2, protocol_error: 1 } });
    expect(row(snap.byClient, 'cli-b/2.0.0')).toMatchObject({ count: 3, classes: { ok: 1, tool_error: 1, era_mismatch: 1 } });

    expect(row(snap.byUser, 'alice')).toMatchObject({ count: 5, classes: { ok: 1, tool_error: 1, protocol_error: 1, cancelled: 1, timeout: 1 } });
    expect(row(snap.byUser, 'bob')).toMatchObject({ count: 4, classes: { ok: 1, tool_error: 2, protocol_error: 1 } });
    expect(row(snap.byUser, 'carol')).toMatchObject({ count: 2, classes: { ok: 1, refused: 1 } });

    expect(row(snap.byRevision, MODERN)).toMatchObject({ count: 2 });
    expect(row(snap.byRevision, '2099-01-01')).toMatchObject({ count: 1, classes: { era_mismatch: 1 } });
    expect(row(snap.byServerVersion, '3.1.0')?.count).toBe(18);
    expect(snap.overTime.buckets.reduce((n, b) => n + Object.values(b.classes).reduce((a, v) => a + v, 0), 0)).toBe(18);
    expect(snap.total.latencyMs.p50).toBeGreaterThanOrEqual(0);
  });

  it('a legacy request a modern-only server does not serve is era_mismatch', async () => {
    const server = new McpServer({ name: 'modern-only', version: '1' }, { logger: silentLogger, revisions: [MODERN] });
    const { analytics } = attachAnalytics(server);
    const raw = await connectRawClient(server);
    const answer = await raw.request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
    await raw.close();
    expect(answer).toMatchObject({ error: {} });
    expect(analytics.snapshot().total.classes.era_mismatch).toBe(1);
  });
});

describe('attachAnalytics over Streamable HTTP (the web handler, in process)', () => {
  it('modern calls over HTTP: ok, tool_error, protocol_error, and the handler\'s own refusals (-32022, a bad Origin) through onRefused', async () => {
    const server = makeServer();
    const { analytics } = attachAnalytics(server);
    const handler = createMcpHttpHandler({ server, responseMode: 'json', onRefused: analytics.onHttpRefused });
    const post = async (name: string, revision = MODERN): Promise<unknown> => {
      const body = call(name, { ...modernMeta('http-client'), 'io.modelcontextprotocol/protocolVersion': revision });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision, 'mcp-method': 'tools/call', 'mcp-name': name };
      const res = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', body: JSON.stringify(body), headers }));
      return res.json();
    };
    try {
      expect(await post('ok')).toMatchObject({ result: {} });
      expect(await post('flaky')).toMatchObject({ result: { isError: true } });
      expect(await post('nope')).toMatchObject({ error: { code: -32602 } });
      expect(await post('ok', '2099-01-01')).toMatchObject({ error: { code: -32022 } }); // the handler's own refusal
      const bad = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', body: '{}', headers: { origin: 'http://evil.example', 'content-type': 'application/json' } }));
      expect(bad.status).toBe(403);
    } finally {
      await handler.close();
    }
    const snap = analytics.snapshot();
    expect(row(snap.byClient, 'http-client/2.0.0')?.classes).toEqual({ ok: 1, tool_error: 1, protocol_error: 1, refused: 0, era_mismatch: 0, timeout: 0, cancelled: 0, transport: 0 });
    // Turned away by the handler before dispatch: no client facts, counted by class and code.
    expect(snap.total.classes).toEqual({ ok: 1, tool_error: 1, protocol_error: 1, refused: 1, era_mismatch: 1, timeout: 0, cancelled: 0, transport: 0 });
    expect(snap.total.codes).toMatchObject({ '-32022': 1 });
  });
});

describe('onHttpRefused: what the HTTP handler turns away before dispatch (review-1 finding 7)', () => {
  const post = (handler: ReturnType<typeof createMcpHttpHandler>, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    handler.fetch(new Request('http://localhost/mcp', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }));

  it('a 400 refusal is refused whatever JSON-RPC code its body carries (its code kept); an unsupported MCP-Protocol-Version is era_mismatch', async () => {
    const server = makeServer();
    const { analytics } = attachAnalytics(server);
    const handler = createMcpHttpHandler({ server, responseMode: 'json', onRefused: analytics.onHttpRefused });
    try {
      // A legacy request without Mcp-Session-Id (MCP 2025-11-25 basic/transports.mdx "Session Management": 400).
      const noSession = await post(handler, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' });
      expect(noSession.status).toBe(400);
      const code = ((await noSession.json()) as { error: { code: number } }).error.code;
      const init = await post(handler, { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } } });
      const session = init.headers.get('mcp-session-id') ?? '';
      expect(session).not.toBe('');
      const oldHeader = await post(handler, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': session, 'mcp-protocol-version': '1999-01-01' });
      expect(oldHeader.status).toBe(400);
      const snap = analytics.snapshot();
      expect(snap.total.classes).toMatchObject({ refused: 1, era_mismatch: 1, protocol_error: 0 });
      expect(snap.total.codes).toMatchObject({ [String(code)]: 1 });
    } finally {
      await handler.close();
    }
  });

  it('a tools/call refused 403 insufficient_scope counts under its tool, with the user behind it', async () => {
    const server = makeServer();
    server.tool('admin_only', { scopes: ['admin'] }, () => ({ content: [{ type: 'text', text: 'done' }] }));
    const { analytics } = attachAnalytics(server);
    const verifier = { verify: () => ({ token: 't', clientId: 'client-1', subject: 'mallory', scopes: [], audience: ['http://localhost/mcp'] }) };
    const handler = createMcpHttpHandler({ server, responseMode: 'json', onRefused: analytics.onHttpRefused, auth: { resource: 'http://localhost/mcp', authorizationServers: ['https://as.example'], verifier } });
    try {
      const body = { ...call('admin_only', modernMeta('scoped-client')) };
      const refused = await post(handler, body, { authorization: 'Bearer t', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'admin_only' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope');
    } finally {
      await handler.close();
    }
    const snap = analytics.snapshot();
    expect(row(snap.byTool, 'admin_only')).toMatchObject({ count: 1, errors: 1, classes: { refused: 1 } });
    expect(row(snap.byTool, 'admin_only')?.failingUsers).toEqual([{ key: 'mallory', failures: 1 }]);
    expect(snap.recentFailures[0]).toMatchObject({ method: 'tools/call', tool: 'admin_only', class: 'refused', user: 'mallory' });
  });
});

describe('record: a trace id from the public API (review-1 finding 12)', () => {
  it('keeps a valid W3C trace id and drops anything else: a 100 KB id, upper case, all zeros, not a string', () => {
    const analytics = createAnalytics();
    const good = '4bf92f3577b34da6a3ce929d0e0e4736';
    for (const traceId of [good, 'f'.repeat(100_000), good.toUpperCase(), '0'.repeat(32), `${good}0`, 42 as unknown as string]) {
      analytics.record({ outcome: { kind: 'refused', status: 403 }, method: 'tools/call', traceId });
    }
    const snap = analytics.snapshot();
    expect(snap.recentFailures.map((f) => f.traceId)).toEqual([undefined, undefined, undefined, undefined, undefined, good]);
    expect(JSON.stringify(snap).length).toBeLessThan(10_000);
  });
});

describe('the store stays within its bound', () => {
  it('long wire messages are not kept behind their cuts: 200 failures of 1 MB each leave about 1 MB of heap', () => {
    // V8 makes a slice of a long string a view that keeps all of it alive; the store copies what it keeps (found by
    // this test: 101 MB kept before, by the top messages' keys).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const analytics = createAnalytics({ limits: { maxTools: 10 } });
    const before = used();
    for (let i = 0; i < 200; i++) {
      analytics.record({ outcome: { kind: 'result', isError: true }, method: 'tools/call', tool: `t${i % 10}`, message: `failure ${i} ${'x'.repeat(1_000_000)}` });
    }
    expect((used() - before) / 1e6).toBeLessThan(20);
    expect(analytics.snapshot().recentFailures[0]?.message).toHaveLength(200);
  });

  it('long keys from the wire (tool names, clients, users) are cut: 300 unknown tools of 100 KB names stay small in heap and JSON', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const analytics = createAnalytics();
    const before = used();
    for (let i = 0; i < 300; i++) {
      const long = `${i}-${'n'.repeat(100_000)}`;
      analytics.record({ outcome: { kind: 'error', code: -32602 }, method: 'tools/call', tool: long, clientInfo: { name: long, version: '1' }, user: long, message: 'Unknown tool' });
    }
    expect((used() - before) / 1e6).toBeLessThan(10);
    const snap = analytics.snapshot();
    expect(JSON.stringify(snap).length).toBeLessThan(1_000_000);
    expect(snap.byTool[0]!.key).toHaveLength(200);
    expect(snap.byTool[0]!.key.endsWith('…')).toBe(true);
    expect(snap.byUser[0]!.key).toHaveLength(200);
    expect(snap.recentFailures[0]!.client).toHaveLength(200);
  });

  it('200,000 calls over 10,000 distinct tools and users keep at most cap + 1 rows per dimension', () => {
    let clock = 0;
    const analytics = createAnalytics({ now: () => clock, limits: { maxTools: 100, maxUsers: 100, maxClients: 10 } });
    const store = analytics.store;
    const outcomes = [{ kind: 'result' }, { kind: 'result', isError: true }, { kind: 'error', code: -32602 }, { kind: 'timeout' }] as const;
    for (let i = 0; i < 200_000; i++) {
      clock += 0.01;
      analytics.record({
        outcome: outcomes[i % 4]!,
        method: 'tools/call',
        tool: `tool-${i % 10_000}`,
        user: `user-${(i * 7) % 10_000}`,
        clientInfo: { name: `client-${i % 50}`, version: '1' },
        message: `failure number ${i} ${'x'.repeat(500)}`,
        durationMs: (i % 1000) / 10,
      });
    }
    expect(store.sizes).toMatchObject({ tools: 101, users: 101, clients: 11 });
    const snap = analytics.snapshot();
    expect(snap.total.count).toBe(200_000);
    expect(row(snap.byTool, OTHER_KEY)!.count).toBe(200_000 - 100 * 20);
    expect(snap.byTool.every((r) => (r.topMessages?.length ?? 0) <= 10 && r.topMessages!.every((m) => m.message.length <= 200))).toBe(true);
    expect(snap.byTool.every((r) => r.failingClients!.length <= 10 && r.failingUsers!.length <= 10)).toBe(true);
    expect(row(snap.byTool, OTHER_KEY)!.failingUsers).toHaveLength(10);
    expect(row(snap.byTool, OTHER_KEY)!.otherFailingUsers).toBeGreaterThan(0);
    expect(store.recorded).toBe(200_000);
    expect(snap.recentFailures).toHaveLength(50);
    expect(snap.recentFailures.every((f) => (f.message?.length ?? 0) <= 200)).toBe(true);
    // Latency: uniform 0 … 99.9 ms; p50 ≈ 50 ms within the documented 4.4 % (plus one step of the data).
    expect(Math.abs(snap.total.latencyMs.p50! - 50) / 50).toBeLessThan(0.05);
    expect(Math.abs(snap.total.latencyMs.p99! - 99) / 99).toBeLessThan(0.05);
    expect(JSON.stringify(snap).length).toBeLessThan(1_000_000);
  });
});

describe('who is behind a tool\'s failures, and what only another seam knows', () => {
  it('per tool: the clients and users of its failed calls (never of its ok ones), most failures first', () => {
    const analytics = createAnalytics();
    const rec = (outcome: { kind: 'result'; isError?: boolean } | { kind: 'timeout' }, client: string, user?: string): void =>
      analytics.record({ outcome, method: 'tools/call', tool: 'search', clientInfo: { name: client, version: '1' }, ...(user === undefined ? {} : { user }) });
    rec({ kind: 'result' }, 'happy', 'zoe'); // ok: not behind a failure
    for (let i = 0; i < 3; i++) rec({ kind: 'result', isError: true }, 'claude', 'alice');
    rec({ kind: 'timeout' }, 'cursor', 'bob');
    rec({ kind: 'result', isError: true }, 'cursor'); // no user: counted for its client only
    expect(analytics.store.recorded).toBe(6);
    const search = row(analytics.snapshot().byTool, 'search')!;
    expect(search.failingClients).toEqual([{ key: 'claude/1', failures: 3 }, { key: 'cursor/1', failures: 2 }]);
    expect(search.failingUsers).toEqual([{ key: 'alice', failures: 3 }, { key: 'bob', failures: 1 }]);
    expect(search).toMatchObject({ otherFailingClients: 0, otherFailingUsers: 0 });
  });

  it('endedAs: facts another seam knows win over the answer\'s; the wire message stays; a throwing endedAs is ignored', async () => {
    const server = makeServer();
    let facts: ((name: string | undefined) => unknown) = () => undefined;
    const { analytics } = attachAnalytics(server, { endedAs: (c) => facts(c.name) as never });
    facts = (name) => (name === 'flaky' ? { kind: 'client', code: 'request_timeout' } : name === 'crash' ? { kind: 'local', code: 'connection_closed' } : undefined);
    await server.handle(call('flaky'));
    await server.handle(call('crash'));
    await server.handle(call('ok'));
    facts = () => {
      throw new Error('broken seam');
    };
    await server.handle(call('flaky'));
    const snap = analytics.snapshot();
    expect(row(snap.byTool, 'flaky')).toMatchObject({ classes: { timeout: 1, tool_error: 1 }, topMessages: [{ message: 'disk full', count: 2 }] });
    expect(row(snap.byTool, 'crash')?.classes.transport).toBe(1);
    expect(row(snap.byTool, 'ok')?.classes.ok).toBe(1);
  });
});

describe('the live tail of failures', () => {
  it('keeps the latest failures newest first, in a ring of recentFailures, with the trace id the request carried', async () => {
    let wall = Date.parse('2026-12-02T10:00:00Z');
    const server = makeServer();
    const { analytics } = attachAnalytics(server, { limits: { recentFailures: 3 }, wallClock: () => wall });
    const traceId = (n: number) => String(n).padStart(32, 'a');
    const traceparent = (n: number) => `00-${traceId(n)}-00f067aa0ba902b7-01`;
    const traced = (name: string, n: number): JsonRpcRequest => ({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: {}, _meta: { traceparent: traceparent(n) } } });
    await server.handle(traced('ok', 1)); // ok: not in the tail
    for (const [i, name] of ['flaky', 'nope', 'flaky', 'crash'].entries()) {
      wall += 1000;
      await server.handle(i === 1 ? { ...traced(name, 2), params: { name, arguments: {}, _meta: { traceparent: 'garbage' } } } : traced(name, i + 2));
    }
    const tail = analytics.snapshot().recentFailures;
    expect(tail.map((f) => [f.tool, f.class, f.code, f.message, f.traceId, f.at])).toEqual([
      ['crash', 'tool_error', undefined, 'Tool "crash" failed: internal error', traceId(5), '2026-12-02T10:00:04.000Z'],
      ['flaky', 'tool_error', undefined, 'disk full', traceId(4), '2026-12-02T10:00:03.000Z'],
      ['nope', 'protocol_error', -32602, expect.stringContaining('nope'), undefined, '2026-12-02T10:00:02.000Z'], // a malformed traceparent is not kept
    ]);
    expect(tail[0]!.method).toBe('tools/call');
    expect(tail[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });
});
