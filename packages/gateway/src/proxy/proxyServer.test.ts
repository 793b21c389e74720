/**
 * The proxy in process: a session-based-only upstream `McpServer` reached in memory, the front driven with
 * `McpServer.handle` (2026-07-28 requests, no session) and `connectRawClient` (a 2025-11-25 session). What the
 * end-to-end tests (test/gateway-everything.test.ts, scripts/conformance-bridge.mjs) cannot pin down cheaply: the
 * held upstream request across a 2026-07-28 client's rounds, its bounds (count, time) and its settlement, the
 * mirror's re-sync on list changes, subscriptions counted upstream, and tool definitions listed verbatim.
 */
import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer, type RequestContext } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import type { ProtocolRevision } from '@switchboard/mcp';
import { createProxyServer } from '../index.js';

const MODERN = '2026-07-28';
const LEGACY_ONLY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const ELICITING = { elicitation: {} };
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const answered = new Set<string>();

/** A response as the assertions read it (either member may be there). */
type Answer = { readonly result?: any; readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown } } | undefined;
const ask = async (front: McpServer, message: JsonRpcRequest): Promise<Answer> => (await front.handle(message));

let ids = 0;
function modernCall(name: string, extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = ELICITING): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id: ++ids,
    method: 'tools/call',
    params: {
      name,
      arguments: {},
      ...extra,
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } },
    },
  };
}

/** A session-based-only upstream: `ask` elicits a name (live, on its session), `echo` answers at once. */
function upstreamServer(seen: { outcome?: string } = {}, revisions: readonly ProtocolRevision[] = LEGACY_ONLY) {
  const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...revisions], logger: silent });
  upstream.tool('echo', { title: 'Echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 3 } } }, annotations: { readOnlyHint: true }, _meta: { 'x/y': 1 } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args.text) }] }));
  upstream.tool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx: RequestContext) => {
    try {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
      seen.outcome = `answered ${JSON.stringify(answer)}`;
      return { content: [{ type: 'text', text: `hello ${String((answer.content as { name?: string } | undefined)?.name)}` }] };
    } catch (error) {
      seen.outcome = `failed ${(error as Error).message}`;
      throw error;
    }
  });
  return upstream;
}

describe('createProxyServer (in memory)', () => {
  it('lists the upstream tool as listed (schemas, annotations, _meta) and does not validate its arguments itself', async () => {
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer()), server: { logger: silent } });
    try {
      const listed = (await ask(front, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: modernCall('x').params }))?.result as { tools: unknown[] };
      expect(listed.tools).toContainEqual({ name: 'echo', title: 'Echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 3 } } }, annotations: { readOnlyHint: true }, _meta: { 'x/y': 1 } });
      // "ab" breaks minLength: the upstream's own validation answers (isError result on 2025-11-25), not the front's.
      const answer = await ask(front, modernCall('echo', { arguments: { text: 'ab' } }));
      expect(answer?.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('Invalid arguments') }] });
    } finally {
      await front.close();
    }
  });

  it('a 2026-07-28 client answers the upstream\'s live elicitation across input_required rounds; the held request settles', async () => {
    const seen: { outcome?: string } = {};
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen)), server: { logger: silent } });
    try {
      const first = (await ask(front, modernCall('ask')))?.result as { resultType: string; inputRequests: Record<string, { method: string; params: unknown }>; requestState: string };
      expect(first.resultType).toBe('input_required');
      expect(first.inputRequests).toEqual({ 'upstream-0': { method: 'elicitation/create', params: expect.objectContaining({ message: 'Name?' }) } });
      expect(front.stats.held).toBe(1);
      const retry = await ask(front, modernCall('ask', { inputResponses: { 'upstream-0': { action: 'accept', content: { name: 'Ada' } } }, requestState: first.requestState }));
      expect(retry?.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hello Ada' }] });
      expect(seen.outcome).toBe('answered {"action":"accept","content":{"name":"Ada"}}');
      expect(front.stats).toEqual({ inFlight: 0, held: 0, upstreamSubscriptions: 0, upstreamTasks: 0, callerSessions: 0 });
      // The state was redeemed: a replay is refused by the front.
      const replay = await ask(front, modernCall('ask', { inputResponses: { 'upstream-0': { action: 'accept', content: { name: 'Eve' } } }, requestState: first.requestState }));
      expect(replay?.error?.code).toBe(-32602);
    } finally {
      await front.close();
    }
  });

  it('a held request expires after holdTimeoutMs: the upstream question fails, the upstream call ends, the retry is told to start again', async () => {
    const seen: { outcome?: string } = {};
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen)), server: { logger: silent }, holdTimeoutMs: 50 });
    try {
      const first = (await ask(front, modernCall('ask')))?.result as { requestState: string };
      expect(front.stats.held).toBe(1);
      for (let i = 0; i < 100 && seen.outcome === undefined; i++) await sleep(10);
      expect(seen.outcome).toMatch(/^failed /);
      expect(front.stats.held).toBe(0);
      const late = await ask(front, modernCall('ask', { inputResponses: { 'upstream-0': { action: 'accept', content: { name: 'Ada' } } }, requestState: first.requestState }));
      expect(late?.error).toMatchObject({ code: -32602, message: expect.stringContaining('has expired; send the request again') });
    } finally {
      await front.close();
    }
  });

  it('held requests are bounded in count: past maxHeldRequests the request fails and its upstream call is cancelled', async () => {
    const seen: { outcome?: string } = {};
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen)), server: { logger: silent }, maxHeldRequests: 1 });
    try {
      expect((await ask(front, modernCall('ask')))?.result).toMatchObject({ resultType: 'input_required' });
      const second = await ask(front, modernCall('ask'));
      expect(second?.error?.code).toBe(-32603);
      expect(front.stats.held).toBe(1);
    } finally {
      await front.close();
    }
    expect(front.stats.held).toBe(0);
  });

  it('a 2026-07-28 client without the elicitation capability gets -32021, and the upstream call is ended', async () => {
    const seen: { outcome?: string } = {};
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen)), server: { logger: silent } });
    try {
      const answer = await ask(front, modernCall('ask', {}, {}));
      expect(answer?.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
      for (let i = 0; i < 100 && seen.outcome === undefined; i++) await sleep(10);
      expect(seen.outcome).toMatch(/^failed /);
      expect(front.stats).toMatchObject({ inFlight: 0, held: 0 });
    } finally {
      await front.close();
    }
  });

  it('questions never cross callers: with several callers\' requests in flight on the upstream session, a question is refused, not guessed', async () => {
    // Each call's upstream handler asks a question naming its own tag; nothing on the wire says which request asked.
    const outcomes: string[] = [];
    const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...LEGACY_ONLY], logger: silent });
    upstream.tool('asktag', { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } }, async (args: Record<string, unknown>, ctx: RequestContext) => {
      const answer = await ctx.elicit({ message: `question of ${String(args.tag)}`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }).catch((error: Error) => {
        outcomes.push(`${String(args.tag)} refused: ${error.message}`);
        throw error;
      });
      return { content: [{ type: 'text', text: `${String(args.tag)} got ${JSON.stringify(answer.content)}` }] };
    });
    const warnings: string[] = [];
    const logger = { ...silent, warn: (message: string) => void warnings.push(message) };
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent }, logger });
    try {
      // Three anonymous 2026-07-28 clients at once: three callers.
      const answers = await Promise.all(['a', 'b', 'c'].map((tag) => ask(front, modernCall('asktag', { arguments: { tag } }))));
      answers.forEach((answer, i) => {
        const tag = ['a', 'b', 'c'][i] as string;
        // Whatever a caller got, it never holds another caller's question.
        for (const other of ['a', 'b', 'c'].filter((t) => t !== tag)) expect(JSON.stringify(answer)).not.toContain(`question of ${other}`);
      });
      expect(outcomes.length).toBeGreaterThan(0);
      for (const outcome of outcomes) expect(outcome).toMatch(/refused: .*cannot tell which of its callers' requests/);
      expect(warnings.some((w) => w.includes('an upstream question was refused'))).toBe(true);
      expect(front.stats).toMatchObject({ inFlight: 0 });
    } finally {
      await front.close();
    }
  });

  it('a request cancelled on the front still counts as its caller\'s for a while: its late question is refused, not shown to another caller', async () => {
    let go: () => void = () => {};
    const released = new Promise<void>((resolve) => (go = resolve));
    const outcomes: string[] = [];
    const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...LEGACY_ONLY], logger: silent });
    // `late` ignores its cancellation and asks anyway, on its session (not tied to its request, as a server whose
    // handler does not follow its signal does); `wait` just keeps a request of another caller in flight.
    upstream.tool('late', { inputSchema: { type: 'object' } }, async (_args, ctx: RequestContext) => {
      await released;
      const answer = await (ctx.session as NonNullable<RequestContext['session']>).request<{ action: string }>('elicitation/create', { message: 'question of late', requestedSchema: { type: 'object', properties: {} } }).then(
        (a) => `answered ${a.action}`,
        (error: Error) => `refused: ${error.message}`,
      );
      outcomes.push(answer);
      return { content: [{ type: 'text', text: answer }] };
    });
    upstream.tool('wait', { inputSchema: { type: 'object' } }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { content: [{ type: 'text', text: 'waited' }] };
    });
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent }, logger: silent });
    const x = await connectRawClient(front);
    const y = await connectRawClient(front);
    try {
      await x.initialize({ capabilities: { elicitation: {} } });
      await y.initialize({ capabilities: { elicitation: {} } });
      void x.request(1, 'tools/call', { name: 'late', arguments: {} }).catch(() => undefined); // cancelled: never answered
      await sleep(20);
      await x.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
      await sleep(20);
      const waiting = y.request(1, 'tools/call', { name: 'wait', arguments: {} });
      await sleep(20);
      go();
      for (let i = 0; i < 100 && outcomes.length === 0; i++) await sleep(5);
      expect(outcomes).toEqual([expect.stringMatching(/^refused: .*cannot tell which of its callers' requests/)]);
      expect(((await waiting) as Answer)?.result).toMatchObject({ content: [{ text: 'waited' }] });
      expect(y.received.some((m) => 'method' in m && m.method === 'elicitation/create')).toBe(false);
    } finally {
      await x.close();
      await y.close();
      await front.close();
    }
  });

  it('an authenticated 2026-07-28 request whose upstream request timed out counts as its caller\'s too: its late question is not shown to another caller', async () => {
    let go: () => void = () => {};
    const released = new Promise<void>((resolve) => (go = resolve));
    const outcomes: string[] = [];
    const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: ['2025-11-25'], logger: silent });
    upstream.tool('late', { inputSchema: { type: 'object' } }, async (_args, ctx: RequestContext) => {
      await released; // ignores its cancellation, then asks on its session (untagged: in-memory, like stdio)
      const answer = await (ctx.session as NonNullable<RequestContext['session']>)
        .request<{ action: string }>('elicitation/create', { message: 'question of late (alice)', requestedSchema: { type: 'object', properties: {} } })
        .then((a) => `answered ${a.action}`, (error: Error) => `refused: ${error.message}`);
      outcomes.push(answer);
      return { content: [{ type: 'text', text: answer }] };
    });
    upstream.tool('wait', { inputSchema: { type: 'object' } }, async () => {
      await sleep(400);
      return { content: [{ type: 'text', text: 'waited' }] };
    });
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent }, logger: silent, client: { timeoutMs: 100 } });
    const bob = await connectRawClient(front);
    try {
      await bob.initialize({ capabilities: { elicitation: {} } });
      // alice: an authenticated 2026-07-28 caller; her upstream request times out after 100 ms.
      const alice = await front.handle(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'late',
            arguments: {},
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 'alice', version: '1' } },
          },
        },
        { extra: { authInfo: { subject: 'alice', clientId: 'a', issuer: 'https://issuer.example' } } },
      );
      expect(JSON.stringify(alice)).toMatch(/time|timed out/i);
      const waiting = bob.request(1, 'tools/call', { name: 'wait', arguments: {} });
      await sleep(30);
      go();
      for (let i = 0; i < 100 && outcomes.length === 0; i++) await sleep(5);
      // bob must never be shown alice's question.
      expect(bob.received.some((m) => 'method' in m && m.method === 'elicitation/create')).toBe(false);
      expect(outcomes).toEqual([expect.stringMatching(/^refused: /)]);
      await waiting;
    } finally {
      await bob.close();
      await front.close();
    }
  });
  it('one caller\'s concurrent requests still get their questions (a 2025-11-25 session asking twice at once)', async () => {
    const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...LEGACY_ONLY], logger: silent });
    upstream.tool('asktag', { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } }, async (args: Record<string, unknown>, ctx: RequestContext) => {
      const answer = await ctx.elicit({ message: `question of ${String(args.tag)}`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return { content: [{ type: 'text', text: `${String(args.tag)} got ${String((answer.content as { name?: string } | undefined)?.name)}` }] };
    });
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      await client.initialize({ capabilities: { elicitation: {} } });
      const calls = [client.request(20, 'tools/call', { name: 'asktag', arguments: { tag: 'x' } }), client.request(21, 'tools/call', { name: 'asktag', arguments: { tag: 'y' } })];
      for (let i = 0; i < 2; i++) {
        const question = (await client.waitFor((m) => 'method' in m && m.method === 'elicitation/create' && !answered.has(String((m as JsonRpcRequest).id)))) as JsonRpcRequest;
        answered.add(String(question.id));
        // The same client answers each question with the tag it names: each call gets its own answer back.
        const tag = /question of (\w)/.exec(String((question.params as { message?: string }).message))?.[1];
        await client.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: `answer-${String(tag)}` } } });
      }
      const results = (await Promise.all(calls)) as Answer[];
      expect(results.map((r) => r?.result?.content?.[0]?.text)).toEqual(['x got answer-x', 'y got answer-y']);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('a 2025-11-25 session: the upstream elicitation is a live request to that session; list changes are re-synced', async () => {
    const upstream = upstreamServer();
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      await client.initialize({ capabilities: { elicitation: {} } });
      const call = client.request(10, 'tools/call', { name: 'ask', arguments: {} });
      const question = (await client.waitFor((m) => 'method' in m && m.method === 'elicitation/create')) as JsonRpcRequest;
      await client.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Bo' } } });
      expect(((await call) as Answer)?.result).toMatchObject({ content: [{ type: 'text', text: 'hello Bo' }] });
      upstream.tool('added', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'new' }] }));
      await client.waitFor((m) => 'method' in m && m.method === 'notifications/tools/list_changed');
      const listed = ((await client.request(11, 'tools/list', {})) as Answer)?.result as { tools: Array<{ name: string }> };
      expect(listed.tools.map((t) => t.name)).toContain('added');
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('resource subscriptions: the first front subscriber subscribes upstream, updates reach it, the last to leave unsubscribes', async () => {
    const upstream = upstreamServer();
    upstream.resource('demo://doc', { name: 'doc' }, (uri) => ({ contents: [{ uri, text: 'v1' }] }));
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      await client.initialize();
      expect(((await client.request(20, 'resources/read', { uri: 'demo://doc' })) as Answer)?.result).toMatchObject({ contents: [{ uri: 'demo://doc', text: 'v1' }] });
      await client.request(21, 'resources/subscribe', { uri: 'demo://doc' });
      expect(front.stats.upstreamSubscriptions).toBe(1);
      for (let i = 0; i < 50 && upstream.sessions.size === 0; i++) await sleep(5);
      await sleep(20);
      await upstream.notifyResourceUpdated('demo://doc');
      await client.waitFor((m) => 'method' in m && m.method === 'notifications/resources/updated');
      await client.request(22, 'resources/unsubscribe', { uri: 'demo://doc' });
      expect(front.stats.upstreamSubscriptions).toBe(0);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('a 2025-11-25 session reaches a 2026-07-28-only upstream: its input_required rounds become a live elicitation', async () => {
    const seen: { outcome?: string } = {};
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen, [MODERN])), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      expect(front.upstream.era).toBe('modern');
      await client.initialize({ capabilities: { elicitation: {} } });
      const call = client.request(30, 'tools/call', { name: 'ask', arguments: {} });
      const question = (await client.waitFor((m) => 'method' in m && m.method === 'elicitation/create')) as JsonRpcRequest;
      await client.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Lin' } } });
      expect(((await call) as Answer)?.result).toEqual({ content: [{ type: 'text', text: 'hello Lin' }] });
      expect(seen.outcome).toBe('answered {"action":"accept","content":{"name":"Lin"}}');
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('upstreamCapabilities: the upstream session declares what the option says (by default, every question the proxy carries)', async () => {
    const declared = (capabilities?: Record<string, unknown>) => {
      const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...LEGACY_ONLY], logger: silent });
      upstream.tool('caps', { inputSchema: { type: 'object' } }, (_args, ctx: RequestContext) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.clientCapabilities) }] }));
      return createProxyServer({ upstream: inMemoryConnector(upstream), server: { logger: silent }, ...(capabilities === undefined ? {} : { upstreamCapabilities: capabilities }) });
    };
    for (const [option, expected] of [[undefined, { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } }], [{ roots: {} }, { roots: {} }]] as const) {
      const front = await declared(option);
      try {
        const answer = await ask(front, modernCall('caps'));
        expect(JSON.parse((answer?.result as { content: { text: string }[] }).content[0]?.text ?? '')).toEqual(expected);
      } finally {
        await front.close();
      }
    }
  });
});
