/**
 * Capabilities are a per-session snapshot: what a session's `initialize` advertised decides, for that session's
 * whole life, which capability-bound methods exist (-32601 otherwise) and which list_changed notifications it gets.
 * Wire-level, through the raw test client. MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation".
 */
import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcMessage } from '@switchboard/jsonrpc';
import { connectRawClient, type RawClient } from '../testing/index.js';
import { McpServer } from './mcpServer.js';

const LIST_CHANGED = ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'];

function notifications(c: RawClient): string[] {
  return c.received.filter((m): m is JsonRpcMessage & { method: string } => 'method' in m && !('id' in m)).map((m) => m.method);
}

/** A ping round trip: list_changed notifications are flushed in a microtask, so they would arrive before its answer. */
async function settle(c: RawClient, id: string): Promise<void> {
  expect(await c.request(id, 'ping')).toEqual({ jsonrpc: '2.0', id, result: {} });
}

function methodNotFound(id: number, method: string, capability: string): unknown {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: -32601, message: `Method not found: "${method}" (the server does not advertise the "${capability}" capability)` },
  };
}

describe('capabilities are what initialize advertised, for the session\'s whole life', () => {
  it('a session told tools.listChanged gets an empty tools/list (not -32601) after the last tool is removed', async () => {
    const server = new McpServer({ name: 'caps', version: '1' }, { logger: silentLogger });
    const remove = server.tool('only', {}, () => ({ content: [] }));
    const c = await connectRawClient(server);
    expect(await c.initialize()).toMatchObject({ jsonrpc: '2.0', id: 'init', result: { capabilities: { logging: {}, tools: { listChanged: true } } } });
    remove();
    await settle(c, 'p1');
    expect(notifications(c)).toEqual(['notifications/tools/list_changed']);
    expect(await c.request(1, 'tools/list')).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    expect(await c.request(2, 'tools/call', { name: 'only' })).toMatchObject({ id: 2, error: { code: -32602 } });
    // A session that initializes now is told there are no tools, and tools/* do not exist for it.
    const late = await connectRawClient(server);
    expect(await late.initialize()).toMatchObject({ jsonrpc: '2.0', id: 'init', result: { capabilities: { logging: {} } } });
    expect(await late.request(3, 'tools/list')).toEqual(methodNotFound(3, 'tools/list', 'tools'));
  });

  it('a session told nothing about tools, prompts or resources never hears of them, and their methods stay -32601', async () => {
    const server = new McpServer({ name: 'caps', version: '1' }, { logger: silentLogger });
    const early = await connectRawClient(server);
    expect(await early.initialize()).toEqual({ jsonrpc: '2.0', id: 'init', result: {
      protocolVersion: '2025-11-25',
      capabilities: { logging: {} },
      serverInfo: { name: 'caps', version: '1' },
    } });
    server.tool('t', {}, () => ({ content: [] }));
    server.prompt('p', {}, () => ({ messages: [] }));
    server.resource('test://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: 'r' }] }));
    await settle(early, 'p1');
    expect(notifications(early)).toEqual([]);
    let id = 0;
    for (const [method, params, capability] of [
      ['tools/list', {}, 'tools'],
      ['tools/call', { name: 't' }, 'tools'],
      ['prompts/list', {}, 'prompts'],
      ['prompts/get', { name: 'p' }, 'prompts'],
      ['resources/list', {}, 'resources'],
      ['resources/read', { uri: 'test://r' }, 'resources'],
    ] as const) {
      expect(await early.request(++id, method, params)).toEqual(methodNotFound(id, method, capability));
    }

    // A session initialized after the registrations is told about all three, and hears of later changes.
    const late = await connectRawClient(server);
    expect(await late.initialize()).toMatchObject({ jsonrpc: '2.0', id: 'init', result: {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
    } });
    server.tool('t2', {}, () => ({ content: [] }));
    server.prompt('p2', {}, () => ({ messages: [] }));
    server.resource('test://r2', { name: 'r2' }, (uri) => ({ contents: [{ uri, text: 'r2' }] }));
    await settle(late, 'p2');
    await settle(early, 'p3');
    expect(notifications(late).sort()).toEqual([...LIST_CHANGED].sort());
    expect(notifications(early)).toEqual([]);
    expect(await early.request(++id, 'tools/list')).toEqual(methodNotFound(id, 'tools/list', 'tools'));
  });

  it('McpServerOptions.capabilities declares primitives registered later: empty lists first, then list_changed', async () => {
    const server = new McpServer({ name: 'plugins', version: '1' }, { logger: silentLogger, capabilities: { tools: { listChanged: true } } });
    const c = await connectRawClient(server);
    expect(await c.initialize()).toMatchObject({ jsonrpc: '2.0', id: 'init', result: { capabilities: { logging: {}, tools: { listChanged: true } } } });
    expect(await c.request(1, 'tools/list')).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    server.tool('loaded', {}, () => ({ content: [{ type: 'text', text: 'hi' }] }));
    await c.waitFor((m) => 'method' in m && m.method === 'notifications/tools/list_changed');
    expect(await c.request(2, 'tools/list')).toEqual({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'loaded', inputSchema: { type: 'object' } }] } });
    expect(await c.request(3, 'tools/call', { name: 'loaded' })).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  it('a capability advertised without listChanged gets no list_changed notification', async () => {
    const server = new McpServer({ name: 'static', version: '1' }, { logger: silentLogger, capabilities: { tools: {} } });
    server.tool('a', {}, () => ({ content: [] }));
    const c = await connectRawClient(server);
    expect(await c.initialize()).toMatchObject({ jsonrpc: '2.0', id: 'init', result: { capabilities: { tools: {} } } });
    server.tool('b', {}, () => ({ content: [] }));
    await settle(c, 'p1');
    expect(notifications(c)).toEqual([]);
    expect(await c.request(1, 'tools/list')).toMatchObject({ id: 1, result: { tools: [{ name: 'a' }, { name: 'b' }] } });
  });
});
