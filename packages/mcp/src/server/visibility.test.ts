/**
 * `McpServerOptions.visibility`: one function decides the lists, `tools/call`, `prompts/get`, `resources/read` and
 * `completion/complete`, per caller (here `authInfo`, as a transport hands it over). A hidden item answers exactly
 * as an unknown one (whole wire responses compared with those of a server that never had it), in both eras;
 * filtered modern-era lists are `cacheScope: "private"`; without the function the lists are the frozen arrays.
 */
import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest, JsonRpcResponse, Logger } from '@switchboard/jsonrpc';
import { McpClient } from '../client/mcpClient.js';
import { InMemoryEraVerdictStore } from '../client/verdicts.js';
import { connectRawClient, inMemoryConnector } from '../testing/index.js';
import { McpServer } from './mcpServer.js';
import type { McpServerOptions } from './options.js';
import type { Visibility, VisibilityCaller, VisibilityItem } from './options.js';
import { visibleEntries, visibleTool } from './visibility.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
interface Extra { readonly authInfo: { readonly token: string; readonly clientId: string; readonly scopes: readonly string[] } }
const ADMIN: Extra = { authInfo: { token: 't', clientId: 'c', scopes: ['admin'] } };
const USER: Extra = { authInfo: { token: 'u', clientId: 'c', scopes: [] } };

/** `secret_*` items (and the admin template) need the `admin` scope. */
const adminOnly: Visibility = (item, caller) => !item.name.includes('secret') || ((caller.authInfo as { scopes?: string[] } | undefined)?.scopes ?? []).includes('admin');

function build(options: McpServerOptions & { withSecrets?: boolean } = {}): { server: McpServer; calls: string[] } {
  const { withSecrets = true, ...rest } = options;
  const calls: string[] = [];
  const server = new McpServer({ name: 'policy', version: '1' }, { logger: silent, ...rest });
  server.tool('open', {}, () => ({ content: [{ type: 'text', text: 'open' }] }));
  server.prompt('hello', {}, () => ({ messages: [] }));
  server.resource('test://open', { name: 'open' }, (uri) => ({ contents: [{ uri, text: 'open' }] }));
  if (withSecrets) {
    server.tool('secret_drop', {}, () => {
      calls.push('secret_drop');
      return { content: [{ type: 'text', text: 'dropped' }] };
    });
    server.prompt('secret_prompt', { arguments: [{ name: 'x' }], complete: { x: () => ['leak'] } }, () => ({ messages: [] }));
    server.resource('test://secret', { name: 'secret' }, (uri) => ({ contents: [{ uri, text: 'secret' }] }));
    server.resourceTemplate('test://secret/{id}', { name: 'secret-by-id', complete: { id: () => ['leak'] } }, (uri) => ({ contents: [{ uri, text: 'secret' }] }));
  }
  return { server, calls };
}

const modern = (id: number, method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });

/** What a caller (its `authInfo`) is answered, in the modern era (stateless `handle`). */
async function ask(server: McpServer, request: JsonRpcRequest, extra: Extra = USER): Promise<JsonRpcResponse | undefined> {
  return server.handle(request, { extra });
}

const PROBES: readonly [string, Record<string, unknown>][] = [
  ['tools/call', { name: 'secret_drop', arguments: {} }],
  ['prompts/get', { name: 'secret_prompt' }],
  ['resources/read', { uri: 'test://secret' }],
  ['resources/read', { uri: 'test://secret/7' }],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'secret_prompt' }, argument: { name: 'x', value: '' } }],
  ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://secret/{id}' }, argument: { name: 'id', value: '' } }],
];

describe('visibility: one function decides list and call', () => {
  it('2026-07-28: hidden items are left out of every list; the admin sees them', async () => {
    const { server } = build({ visibility: adminOnly });
    const names = async (method: string, key: string, extra: Extra = USER) => {
      const r = (await ask(server, modern(1, method), extra)) as { result: Record<string, { name: string; uri?: string; uriTemplate?: string }[]> };
      return r.result[key]!.map((i) => i.uriTemplate ?? i.uri ?? i.name);
    };
    expect(await names('tools/list', 'tools')).toEqual(['open']);
    expect(await names('prompts/list', 'prompts')).toEqual(['hello']);
    expect(await names('resources/list', 'resources')).toEqual(['test://open']);
    expect(await names('resources/templates/list', 'resourceTemplates')).toEqual([]);
    expect(await names('tools/list', 'tools', ADMIN)).toEqual(['open', 'secret_drop']);
    expect(await names('resources/templates/list', 'resourceTemplates', ADMIN)).toEqual(['test://secret/{id}']);
  });

  it('2026-07-28: calling, getting, reading or completing a hidden item answers exactly as for an unknown one, and runs nothing', async () => {
    const hidden = build({ visibility: adminOnly });
    const absent = build({ withSecrets: false });
    for (const [i, [method, params]] of PROBES.entries()) {
      const answer = await ask(hidden.server, modern(i, method, params));
      expect(answer).toHaveProperty('error');
      expect({ method, answer }).toEqual({ method, answer: await ask(absent.server, modern(i, method, params)) });
    }
    expect(hidden.calls).toEqual([]);
    // The caller who may see it is served.
    expect(await ask(hidden.server, modern(9, 'tools/call', { name: 'secret_drop' }), ADMIN)).toMatchObject({ result: { content: [{ type: 'text', text: 'dropped' }] } });
    expect(hidden.calls).toEqual(['secret_drop']);
  });

  it('2025-11-25 session: the same, with the session\'s authInfo (no list entry, the unknown-item answer)', async () => {
    const hidden = build({ visibility: adminOnly });
    const absent = build({ withSecrets: false });
    const a = await connectRawClient(hidden.server, { authInfo: USER.authInfo });
    const b = await connectRawClient(absent.server, { authInfo: USER.authInfo });
    await a.initialize();
    await b.initialize();
    expect(await a.request(0, 'tools/list')).toEqual(await b.request(0, 'tools/list'));
    for (const [i, [method, params]] of PROBES.entries()) {
      const answer = await a.request(i + 1, method, params);
      expect(answer).toHaveProperty('error');
      expect({ method, answer }).toEqual({ method, answer: await b.request(i + 1, method, params) });
    }
    expect(hidden.calls).toEqual([]);
    await a.close();
    await b.close();
  });

  it('the function is asked with the item and the caller', async () => {
    const asked: [VisibilityItem, VisibilityCaller][] = [];
    const { server } = build({ visibility: (item, caller) => (asked.push([item, caller]), true) });
    await ask(server, modern(1, 'tools/call', { name: 'secret_drop' }), ADMIN);
    expect(asked).toEqual([[
      { kind: 'tool', name: 'secret_drop', descriptor: { name: 'secret_drop', inputSchema: { type: 'object' } } },
      { authInfo: ADMIN.authInfo, clientInfo: undefined, era: 'modern', protocolVersion: '2026-07-28', sessionId: undefined },
    ]]);
  });
});

describe('visibility through McpClient', () => {
  for (const pin of ['2025-11-25', '2026-07-28'] as const) {
    it(`${pin}: the hidden tool is neither listed nor callable, and the failure is the unknown tool's`, async () => {
      const hidden = build({ visibility: adminOnly });
      const absent = build({ withSecrets: false });
      const open = async (server: McpServer) => McpClient.connect({ connector: inMemoryConnector(server, { connect: { authInfo: USER.authInfo } }), logger: silent, verdictStore: new InMemoryEraVerdictStore(), pin });
      const a = await open(hidden.server);
      const b = await open(absent.server);
      expect((await a.listAllTools()).map((t) => t.name)).toEqual(['open']);
      const failure = (client: McpClient) => client.callTool({ name: 'secret_drop' }).then(() => 'served', (error: unknown) => ({ ...(error as object), message: (error as Error).message }));
      const got = await failure(a);
      expect(got).toMatchObject({ code: -32602, message: 'Invalid params: unknown tool "secret_drop"' });
      expect(got).toEqual(await failure(b));
      expect(hidden.calls).toEqual([]);
      await a.close();
      await b.close();
    });
  }
});

describe('visibility: caching and cost', () => {
  it('2026-07-28: a filtered list is cacheScope "private" on every page, whatever the server\'s cache policy says', async () => {
    const { server } = build({ visibility: adminOnly, cache: { ttlMs: 60_000, scope: 'public' }, pageSize: 1 });
    const first = (await ask(server, modern(1, 'resources/list'), ADMIN)) as { result: Record<string, unknown> };
    expect(first.result).toMatchObject({ resources: [{ uri: 'test://open' }], ttlMs: 60_000, cacheScope: 'private', nextCursor: expect.any(String) });
    const second = (await ask(server, modern(2, 'resources/list', { cursor: first.result.nextCursor }), ADMIN)) as { result: Record<string, unknown> };
    expect(second.result).toMatchObject({ resources: [{ uri: 'test://secret' }], cacheScope: 'private' });
    expect(second.result.nextCursor).toBeUndefined();
    // Without a visibility function the server's policy stands.
    const open = build({ cache: { ttlMs: 60_000, scope: 'public' } }).server;
    expect(((await ask(open, modern(3, 'tools/list'))) as { result: Record<string, unknown> }).result).toMatchObject({ cacheScope: 'public', ttlMs: 60_000 });
  });

  it('a legacy-era list carries no cache fields, filtered or not', async () => {
    const { server } = build({ visibility: adminOnly });
    const raw = await connectRawClient(server);
    await raw.initialize();
    expect(await raw.request(1, 'tools/list')).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'open', inputSchema: { type: 'object' } }] } });
    await raw.close();
  });

  it('without a visibility function the lists are the registry\'s frozen arrays (no per-request work)', async () => {
    const { server } = build();
    const one = (await server.handle(modern(1, 'tools/list'))) as { result: { tools: unknown[] } };
    const two = (await server.handle(modern(2, 'tools/list'))) as { result: { tools: unknown[] } };
    expect(Object.isFrozen(one.result.tools)).toBe(true);
    expect(one.result.tools).toBe(two.result.tools);
    const filtered = build({ visibility: () => true }).server;
    expect(Object.isFrozen(((await filtered.handle(modern(1, 'tools/list'))) as { result: { tools: unknown[] } }).result.tools)).toBe(false);
  });

  it('paramHeaders(name, caller) answers a hidden tool as an unknown one (for a transport checking Mcp-Param-* first)', () => {
    const server = new McpServer({ name: 'h', version: '1' }, { logger: silent, visibility: adminOnly });
    server.tool('secret_region', { inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }, () => ({ content: [] }));
    const user: VisibilityCaller = { authInfo: USER.authInfo, clientInfo: undefined, era: 'modern', protocolVersion: '2026-07-28', sessionId: undefined };
    expect(server.paramHeaders('secret_region', user)).toBeUndefined();
    expect(server.paramHeaders('secret_region', { ...user, authInfo: ADMIN.authInfo })).toEqual([{ header: 'Region', field: 'mcp-param-region', path: ['region'], type: 'string' }]);
    // Without a caller (today's HTTP ladder) the headers are the tool's.
    expect(server.paramHeaders('secret_region')).toHaveLength(1);
  });

  it('refuses a visibility option that is not a function', () => {
    expect(() => new McpServer({ name: 'x', version: '1' }, { visibility: 'admins' as never })).toThrow(new TypeError('Invalid option visibility: expected a function (item, caller) => boolean, got string'));
  });
});

describe('visibility: mounted servers and the search helpers', () => {
  it('a mounted server\'s own function still hides its items under the parent, and the parent\'s applies on top', async () => {
    const child = build({ visibility: adminOnly }).server;
    const parent = new McpServer({ name: 'parent', version: '1' }, { logger: silent, visibility: (item) => item.name !== 'c_open' });
    parent.mount('c', child);
    const tools = async (extra: Extra) => ((await ask(parent, modern(1, 'tools/list'), extra)) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(await tools(USER)).toEqual([]);
    expect(await tools(ADMIN)).toEqual(['c_secret_drop']);
    expect(await ask(parent, modern(2, 'tools/call', { name: 'c_secret_drop' }))).toMatchObject({ error: { code: -32602, message: 'Invalid params: unknown tool "c_secret_drop"' } });
    // The mounted server's rule alone also makes the parent's lists per caller (private).
    const plain = new McpServer({ name: 'plain', version: '1' }, { logger: silent });
    plain.mount('c', child);
    expect(((await ask(plain, modern(3, 'tools/list'))) as { result: Record<string, unknown> }).result).toMatchObject({ tools: [{ name: 'c_open' }], cacheScope: 'private' });
  });

  it('visibleTool / visibleEntries (what a catalog search calls) agree with the lists', async () => {
    const { server } = build({ visibility: adminOnly });
    // The helpers read the server's registry and function (`visibilityHost`) and the handler's ctx.
    let seen: { tool: unknown; names: string[] } | undefined;
    server.tool('search', {}, (_args, ctx) => {
      seen = { tool: visibleToolFor(server, 'secret_drop', ctx), names: visibleNamesFor(server, ctx) };
      return { content: [] };
    });
    await ask(server, modern(1, 'tools/call', { name: 'search' }));
    expect(seen).toEqual({ tool: undefined, names: ['open', 'search'] });
    await ask(server, modern(2, 'tools/call', { name: 'search' }), ADMIN);
    expect(seen?.names).toEqual(['open', 'secret_drop', 'search']);
  });
});

function visibleToolFor(server: McpServer, name: string, ctx: unknown): unknown {
  return visibleTool(server.visibilityHost, name, ctx);
}
function visibleNamesFor(server: McpServer, ctx: unknown): string[] {
  return visibleEntries(server.visibilityHost, 'tools', ctx).map((e) => e.descriptor.name);
}
