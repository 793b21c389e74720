// subscriptions/listen on the client (MCP 2026-07-28 basic/patterns/subscriptions.mdx) against our own server's
// handle(): its channel carries the acknowledgement and the tagged notifications back, its signal is the close.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcId, type JsonRpcNotification, type JsonRpcParams, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { RequestTimeoutError } from '../protocol/clientErrors.js';
import { McpError, mcpErrorFromWire } from '../protocol/errors.js';
import { InMemoryNotificationBus } from '../stores/notificationBus.js';
import type { ClientChannel } from '../server/channel.js';
import { McpServer } from '../server/mcpServer.js';
import type { CoreSendOptions, NotificationListener } from './clientCore.js';
import { NotSupportedError } from './errors.js';
import { ListenSubscriptions, type ListenHost, type ListenNotification } from './listen.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SUB = 'io.modelcontextprotocol/subscriptionId';

/** A modern ClientCore over `McpServer.handle`: notifications come back through the channel, abort is the signal. */
class HandleCore implements ListenHost {
  readonly era = 'modern' as const;
  readonly revision = '2026-07-28' as const;
  readonly logger = silentLogger;
  options: ListenHost['options'] = { connector: undefined as never };
  readonly sent: JsonRpcRequest[] = [];
  readonly aborted: JsonRpcId[] = [];
  readonly #listeners = new Set<NotificationListener>();
  #nextId: number;

  constructor(
    readonly server: McpServer,
    firstId = 0,
  ) {
    this.#nextId = firstId;
  }

  async send<T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T> {
    const id = this.#nextId++;
    options?.onRequestId?.(id);
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: this.revision, [CAPS]: {} } } };
    this.sent.push(message);
    const channel: ClientChannel = {
      notify: (m: string, p?: JsonRpcParams) => {
        this.push({ jsonrpc: '2.0', method: m, ...(p === undefined ? {} : { params: p }) });
        return Promise.resolve();
      },
      request: () => Promise.reject(new Error('no server → client requests in the modern era')),
    };
    const signal = options?.signal;
    signal?.addEventListener('abort', () => this.aborted.push(id), { once: true });
    const answer = this.server.handle(message, { channel, ...(signal === undefined ? {} : { signal }) });
    const response = await new Promise<JsonRpcResponse | undefined>((resolve, reject) => {
      void answer.then(resolve, reject);
      signal?.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    if (response === undefined) throw new Error('aborted');
    if ('error' in response) throw mcpErrorFromWire(response.error);
    return response.result as T;
  }

  push(notification: JsonRpcNotification): void {
    for (const listener of this.#listeners) listener(notification);
  }

  onNotification(listener: NotificationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function makeServer(bus = new InMemoryNotificationBus()): McpServer {
  const s = new McpServer({ name: 's', version: '1' }, { logger: silentLogger, bus, capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } });
  s.tool('t', {}, () => ({ content: [] }));
  s.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'A' }] }));
  server = s;
  return s;
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

describe('ListenSubscriptions', () => {
  it('opens, reads the acknowledged subset, and hands each tagged notification to on() and the iterator', async () => {
    const bus = new InMemoryNotificationBus();
    const core = new HandleCore(makeServer(bus));
    const subs = new ListenSubscriptions(core);
    const sub = await subs.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://a'] });
    expect(sub.id).toBe(0);
    // prompts are not a capability of this server: left out of the acknowledgement.
    expect(sub.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://a'] });
    expect(core.sent).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://a'] }, _meta: { [PV]: '2026-07-28', [CAPS]: {} } } },
    ]);
    const heard: ListenNotification[] = [];
    sub.on((n) => heard.push(n));
    const iterator = sub[Symbol.asyncIterator]();
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    await bus.publish({ type: 'resource_updated', uri: 'test://a' });
    await bus.publish({ type: 'resource_updated', uri: 'test://other' });
    await settle();
    expect(heard).toEqual([
      { method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 0 } } },
      { method: 'notifications/resources/updated', params: { uri: 'test://a', _meta: { [SUB]: 0 } } },
    ]);
    expect(await iterator.next()).toEqual({ value: heard[0], done: false });
    expect(await iterator.next()).toEqual({ value: heard[1], done: false });
    expect(await sub.close()).toEqual({ reason: 'client' });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(core.aborted).toEqual([0]);
    expect(subs.size).toBe(0);
  });

  it('keeps several subscriptions apart by id, never coercing (0 and "0" differ)', async () => {
    const bus = new InMemoryNotificationBus();
    const core = new HandleCore(makeServer(bus));
    const subs = new ListenSubscriptions(core);
    const [tools, resources] = await Promise.all([subs.listen({ toolsListChanged: true }), subs.listen({ resourcesListChanged: true })]);
    expect([tools.id, resources.id]).toEqual([0, 1]);
    const got: Record<string, string[]> = { tools: [], resources: [] };
    tools.on((n) => got.tools!.push(n.method));
    resources.on((n) => got.resources!.push(n.method));
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    await bus.publish({ type: 'list_changed', capability: 'resources' });
    // A notification tagged "0" (a string) is no subscription's.
    core.push({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: '0' } } });
    await settle();
    expect(got).toEqual({ tools: ['notifications/tools/list_changed'], resources: ['notifications/resources/list_changed'] });
    await Promise.all([tools.close(), resources.close()]);
  });

  it('a graceful server close resolves closed with reason "server" and ends the iterator', async () => {
    const s = makeServer();
    const core = new HandleCore(s);
    const sub = await new ListenSubscriptions(core).listen({ toolsListChanged: true });
    const iterator = sub[Symbol.asyncIterator]();
    const next = iterator.next();
    await s.close();
    server = undefined;
    expect(await sub.closed).toEqual({ reason: 'server' });
    expect(await next).toEqual({ value: undefined, done: true });
  });

  it('the server’s refusal rejects the open with the typed error', async () => {
    const core = new HandleCore(makeServer());
    const failure = new ListenSubscriptions(core).listen({ resourceSubscriptions: 'nope' as never });
    await expect(failure).rejects.toThrow(McpError);
    await expect(failure).rejects.toMatchObject({ code: -32602 });
    // Without the tasks extension declared, taskIds are -32021.
    await expect(new ListenSubscriptions(core).listen({ taskIds: ['t1'] })).rejects.toMatchObject({ code: -32021 });
  });

  it('aborting the signal closes the subscription', async () => {
    const core = new HandleCore(makeServer());
    const controller = new AbortController();
    const sub = await new ListenSubscriptions(core).listen({ toolsListChanged: true }, { signal: controller.signal });
    controller.abort();
    expect(await sub.closed).toEqual({ reason: 'client' });
  });

  it('a request that fails without a response ends the subscription with reason "connection" (reconnect: false)', async () => {
    const core = new HandleCore(makeServer());
    core.options = { connector: undefined as never, reconnect: false };
    let fail!: (error: Error) => void;
    const send = core.send.bind(core);
    core.send = <T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T> =>
      Promise.race([send<T>(method, params, options), new Promise<T>((_r, reject) => (fail = reject))]);
    const sub = await new ListenSubscriptions(core).listen({ toolsListChanged: true });
    const lost = new Error('Connection closed');
    fail(lost);
    expect(await sub.closed).toEqual({ reason: 'connection', error: lost });
  });

  it('listens again with the same filter when the request ends without a response; the same object goes on', async () => {
    const bus = new InMemoryNotificationBus();
    const core = new HandleCore(makeServer(bus));
    let fail!: (error: Error) => void;
    const send = core.send.bind(core);
    core.send = <T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T> =>
      Promise.race([send<T>(method, params, options), new Promise<T>((_r, reject) => (fail = reject))]);
    const subs = new ListenSubscriptions(core);
    const sub = await subs.listen({ toolsListChanged: true });
    const heard: unknown[] = [];
    sub.on((n) => heard.push(n.params._meta));
    fail(new Error('Connection closed'));
    for (let i = 0; i < 100 && sub.id === 0; i++) await settle();
    expect(sub.id).toBe(1);
    expect(core.sent.map((m) => [m.id, m.method, (m.params as { notifications: unknown }).notifications])).toEqual([
      [0, 'subscriptions/listen', { toolsListChanged: true }],
      [1, 'subscriptions/listen', { toolsListChanged: true }],
    ]);
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    await settle();
    expect(heard).toEqual([{ [SUB]: 1 }]);
    expect(await sub.close()).toEqual({ reason: 'client' });
    expect(subs.size).toBe(0);
  });

  it('gives up after maxAttempts failed re-listens with reason "connection" and the last error', async () => {
    const core = new HandleCore(makeServer());
    core.options = { connector: undefined as never, reconnect: { maxAttempts: 2 } };
    let fail!: (error: Error) => void;
    let calls = 0;
    const send = core.send.bind(core);
    core.send = <T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T> => {
      calls++;
      if (calls > 1) return Promise.reject(new Error(`down ${calls}`));
      return Promise.race([send<T>(method, params, options), new Promise<T>((_r, reject) => (fail = reject))]);
    };
    const sub = await new ListenSubscriptions(core).listen({ toolsListChanged: true });
    fail(new Error('Connection closed'));
    expect(await sub.closed).toEqual({ reason: 'connection', error: new Error('down 3') });
    expect(calls).toBe(3);
  });

  it('no acknowledgement within timeoutMs is RequestTimeoutError and the request is abandoned', async () => {
    const core = new HandleCore(makeServer());
    core.send = <T>(_method: string, _params: unknown, options?: CoreSendOptions): Promise<T> =>
      new Promise<T>((_resolve, reject) => options?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    const failure = new ListenSubscriptions(core).listen({ toolsListChanged: true }, { timeoutMs: 20 });
    await expect(failure).rejects.toThrow(RequestTimeoutError);
    await expect(failure).rejects.toThrow('Request timed out: "subscriptions/listen" got no response within 20 ms');
  });

  it('a timeoutMs of Infinity waits for the acknowledgement as long as it takes (a plain timer would fire at once)', async () => {
    const core = new HandleCore(makeServer());
    const send = core.send.bind(core);
    core.send = <T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T> =>
      new Promise<void>((r) => setTimeout(r, 50)).then(() => send<T>(method, params, options));
    const sub = await new ListenSubscriptions(core).listen({ toolsListChanged: true }, { timeoutMs: Infinity });
    await sub.close();
  });

  it('is NotSupportedError in the legacy era', async () => {
    const host = { era: 'legacy', revision: '2025-11-25', options: {}, logger: silentLogger } as unknown as ListenHost;
    await expect(new ListenSubscriptions(host).listen({ toolsListChanged: true })).rejects.toThrow(NotSupportedError);
  });

  it('an iterator that stops early lets go; the subscription stays open', async () => {
    const bus = new InMemoryNotificationBus();
    const core = new HandleCore(makeServer(bus));
    const sub = await new ListenSubscriptions(core).listen({ toolsListChanged: true });
    setTimeout(() => void bus.publish({ type: 'list_changed', capability: 'tools' }), 5);
    for await (const n of sub) {
      expect(n.method).toBe('notifications/tools/list_changed');
      break;
    }
    const heard: string[] = [];
    sub.on((n) => heard.push(n.method));
    await bus.publish({ type: 'list_changed', capability: 'tools' });
    await settle();
    expect(heard).toEqual(['notifications/tools/list_changed']);
    await sub.close();
  });
});
