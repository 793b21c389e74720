/**
 * createGateway over in-memory upstreams (real McpServers, real McpClients, in memory): the namespaced catalog
 * and the tool rules through the front, an upstream that never answers left out without holding the others, an
 * upstream that dies and comes back (reconnected with backoff, a list change on the front each way), an upstream's
 * own list change reaching the front, and a config update that keeps unchanged upstreams connected.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '@switchboard/jsonrpc';
import { McpClient, type ClientConnector } from '@switchboard/mcp/client';
import { McpError, McpErrorCode } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createGateway, type Gateway } from './gateway.js';
import type { UpstreamHealth } from './fanout/upstream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger that keeps its lines. */
function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields?: unknown) => {
    lines.push(`${level} ${message}${fields === undefined ? '' : ` ${JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`}`);
  };
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** An upstream server with an `echo` tool (it answers its arguments) and the given extra tools. */
function upstreamServer(name: string, tools: readonly string[] = []): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { logger: recordingLogger() });
  server.tool('echo', { description: `echo of ${name}`, inputSchema: { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string' } }, required: ['text', 'token'] } }, (args) => ({
    content: [{ type: 'text', text: JSON.stringify({ from: name, args }) }],
  }));
  for (const tool of tools) server.tool(tool, {}, () => ({ content: [{ type: 'text', text: `${name}.${tool}` }] }));
  server.resource(`memo://${name}/readme`, { name: 'readme', mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri, text: `readme of ${name}` }] }));
  server.prompt('greet', { description: 'a greeting' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: `hello from ${name}` } }] }));
  return server;
}

/** A connector whose channel never opens (until its open is aborted). */
function hungConnector(): ClientConnector {
  return {
    kind: 'stdio',
    verdictKey: 'memory:hung',
    open: (options) =>
      new Promise((_resolve, reject) => {
        options.signal?.addEventListener('abort', () => reject(new Error('open aborted')), { once: true });
      }),
  };
}

let gateway: Gateway | undefined;
let front: McpClient | undefined;
afterEach(async () => {
  await front?.close();
  await gateway?.close();
  front = undefined;
  gateway = undefined;
});

/** A host of the front: a session (legacy era) gets list changes as notifications; a modern one listens. */
async function frontClient(g: Gateway, onToolsChanged?: () => void, era: 'legacy' | 'modern' = 'legacy'): Promise<McpClient> {
  const client = await McpClient.connect({ connector: inMemoryConnector(g.server), era, logger: recordingLogger(), notifications: { ...(onToolsChanged === undefined ? {} : { toolsListChanged: onToolsChanged }) } });
  front = client;
  if (era === 'modern' && onToolsChanged !== undefined) {
    const subscription = await client.listen({ toolsListChanged: true });
    subscription.on((n) => {
      if (n.method === 'notifications/tools/list_changed') onToolsChanged();
    });
  }
  return client;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('createGateway', () => {
  it('serves every upstream under its namespace, with allow/deny, renames and hidden fixed arguments', async () => {
    const logger = recordingLogger();
    gateway = createGateway({
      logger,
      healthCheckIntervalMs: 0,
      upstreams: {
        files: { connector: inMemoryConnector(upstreamServer('files', ['read', 'write', 'delete'])), tools: { deny: ['delete'], rename: { read: 'cat' }, fixedArguments: { echo: { token: 'secret' } } } },
        web: { connector: inMemoryConnector(upstreamServer('web', ['fetch', 'post'])), prefix: 'w', tools: { allow: ['f*', 'echo'] } },
      },
    });
    await gateway.settled();
    const client = await frontClient(gateway);
    const tools = await client.listAllTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['files_cat', 'files_echo', 'files_write', 'w_echo', 'w_fetch']);
    const echo = tools.find((t) => t.name === 'files_echo');
    // The fixed argument is neither listed nor required.
    expect(Object.keys(echo?.inputSchema.properties as object)).toEqual(['text']);
    expect(echo?.inputSchema.required).toEqual(['text']);
    const result = await client.callTool({ name: 'files_echo', arguments: { text: 'hi' } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ from: 'files', args: { text: 'hi', token: 'secret' } });
    expect((await client.callTool({ name: 'files_cat' })).content).toEqual([{ type: 'text', text: 'files.read' }]);
    // A denied tool is not callable through the front either.
    await expect(client.callTool({ name: 'files_delete' })).rejects.toMatchObject({ code: -32602 });
    const prompts = await client.listAllPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['files_greet', 'w_greet']);
    expect((await client.getPrompt({ name: 'w_greet' })).messages[0]?.content).toEqual({ type: 'text', text: 'hello from web' });
    // A mounted upstream's resources are namespaced in their scheme; a forwarded one's keep their URI.
    const resources = (await client.listAllResources()).map((r) => r.uri).sort();
    expect(resources).toEqual(['memo://files/readme', 'w+memo://web/readme']);
    expect((await client.readResource({ uri: 'w+memo://web/readme' })).contents[0]).toMatchObject({ text: 'readme of web' });
    expect((await client.readResource({ uri: 'memo://files/readme' })).contents[0]).toMatchObject({ text: 'readme of files' });
    expect(gateway.health().map((h) => [h.name, h.state, h.tools])).toEqual([['files', 'ready', 4], ['web', 'ready', 3]]);
    // The forwarded upstream is in the catalog; the mounted one is served by its proxy.
    expect([...gateway.catalog().tools.keys()].sort()).toEqual(['files_cat', 'files_echo', 'files_write']);
    expect(gateway.mounted()).toEqual(['web']);
  });

  it('leaves out an upstream that never answers, without waiting for it, and names it', async () => {
    const logger = recordingLogger();
    const changes: UpstreamHealth[] = [];
    gateway = createGateway({
      logger,
      healthCheckIntervalMs: 0,
      backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      onHealth: (health) => changes.push(health),
      upstreams: {
        good: { connector: inMemoryConnector(upstreamServer('good')) },
        dead: { connector: hungConnector(), connectTimeoutMs: 1_500 },
      },
    });
    const client = await frontClient(gateway);
    await until('the good upstream', async () => (await client.listAllTools()).some((t) => t.name === 'good_echo'));
    // The dead upstream is still within its deadline: it held nothing.
    expect(gateway.health().find((h) => h.name === 'dead')?.state).toBe('connecting');
    await gateway.settled();
    const dead = gateway.health().find((h) => h.name === 'dead');
    expect(dead).toMatchObject({ state: 'down', failures: 1, lastError: 'No answer within 1500 ms (connect and list)' });
    expect(dead?.nextAttemptAt).toBeGreaterThan(Date.now());
    expect(logger.lines.some((line) => line.startsWith('warn Upstream "dead" is down: No answer within 1500 ms'))).toBe(true);
    expect(changes.filter((h) => h.name === 'dead').map((h) => h.state)).toEqual(['connecting', 'down']);
  });

  it('drops an upstream that dies, reconnects it with backoff, and tells the front both times', async () => {
    const logger = recordingLogger();
    const inner = inMemoryConnector(upstreamServer('flaky', ['ping_me']));
    let refusals = 0;
    let down = false;
    // While `down`, opening fails as a server that is not there would.
    const connector: ClientConnector = {
      kind: inner.kind,
      verdictKey: inner.verdictKey,
      open: async (options) => {
        if (down) {
          refusals++;
          throw new Error('connect ECONNREFUSED');
        }
        return inner.open(options);
      },
    };
    gateway = createGateway({ logger, healthCheckIntervalMs: 0, backoff: { initialDelayMs: 20, maxDelayMs: 80, jitter: 0 }, upstreams: { flaky: { connector }, steady: { connector: inMemoryConnector(upstreamServer('steady')) } } });
    await gateway.settled();
    let listChanged = 0;
    const client = await frontClient(gateway, () => listChanged++);
    expect((await client.listAllTools()).map((t) => t.name)).toContain('flaky_ping_me');

    down = true;
    await inner.drop({ reason: 'the server went away' });
    await until('the dead upstream to leave the front', async () => !(await client.listAllTools()).some((t) => t.name.startsWith('flaky_')));
    await until('a list change on the front', () => listChanged >= 1);
    expect(gateway.health().find((h) => h.name === 'flaky')?.lastError).toContain('The connection ended (the server went away)');
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['steady_echo']);
    await until('three refused attempts', () => refusals >= 3);
    const health = gateway.health().find((h) => h.name === 'flaky');
    expect(health?.failures).toBeGreaterThanOrEqual(3);
    expect(health?.lastError).toBe('connect ECONNREFUSED');

    const before = listChanged;
    down = false;
    await until('the upstream to come back', async () => (await client.listAllTools()).some((t) => t.name === 'flaky_ping_me'), 2_000);
    await until('a second list change on the front', () => listChanged > before);
    expect(gateway.health().find((h) => h.name === 'flaky')).toMatchObject({ state: 'ready', failures: 0 });
    expect((await client.callTool({ name: 'flaky_ping_me' })).content).toEqual([{ type: 'text', text: 'flaky.ping_me' }]);
    // The delays grew and stayed under the cap: 20, 40, 80, 80 … ms (jitter 0).
    const delays = logger.lines.filter((l) => l.includes('Upstream "flaky" is down')).map((l) => Number(/"retryInMs":(\d+)/.exec(l)?.[1]));
    expect(delays.slice(0, 4)).toEqual([20, 40, 80, 80].slice(0, Math.min(4, delays.length)));
  });

  it('a call cut short by its upstream dying: a tool error naming the upstream, none of its stderr, command or address', async () => {
    const server = upstreamServer('stdio-like');
    let started: () => void = () => undefined;
    let running: Promise<void>;
    server.tool('slow', {}, async (_args, ctx) => {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return { content: [] };
    });
    const mounted = inMemoryConnector(server);
    const forwarded = inMemoryConnector(server);
    gateway = createGateway({
      logger: recordingLogger(),
      healthCheckIntervalMs: 0,
      backoff: { initialDelayMs: 10_000, maxDelayMs: 10_000, jitter: 0 },
      // A rename makes the second upstream forwarded (fanout/front.ts) rather than mounted (a proxy server).
      upstreams: { mnt: { connector: mounted }, fwd: { connector: forwarded, tools: { rename: { echo: 'say' } } } },
    });
    await gateway.settled();
    const client = await frontClient(gateway);
    const cases = [
      { connector: mounted, tool: 'mnt_slow', text: 'The upstream server is unavailable: its connection ended' },
      { connector: forwarded, tool: 'fwd_slow', text: 'Upstream "fwd" is unavailable: its connection ended' },
    ];
    for (const { connector, tool, text } of cases) {
      running = new Promise<void>((resolve) => (started = resolve));
      const call = client.callTool({ name: tool });
      await running;
      await connector.drop({ reason: 'stdout closed', exitCode: 1, stderrTail: ['Error: ECONNREFUSED postgres://admin:hunter2@10.0.0.7/db'] });
      const result = await call;
      expect(result.isError, tool).toBe(true);
      expect(result.content, tool).toEqual([{ type: 'text', text }]);
    }
    // The operator's view, the health, says how each ended.
    await until('both upstreams down', () => gateway?.health().every((h) => h.state === 'down') === true);
    expect(gateway.health().map((h) => h.lastError)).toEqual(['The connection ended (stdout closed, exit code 1)', 'The connection ended (stdout closed, exit code 1)']);
  });

  it("an upstream's -32603 reaches the caller without its text, mounted or forwarded: tools, prompts, resources, completions", async () => {
    const secret = 'Internal error: postgres://admin:hunter2@10.0.0.7/db refused';
    const leaky = (): McpServer => {
      const server = upstreamServer('leaky');
      const fail = (): never => {
        throw new McpError(McpErrorCode.InternalError, secret, { dsn: 'postgres://admin:hunter2@10.0.0.7/db' });
      };
      server.tool('boom', {}, fail);
      server.prompt('leak', { arguments: [{ name: 'city', required: true }], complete: { city: fail } }, fail);
      server.resource('memo://leaky/secret', { name: 'secret' }, fail);
      return server;
    };
    const logger = recordingLogger();
    gateway = createGateway({
      logger,
      healthCheckIntervalMs: 0,
      upstreams: { mnt: { connector: inMemoryConnector(leaky()) }, fwd: { connector: inMemoryConnector(leaky()), tools: { rename: { echo: 'say' } } } },
    });
    await gateway.settled();
    const client = await frontClient(gateway);
    const answers: unknown[] = [];
    for (const prefix of ['mnt', 'fwd']) {
      answers.push(await client.callTool({ name: `${prefix}_boom` }).catch((error: unknown) => error));
      answers.push(await client.getPrompt({ name: `${prefix}_leak`, arguments: { city: 'x' } }).catch((error: unknown) => error));
    }
    answers.push(await client.readResource({ uri: 'mnt+memo://leaky/secret' }).catch((error: unknown) => error));
    answers.push(await client.readResource({ uri: 'memo://leaky/secret' }).catch((error: unknown) => error));
    answers.push(await client.complete({ ref: { type: 'ref/prompt', name: 'mnt_leak' }, argument: { name: 'city', value: 'P' } }).catch((error: unknown) => error));
    for (const answer of answers) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ code: -32603, message: 'Internal error' });
      expect(JSON.stringify(answer)).not.toContain('hunter2');
    }
    // The operator still reads why: each masked text is in the gateway's log, with the upstream it came from.
    const logged = logger.lines.filter((line) => line.includes('answered -32603'));
    expect(logged).toHaveLength(answers.length);
    for (const line of logged) expect(line).toContain(secret);
    expect(logged.filter((line) => line.includes('"upstream":"mnt"'))).toHaveLength(4);
    expect(logged.filter((line) => line.includes('"upstream":"fwd"'))).toHaveLength(3);
  });

  it('an update past maxUpstreams changes nothing, the next one applies whole; after close() an update is refused', async () => {
    const a = { connector: inMemoryConnector(upstreamServer('a')) };
    gateway = createGateway({ logger: recordingLogger(), healthCheckIntervalMs: 0, maxUpstreams: 2, upstreams: { a, b: { connector: inMemoryConnector(upstreamServer('b')) } } });
    await gateway.settled();
    const c = { connector: inMemoryConnector(upstreamServer('c')) };
    const d = { connector: inMemoryConnector(upstreamServer('d')) };
    await expect(gateway.update({ a, c, d })).rejects.toThrow(/maxUpstreams/);
    expect(gateway.pool.names()).toEqual(['a', 'b']);
    expect(await gateway.update({ a, c })).toEqual({ added: ['c'], removed: ['b'], replaced: [], kept: ['a'] });
    expect(gateway.pool.names()).toEqual(['a', 'c']);
    await gateway.close();
    await expect(gateway.update({})).rejects.toThrow('The gateway is closed');
  });

  it("re-reads an upstream's list when it announces a change and passes the change on", async () => {
    const server = upstreamServer('live');
    gateway = createGateway({ logger: recordingLogger(), healthCheckIntervalMs: 0, upstreams: { live: { connector: inMemoryConnector(server) } } });
    await gateway.settled();
    let listChanged = 0;
    const client = await frontClient(gateway, () => listChanged++, 'modern');
    server.tool('added_later', {}, () => ({ content: [] }));
    await until('the new tool on the front', async () => (await client.listAllTools()).some((t) => t.name === 'live_added_later'));
    await until('a list change on the front', () => listChanged >= 1);
    // The pool's listing follows too (the health counts).
    await until('the health count', () => gateway?.health()[0]?.tools === 2);
  });

  it('update() keeps unchanged upstreams connected, adds, replaces and removes the others', async () => {
    const keep = inMemoryConnector(upstreamServer('keep'));
    const replaced = upstreamServer('changed', ['old']);
    gateway = createGateway({ logger: recordingLogger(), healthCheckIntervalMs: 0, upstreams: { keep: { connector: keep }, changed: { connector: inMemoryConnector(replaced) }, gone: { connector: inMemoryConnector(upstreamServer('gone')) } } });
    await gateway.settled();
    const client = keep.sessions.length;
    const changes = await gateway.update({
      keep: { connector: keep },
      changed: { connector: inMemoryConnector(replaced), prefix: 'c' },
      fresh: { connector: inMemoryConnector(upstreamServer('fresh')) },
    });
    expect(changes).toEqual({ added: ['fresh'], removed: ['gone'], replaced: ['changed'], kept: ['keep'] });
    await gateway.settled();
    expect(keep.sessions.length).toBe(client);
    const front = await frontClient(gateway);
    await until('the new set on the front', async () => (await front.listAllTools()).map((t) => t.name).sort().join() === 'c_echo,c_old,fresh_echo,keep_echo');
  });

  it("bridges a mounted upstream's elicitation to the front's client, in both eras", async () => {
    const server = upstreamServer('asker');
    server.tool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)}` }] };
    });
    gateway = createGateway({ logger: recordingLogger(), healthCheckIntervalMs: 0, upstreams: { asker: { connector: inMemoryConnector(server), client: { era: 'legacy' } } } });
    await gateway.settled();
    for (const era of ['legacy', 'modern'] as const) {
      const client = await McpClient.connect({ connector: inMemoryConnector(gateway.server), era, logger: recordingLogger(), onElicitation: () => Promise.resolve({ action: 'accept', content: { name: era } }) });
      expect((await client.callTool({ name: 'asker_ask' })).content).toEqual([{ type: 'text', text: `hello ${era}` }]);
      await client.close();
    }
  });

  it('bounds calls by the tool timeouts (the server middleware: per front name, or "*"), mounted and forwarded alike', async () => {
    const slow = (name: string) => {
      const server = upstreamServer(name);
      server.tool('slow', {}, async () => {
        await sleep(2_000);
        return { content: [{ type: 'text', text: 'late' }] };
      });
      return server;
    };
    gateway = createGateway({
      logger: recordingLogger(),
      healthCheckIntervalMs: 0,
      middleware: { toolTimeoutsMs: { '*': 60_000, mnt_slow: 150, fwd_slow: 100 } },
      upstreams: { mnt: { connector: inMemoryConnector(slow('mnt')) }, fwd: { connector: inMemoryConnector(slow('fwd')), tools: { rename: { echo: 'say' } } } },
    });
    await gateway.settled();
    const client = await frontClient(gateway);
    for (const name of ['mnt_slow', 'fwd_slow']) {
      const started = Date.now();
      const outcome = await client.callTool({ name }).then(
        (result) => (result.isError === true ? 'tool error' : 'answered'),
        () => 'error answer',
      );
      expect([name, outcome === 'answered', Date.now() - started < 1_500]).toEqual([name, false, true]);
    }
  });

  it('serves the merged front as tool search when asked: search_tools, call_tool and the pinned tools', async () => {
    gateway = createGateway({
      logger: recordingLogger(),
      healthCheckIntervalMs: 0,
      search: { enabled: true, pinned: ['web_fetch'] },
      upstreams: {
        files: { connector: inMemoryConnector(upstreamServer('files', ['read'])), tools: { fixedArguments: { echo: { token: 't' } } } },
        web: { connector: inMemoryConnector(upstreamServer('web', ['fetch'])) },
      },
    });
    await gateway.settled();
    const client = await frontClient(gateway);
    await until('the search listing', async () => (await client.listAllTools()).map((t) => t.name).sort().join() === 'call_tool,search_tools,web_fetch');
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'echo of files' } });
    expect((found.content[0] as { text: string }).text).toContain('files_echo');
    const called = await client.callTool({ name: 'call_tool', arguments: { name: 'files_echo', arguments: { text: 'via search' } } });
    expect(JSON.parse((called.content[0] as { text: string }).text)).toEqual({ from: 'files', args: { text: 'via search', token: 't' } });
    // A mounted upstream's tool through call_tool too.
    const mounted = await client.callTool({ name: 'call_tool', arguments: { name: 'web_echo', arguments: { text: 'm', token: 'k' } } });
    expect(JSON.parse((mounted.content[0] as { text: string }).text)).toEqual({ from: 'web', args: { text: 'm', token: 'k' } });
  });

  it('limits the rate of each caller (the server middleware)', async () => {
    gateway = createGateway({ logger: recordingLogger(), healthCheckIntervalMs: 0, middleware: { rateLimit: { requestsPerSecond: 0.001, burst: 2 } }, upstreams: { a: { connector: inMemoryConnector(upstreamServer('a', ['ping'])) } } });
    await gateway.settled();
    const client = await frontClient(gateway);
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) outcomes.push(await client.callTool({ name: 'a_ping' }).then(() => 'ok', (error: unknown) => String((error as { code?: number }).code)));
    // The session's initialize took one token of the burst; the first call the other; then 429 (in-band).
    expect(outcomes).toEqual(['ok', '429', '429', '429']);
  });

  it('gives each front caller an upstream session of its own with sessionPerCaller (mounted), one shared without', async () => {
    const memory = new WeakMap<object, string>();
    let closedSessions = 0;
    const stateful = (): McpServer => {
      const server = new McpServer({ name: 'stateful', version: '1.0.0' }, { logger: recordingLogger() });
      server.onSessionClosed(() => closedSessions++);
      server.tool('set', { inputSchema: { type: 'object', properties: { value: { type: 'string' } } } }, (args, ctx) => {
        if (ctx.session !== undefined) memory.set(ctx.session, String(args.value));
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      server.tool('get', {}, (_args, ctx) => ({ content: [{ type: 'text', text: (ctx.session === undefined ? undefined : memory.get(ctx.session)) ?? '(nothing)' }] }));
      return server;
    };
    gateway = createGateway({
      logger: recordingLogger(),
      healthCheckIntervalMs: 0,
      upstreams: { own: { connector: inMemoryConnector(stateful()), client: { era: 'legacy' }, sessionPerCaller: { maxSessions: 4 } }, shared: { connector: inMemoryConnector(stateful()), client: { era: 'legacy' } } },
    });
    await gateway.settled();
    const a = await connectRawClient(gateway.server, { sessionId: 'a' });
    const b = await connectRawClient(gateway.server, { sessionId: 'b' });
    const text = (answer: unknown): unknown => (answer as { result?: { content?: Array<{ text?: string }> } }).result?.content?.[0]?.text;
    try {
      await a.initialize();
      await b.initialize();
      for (const prefix of ['own', 'shared']) expect(text(await a.request(`${prefix}-set`, 'tools/call', { name: `${prefix}_set`, arguments: { value: 'from a' } }))).toBe('ok');
      expect(text(await b.request(1, 'tools/call', { name: 'own_get', arguments: {} }))).toBe('(nothing)');
      expect(text(await a.request(2, 'tools/call', { name: 'own_get', arguments: {} }))).toBe('from a');
      expect(text(await b.request(3, 'tools/call', { name: 'shared_get', arguments: {} }))).toBe('from a');
      // The front session of `a` ends: so does its upstream session (not only when idle).
      await a.close();
      await until('the caller session closed upstream', () => closedSessions === 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('lists a mounted upstream once to bring it up: the pool takes the listing its proxy read', async () => {
    const sent: string[] = [];
    const inner = inMemoryConnector(upstreamServer('once'));
    // The requests the gateway's client sends upstream, by method.
    const counting: ClientConnector = {
      ...inner,
      open: async (options) => {
        const transport = await inner.open(options);
        const send = transport.send.bind(transport);
        transport.send = (message, sendOptions) => {
          if (!Array.isArray(message) && 'method' in message && 'id' in message) sent.push((message as { method: string }).method);
          return send(message, sendOptions);
        };
        return transport;
      },
    };
    gateway = createGateway({ logger: recordingLogger(), healthCheckIntervalMs: 0, upstreams: { once: { connector: counting, client: { era: 'legacy' } } } });
    await gateway.settled();
    expect(gateway.health()[0]).toMatchObject({ state: 'ready', tools: 1, resources: 1, prompts: 1 });
    expect(sent.filter((m) => m.endsWith('/list')).sort()).toEqual(['prompts/list', 'resources/list', 'resources/templates/list', 'tools/list']);
  });

  it('refuses an upstream with no way to reach it or two', () => {
    expect(() => createGateway({ upstreams: { x: {} } })).toThrow('Invalid upstream "x": expected exactly one of connector, command or url, got 0');
    expect(() => createGateway({ upstreams: { x: { command: 'a', url: 'http://127.0.0.1:1/mcp' } } })).toThrow('got 2');
  });
});
