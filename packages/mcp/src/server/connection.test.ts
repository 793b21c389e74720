import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair, silentLogger, type JsonRpcMessage } from '@switchboard/jsonrpc';
import { ClientRequestError } from '../protocol/errors.js';
import { InMemoryNotificationBus, type BusListener, type BusMessage, type NotificationBus } from '../stores/notificationBus.js';
import { connectRawClient } from '../testing/index.js';
import type { Connection } from './connection.js';
import { McpServer } from './mcpServer.js';
import { SessionState } from './sessionState.js';

/** A real bus that records every message published through it. */
class SpyBus implements NotificationBus {
  readonly published: BusMessage[] = [];
  readonly #inner = new InMemoryNotificationBus();
  publish(message: BusMessage): Promise<void> {
    this.published.push(message);
    return this.#inner.publish(message);
  }
  subscribe(listener: BusListener): () => void {
    return this.#inner.subscribe(listener);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 10));
const methods = (received: readonly JsonRpcMessage[]) => received.filter((m) => 'method' in m && !('id' in m)).map((m) => (m as { method: string }).method);

describe('NotificationBus', () => {
  it('every list-changed and resource-updated notification goes through the bus, and connections filter what they send', async () => {
    const bus = new SpyBus();
    const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, bus });
    server.tool('t', {}, () => ({ content: [] }));
    server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'A' }] }));
    await tick();
    bus.published.length = 0;
    const watcher = await connectRawClient(server);
    await watcher.initialize();
    await watcher.request(1, 'resources/subscribe', { uri: 'test://a' });
    const other = await connectRawClient(server);
    await other.initialize();

    const removeTool = server.tool('u', {}, () => ({ content: [] }));
    server.prompt('p', {}, () => ({ messages: [] })); // `prompts` was not advertised to these sessions: not sent
    server.resource('test://b', { name: 'b' }, (uri) => ({ contents: [{ uri, text: 'B' }] }));
    await tick();
    removeTool();
    await tick();
    await server.notifyResourceUpdated('test://a');
    await server.notifyResourceUpdated('test://b');
    await tick();

    expect(bus.published).toEqual([
      { type: 'list_changed', capability: 'tools' },
      { type: 'list_changed', capability: 'prompts' },
      { type: 'list_changed', capability: 'resources' },
      { type: 'list_changed', capability: 'tools' },
      { type: 'resource_updated', uri: 'test://a' },
      { type: 'resource_updated', uri: 'test://b' },
    ]);
    const changes = ['notifications/tools/list_changed', 'notifications/resources/list_changed', 'notifications/tools/list_changed'];
    expect(methods(watcher.received)).toEqual([...changes, 'notifications/resources/updated']);
    expect(methods(other.received)).toEqual(changes);
    await server.close();
  });

  it('a closed connection unsubscribes from the bus', async () => {
    const bus = new InMemoryNotificationBus();
    const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, bus });
    // The server's own listener (its tasks hear tasks/update and tasks/cancel received by other instances).
    expect(bus.size).toBe(1);
    const c = await connectRawClient(server);
    expect(bus.size).toBe(2);
    await c.close();
    await tick();
    expect(bus.size).toBe(1);
    await server.close();
    expect(bus.size).toBe(0);
  });
});

describe('the session record', () => {
  it('is one serializable record that round-trips through JSON', async () => {
    const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger });
    server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'A' }] }));
    const c = await connectRawClient(server);
    await c.initialize({ protocolVersion: '2025-06-18', capabilities: { sampling: {} } });
    await c.request(1, 'resources/subscribe', { uri: 'test://a' });
    await c.request(2, 'logging/setLevel', { level: 'warning' });
    const state = (c.session as Connection).session!;
    const text = JSON.stringify(state);
    expect(JSON.parse(text)).toEqual({
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'raw-client', version: '0' },
      clientCapabilities: { sampling: {} },
      serverCapabilities: { logging: {}, resources: { subscribe: true, listChanged: true } },
      logLevelRank: 3,
      subscriptions: ['test://a'],
      initializeRequestId: 'init',
      initialized: true,
    });
    const back = SessionState.fromJSON(JSON.parse(text));
    expect(back).toBeInstanceOf(SessionState);
    expect(back.subscriptions.has('test://a')).toBe(true);
    expect(JSON.stringify(back)).toBe(text);
    await c.close();
  });

  it('the transport is told the negotiated revision before the initialize result is sent', async () => {
    const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger });
    const [client, serverSide] = createMemoryTransportPair();
    const told: string[] = [];
    const sent: string[] = [];
    const transport = Object.assign(serverSide, {
      setProtocolVersion: (revision: string) => told.push(revision),
    });
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      sent.push(`send after ${told.length} revision(s)`);
      return send(message, options);
    };
    const answered = new Promise<void>((resolve) => {
      client.onmessage = () => resolve();
    });
    await server.connect(transport);
    await client.start();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {} } });
    await answered;
    expect([told, sent]).toEqual([['2024-11-05'], ['send after 1 revision(s)']]);
    await server.close();
  });
});

describe('server → client requests', () => {
  it('an error the client answers is a ClientRequestError for the handler and a generic tool failure on the wire', async () => {
    const errors: unknown[] = [];
    const server = new McpServer({ name: 's', version: '1' }, { logger: { ...silentLogger, error: (_m: string, f?: Record<string, unknown>) => errors.push(f?.error) } });
    const seen: unknown[] = [];
    server.tool('ask', {}, async (_a, ctx) => {
      try {
        await ctx.sample({ messages: [], maxTokens: 1 });
      } catch (error) {
        seen.push(error);
        throw error;
      }
      return { content: [] };
    });
    const c = await connectRawClient(server);
    await c.initialize({ capabilities: { sampling: {} } });
    await c.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask' } });
    const ask = (await c.waitFor((m) => 'method' in m && m.method === 'sampling/createMessage')) as { id: number };
    await c.send({ jsonrpc: '2.0', id: ask.id, error: { code: -32600, message: 'client refused' } });
    const answer = await c.waitFor((m) => 'id' in m && m.id === 1 && !('method' in m));
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Tool "ask" failed: internal error' }], isError: true } });
    expect(seen).toHaveLength(1);
    const wrapped = seen[0] as ClientRequestError;
    expect(wrapped).toBeInstanceOf(ClientRequestError);
    expect([wrapped.code, wrapped.method, wrapped.cause.toJSON()]).toEqual([-32600, 'sampling/createMessage', { code: -32600, message: 'client refused' }]);
    expect(errors).toEqual([wrapped]);
    await c.close();
  });
});
