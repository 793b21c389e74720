/**
 * Per-session subscription caps (one session took a 512 MiB heap down with 129
 * subscriptions of 4 MiB). `resources/subscribe` and `resources/unsubscribe` answer `{}` (MCP 2025-11-25
 * server/resources.mdx "Subscriptions"); a request whose params break a documented limit is -32602 Invalid
 * params (JSON-RPC 2.0 §5.1), naming the limit in `data`, the URI echoed at most 200 characters long.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair, silentLogger, type JsonRpcMessage } from '@switchboard/jsonrpc';
import { connectRawClient } from '../testing/index.js';
import { McpServer } from './mcpServer.js';

function makeServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'subscriptions', version: '0.0.0' }, { logger: silentLogger, ...options });
  server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'A' }] }));
  return server;
}

const updates = (received: readonly JsonRpcMessage[]): unknown[] =>
  received.filter((m) => 'method' in m && m.method === 'notifications/resources/updated').map((m) => (m as { params?: unknown }).params);

describe('resources/subscribe caps', () => {
  it('refuses a URI over maxSubscriptionUriLength with -32602 naming the limit, echoes 200 characters, stores nothing', async () => {
    const server = makeServer({ maxSubscriptionUriLength: 32 });
    const c = await connectRawClient(server);
    await c.initialize();
    const fits = `test://${'x'.repeat(25)}`; // 32 characters
    expect(await c.request(1, 'resources/subscribe', { uri: fits })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const long = `test://${'y'.repeat(1000)}`;
    expect(await c.request(2, 'resources/subscribe', { uri: long })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: 'Invalid params: "uri" is too long to subscribe to: 1007 characters, the limit is 32',
        data: { uri: `${long.slice(0, 200)}…`, maxSubscriptionUriLength: 32 },
      },
    });
    await server.notifyResourceUpdated(long);
    await server.notifyResourceUpdated(fits);
    await c.waitFor((m) => 'method' in m && m.method === 'notifications/resources/updated');
    expect(updates(c.received)).toEqual([{ uri: fits }]);
  });

  it('the default length limit is 8192: 8192 characters are accepted, 8193 are not', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const uri = (n: number) => `test://${'z'.repeat(n - 7)}`;
    expect(await c.request(1, 'resources/subscribe', { uri: uri(8192) })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await c.request(2, 'resources/subscribe', { uri: uri(8193) })).toMatchObject({
      error: { code: -32602, data: { maxSubscriptionUriLength: 8192 } },
    });
  });

  it('refuses a new URI past maxSubscriptionsPerSession; a URI already held, unsubscribe and then a new one succeed', async () => {
    const server = makeServer({ maxSubscriptionsPerSession: 3 });
    const c = await connectRawClient(server);
    await c.initialize();
    for (const [i, uri] of ['test://1', 'test://2', 'test://3'].entries()) {
      expect(await c.request(i, 'resources/subscribe', { uri })).toEqual({ jsonrpc: '2.0', id: i, result: {} });
    }
    expect(await c.request(10, 'resources/subscribe', { uri: 'test://4' })).toEqual({
      jsonrpc: '2.0',
      id: 10,
      error: {
        code: -32602,
        message: 'Invalid params: too many subscriptions: this session already holds the limit of 3: unsubscribe from one first',
        data: { uri: 'test://4', maxSubscriptionsPerSession: 3 },
      },
    });
    // Subscribing again to a held URI is idempotent, also at the cap.
    expect(await c.request(11, 'resources/subscribe', { uri: 'test://2' })).toEqual({ jsonrpc: '2.0', id: 11, result: {} });
    expect(await c.request(12, 'resources/unsubscribe', { uri: 'test://2' })).toEqual({ jsonrpc: '2.0', id: 12, result: {} });
    expect(await c.request(13, 'resources/subscribe', { uri: 'test://4' })).toEqual({ jsonrpc: '2.0', id: 13, result: {} });
    await server.notifyResourceUpdated('test://4');
    await c.waitFor((m) => 'method' in m && m.method === 'notifications/resources/updated');
    expect(updates(c.received)).toEqual([{ uri: 'test://4' }]);
  });

  it('the count is per session: another session subscribes while the first is at the cap', async () => {
    const server = makeServer({ maxSubscriptionsPerSession: 1 });
    const a = await connectRawClient(server);
    const b = await connectRawClient(server);
    await a.initialize();
    await b.initialize();
    expect(await a.request(1, 'resources/subscribe', { uri: 'test://a' })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await a.request(2, 'resources/subscribe', { uri: 'test://b' })).toMatchObject({ error: { code: -32602 } });
    expect(await b.request(1, 'resources/subscribe', { uri: 'test://b' })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('the default count limit is 1000', async () => {
    const c = await connectRawClient(makeServer());
    await c.initialize();
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => c.request(i, 'resources/subscribe', { uri: `test://n/${i}` })));
    expect(answers.every((r) => 'result' in r)).toBe(true);
    expect(await c.request('over', 'resources/subscribe', { uri: 'test://n/1000' })).toMatchObject({
      error: { code: -32602, data: { uri: 'test://n/1000', maxSubscriptionsPerSession: 1000 } },
    });
  });

  it('resources/unsubscribe of a URI never subscribed (of any length) stays {}', async () => {
    const c = await connectRawClient(makeServer({ maxSubscriptionUriLength: 16 }));
    await c.initialize();
    expect(await c.request(1, 'resources/unsubscribe', { uri: 'test://never' })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await c.request(2, 'resources/unsubscribe', { uri: `test://${'q'.repeat(10_000)}` })).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('refuses option values that are not positive integers', () => {
    const info = { name: 'x', version: '0' };
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionsPerSession: 0 })).toThrow(
      new RangeError('Invalid option maxSubscriptionsPerSession: expected a positive integer, got 0'),
    );
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionsPerSession: 1.5 })).toThrow(RangeError);
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionsPerSession: Infinity })).toThrow(RangeError);
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionUriLength: -1 })).toThrow(
      new RangeError('Invalid option maxSubscriptionUriLength: expected a positive integer, got -1'),
    );
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionUriLength: Number.NaN })).toThrow(RangeError);
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionUriLength: '8192' as unknown as number })).toThrow(
      new TypeError('Invalid option maxSubscriptionUriLength: expected a positive integer, got "8192"'),
    );
    expect(() => new McpServer(info, { logger: silentLogger, maxSubscriptionsPerSession: 1, maxSubscriptionUriLength: 1 })).not.toThrow();
  });
});

describe('resources/subscribe budget across sessions', () => {
  it('refuses a new URI once all sessions together hold maxSubscriptionCharsTotal, and releases it on unsubscribe and close', async () => {
    const server = makeServer({ maxSubscriptionCharsTotal: 20 });
    const a = await connectRawClient(server);
    const b = await connectRawClient(server);
    await a.initialize();
    await b.initialize();
    expect(await a.request(1, 'resources/subscribe', { uri: 'test://aaaa' })).toMatchObject({ result: {} }); // 11
    expect(await a.request(2, 'resources/subscribe', { uri: 'test://aaaa' })).toMatchObject({ result: {} }); // held: free
    expect(await b.request(1, 'resources/subscribe', { uri: 'test://bbbbb' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params: too many subscriptions on this server: the URIs of all sessions reached the limit of 20 characters',
        data: { uri: 'test://bbbbb', maxSubscriptionCharsTotal: 20 },
      },
    });
    expect(await a.request(3, 'resources/unsubscribe', { uri: 'test://aaaa' })).toMatchObject({ result: {} });
    expect(await b.request(2, 'resources/subscribe', { uri: 'test://bbbbb' })).toMatchObject({ result: {} }); // 12
    expect(await a.request(4, 'resources/subscribe', { uri: 'test://cccccccc' })).toMatchObject({ error: { code: -32602 } }); // 12 + 15
    await b.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await a.request(5, 'resources/subscribe', { uri: 'test://cccccccc' })).toMatchObject({ result: {} });
    await a.close();
  });

  it('a session rebuilt from another instance\'s record (its subscriptions counted there) gives back only what it took here', async () => {
    const server = makeServer({ maxSubscriptionCharsTotal: 20 });
    const state = {
      protocolVersion: '2025-11-25', clientCapabilities: {}, serverCapabilities: { resources: { subscribe: true } },
      logLevelRank: 0, subscriptions: ['test://aaaaaaaaaaaaa'], initializeRequestId: 0, initialized: true,
    };
    const [serverSide] = createMemoryTransportPair();
    const copy = await server.connect(serverSide, { sessionState: state });
    // The copy holds a URI of 20 characters it never counted; closing it must not give 20 back to the budget.
    await copy.close();
    const c = await connectRawClient(server);
    await c.initialize();
    expect(await c.request(1, 'resources/subscribe', { uri: 'test://bbbbbbbbbbbbb' })).toMatchObject({ result: {} }); // 20
    expect(await c.request(2, 'resources/subscribe', { uri: 'test://c' })).toMatchObject({ error: { code: -32602, data: { maxSubscriptionCharsTotal: 20 } } });
    // Another instance unsubscribes it (the state comes back without the URI): the budget still holds it until this
    // copy closes, then it is given back once.
    const [session] = [...server.sessions] as unknown as { session: { assign(record: unknown): void } }[];
    session!.session.assign({ ...state, subscriptions: [] });
    expect(await c.request(3, 'resources/subscribe', { uri: 'test://c' })).toMatchObject({ error: { code: -32602 } });
    await c.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const d = await connectRawClient(server);
    await d.initialize();
    expect(await d.request(1, 'resources/subscribe', { uri: 'test://ddddddddddddd' })).toMatchObject({ result: {} }); // 20
    await d.close();
  });

  it('validates the per-session request limits and pageSize like the other options', () => {
    const make = (options: Record<string, unknown>) => () => new McpServer({ name: 'x', version: '0' }, options);
    expect(make({ maxQueuedRequestsPerSession: '5' })).toThrow(new TypeError('Invalid option maxQueuedRequestsPerSession: expected a positive integer, got "5"'));
    expect(make({ maxQueuedRequestsPerSession: 0 })).toThrow(new RangeError('Invalid option maxQueuedRequestsPerSession: expected a positive integer, got 0'));
    expect(make({ maxConcurrentRequestsPerSession: Number.NaN })).toThrow(RangeError);
    expect(make({ pageSize: -1 })).toThrow(RangeError);
    expect(make({ maxSubscriptionCharsTotal: 1.5 })).toThrow(RangeError);
  });
});
