/**
 * The SSE event history of a session leaves the store with the session: streams that ended in an error, or whose
 * connection was cut, are no longer held once the session is deleted (they used to stay until the store's own
 * limits dropped them: a flood of failing calls with huge arguments filled the heap and survived DELETE).
 */
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/mcpServer.js';
import { InMemoryEventStore } from '../../../stores/eventStore.js';
import { createMcpHttpHandler, type McpHttpHandler } from './handler.js';
import { MAX_REMEMBERED_STREAMS } from './sessions/sessionExchangeHost.js';

const BASE = 'http://127.0.0.1:3999/mcp';
const HEADERS = { host: '127.0.0.1:3999', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Opens a 2025-11-25 session (initialize, then initialized) and returns the header fields of its requests. */
async function openSession(handler: McpHttpHandler): Promise<Record<string, string>> {
  const init = await handler.fetch(new Request(BASE, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } }),
  }));
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await (await handler.fetch(new Request(BASE, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' }))).text();
  return headers;
}

/** Calls a tool that does not exist: a JSON-RPC error (no result), so its stream keeps its history for resumption. */
async function callUnknownTool(handler: McpHttpHandler, headers: Record<string, string>, id: number): Promise<void> {
  const response = await handler.fetch(new Request(BASE, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'nope', arguments: {} } }),
  }));
  expect(await response.text()).toContain('"code":-32602');
}

describe('event history and the session', () => {
  it('DELETE frees the history of streams that ended in an error', async () => {
    const server = new McpServer({ name: 'history', version: '0' });
    server.tool('fail', {}, () => {
      throw new Error('boom');
    });
    const store = new InMemoryEventStore();
    const handler = createMcpHttpHandler({ server, eventStore: store, responseMode: 'sse' });
    const headers = await openSession(handler);
    for (let i = 1; i <= 5; i++) {
      // An unknown tool: a JSON-RPC error (no result), so the stream keeps its history for resumption.
      const response = await handler.fetch(new Request(BASE, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream, application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: `nope${i}`, arguments: {} } }),
      }));
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(await response.text()).toContain('"code":-32602');
    }
    expect(store.size).toBeGreaterThan(0);
    const deleted = await handler.fetch(new Request(BASE, { method: 'DELETE', headers }));
    expect(deleted.status).toBe(200);
    expect(store.size).toBe(0);
    await handler.close();
  });

  it('a session remembers a bounded number of streams to forget: the most recently written, as its store keeps them', async () => {
    // Streams kept in the store (answered with an error) used to be remembered for the session's whole life, one id
    // each, while the store itself kept only its last `maxStreamsPerSession`.
    const server = new McpServer({ name: 'history', version: '0' });
    server.tool('ok', {}, () => ({ content: [] }));
    const deleted: string[] = [];
    const store = new (class extends InMemoryEventStore {
      override deleteStream(streamId: string): void {
        deleted.push(streamId);
        super.deleteStream(streamId);
      }
    })({ maxStreamsPerSession: 10 });
    const handler = createMcpHttpHandler({ server, eventStore: store, responseMode: 'sse' });
    const headers = await openSession(handler);
    const calls = MAX_REMEMBERED_STREAMS + 50;
    for (let i = 1; i <= calls; i++) {
      await callUnknownTool(handler, headers, i);
    }
    expect(store.size).toBe(10);
    deleted.length = 0;
    expect((await handler.fetch(new Request(BASE, { method: 'DELETE', headers }))).status).toBe(200);
    expect(store.size).toBe(0);
    expect(deleted.length).toBe(MAX_REMEMBERED_STREAMS);
    await handler.close();
  });

  it.each([
    ['reporting progress now and then', 100],
    ['silent after its first event', undefined],
  ])('a long call %s leaves the store with its session, however many streams were stored since', async (_, pokeEvery) => {
    const server = new McpServer({ name: 'history', version: '0' });
    let poke: (() => void) | undefined;
    let finish: (() => void) | undefined;
    server.tool('slow', {}, async (_args, ctx) => {
      let done = false;
      const ended = new Promise<void>((resolve) => (finish = () => ((done = true), resolve())));
      while (!done) {
        await Promise.race([new Promise<void>((resolve) => (poke = resolve)), ended]);
        if (!done) await ctx.progress(1);
      }
      return { content: [] };
    });
    const store = new InMemoryEventStore({ maxStreamsPerSession: 5000 });
    const handler = createMcpHttpHandler({ server, eventStore: store, responseMode: 'sse' });
    const headers = await openSession(handler);
    const slow = await handler.fetch(new Request(BASE, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 'p' } } }),
    }));
    const slowBody = slow.text();
    for (let i = 1; i <= MAX_REMEMBERED_STREAMS + 50; i++) {
      if (pokeEvery !== undefined && i % pokeEvery === 0) poke?.();
      await callUnknownTool(handler, headers, i);
    }
    expect(store.size).toBe(MAX_REMEMBERED_STREAMS + 51);
    expect((await handler.fetch(new Request(BASE, { method: 'DELETE', headers }))).status).toBe(200);
    finish?.();
    const slowEventId = /^id: (\S+)$/m.exec(await slowBody)?.[1];
    expect(slowEventId).toBeDefined();
    // The streams forgotten are the oldest error streams, past the bound; the slow call's, the oldest stream of all,
    // left the store with the session.
    expect(store.getStreamIdForEventId(slowEventId!)).toBeUndefined();
    expect(store.size).toBe(pokeEvery === undefined ? 50 : 51);
    await handler.close();
  });

  it('a store that fails later (a Redis outage mid-call) still lets the answer through, without an event id', async () => {
    // The store takes the priming event, then fails asynchronously for the answer, as a remote store does when its
    // connection drops: the client must get its result all the same (it was dropped before).
    class FailingLater extends InMemoryEventStore {
      failing = false;
      override storeEvent(...args: Parameters<InMemoryEventStore['storeEvent']>): string {
        // A rejected promise where the interface allows one (EventStore.storeEvent: string | Promise<string>).
        if (this.failing && Object.hasOwn(args[1], 'jsonrpc')) return Promise.reject(new Error('store down')) as unknown as string;
        return super.storeEvent(...args);
      }
    }
    const server = new McpServer({ name: 'outage', version: '0' });
    server.tool('echo', {}, () => ({ content: [{ type: 'text' as const, text: 'still here' }] }));
    const store = new FailingLater();
    const errors: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (message: string) => void errors.push(message) };
    const handler = createMcpHttpHandler({ server, eventStore: store, responseMode: 'sse', logger });
    const headers = await openSession(handler);
    store.failing = true;
    const response = await handler.fetch(new Request(BASE, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }),
    }));
    const body = await response.text();
    expect(body).toContain('still here');
    const answer = body.split('\n\n').find((event) => event.includes('still here'))!;
    expect(answer).not.toMatch(/^id:/m);
    expect(errors).toContain('Event store failed; event sent without an id');
    await handler.close();
  });
});
