/**
 * McpClient against our own McpServer in memory (`inMemoryConnector`), both eras: negotiation on the wire, the
 * operations, server → client requests answered by the callbacks, progress resetting timeouts, abort and
 * cancellation, typed errors, tool results, close.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CancellationSource, type JsonRpcMessage, type Logger } from '@switchboard/jsonrpc';
import { ConnectionClosedError, RequestAbortedError, RequestTimeoutError } from '../protocol/clientErrors.js';
import { McpError, ResourceNotFoundError } from '../protocol/errors.js';
import { LEGACY_REVISIONS, type ProtocolRevision } from '../protocol/revisions.js';
import { McpServer, ToolError } from '../server/mcpServer.js';
import { inMemoryConnector, type InMemoryConnectorOptions } from '../testing/index.js';
import { InvalidResultError, NotSupportedError } from './errors.js';
import { DEFAULT_CLIENT_INFO, McpClient } from './mcpClient.js';
import type { McpClientOptions } from './options.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PV = 'io.modelcontextprotocol/protocolVersion';

interface Line { level: string; message: string; fields?: Record<string, unknown> }
function capture(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function makeServer(revisions?: readonly ProtocolRevision[]): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.2.3' }, { logger: silent, instructions: 'Be nice', ...(revisions === undefined ? {} : { revisions }) });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] } }, ({ a, b }: { a: number; b: number }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.tool('fails', {}, () => {
    throw new ToolError('The city "Atlantis" was not found');
  });
  server.tool('structured', { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, () => ({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }));
  server.tool('slow', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: ctx.signal.aborted ? 'aborted' : 'slow done' }] };
  });
  server.tool('progressing', {}, async (_args, ctx) => {
    for (let i = 1; i <= 6; i++) {
      await sleep(40);
      await ctx.progress(i, 6);
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    const roots = await ctx.listRoots();
    return { content: [{ type: 'text', text: JSON.stringify({ answer, model: sampled.model, roots: roots.roots.length }) }] };
  });
  server.tool('chatty', {}, async (_args, ctx) => {
    await ctx.log('info', 'working', 'chatty');
    await ctx.log('debug', 'quiet');
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  server.resource('test://a', { name: 'a', mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'A' }] }));
  server.prompt('greet', { arguments: [{ name: 'who', required: true }], complete: { who: (v) => ['ann', 'bob'].filter((x) => x.startsWith(v)) } }, (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.who}` } }],
  }));
  return server;
}

function tapped(server: McpServer, options: InMemoryConnectorOptions = {}) {
  const wire: { dir: 'toServer' | 'toClient'; message: JsonRpcMessage }[] = [];
  const connector = inMemoryConnector(server, {
    ...options,
    tap: (dir, message) => {
      for (const m of Array.isArray(message) ? message : [message]) wire.push({ dir, message: JSON.parse(JSON.stringify(m)) as JsonRpcMessage });
    },
  });
  return { connector, wire, sent: () => wire.filter((w) => w.dir === 'toServer').map((w) => w.message) };
}

async function connect(server: McpServer, options: Partial<McpClientOptions> = {}) {
  const tap = tapped(server);
  const client = await McpClient.connect({ connector: tap.connector, logger: silent, verdictStore: new InMemoryEraVerdictStore(), ...options });
  return { client, ...tap };
}

describe('defaults', () => {
  it('the default clientInfo carries the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(DEFAULT_CLIENT_INFO).toEqual({ name: 'switchboard-client', version: pkg.version });
  });
});

describe('options', () => {
  it('connect refuses a numeric option that is no number or out of range before it connects', async () => {
    const server = new McpServer({ name: 's', version: '1' }, { logger: silent });
    await expect(connect(server, { timeoutMs: '50' as never })).rejects.toThrow(new TypeError('Invalid option timeoutMs: expected a number of milliseconds, got "50"'));
    await expect(connect(server, { maxPages: 0 })).rejects.toThrow(new RangeError('Invalid option maxPages: expected a positive integer, got 0'));
    await expect(connect(server, { maxListBytes: 0 })).rejects.toThrow(RangeError);
    await expect(connect(server, { maxInputRounds: 1.5 })).rejects.toThrow(RangeError);
    await expect(connect(server, { probeTimeoutMs: { toString: () => 'secret' } as never })).rejects.toThrow(/got an object$/);
    const { client } = await connect(server, { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity, maxListBytes: Infinity, maxInputRounds: 0 });
    await client.close();
  });
});

describe('negotiation', () => {
  it('a dual-era server: the probe is a server/discover with the whole modern envelope, and the client speaks 2026-07-28', async () => {
    const { client, sent, connector } = await connect(makeServer());
    expect(sent()).toEqual([
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'server/discover',
        params: {
          _meta: {
            [PV]: '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'switchboard-client', version: '0.1.0' },
            progressToken: 0,
          },
        },
      },
    ]);
    expect([client.era, client.protocolVersion, client.serverInfo, client.instructions, client.transportKind]).toEqual(['modern', '2026-07-28', { name: 'test-server', version: '1.2.3' }, 'Be nice', 'stdio']);
    expect(client.serverCapabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(connector.protocols).toEqual([{ era: 'modern', revision: '2026-07-28' }]);
    await client.close();
  });

  it('a legacy-only server answers the probe -32022 listing legacy revisions: initialize at the newest listed, then initialized', async () => {
    const { client, sent } = await connect(makeServer(LEGACY_REVISIONS));
    const messages = sent();
    expect(messages[0]).toMatchObject({ method: 'server/discover' });
    expect(messages.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'switchboard-client', version: '0.1.0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect([client.era, client.protocolVersion, client.serverInfo?.name]).toEqual(['legacy', '2025-11-25', 'test-server']);
    await client.close();
  });

  it('a server that never answers the probe is legacy after probeTimeoutMs, and no cancellation is sent for the probe', async () => {
    const server = makeServer(LEGACY_REVISIONS);
    // The server only ever hears what the connector forwards: drop the probe so it goes unanswered.
    const wire: JsonRpcMessage[] = [];
    const base = inMemoryConnector(server);
    const connector = {
      ...base,
      async open(o: Parameters<typeof base.open>[0]) {
        const transport = await base.open(o);
        const send = transport.send.bind(transport);
        transport.send = (message, options) => {
          wire.push(message as JsonRpcMessage);
          return (message as { method?: string }).method === 'server/discover' ? Promise.resolve() : send(message, options);
        };
        return transport;
      },
    };
    const client = await McpClient.connect({ connector, logger: silent, verdictStore: new InMemoryEraVerdictStore(), probeTimeoutMs: 50 });
    expect([client.era, client.protocolVersion]).toEqual(['legacy', '2025-11-25']);
    expect(wire.map((m) => (m as { method?: string }).method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    await client.close();
  });

  it('era: legacy starts with initialize; a pin sends exactly that revision', async () => {
    const legacy = await connect(makeServer(), { era: 'legacy' });
    expect(legacy.sent()[0]).toMatchObject({ method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    expect(legacy.client.era).toBe('legacy');
    await legacy.client.close();
    const pinned = await connect(makeServer(), { pin: '2025-03-26' });
    expect(pinned.sent()[0]).toMatchObject({ method: 'initialize', params: { protocolVersion: '2025-03-26' } });
    expect(pinned.client.protocolVersion).toBe('2025-03-26');
    await pinned.client.close();
  });

  it('the verdict is cached per connector key: the next connection skips the probe', async () => {
    const store = new InMemoryEraVerdictStore();
    const server = makeServer(LEGACY_REVISIONS);
    const first = await connect(server, { verdictStore: store });
    await first.client.close();
    expect(store.get(first.connector.verdictKey)).toMatchObject({ era: 'legacy', revision: '2025-11-25', transport: 'stdio' });
    const second = tapped(server, { verdictKey: first.connector.verdictKey });
    const client = await McpClient.connect({ connector: second.connector, logger: silent, verdictStore: store });
    expect(second.sent().map((m) => (m as { method: string }).method)).toEqual(['initialize', 'notifications/initialized']);
    await client.close();
  });
});

describe.each(['legacy', 'modern'] as const)('operations (%s era)', (era) => {
  const options: Partial<McpClientOptions> = { era };

  it('lists, calls, reads, gets and completes, with the envelope of the era on the wire', async () => {
    const { client, sent } = await connect(makeServer(), options);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['add', 'fails', 'structured', 'slow', 'progressing', 'ask', 'chatty']);
    const call = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(call.content).toEqual([{ type: 'text', text: '5' }]);
    const request = sent().find((m) => (m as { method?: string }).method === 'tools/call') as unknown as { params: { _meta: Record<string, unknown> } };
    if (era === 'modern') expect(Object.keys(request.params._meta).sort()).toEqual([PV, 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo', 'progressToken'].sort());
    else expect(request.params).toEqual({ name: 'add', arguments: { a: 2, b: 3 }, _meta: { progressToken: expect.any(Number) as number } });
    expect((await client.readResource({ uri: 'test://a' })).contents).toEqual([{ uri: 'test://a', mimeType: 'text/plain', text: 'A' }]);
    expect((await client.getPrompt({ name: 'greet', arguments: { who: 'ann' } })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello ann' } }]);
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'b' } })).completion.values).toEqual(['bob']);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['test://a']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await client.ping();
    await client.close();
  });

  it('an isError result is returned, not thrown; structuredContent is checked against the listed outputSchema', async () => {
    const { client } = await connect(makeServer(), options);
    const failed = await client.callTool({ name: 'fails' });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The city "Atlantis" was not found' }] });
    await client.listTools();
    expect((await client.callTool({ name: 'structured' })).structuredContent).toEqual({ n: 1 });
    await client.close();
  });

  it('wire errors are typed', async () => {
    const { client } = await connect(makeServer(), options);
    const error = await client.readResource({ uri: 'test://missing' }).catch((e: unknown) => e);
    if (era === 'legacy') expect(error).toBeInstanceOf(ResourceNotFoundError);
    else expect(error).toMatchObject({ constructor: McpError, code: -32602 });
    await expect(client.callTool({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('any progress resets the timeout, without an onprogress callback; progress also reaches the listeners', async () => {
    const seen: unknown[] = [];
    const { client } = await connect(makeServer(), { ...options, timeoutMs: 150, notifications: { progress: (p) => seen.push(p.progress) } });
    // 6 × 40 ms = 240 ms in all, more than timeoutMs, but never 150 ms without progress.
    await expect(client.callTool({ name: 'progressing' })).resolves.toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    const own: number[] = [];
    await client.callTool({ name: 'progressing' }, { onprogress: (p) => own.push(p.progress) });
    expect(own).toEqual([1, 2, 3, 4, 5, 6]);
    await expect(client.callTool({ name: 'progressing' }, { maxTotalTimeoutMs: 100 })).rejects.toMatchObject({ constructor: RequestTimeoutError, code: 'request_timeout', timeoutMs: 100 });
    await client.close();
  });

  it('a timeout is a RequestTimeoutError, the server is told, and the late response is dropped quietly', async () => {
    const logger = capture();
    const { client, wire } = await connect(makeServer(), { ...options, logger, timeoutMs: 50 });
    const error = await client.callTool({ name: 'slow' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: 'tools/call', timeoutMs: 50, message: 'Request timed out: "tools/call" got no response within 50 ms' });
    const call = wire.find((w) => (w.message as { method?: string }).method === 'tools/call')!.message as { id: number };
    const cancel = wire.find((w) => (w.message as { method?: string }).method === 'notifications/cancelled')!.message;
    expect(cancel).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: era === 'modern' ? { requestId: call.id, reason: 'Request timed out', _meta: { [PV]: '2026-07-28' } } : { requestId: call.id, reason: 'Request timed out' },
    });
    await sleep(30);
    expect(logger.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    await client.close();
  });

  it('abort is a RequestAbortedError and sends notifications/cancelled; the handler sees its signal abort', async () => {
    const { client, wire } = await connect(makeServer(), options);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow' }, { signal: controller.signal });
    await sleep(20);
    controller.abort(new Error('user gave up'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ code: 'request_aborted', method: 'tools/call' });
    await sleep(20);
    expect(wire.filter((w) => (w.message as { method?: string }).method === 'notifications/cancelled')).toHaveLength(1);
    // The server stopped the handler and sent no response for it.
    expect(wire.filter((w) => w.dir === 'toClient' && JSON.stringify(w.message).includes('aborted'))).toEqual([]);
    await client.close();
  });

  it('a cancellation (no AbortSignal) cancels as a signal does, and the handler hears it through ctx.cancellation', async () => {
    const server = makeServer();
    const heard: unknown[] = [];
    server.tool('held', {}, async (_args, ctx) => {
      await new Promise<void>((resolve) => ctx.cancellation.onCancel((reason) => {
        heard.push(reason);
        resolve();
      }));
      return { content: [] };
    });
    const { client, wire } = await connect(server, options);
    const source = new CancellationSource();
    const pending = client.callTool({ name: 'held' }, { cancellation: source });
    await sleep(20);
    source.cancel(new Error('user gave up'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ code: 'request_aborted', method: 'tools/call' });
    await sleep(20);
    expect(wire.filter((w) => (w.message as { method?: string }).method === 'notifications/cancelled')).toHaveLength(1);
    expect(heard).toHaveLength(1);
    await expect(client.callTool({ name: 'held' }, { cancellation: source })).rejects.toBeInstanceOf(RequestAbortedError);
    await client.close();
  });

  it('close() fails later calls with ConnectionClosedError and is idempotent; a dropped channel carries its end facts', async () => {
    const { client, connector } = await connect(makeServer(), options);
    const pending = client.callTool({ name: 'slow' });
    await connector.drop({ reason: 'stdout closed', exitCode: 1, stderrTail: ['boom'] });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ code: 'connection_closed', exitCode: 1, stderrTail: ['boom'], reason: 'stdout closed' });
    await client.close();
    await client.close();
    await expect(client.listTools()).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('legacy sessions', () => {
  it('server → client requests are answered by onElicitation, onSampling and onListRoots; capabilities follow the callbacks', async () => {
    const asked: unknown[] = [];
    const { client, sent } = await connect(makeServer(), {
      era: 'legacy',
      onElicitation: (params, ctx) => {
        asked.push([ctx.method, ctx.era, params.message]);
        return Promise.resolve({ action: 'accept', content: { name: 'Ann' } });
      },
      onSampling: (_params, ctx) => {
        asked.push([ctx.method, ctx.era]);
        return Promise.resolve({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm1' });
      },
      onListRoots: (ctx) => {
        asked.push([ctx.method, ctx.era]);
        return Promise.resolve({ roots: [{ uri: 'file:///tmp' }] });
      },
    });
    expect(sent()[0]).toMatchObject({ method: 'initialize', params: { capabilities: { elicitation: {}, sampling: {}, roots: {} } } });
    const result = await client.callTool({ name: 'ask' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ answer: { action: 'accept', content: { name: 'Ann' } }, model: 'm1', roots: 1 });
    expect(asked).toEqual([['elicitation/create', 'legacy', 'Your name?'], ['sampling/createMessage', 'legacy'], ['roots/list', 'legacy']]);
    await client.close();
  });

  it('setLoggingLevel sends logging/setLevel; notifications/message reach the message listener', async () => {
    const messages: unknown[] = [];
    const { client, sent } = await connect(makeServer(), { era: 'legacy', notifications: { message: (p) => messages.push(p) } });
    await client.setLoggingLevel('info');
    expect(sent().at(-1)).toMatchObject({ method: 'logging/setLevel', params: { level: 'info' } });
    await client.callTool({ name: 'chatty' });
    expect(messages).toEqual([{ level: 'info', logger: 'chatty', data: 'working' }]);
    await client.close();
  });
});

describe('legacy subscriptions', () => {
  it('subscribeResource sends resources/subscribe; updates reach resourceUpdated; unsubscribe stops them', async () => {
    const server = makeServer();
    const updates: string[] = [];
    const { client, sent } = await connect(server, { era: 'legacy', notifications: { resourceUpdated: (p) => updates.push(p.uri) } });
    await client.subscribeResource('test://a');
    expect(sent().at(-1)).toMatchObject({ method: 'resources/subscribe', params: { uri: 'test://a' } });
    await server.notifyResourceUpdated('test://a');
    await sleep(10);
    expect(updates).toEqual(['test://a']);
    await client.unsubscribeResource('test://a');
    await server.notifyResourceUpdated('test://a');
    await sleep(10);
    expect(updates).toEqual(['test://a']);
    await client.close();
  });
});

describe('modern era', () => {
  it('setLoggingLevel puts logLevel in every later envelope; subscribeResource is not supported', async () => {
    const messages: unknown[] = [];
    const { client, sent } = await connect(makeServer(), { notifications: { message: (p) => messages.push(p) } });
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'chatty' });
    const call = sent().at(-1) as unknown as { params: { _meta: Record<string, unknown> } };
    expect(call.params._meta['io.modelcontextprotocol/logLevel']).toBe('info');
    expect(messages).toEqual([{ level: 'info', logger: 'chatty', data: 'working' }]);
    await expect(client.subscribeResource('test://a')).rejects.toBeInstanceOf(NotSupportedError);
    await client.close();
  });

  it('an unknown resultType is an InvalidResultError with the result attached; absent means complete', async () => {
    const server = makeServer();
    server.tool('odd', {}, () => ({ content: [{ type: 'text', text: 'x' }], resultType: 'mystery' }) as never);
    const { client } = await connect(server);
    const error = await client.callTool({ name: 'odd' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect(error).toMatchObject({ code: 'invalid_result', method: 'tools/call', result: { resultType: 'mystery' } });
    await client.close();
  });
});
