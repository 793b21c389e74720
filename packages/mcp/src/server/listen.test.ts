/**
 * `subscriptions/listen` (MCP 2026-07-28 basic/patterns/subscriptions.mdx) through `McpServer.handle`, whole wire
 * messages: the acknowledgement first with the honoured subset, then only the opted-in notifications, each
 * tagged with the listen request's id, from the notification bus; the stream ends with no response when the
 * client goes, with the graceful result when the server closes. Over a real stdio process: test/dual-era-stdio.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcParams, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { InMemoryNotificationBus, type BusMessage } from '../stores/notificationBus.js';
import { connectRawClient } from '../testing/index.js';
import type { ClientChannel } from './channel.js';
import { McpServer } from './mcpServer.js';
import type { McpServerOptions } from './options.js';

const INFO = { name: 'listen', version: '1' };
const SUB = 'io.modelcontextprotocol/subscriptionId';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** What a listen stream's channel received, in order (the notify options' related request id beside each). */
class StreamChannel implements ClientChannel {
  readonly sent: { method: string; params: JsonRpcParams | undefined; relatedRequestId: unknown }[] = [];
  notify(method: string, params?: JsonRpcParams, options?: { relatedRequestId?: unknown }): Promise<void> {
    this.sent.push({ method, params, relatedRequestId: options?.relatedRequestId });
    return Promise.resolve();
  }
  request<T>(method: string): Promise<T> {
    return Promise.reject(new Error(`no server to client request in the modern era: ${method}`));
  }
}

const listen = (id: number | string, notifications: unknown, meta: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications, _meta: { ...META, ...meta } },
});

function makeServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer(INFO, { logger: silentLogger, ...options });
  server.tool('t', {}, () => ({ content: [] }));
  server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'a' }] }));
  server.prompt('p', {}, () => ({ messages: [] }));
  return server;
}

/** Lets queued microtasks and timers of zero delay run (coalesced list-changed, bus delivery). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

/**
 * Opens a listen stream once the server's own registrations were announced (they are coalesced into one
 * list-changed notification a microtask later); `reply` settles when the stream ends.
 */
async function open(server: McpServer, id: number | string, notifications: unknown, meta?: Record<string, unknown>) {
  await settle();
  const channel = new StreamChannel();
  const controller = new AbortController();
  const reply: Promise<JsonRpcResponse | undefined> = server.handle(listen(id, notifications, meta), { channel, signal: controller.signal });
  return { channel, controller, reply };
}

describe('subscriptions/listen', () => {
  it('counts every open stream\'s subscribed URIs against one server-wide budget (maxSubscriptionCharsTotal): when full, the longest-held stream of the caller holding most ends gracefully for the newcomer', async () => {
    const server = makeServer({ maxSubscriptionCharsTotal: 100 });
    const uri = (n: number): string => `test://${String(n).padStart(3, '0')}${'x'.repeat(30)}`; // 40 characters
    const first = await open(server, 'a', { resourceSubscriptions: [uri(1)] });
    const second = await open(server, 'b', { resourceSubscriptions: [uri(2)] });
    await settle();
    expect([first.channel.sent[0], second.channel.sent[0]]).toMatchObject([{ method: 'notifications/subscriptions/acknowledged' }, { method: 'notifications/subscriptions/acknowledged' }]);
    // 40 + 40 open; 40 more would make 120 > 100: the first stream (the longest-held) ends with the listen result.
    const third = await open(server, 'c', { resourceSubscriptions: [uri(3)] });
    expect(await first.reply).toEqual({ jsonrpc: '2.0', id: 'a', result: { resultType: 'complete', _meta: { [SUB]: 'a', 'io.modelcontextprotocol/serverInfo': INFO } } });
    await settle();
    expect(third.channel.sent[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    // One stream larger than the whole budget is refused.
    const huge = Array.from({ length: 3 }, (_, i) => uri(10 + i));
    expect(await server.handle(listen('d', { resourceSubscriptions: huge }), { channel: new StreamChannel() })).toEqual({
      jsonrpc: '2.0', id: 'd',
      error: { code: -32602, message: 'Invalid params: the listen streams\' resource subscriptions exceed the server\'s limit of 100 characters', data: { maxSubscriptionCharsTotal: 100 } },
    });
    second.controller.abort();
    third.controller.abort();
  });

  it('acknowledges first with the honoured subset, then sends each opted-in notification tagged with the listen id', async () => {
    const server = makeServer();
    const stream = await open(server, 'listen-1', { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://a', 'test://b', 'test://a'] });
    await settle();
    expect(stream.channel.sent).toEqual([{
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUB]: 'listen-1' }, notifications: { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://a', 'test://b'] } },
      relatedRequestId: 'listen-1',
    }]);
    server.tool('t2', {}, () => ({ content: [] }));
    server.prompt('p2', {}, () => ({ messages: [] }));
    await settle();
    await server.notifyResourceUpdated('test://a');
    await server.notifyResourceUpdated('test://c');
    server.resource('test://new', { name: 'new' }, (uri) => ({ contents: [{ uri, text: '' }] }));
    await settle();
    expect(stream.channel.sent.slice(1)).toEqual([
      { method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'listen-1' } }, relatedRequestId: 'listen-1' },
      { method: 'notifications/resources/updated', params: { uri: 'test://a', _meta: { [SUB]: 'listen-1' } }, relatedRequestId: 'listen-1' },
      { method: 'notifications/resources/list_changed', params: { _meta: { [SUB]: 'listen-1' } }, relatedRequestId: 'listen-1' },
    ]);
    stream.controller.abort();
    expect(await stream.reply).toBeUndefined();
  });

  it('the client going (its signal) ends the stream with no response, and nothing more is sent to it', async () => {
    const server = makeServer();
    const stream = await open(server, 7, { toolsListChanged: true });
    await settle();
    stream.controller.abort();
    expect(await stream.reply).toBeUndefined();
    server.tool('later', {}, () => ({ content: [] }));
    await settle();
    expect(stream.channel.sent.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged']);
  });

  it('the server closing ends every stream with the graceful result naming its subscription', async () => {
    const server = makeServer();
    const a = await open(server, 'a', { toolsListChanged: true });
    const b = await open(server, 2, {});
    await settle();
    await server.close();
    expect(await a.reply).toEqual({ jsonrpc: '2.0', id: 'a', result: { resultType: 'complete', _meta: { [SUB]: 'a', 'io.modelcontextprotocol/serverInfo': INFO } } });
    expect(await b.reply).toEqual({ jsonrpc: '2.0', id: 2, result: { resultType: 'complete', _meta: { [SUB]: 2, 'io.modelcontextprotocol/serverInfo': INFO } } });
    expect(b.channel.sent).toEqual([{ method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: 2 }, notifications: {} }, relatedRequestId: 2 }]);
  });

  it('each stream gets only what it opted into; unsupported types are left out of the acknowledgement', async () => {
    const server = new McpServer(INFO, { logger: silentLogger });
    server.tool('t', {}, () => ({ content: [] }));
    // Tools only: no prompts, no resources (so no resourceSubscriptions either).
    const all = await open(server, 1, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://a'] });
    const none = await open(server, 2, { toolsListChanged: false });
    await settle();
    expect(all.channel.sent).toEqual([{ method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: 1 }, notifications: { toolsListChanged: true } }, relatedRequestId: 1 }]);
    expect(none.channel.sent).toEqual([{ method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: 2 }, notifications: {} }, relatedRequestId: 2 }]);
    server.tool('u', {}, () => ({ content: [] }));
    await settle();
    expect(all.channel.sent.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    expect(none.channel.sent.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged']);
    for (const s of [all, none]) s.controller.abort();
    await Promise.all([all.reply, none.reply]);
  });

  it('notifications come from the notification bus: a message published by another instance reaches the stream', async () => {
    const bus = new InMemoryNotificationBus();
    const server = makeServer({ bus });
    const stream = await open(server, 's', { promptsListChanged: true, resourceSubscriptions: ['test://x'] });
    await settle();
    const messages: BusMessage[] = [{ type: 'list_changed', capability: 'prompts' }, { type: 'list_changed', capability: 'tools' }, { type: 'resource_updated', uri: 'test://x' }];
    for (const message of messages) await bus.publish(message);
    expect(stream.channel.sent.slice(1)).toEqual([
      { method: 'notifications/prompts/list_changed', params: { _meta: { [SUB]: 's' } }, relatedRequestId: 's' },
      { method: 'notifications/resources/updated', params: { uri: 'test://x', _meta: { [SUB]: 's' } }, relatedRequestId: 's' },
    ]);
    stream.controller.abort();
    await stream.reply;
  });

  it('malformed filters are -32602; a stream past maxListenStreams takes the longest-held one\'s place', async () => {
    const server = makeServer({ maxListenStreams: 1, maxSubscriptionsPerSession: 2, maxSubscriptionUriLength: 10 });
    const cases: readonly (readonly [unknown, string])[] = [
      [undefined, 'Invalid params: "notifications" must be an object'],
      [[], 'Invalid params: "notifications" must be an object'],
      [{ toolsListChanged: 'yes' }, 'Invalid params: "notifications.toolsListChanged" must be a boolean'],
      [{ resourceSubscriptions: 'test://a' }, 'Invalid params: "notifications.resourceSubscriptions" must be an array of strings'],
      [{ resourceSubscriptions: [1] }, 'Invalid params: "notifications.resourceSubscriptions" must be an array of strings'],
      [{ resourceSubscriptions: ['a', 'b', 'c'] }, 'Invalid params: "notifications.resourceSubscriptions" holds more than 2 URIs'],
      [{ resourceSubscriptions: ['test://long-uri'] }, 'Invalid params: a URI in "notifications.resourceSubscriptions" is longer than 10 characters'],
    ];
    for (const [notifications, message] of cases) {
      const params = notifications === undefined ? { _meta: META } : { notifications, _meta: META };
      expect(await server.handle({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message } });
    }
    const first = await open(server, 'one', {});
    await settle();
    // At maxListenStreams the newcomer is served: the longest-held stream ends with the graceful listen result.
    const again = await open(server, 'two', {});
    expect(await first.reply).toEqual({ jsonrpc: '2.0', id: 'one', result: { resultType: 'complete', _meta: { [SUB]: 'one', 'io.modelcontextprotocol/serverInfo': INFO } } });
    await settle();
    expect(again.channel.sent).toHaveLength(1);
    again.controller.abort();
    await again.reply;
  });

  it('gives each caller a share of the streams and URIs: past its share it is refused; a full budget is taken back from the caller holding most', async () => {
    const server = makeServer({ maxListenStreams: 3, maxListenStreamsPerCaller: 2, maxListenUriCharsPerCaller: 20 });
    await settle();
    const as = (caller: string, id: string, notifications: unknown = {}) => {
      const controller = new AbortController();
      const reply = server.handle(listen(id, notifications), { channel: new StreamChannel(), signal: controller.signal, extra: { caller } });
      return { controller, reply };
    };
    const a1 = as('address:a', 'a1');
    const a2 = as('address:a', 'a2');
    expect(await server.handle(listen('a3', {}), { channel: new StreamChannel(), extra: { caller: 'address:a' } })).toEqual({
      jsonrpc: '2.0', id: 'a3', error: { code: -32602, message: 'Invalid params: too many listen streams are open for this caller (2)', data: { maxListenStreamsPerCaller: 2 } },
    });
    expect(await server.handle(listen('b0', { resourceSubscriptions: ['test://' + 'u'.repeat(20)] }), { channel: new StreamChannel(), extra: { caller: 'address:b' } })).toMatchObject({
      error: { code: -32602, data: { maxListenUriCharsPerCaller: 20 } },
    });
    const b1 = as('address:b', 'b1');
    // The budget (3) is full: a newcomer is served, and address:a (holding most) gives up its longest-held stream.
    const c1 = as('address:c', 'c1');
    expect(await a1.reply).toMatchObject({ id: 'a1', result: { resultType: 'complete' } });
    for (const s of [a2, b1, c1]) s.controller.abort();
    await Promise.all([a2.reply, b1.reply, c1.reply]);
  });

  it('neither log messages nor progress go on a listen stream, whatever the listen request asked', async () => {
    const server = makeServer();
    const stream = await open(server, 'l', { toolsListChanged: true }, { 'io.modelcontextprotocol/logLevel': 'debug', progressToken: 'p' });
    await settle();
    server.tool('x', {}, () => ({ content: [] }));
    await settle();
    expect(stream.channel.sent.map((m) => [m.method, (m.params as { _meta?: Record<string, unknown> })._meta?.[SUB]])).toEqual([
      ['notifications/subscriptions/acknowledged', 'l'],
      ['notifications/tools/list_changed', 'l'],
    ]);
    stream.controller.abort();
    await stream.reply;
  });

  it('over an in-memory connection: tagged beside the session, cancelled by notifications/cancelled with no response, graceful on close', async () => {
    const server = makeServer();
    await settle();
    const client = await connectRawClient(server);
    await client.initialize();
    await client.send(listen('m1', { toolsListChanged: true }));
    await client.send(listen('m2', { promptsListChanged: true }));
    await client.waitFor((m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged' && (m.params as { _meta: Record<string, unknown> })._meta[SUB] === 'm2');
    server.tool('t2', {}, () => ({ content: [] }));
    await client.waitFor((m) => 'method' in m && m.method === 'notifications/tools/list_changed' && m.params !== undefined);
    await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'm1' } });
    expect(await client.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    server.tool('t3', {}, () => ({ content: [] }));
    server.prompt('p2', {}, () => ({ messages: [] }));
    await client.waitFor((m) => 'method' in m && m.method === 'notifications/prompts/list_changed' && m.params !== undefined);
    await server.close();
    await settle();
    const notes = client.received.filter((m) => 'method' in m && !('id' in m)).map((m) => [(m as { method: string }).method, (m as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[SUB]]);
    // Per subscription, in order (the session and the streams hear the bus each on its own, in no fixed order).
    expect(notes.filter(([, sub]) => sub !== undefined)).toEqual([
      ['notifications/subscriptions/acknowledged', 'm1'],
      ['notifications/subscriptions/acknowledged', 'm2'],
      // m1 was cancelled: the second tools change reached only the session.
      ['notifications/tools/list_changed', 'm1'],
      ['notifications/prompts/list_changed', 'm2'],
    ]);
    expect(notes.filter(([, sub]) => sub === undefined)).toEqual([
      ['notifications/tools/list_changed', undefined],
      ['notifications/tools/list_changed', undefined],
      ['notifications/prompts/list_changed', undefined],
    ]);
    // No response to the cancelled stream; the graceful result for the one the server closed.
    expect(client.received.filter((m) => 'id' in m && (m.id === 'm1' || m.id === 'm2'))).toEqual([
      { jsonrpc: '2.0', id: 'm2', result: { resultType: 'complete', _meta: { [SUB]: 'm2', 'io.modelcontextprotocol/serverInfo': INFO } } },
    ]);
  });
});
