/**
 * Tool-search mode (`McpServerOptions.toolSearch`) through `McpServer.handle`, whole wire messages, both eras: the
 * list, the ranking on a small labelled catalog, regex mode, the call tool against `tools/call` itself, the
 * annotations, pinned tools, the index following registrations, name conflicts, the visibility seam.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcParams, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { connectRawClient } from '../../testing/index.js';
import { toolSearchTools } from '../../protocol/toolSearchTools.js';
import type { Tool } from '../../protocol/types.js';
import type { ClientChannel } from '../channel.js';
import type { ServerRequestContext } from '../context.js';
import { McpServer } from '../mcpServer.js';
import { Registry } from '../registry.js';
import type { RequestFacts } from '../requestFacts.js';
import type { McpServerOptions } from '../options.js';
import { ToolCalls, ToolError } from './tools.js';
import { leastPermissiveAnnotations, ToolSearch } from './toolSearch.js';

const INFO = { name: 'catalog', version: '1.0.0' };
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': INFO };
const LEGACY: RequestFacts = { protocolVersion: '2025-06-18', clientInfo: { name: 'c', version: '1' }, clientCapabilities: { elicitation: {} }, serverCapabilities: undefined, logLevelRank: 0 };

const legacy = (id: number, method: string, params?: Record<string, unknown>): JsonRpcRequest => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const modern = (id: number, method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0', id, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, ...(params._meta as object | undefined) } },
});

/** Records notifications; answers elicitation live (legacy era). */
class RecordingChannel implements ClientChannel {
  readonly sent: { method: string; params: JsonRpcParams | undefined }[] = [];
  notify(method: string, params?: JsonRpcParams): Promise<void> {
    this.sent.push({ method, params });
    return Promise.resolve();
  }
  request<T>(method: string, params?: JsonRpcParams): Promise<T> {
    this.sent.push({ method, params });
    return Promise.resolve({ action: 'accept', content: { name: 'live' } } as T);
  }
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object' as const, properties, required });
const str = { type: 'string' };
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** A small catalog with a labelled query set: each query names the tool a person asking it wants. */
const CATALOG: readonly [string, string, Record<string, unknown>][] = [
  ['send_email', 'Sends an email message to one or more recipients.', { to: str, subject: str, body: str }],
  ['list_emails', 'Lists the messages in a mailbox folder, newest first.', { folder: str, limit: { type: 'integer' } }],
  ['create_issue', 'Opens a new issue in a GitHub repository.', { repo: str, title: str, body: str }],
  ['search_issues', 'Searches issues and pull requests of a repository.', { query: str, repo: str }],
  ['get_weather', 'Current weather conditions and the forecast for a city.', { city: str }],
  ['convert_currency', "Converts an amount of money between currencies at today's exchange rate.", { amount: { type: 'number' }, from: str, to: str }],
  ['read_file', 'Reads a text file from the workspace.', { path: str }],
  ['write_file', 'Writes content to a file in the workspace, replacing what it held.', { path: str, content: str }],
  ['execute_sql', 'Runs one read-only SQL SELECT statement against the database.', { sql: str }],
  ['create_calendar_event', 'Schedules a meeting on the calendar.', { title: str, start: str, end: str, attendees: { type: 'array', items: str } }],
  ['translate_text', 'Translates text into another language.', { text: str, targetLanguage: str }],
  ['resize_image', 'Scales a picture to new dimensions.', { imageUrl: str, width: { type: 'integer' }, height: { type: 'integer' } }],
];
const LABELLED: readonly [string, string][] = [
  ['send an email to bob', 'send_email'],
  ["what's the weather in Paris", 'get_weather'],
  ['open an issue on github', 'create_issue'],
  ['find pull requests', 'search_issues'],
  ['exchange rate dollars to euros', 'convert_currency'],
  ['schedule a meeting', 'create_calendar_event'],
  ['translate this into french', 'translate_text'],
  ['run a SQL query on the database', 'execute_sql'],
  ['save content to a file', 'write_file'],
  ['make the picture smaller', 'resize_image'],
  ['messages in my inbox folder', 'list_emails'],
  ['attendees', 'create_calendar_event'],
  ['target language', 'translate_text'],
  ['image width and height', 'resize_image'],
];

function makeServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer(INFO, { logger: silentLogger, toolSearch: {}, ...options });
  for (const [name, description, properties] of CATALOG) server.tool(name, { description, inputSchema: obj(properties), annotations: { readOnlyHint: true } }, () => text(name));
  return server;
}

const resultOf = (reply: JsonRpcResponse | undefined): Record<string, any> => (reply as { result: Record<string, any> }).result;
/** The names a search_tools call returned. */
async function search(server: McpServer, args: Record<string, unknown>): Promise<string[]> {
  const result = resultOf(await server.handle(legacy(1, 'tools/call', { name: 'search_tools', arguments: args }), { facts: LEGACY }));
  expect(result.isError, JSON.stringify(result)).toBeUndefined();
  return (JSON.parse(result.content[0].text as string) as Tool[]).map((t) => t.name);
}

describe('tools/list in tool-search mode', () => {
  it('lists the search tool and the call tool only, in both eras, the call tool with the annotations of what it reaches', async () => {
    const server = makeServer();
    const [searchTool, callTool] = toolSearchTools();
    const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
    expect(await server.handle(legacy(1, 'tools/list'), { facts: LEGACY })).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [searchTool, { ...callTool, annotations }] } });
    expect(resultOf(await server.handle(modern(2, 'tools/list')))).toEqual({ tools: [searchTool, { ...callTool, annotations }], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO });
  });

  it('without the option, tools/list lists the whole catalog as before', async () => {
    const server = makeServer({ toolSearch: undefined });
    expect(resultOf(await server.handle(legacy(1, 'tools/list'), { facts: LEGACY })).tools).toHaveLength(CATALOG.length);
  });

  it('pinned tools are listed as usual after the two; a pinned name registered later appears then', async () => {
    const server = makeServer({ toolSearch: { pinned: ['get_weather', 'later'] } });
    const names = async () => (resultOf(await server.handle(legacy(1, 'tools/list'), { facts: LEGACY })).tools as Tool[]).map((t) => t.name);
    expect(await names()).toEqual(['search_tools', 'call_tool', 'get_weather']);
    const dispose = server.tool('later', {}, () => text('later'));
    expect(await names()).toEqual(['search_tools', 'call_tool', 'get_weather', 'later']);
    dispose();
    expect(await names()).toEqual(['search_tools', 'call_tool', 'get_weather']);
    // A pinned tool is still found by search and callable both ways.
    expect((await search(server, { query: 'weather' }))[0]).toBe('get_weather');
  });
});

describe('search_tools: BM25 over names, descriptions and argument names', () => {
  it('ranks the wanted tool first on the labelled set, and within the first three for every query', async () => {
    const server = makeServer();
    const firsts: string[] = [];
    for (const [query, wanted] of LABELLED) {
      const found = await search(server, { query, limit: 3 });
      expect(found, query).toContain(wanted);
      if (found[0] === wanted) firsts.push(query);
    }
    expect(firsts).toEqual(LABELLED.map(([q]) => q));
  });

  it('returns full definitions (name, description, inputSchema, annotations), defaultResults by default, never more than maxResults', async () => {
    const server = makeServer({ toolSearch: { defaultResults: 2, maxResults: 3 } });
    const reply = resultOf(await server.handle(legacy(1, 'tools/call', { name: 'search_tools', arguments: { query: 'issue repository' } }), { facts: LEGACY }));
    const tools = JSON.parse(reply.content[0].text as string) as Tool[];
    expect(tools.map((t) => t.name).sort()).toEqual(['create_issue', 'search_issues']);
    expect(tools[0]).toEqual({ name: tools[0]!.name, description: expect.any(String), inputSchema: expect.objectContaining({ type: 'object' }), annotations: { readOnlyHint: true } });
    expect(await search(server, { query: 'the file email issue weather sql', limit: 50 })).toHaveLength(3);
    expect(await search(server, { query: 'zebra' })).toEqual([]);
  });

  it('refuses bad arguments as a tool refuses its own: isError naming the problem', async () => {
    const server = makeServer();
    const call = async (args: unknown) => resultOf(await server.handle(legacy(1, 'tools/call', { name: 'search_tools', arguments: args }), { facts: LEGACY }));
    for (const [args, problem] of [
      [{}, '"query" must be a non-empty string'],
      [{ query: '  ' }, '"query" must be a non-empty string'],
      [{ query: 'x'.repeat(1001) }, '"query" is longer than 1000 characters'],
      [{ query: 'a', limit: 0 }, '"limit" must be a positive integer'],
      [{ query: 'a', limit: 1.5 }, '"limit" must be a positive integer'],
      [{ query: 'a', regex: 'yes' }, '"regex" must be a boolean'],
      [{ query: 'a', extra: 1 }, 'unexpected argument "extra"'],
    ] as const) {
      expect(await call(args)).toEqual({ content: [{ type: 'text', text: `Invalid arguments for tool "search_tools": ${problem}` }], isError: true });
    }
    // Arguments that are not an object: -32602, as tools/call answers for any tool.
    expect(await server.handle(legacy(2, 'tools/call', { name: 'search_tools', arguments: [1] }), { facts: LEGACY })).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: "arguments" must be an object' },
    });
  });
});

describe('search_tools with regex: true', () => {
  it('matches names first, then argument names, then descriptions, case-insensitively', async () => {
    const server = makeServer();
    expect(await search(server, { query: '^(send|list)_', regex: true })).toEqual(['send_email', 'list_emails']);
    expect(await search(server, { query: 'ATTENDEES|imageurl', regex: true })).toEqual(['create_calendar_event', 'resize_image']);
    expect(await search(server, { query: 'email|mailbox', regex: true, limit: 10 })).toEqual(['send_email', 'list_emails']);
    expect(await search(server, { query: 'sql|database', regex: true })).toEqual(['execute_sql']);
    expect(await search(server, { query: 'workspace', regex: true })).toEqual(['read_file', 'write_file']);
    // Anchors hold per field: a whole argument name, the end of a name, the start of a description.
    expect(await search(server, { query: '^city$', regex: true })).toEqual(['get_weather']);
    expect(await search(server, { query: '_file$', regex: true })).toEqual(['read_file', 'write_file']);
    expect(await search(server, { query: '^schedules', regex: true })).toEqual(['create_calendar_event']);
    expect(await search(server, { query: '\\Aget_|\\Acreate_issue\\z', regex: true })).toEqual(['create_issue', 'get_weather']);
    expect(await search(server, { query: '(?i)^READ_file$', regex: true })).toEqual(['read_file']);
    // Never across fields: the end of one and the start of the next are not one text.
    expect(await search(server, { query: 'email.*recipients.*to', regex: true })).toEqual([]);
    expect(await search(server, { query: 'send_email[\\s\\S]*recipients', regex: true })).toEqual([]);
  });

  it('runs in linear time: a pattern that backtracks catastrophically in RegExp is answered at once', async () => {
    const server = makeServer();
    server.tool('long_text', { description: `${'a'.repeat(50_000)}!` }, () => text('a'));
    // With RegExp, /(a+)+$/ on 50,000 a's followed by "!" would not finish in this test's lifetime.
    expect(await search(server, { query: '(a+)+$', regex: true })).toEqual([]);
    expect(await search(server, { query: '(a+)+!$', regex: true })).toEqual(['long_text']);
  });

  it('an invalid pattern is a tool error naming it; RE2 has no backreferences', async () => {
    const server = makeServer();
    for (const query of ['(unclosed', '(a)\\1']) {
      const result = resultOf(await server.handle(legacy(1, 'tools/call', { name: 'search_tools', arguments: { query, regex: true } }), { facts: LEGACY }));
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^Invalid arguments for tool "search_tools": "query" is not a valid regular expression \(RE2 syntax\): /);
    }
  });
});

describe('the index follows registrations', () => {
  it('a tool registered after a search is found; a removed one is not; a name re-registered is found by its new words', async () => {
    const server = makeServer();
    expect(await search(server, { query: 'kangaroo' })).toEqual([]);
    const dispose = server.tool('hop', { description: 'Counts kangaroo hops.' }, () => text('hop'));
    expect(await search(server, { query: 'kangaroo' })).toEqual(['hop']);
    dispose();
    expect(await search(server, { query: 'kangaroo' })).toEqual([]);
    server.tool('hop', { description: 'Counts rabbit hops.' }, () => text('hop'));
    expect(await search(server, { query: 'kangaroo' })).toEqual([]);
    expect(await search(server, { query: 'rabbit' })).toEqual(['hop']);
  });

  it('the call tool annotations follow the catalog: one destructive tool makes it destructive', async () => {
    const server = makeServer();
    const annotations = async () => (resultOf(await server.handle(legacy(1, 'tools/list'), { facts: LEGACY })).tools as Tool[])[1]!.annotations;
    expect(await annotations()).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
    const dispose = server.tool('drop_table', { annotations: { readOnlyHint: false, openWorldHint: false } }, () => text('dropped'));
    expect(await annotations()).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    dispose();
    expect(await annotations()).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
  });
});

describe('leastPermissiveAnnotations (absent hints read as their spec defaults)', () => {
  const tool = (annotations?: Tool['annotations']): Tool => ({ name: 't', inputSchema: { type: 'object' }, ...(annotations === undefined ? {} : { annotations }) });
  it.each([
    ['no tool: the defaults', [], { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }],
    ['a tool that says nothing: the defaults', [tool()], { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }],
    ['all read-only and closed', [tool({ readOnlyHint: true, openWorldHint: false }), tool({ readOnlyHint: true, openWorldHint: false })], { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
    ['read-only and an additive idempotent writer', [tool({ readOnlyHint: true, openWorldHint: false }), tool({ destructiveHint: false, idempotentHint: true, openWorldHint: false })], { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
    ['a writer that leaves destructiveHint out is destructive', [tool({ readOnlyHint: false, idempotentHint: true, openWorldHint: false })], { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }],
    ['one open-world tool among closed ones', [tool({ readOnlyHint: true, openWorldHint: false }), tool({ readOnlyHint: true })], { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true }],
    ['a read-only tool with destructiveHint true destroys nothing', [tool({ readOnlyHint: true, destructiveHint: true, openWorldHint: false })], { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
  ])('%s', (_name, tools, expected) => {
    expect(leastPermissiveAnnotations(tools)).toEqual(expected);
  });
});

describe('call_tool answers as tools/call of the named tool', () => {
  function server(): McpServer {
    const s = makeServer();
    s.tool('add', { inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) }, ({ a, b }) => text(String((a as number) + (b as number))));
    s.tool('fails', {}, () => {
      throw new ToolError('no such thing');
    });
    s.tool('crashes', {}, () => {
      throw new Error('secret internals');
    });
    s.tool('bad_result', {}, () => ({ nothing: true }) as never);
    s.tool('slow', {}, async (_args, ctx) => {
      await ctx.progress(1, 2);
      return text('done');
    });
    return s;
  }
  const direct = (name: string, args: unknown, meta?: object) => legacy(1, 'tools/call', { name, ...(args === undefined ? {} : { arguments: args }), ...(meta === undefined ? {} : { _meta: meta }) });
  const proxied = (name: unknown, args: unknown, meta?: object) => legacy(1, 'tools/call', { name: 'call_tool', arguments: { name, ...(args === undefined ? {} : { arguments: args }) }, ...(meta === undefined ? {} : { _meta: meta }) });

  it.each([
    ['a valid call', 'add', { a: 2, b: 3 }],
    ['arguments absent', 'add', undefined],
    ['arguments that fail the inputSchema', 'add', { a: 'two' }],
    ['an unknown tool (-32602)', 'nope', {}],
    ['a ToolError', 'fails', {}],
    ['a crash (generic text, nothing of the exception)', 'crashes', {}],
    ['a malformed result (-32603)', 'bad_result', {}],
    ['the search tool itself is not reachable through call_tool', 'search_tools', { query: 'x' }],
  ])('%s', async (_what, name, args) => {
    const s = server();
    const viaCallTool = await s.handle(proxied(name, args), { facts: LEGACY });
    const viaToolsCall = name === 'search_tools' ? { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: unknown tool "search_tools"', data: { name: 'search_tools' } } } : await s.handle(direct(name, args), { facts: LEGACY });
    expect(viaCallTool).toEqual(viaToolsCall);
  });

  it('progress reaches the client with the request token, as on a direct call', async () => {
    const s = server();
    const channels = [new RecordingChannel(), new RecordingChannel()];
    await s.handle(direct('slow', {}, { progressToken: 'p' }), { facts: LEGACY, channel: channels[0] });
    await s.handle(proxied('slow', {}, { progressToken: 'p' }), { facts: LEGACY, channel: channels[1] });
    expect(channels[1]!.sent).toEqual([{ method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } }]);
    expect(channels[1]!.sent).toEqual(channels[0]!.sent);
  });

  it("its own arguments are checked as a tool's: isError naming the problem", async () => {
    const s = server();
    for (const [args, problem] of [
      [{}, '"name" must be a string'],
      [{ name: 7 }, '"name" must be a string'],
      [{ name: 'add', arguments: 'a=1' }, '"arguments" must be an object'],
      [{ name: 'add', args: {} }, 'unexpected argument "args"'],
    ] as const) {
      expect(resultOf(await s.handle(legacy(1, 'tools/call', { name: 'call_tool', arguments: args }), { facts: LEGACY }))).toEqual({
        content: [{ type: 'text', text: `Invalid arguments for tool "call_tool": ${problem}` }], isError: true,
      });
    }
  });

  it('a tool that is not listed is still callable directly with tools/call', async () => {
    expect(await server().handle(direct('add', { a: 1, b: 1 }), { facts: LEGACY })).toEqual({ jsonrpc: '2.0', id: 1, result: text('2') });
  });

  it('2026-07-28: an input round through call_tool (input_required, then the retry with the answer and the state)', async () => {
    const s = makeServer();
    s.tool('greet', {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return text(`Hello ${String(answer.content?.name)}`);
    });
    const call = { name: 'call_tool', arguments: { name: 'greet', arguments: {} } };
    const first = resultOf(await s.handle(modern(1, 'tools/call', call)));
    expect(first).toEqual({ resultType: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: expect.any(Object) as unknown } }, requestState: expect.any(String) as unknown, _meta: SERVER_INFO });
    const retry = await s.handle(modern(2, 'tools/call', { ...call, inputResponses: { 'elicitation-0': { action: 'accept', content: { name: 'Ada' } } }, requestState: first.requestState }));
    expect(retry).toEqual({ jsonrpc: '2.0', id: 2, result: { ...text('Hello Ada'), resultType: 'complete', _meta: SERVER_INFO } });
    // The legacy era asks live, through the same call tool.
    const channel = new RecordingChannel();
    expect(resultOf(await s.handle(legacy(3, 'tools/call', call), { facts: LEGACY, channel }))).toEqual(text('Hello live'));
    expect(channel.sent.map((m) => m.method)).toEqual(['elicitation/create']);
  });
});

describe('names', () => {
  it('registering a tool under either name is refused; custom names are used and refused the same way', () => {
    const server = makeServer();
    expect(() => server.tool('search_tools', {}, () => text(''))).toThrow(/Tool name "search_tools" is taken by tool search/);
    expect(() => server.tool('call_tool', {}, () => text(''))).toThrow(/set toolSearch.callToolName/);
    const custom = makeServer({ toolSearch: { searchToolName: 'find', callToolName: 'run' } });
    expect(() => custom.tool('find', {}, () => text(''))).toThrow(TypeError);
    expect(() => custom.tool('search_tools', {}, () => text(''))).not.toThrow();
  });

  it('custom names are what tools/list shows and what tools/call answers to', async () => {
    const server = makeServer({ toolSearch: { searchToolName: 'find', callToolName: 'run' } });
    expect((resultOf(await server.handle(legacy(1, 'tools/list'), { facts: LEGACY })).tools as Tool[]).map((t) => t.name)).toEqual(['find', 'run']);
    const reply = resultOf(await server.handle(legacy(2, 'tools/call', { name: 'run', arguments: { name: 'get_weather' } }), { facts: LEGACY }));
    expect(reply).toEqual(text('get_weather'));
  });

  it('bad options are refused at construction', () => {
    const make = (toolSearch: unknown) => () => new McpServer(INFO, { logger: silentLogger, toolSearch: toolSearch as never });
    expect(make({ searchToolName: 'x', callToolName: 'x' })).toThrow(/both "x"/);
    expect(make({ searchToolName: 'has space' })).toThrow(TypeError);
    expect(make({ pinned: 'get_weather' })).toThrow(/pinned/);
    expect(make({ maxResults: 0 })).toThrow(RangeError);
  });
});

describe('the visibility seam: (tool, ctx) => boolean', () => {
  it('a hidden tool is neither listed (pinned), found, reached by the annotations, nor callable through call_tool', async () => {
    const registry = new Registry({ name: 'search', logger: silentLogger, onchange: () => undefined });
    const host = { registry, logger: silentLogger, checkResults: true, pageSize: 100, visibility: undefined };
    const hidden = new Set(['secret_wipe']);
    const search = new ToolSearch({ registry, calls: new ToolCalls(host), pageSize: 100, visible: (tool) => !hidden.has(tool.name) }, { pinned: ['secret_wipe', 'public_read'] });
    registry.addTool('public_read', { description: 'Reads the public wipe log.', annotations: { readOnlyHint: true, openWorldHint: false } }, () => text('read'));
    registry.addTool('secret_wipe', { description: 'Wipes the disk.' }, () => text('wiped'));
    search.changed();
    const ctx = { facts: LEGACY, signal: new AbortController().signal } as unknown as ServerRequestContext;
    const listed = search.list(undefined, ctx).tools as Tool[];
    expect(listed.map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'public_read']);
    expect(listed[1]!.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    for (const regex of [false, true]) {
      const found = (await search.call({ name: 'search_tools', arguments: { query: 'wipe', regex } }, ctx)) as unknown as { content: [{ text: string }] };
      expect((JSON.parse(found.content[0].text) as Tool[]).map((t) => t.name)).toEqual(['public_read']);
    }
    expect(() => search.call({ name: 'call_tool', arguments: { name: 'secret_wipe' } }, ctx)).toThrow('Invalid params: unknown tool "secret_wipe"');
    hidden.clear();
    expect(await search.call({ name: 'call_tool', arguments: { name: 'secret_wipe' } }, ctx)).toEqual(text('wiped'));
  });
});

describe('over a session (2025-11-25)', () => {
  it('a server with no tool yet advertises tools and lists the two; a task-capable tool makes call_tool task-capable, params.task and cancellation go with the call', async () => {
    const s = new McpServer(INFO, { logger: silentLogger, toolSearch: {} });
    const client = await connectRawClient(s);
    try {
      const init = (await client.initialize()) as { result: { capabilities: Record<string, unknown> } };
      expect(init.result.capabilities.tools).toEqual({ listChanged: true });
      const list = async (id: number) => ((await client.request(id, 'tools/list')) as { result: { tools: Tool[] } }).result.tools;
      expect((await list(1)).map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
      expect((await list(2))[1]).not.toHaveProperty('execution');
      s.tool('job', { task: true, description: 'A long job.' }, () => text('job done'));
      s.tool('plain', {}, () => text('plain'));
      expect((await list(3))[1]).toMatchObject({ name: 'call_tool', execution: { taskSupport: 'optional' } });
      // Search results carry each tool's own execution.taskSupport at this revision.
      const found = (await client.request(4, 'tools/call', { name: 'search_tools', arguments: { query: 'long job' } })) as { result: { content: [{ text: string }] } };
      expect(JSON.parse(found.result.content[0].text)).toEqual([{ name: 'job', description: 'A long job.', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }]);
      const viaCallTool = (await client.request(5, 'tools/call', { name: 'call_tool', arguments: { name: 'job' }, task: { ttl: 60_000 } })) as { result: { task: { taskId: string; status: string } } };
      expect(viaCallTool.result.task).toMatchObject({ taskId: expect.any(String) as unknown, status: 'working' });
      // Cancellation: notifications/cancelled of the call_tool request aborts the named tool's handler, and no answer comes.
      let aborted!: () => void;
      const abortSeen = new Promise<void>((resolve) => (aborted = resolve));
      s.tool('wait', {}, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => (aborted(), reject(new Error('stopped'))))));
      await client.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'call_tool', arguments: { name: 'wait' } } });
      await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w' } });
      await abortSeen;
      expect(await client.request(8, 'ping')).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
      expect(client.received.some((m) => 'id' in m && m.id === 'w')).toBe(false);
      const { id: _6, ...proxied } = await client.request(6, 'tools/call', { name: 'call_tool', arguments: { name: 'plain' }, task: {} });
      const { id: _7, ...direct } = await client.request(7, 'tools/call', { name: 'plain', task: {} });
      expect(proxied).toEqual(direct);
    } finally {
      await client.close();
      await s.close();
    }
  });
});
