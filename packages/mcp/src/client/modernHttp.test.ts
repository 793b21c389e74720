/**
 * The 2026-07-28 features through McpClient over Streamable HTTP (`streamableHttp`) against our own server on
 * 127.0.0.1 (`serveHttp`, port 0). The client's `fetch` records every exchange, so the tests see the POSTs as sent:
 * each input round a POST of its own, a listen closed by closing its response stream (no `notifications/cancelled`),
 * the tasks requests named by their task id (`Mcp-Name`), cached lists not fetched again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '@switchboard/jsonrpc';
import { McpServer } from '../server/mcpServer.js';
import { InMemoryNotificationBus } from '../stores/notificationBus.js';
import { streamableHttp } from '../transports/http/client/clientConnectors.js';
import { serveHttp, type ServeHttpHandle } from '../transports/node/index.js';
import { McpClient } from './mcpClient.js';
import type { McpClientOptions } from './options.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const settle = (ms = 10): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Exchange {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: any;
}

let server: McpServer;
let bus: InMemoryNotificationBus;
let http: ServeHttpHandle;
let client: McpClient | undefined;

beforeEach(async () => {
  bus = new InMemoryNotificationBus();
  server = new McpServer({ name: 'own', version: '1' }, { logger: silent, bus, cache: { ttlMs: 60_000 }, capabilities: { tools: { listChanged: true } } });
  server.tool('greet', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'who' });
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name)}!` }] };
  });
  server.tool('job', { task: { pollIntervalMs: 5 } }, async () => {
    await settle(20);
    return { content: [{ type: 'text', text: 'job done' }] };
  });
  http = await serveHttp({ server, port: 0 });
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await http.close({ drainMs: 0 });
  await server.close();
});

async function connect(options: Partial<McpClientOptions> = {}): Promise<{ client: McpClient; posts: (method?: string) => Exchange[] }> {
  const exchanges: Exchange[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const text = typeof init?.body === 'string' ? init.body : undefined;
    exchanges.push({ method: init?.method ?? 'GET', headers, body: text === undefined ? undefined : JSON.parse(text) });
    const response = await globalThis.fetch(input, init);
    return response;
  };
  client = await McpClient.connect({ connector: streamableHttp({ url: http.url, fetch }), logger: silent, verdictStore: new InMemoryEraVerdictStore(), ...options });
  const posts = (method?: string): Exchange[] => exchanges.filter((e) => e.method === 'POST' && (method === undefined || e.body?.method === method));
  return { client, posts };
}

describe('McpClient over Streamable HTTP, 2026-07-28', () => {
  it('each input round is a POST of its own, the retry with inputResponses and the requestState', async () => {
    const { client: c, posts } = await connect({ onElicitation: () => Promise.resolve({ action: 'accept', content: { name: 'Ada' } }) });
    expect(c.era).toBe('modern');
    expect((await c.callTool({ name: 'greet' })).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    const calls = posts('tools/call');
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.headers).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-name': 'greet', 'mcp-protocol-version': '2026-07-28' });
    expect(calls[0]!.body.params.requestState).toBeUndefined();
    expect(calls[1]!.body.params).toMatchObject({ inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } }, requestState: expect.any(String) });
    expect(calls[1]!.body.id).not.toBe(calls[0]!.body.id);
  });

  it('a cached list is not fetched again', async () => {
    const { client: c, posts } = await connect();
    await c.listTools();
    await c.listTools();
    expect(posts('tools/list')).toHaveLength(1);
  });

  it('listen: notifications arrive on the listen POST’s stream; close() closes that stream and posts no notifications/cancelled', async () => {
    const { client: c, posts } = await connect();
    const before = bus.size;
    const sub = await c.listen({ toolsListChanged: true });
    expect(bus.size).toBe(before + 1);
    expect(sub.acknowledged).toEqual({ toolsListChanged: true });
    const heard: unknown[] = [];
    sub.on((n) => heard.push(n));
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    for (let i = 0; i < 100 && heard.length === 0; i++) await settle(5);
    expect(heard).toEqual([{ method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': sub.id } } }]);
    expect(posts('subscriptions/listen')[0]!.headers).toMatchObject({ 'mcp-method': 'subscriptions/listen' });
    expect(await sub.close()).toEqual({ reason: 'client' });
    await settle(50);
    expect(posts('notifications/cancelled')).toEqual([]);
    // The server saw the stream close and ended its listen stream (it left the bus).
    for (let i = 0; i < 100 && bus.size !== before; i++) await settle(5);
    expect(bus.size).toBe(before);
  });

  it('tasks: tasks/get is named by its task id (Mcp-Name)', async () => {
    const { client: c, posts } = await connect();
    const task = await c.callToolAsTask({ name: 'job' }, { pollIntervalMs: 5 });
    expect(await task.result()).toEqual({ content: [{ type: 'text', text: 'job done' }] });
    const gets = posts('tasks/get');
    expect(gets.length).toBeGreaterThan(0);
    for (const get of gets) expect(get.headers).toMatchObject({ 'mcp-method': 'tasks/get', 'mcp-name': task.taskId });
  });
});
