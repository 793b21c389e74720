/**
 * `McpServer.mount` (composition): a mounted server's tools, prompts, resources, templates and completions served
 * from the parent under its prefix, through McpClient in both eras (`inMemoryConnector`) and the raw client; the
 * conflicts refused at mount time and by later registrations on either side, naming both owners; list changes
 * and resource updates propagated; capabilities the union of what is there; the handlers' `ctx` working.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRpcResponse, Logger } from '@switchboard/jsonrpc';
import { McpClient } from '../client/mcpClient.js';
import { InMemoryEraVerdictStore } from '../client/verdicts.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import { connectRawClient, inMemoryConnector } from '../testing/index.js';
import { McpServer } from './mcpServer.js';
import type { McpServerOptions } from './options.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const settle = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));
const MODERN: ProtocolRevision = '2026-07-28';
const LEGACY: ProtocolRevision = '2025-11-25';
const ASK = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } as const;

const clients: McpClient[] = [];
const servers: McpServer[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

function server(name: string, options: McpServerOptions = {}): McpServer {
  const s = new McpServer({ name, version: '1' }, { logger: silent, ...options });
  servers.push(s);
  return s;
}

/** A server with one of everything: a tool that uses its ctx, a prompt and a template with completions, a resource. */
function weather(): McpServer {
  const s = server('weather');
  s.tool('forecast', { inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, async ({ city }, ctx) => {
    await ctx.log('info', `forecast for ${city}`);
    await ctx.progress(1, 2, 'halfway');
    const who = await ctx.elicit(ASK, { key: 'who' });
    return { content: [{ type: 'text', text: `${city}: sunny, ${String(who.content?.name)} (aborted: ${String(ctx.signal.aborted)})` }] };
  });
  s.tool('summary', {}, async (_args, ctx) => {
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }], maxTokens: 10 });
    return { content: [{ type: 'text', text: `model said: ${JSON.stringify(sampled.content)}` }] };
  });
  s.prompt('outlook', { arguments: [{ name: 'city', required: true }], complete: { city: (value) => ['Paris', 'Pisa', 'Oslo'].filter((c) => c.startsWith(value)) } }, ({ city }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Outlook for ${city}?` } }],
  }));
  s.resource('weather://stations', { name: 'stations' }, (uri) => ({ contents: [{ uri, text: 'Paris, Oslo' }] }));
  s.resourceTemplate('weather://city/{name}', { name: 'city', complete: { name: (value) => ['Paris', 'Pisa'].filter((c) => c.startsWith(value)) } }, (uri, { name }) => ({
    contents: [{ uri, text: `station of ${String(name)}` }],
  }));
  return s;
}

function main(): McpServer {
  const s = server('main');
  s.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  return s;
}

async function connect(s: McpServer, pin: ProtocolRevision, options: { notifications?: Record<string, (...args: any[]) => void> } = {}): Promise<McpClient> {
  const client = await McpClient.connect({
    connector: inMemoryConnector(s),
    logger: silent,
    verdictStore: new InMemoryEraVerdictStore(),
    pin,
    onElicitation: () => Promise.resolve({ action: 'accept' as const, content: { name: 'Ada' } }),
    onSampling: () => Promise.resolve({ role: 'assistant' as const, content: { type: 'text' as const, text: 'mild' }, model: 'm' }),
    notifications: options.notifications,
  });
  clients.push(client);
  return client;
}

describe('McpServer.mount: the mounted server served under its prefix', () => {
  for (const pin of [LEGACY, MODERN]) {
    it(`${pin}: lists, tools/call (ctx.log, progress, elicit, signal), prompts/get, resources/read and completion through the prefix`, async () => {
      const parent = main();
      parent.mount('wx', weather());
      const logs: unknown[] = [];
      const client = await connect(parent, pin, { notifications: { message: (p: unknown) => logs.push(p) } });
      expect((await client.listAllTools()).map((t) => t.name)).toEqual(['echo', 'wx_forecast', 'wx_summary']);
      expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(['wx_outlook']);
      expect((await client.listAllResources()).map((r) => r.uri)).toEqual(['wx+weather://stations']);
      expect((await client.listAllResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['wx+weather://city/{name}']);

      const progress: unknown[] = [];
      const called = await client.callTool({ name: 'wx_forecast', arguments: { city: 'Oslo' } }, { onprogress: (p) => progress.push(p) });
      expect(called.content).toEqual([{ type: 'text', text: 'Oslo: sunny, Ada (aborted: false)' }]);
      if (pin === LEGACY) {
        // A session carries the log and the progress as the handler sends them.
        expect(logs).toEqual([{ level: 'info', data: 'forecast for Oslo' }]);
        expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 2, message: 'halfway' })]);
      } else {
        // 2026-07-28: the handler runs once per round (the elicitation's input_required, then the retry); each
        // round's progress reaches the request's progress token. No log without a requested log level.
        expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 2, message: 'halfway' }), expect.objectContaining({ progress: 1, total: 2, message: 'halfway' })]);
        expect(logs).toEqual([]);
      }
      expect((await client.callTool({ name: 'wx_summary' })).content).toEqual([{ type: 'text', text: 'model said: {"type":"text","text":"mild"}' }]);
      // Arguments are checked against the mounted tool's own compiled schema.
      expect(await client.callTool({ name: 'wx_forecast', arguments: {} })).toMatchObject({ isError: true });

      expect((await client.getPrompt({ name: 'wx_outlook', arguments: { city: 'Oslo' } })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Outlook for Oslo?' } }]);
      // The handler is asked for its own URI; the contents come back under the prefix.
      expect((await client.readResource({ uri: 'wx+weather://stations' })).contents).toEqual([{ uri: 'wx+weather://stations', text: 'Paris, Oslo' }]);
      expect((await client.readResource({ uri: 'wx+weather://city/Oslo' })).contents).toEqual([{ uri: 'wx+weather://city/Oslo', text: 'station of Oslo' }]);
      // The unprefixed URI is not served here.
      await expect(client.readResource({ uri: 'weather://stations' })).rejects.toMatchObject({ code: pin === MODERN ? -32602 : -32002 });

      expect((await client.complete({ ref: { type: 'ref/prompt', name: 'wx_outlook' }, argument: { name: 'city', value: 'P' } })).completion.values).toEqual(['Paris', 'Pisa']);
      expect((await client.complete({ ref: { type: 'ref/resource', uri: 'wx+weather://city/{name}' }, argument: { name: 'name', value: 'Pi' } })).completion.values).toEqual(['Pisa']);
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'outlook' }, argument: { name: 'city', value: 'P' } })).rejects.toMatchObject({ code: -32602 });
    });
  }

  it('links a mounted tool or prompt returns to its own resources are renamed; other links are left as they are', async () => {
    const child = weather();
    child.tool('links', {}, () => ({
      content: [
        { type: 'resource_link', uri: 'weather://city/Oslo', name: 'oslo' },
        { type: 'resource_link', uri: 'https://example.com/a', name: 'web' },
        { type: 'resource', resource: { uri: 'weather://stations', text: 'Paris, Oslo' } },
        { type: 'text', text: 'weather://stations' },
      ],
    }));
    child.prompt('embed', {}, () => ({ messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'weather://stations', text: 'x' } } }] }));
    const parent = main();
    parent.mount('wx', child);
    const client = await connect(parent, MODERN);
    expect((await client.callTool({ name: 'wx_links' })).content).toEqual([
      { type: 'resource_link', uri: 'wx+weather://city/Oslo', name: 'oslo' },
      { type: 'resource_link', uri: 'https://example.com/a', name: 'web' },
      { type: 'resource', resource: { uri: 'wx+weather://stations', text: 'Paris, Oslo' } },
      { type: 'text', text: 'weather://stations' },
    ]);
    expect((await client.getPrompt({ name: 'wx_embed' })).messages).toEqual([{ role: 'user', content: { type: 'resource', resource: { uri: 'wx+weather://stations', text: 'x' } } }]);
  });

  it('the mounted server keeps serving its own clients under its own names', async () => {
    const child = weather();
    main().mount('wx', child);
    const client = await connect(child, LEGACY);
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['forecast', 'summary']);
  });

  it('pages the merged lists with the existing cursors', async () => {
    const parent = server('main', { pageSize: 2 });
    for (const n of ['a', 'b', 'c']) parent.tool(n, {}, () => ({ content: [] }));
    const child = server('child');
    for (const n of ['x', 'y', 'z']) child.tool(n, {}, () => ({ content: [] }));
    parent.mount('k', child);
    const raw = await connectRawClient(parent);
    await raw.initialize();
    const first = (await raw.request(1, 'tools/list')) as { result: unknown };
    const page1 = first.result as { tools: { name: string }[]; nextCursor: string };
    expect(page1.tools.map((t) => t.name)).toEqual(['a', 'b']);
    const page2 = ((await raw.request(2, 'tools/list', { cursor: page1.nextCursor })) as { result: unknown }).result as { tools: { name: string }[]; nextCursor: string };
    const page3 = ((await raw.request(3, 'tools/list', { cursor: page2.nextCursor })) as { result: unknown }).result as { tools: { name: string }[]; nextCursor?: string };
    expect([...page2.tools, ...page3.tools].map((t) => t.name)).toEqual(['c', 'k_x', 'k_y', 'k_z']);
    expect(page3.nextCursor).toBeUndefined();
    await raw.close();
  });

  it('nests: a server mounted on a mounted server is served under both prefixes', async () => {
    const top = server('top');
    const middle = server('middle');
    const leaf = server('leaf');
    leaf.tool('t', {}, () => ({ content: [{ type: 'text', text: 'leaf' }] }));
    leaf.resource('file:///a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'a' }] }));
    middle.mount('m', leaf);
    top.mount('top', middle);
    const client = await connect(top, MODERN);
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['top_m_t']);
    expect((await client.callTool({ name: 'top_m_t' })).content).toEqual([{ type: 'text', text: 'leaf' }]);
    expect((await client.readResource({ uri: 'top+m+file:///a' })).contents).toEqual([{ uri: 'top+m+file:///a', text: 'a' }]);
    // A later registration on the leaf reaches the top.
    leaf.tool('u', {}, () => ({ content: [] }));
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['top_m_t', 'top_m_u']);
  });
});

describe('McpServer.mount: conflicts', () => {
  it('refuses at mount time a name that would exist twice, naming both owners, and mounts nothing', () => {
    const parent = main();
    parent.tool('wx_forecast', {}, () => ({ content: [] }));
    const child = weather();
    expect(() => parent.mount('wx', child)).toThrow(
      new TypeError('Tool already registered on server "main": "wx_forecast" (by server "main"); refused: registered again by mounted server "weather" (prefix "wx") as its tool "forecast"'),
    );
    // Nothing of the child arrived (its resources were checked after the tools, and are not there either).
    expect(parent.capabilities.resources).toBeUndefined();
    expect(parent.paramHeaders('wx_outlook')).toBeUndefined();
    // The prefix is free: another mount may use it.
    expect(() => parent.mount('wx', server('other'))).not.toThrow();
  });

  it('refuses a later registration on the parent that takes a mounted name, and one on the mounted server whose name is taken above', async () => {
    const parent = main();
    const child = weather();
    parent.mount('wx', child);
    expect(() => parent.tool('wx_forecast', {}, () => ({ content: [] }))).toThrow(
      new TypeError('Tool already registered on server "main": "wx_forecast" (by mounted server "weather" (prefix "wx") as its tool "forecast"); refused: registered again by server "main"'),
    );
    expect(() => parent.resource('wx+weather://stations', { name: 's' }, () => ({ contents: [] }))).toThrow(/Resource already registered on server "main": "wx\+weather:\/\/stations" \(by mounted server "weather"/);
    parent.prompt('wx_later', {}, () => ({ messages: [] }));
    expect(() => child.prompt('later', {}, () => ({ messages: [] }))).toThrow(
      new TypeError('Prompt already registered on server "main": "wx_later" (by server "main"); refused: registered again by mounted server "weather" (prefix "wx") as its prompt "later"'),
    );
    // Refused on the mounted server itself too: it registered nothing, and announced nothing.
    const listed = (await child.handle({ jsonrpc: '2.0', id: 1, method: 'prompts/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } } })) as { result: { prompts: { name: string }[] } };
    expect(listed.result.prompts.map((p) => p.name)).toEqual(['outlook']);
    expect(() => parent.prompt('wx_later', {}, () => ({ messages: [] }))).toThrow(/by server "main"/);
  });

  it('refuses two names that meet from two mounts, through a nested mount too', () => {
    const parent = server('main');
    const a = server('a');
    a.tool('b_c', {}, () => ({ content: [] }));
    const ab = server('ab');
    ab.tool('c', {}, () => ({ content: [] }));
    parent.mount('a', a);
    expect(() => parent.mount('a_b', ab)).toThrow(TypeError); // not a prefix: "_" is the separator
    const inner = server('inner');
    inner.tool('c', {}, () => ({ content: [] }));
    const b = server('b');
    parent.mount('a-b', b);
    // Mounting `inner` at "c" on `a` would make "a_c_c"; free. At "b" on `a`: "a_b_c" exists on `a` already.
    expect(() => a.mount('b', inner)).toThrow(/Tool already registered on server "a": "b_c" \(by server "a"\)/);
    // A server mounted below refuses what its grandparent holds.
    parent.tool('a_x_c', {}, () => ({ content: [] }));
    expect(() => a.mount('x', inner)).toThrow(/Tool already registered on server "main": "a_x_c" \(by server "main"\); refused: registered again by mounted server "a" \(prefix "a"\) as its tool "x_c"/);
    expect(parent.paramHeaders('a_x_c')).toEqual([]);
  });

  it('refuses a bad prefix, a prefix taken, a cycle, and a template that cannot be namespaced', () => {
    const parent = main();
    const child = weather();
    for (const bad of ['', 'Wx', '1a', 'a_b', 'a+b', 'a b']) expect(() => parent.mount(bad, child)).toThrow(/Invalid mount prefix/);
    parent.mount('wx', child);
    expect(() => parent.mount('wx', server('other'))).toThrow('Cannot mount server "other": prefix "wx" is already mounted on server "main" (by server "weather")');
    expect(() => child.mount('up', parent)).toThrow(/it would serve itself/);
    expect(() => parent.mount('me', parent)).toThrow(/it would serve itself/);
    const odd = server('odd');
    odd.resourceTemplate('{+anything}', { name: 'any' }, (uri) => ({ contents: [{ uri, text: '' }] }));
    expect(() => parent.mount('odd', odd)).toThrow(/Cannot namespace resource template "\{\+anything\}" under prefix "odd"/);
    // Later, too: the registration on the mounted server is refused.
    expect(() => child.resourceTemplate('{+x}', { name: 'x' }, (uri) => ({ contents: [{ uri, text: '' }] }))).toThrow(/Cannot namespace resource template/);
    // A renamed tool over 128 characters is refused as a registration would be.
    const long = server('long');
    long.tool('t'.repeat(125), {}, () => ({ content: [] }));
    expect(() => parent.mount('longer', long)).toThrow(/Invalid tool name/);
  });
});

describe('McpServer.mount: changes propagated', () => {
  it('a session on the parent hears list_changed when the mounted server registers or removes, and on unmount', async () => {
    const parent = main();
    const child = weather();
    const unmount = parent.mount('wx', child);
    let changed = 0;
    const client = await connect(parent, LEGACY, { notifications: { toolsListChanged: () => changed++ } });
    const remove = child.tool('late', {}, () => ({ content: [] }));
    await settle();
    expect(changed).toBe(1);
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['echo', 'wx_forecast', 'wx_summary', 'wx_late']);
    remove();
    await settle();
    expect(changed).toBe(2);
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['echo', 'wx_forecast', 'wx_summary']);
    unmount();
    unmount(); // idempotent
    await settle();
    expect(changed).toBe(3);
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['echo']);
    // Unmounted, the child registers freely and the parent hears nothing.
    child.tool('free', {}, () => ({ content: [] }));
    parent.tool('wx_free', {}, () => ({ content: [] }));
    await settle();
    expect(changed).toBe(4); // the parent's own registration only
  });

  it('2026-07-28: a listen stream on the parent gets the list change and the resource update under the prefixed URI', async () => {
    const parent = main();
    const child = weather();
    parent.mount('wx', child);
    const client = await connect(parent, MODERN);
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['wx+weather://stations'] });
    expect(subscription.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: ['wx+weather://stations'] });
    const heard: { method: string; uri?: unknown }[] = [];
    subscription.on((n) => heard.push({ method: n.method, ...(n.params.uri === undefined ? {} : { uri: n.params.uri }) }));
    child.tool('late', {}, () => ({ content: [] }));
    await settle(20);
    await child.notifyResourceUpdated('weather://stations');
    await settle(20);
    expect(heard).toEqual([{ method: 'notifications/tools/list_changed' }, { method: 'notifications/resources/updated', uri: 'wx+weather://stations' }]);
    await subscription.close();
  });

  it('a session subscribed to the prefixed URI gets notifications/resources/updated with it', async () => {
    const parent = main();
    const child = weather();
    parent.mount('wx', child);
    const raw = await connectRawClient(parent);
    await raw.initialize();
    expect(await raw.request(1, 'resources/subscribe', { uri: 'wx+weather://city/Oslo' })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await child.notifyResourceUpdated('weather://city/Oslo');
    const updated = await raw.waitFor((m) => (m as { method?: string }).method === 'notifications/resources/updated');
    expect(updated).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'wx+weather://city/Oslo' } });
    await raw.close();
  });
});

describe('McpServer.mount: capabilities', () => {
  it('the parent advertises the union of what is there, and loses what leaves on unmount', async () => {
    const parent = server('main');
    expect(parent.capabilities).toEqual({ logging: {} });
    const prompts = server('prompts');
    prompts.prompt('p', {}, () => ({ messages: [] }));
    const unmountPrompts = parent.mount('p', prompts);
    expect(parent.capabilities).toEqual({ logging: {}, prompts: { listChanged: true }, completions: {} });
    // A mounted server that declared tools up front (registered later) brings `tools`, nothing else it configured.
    const later = server('later', { capabilities: { tools: { listChanged: true }, experimental: { x: {} } } });
    const unmountLater = parent.mount('l', later);
    expect(parent.capabilities).toEqual({ logging: {}, prompts: { listChanged: true }, completions: {}, tools: { listChanged: true } });
    unmountPrompts();
    unmountLater();
    expect(parent.capabilities).toEqual({ logging: {} });

    // What a client is told: 2025-11-25 initialize and 2026-07-28 server/discover.
    parent.mount('wx', weather());
    const raw = await connectRawClient(parent);
    const init = (await raw.initialize()) as JsonRpcResponse & { result: { capabilities: unknown } };
    expect(init.result.capabilities).toEqual({ logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} });
    await raw.close();
  });
});
