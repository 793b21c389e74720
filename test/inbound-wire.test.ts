/**
 * The inbound step's refusals are the ones the server sends today: every request of the method table (and an
 * unknown one) over a real McpServer in memory, at every legacy revision, before and after `initialize`, with
 * every capability advertised and with none. A refusal must be the exact wire error; an accepted request must
 * not meet a lifecycle, method or version refusal of the server.
 */
import type { JsonRpcResponse } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../packages/mcp/src/server/mcpServer.js';
import { connectRawClient } from '../packages/mcp/src/testing/index.js';
import { classifyInbound, classifyInboundBatch, isInboundRefusal, type InboundFacts } from '../packages/mcp/src/protocol/inbound.js';
import { MCP_METHODS } from '../packages/mcp/src/protocol/methods.js';
import { LEGACY_REVISIONS, SERVED_REVISIONS, type LegacyRevision } from '../packages/mcp/src/protocol/revisions.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function fullServer(): McpServer {
  const server = new McpServer({ name: 'wire', version: '1' }, { logger: silent });
  server.tool('t', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
  server.resource('test://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: 'r' }] }));
  server.prompt('p', {}, () => ({ messages: [] }));
  return server;
}
function emptyServer(): McpServer {
  return new McpServer({ name: 'wire', version: '1' }, { logger: silent, capabilities: { logging: undefined } });
}

/** Methods the table accepts that this server has no handler for yet (the dispatcher answers -32601). */
const UNSERVED = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
const METHODS = [...MCP_METHODS.keys(), 'tools/nope', 'y'.repeat(300)];

function expectSameAnswer(method: string, facts: InboundFacts, response: JsonRpcResponse): void {
  const verdict = classifyInbound({ jsonrpc: '2.0', id: response.id as number, method, params: {} }, facts);
  if (isInboundRefusal(verdict)) {
    const error = verdict.data === undefined ? { code: verdict.code, message: verdict.message } : { code: verdict.code, message: verdict.message, data: verdict.data };
    expect({ method, response }).toEqual({ method, response: { jsonrpc: '2.0', id: response.id, error } });
  } else if (UNSERVED.has(method)) {
    expect({ method, response }).toEqual({ method, response: { jsonrpc: '2.0', id: response.id, error: { code: -32601, message: `Method not found: "${method}"` } } });
  } else {
    const code = 'error' in response ? response.error.code : undefined;
    expect({ method, code }).not.toEqual({ method, code: expect.toBeOneOf([-32600, -32601, -32022]) });
  }
}

describe('classifyInbound answers as the server does today', () => {
  for (const [name, make] of [['every capability', fullServer], ['no capability', emptyServer]] as const) {
    it(`before initialize (${name})`, async () => {
      const server = make();
      let id = 0;
      for (const method of METHODS.filter((m) => m !== 'initialize')) {
        const client = await connectRawClient(server);
        expectSameAnswer(method, { servedRevisions: SERVED_REVISIONS, serverCapabilities: server.capabilities }, await client.request(++id, method, {}));
        await client.close();
      }
    });

    it.each(LEGACY_REVISIONS)(`a %s session (${name})`, async (revision: LegacyRevision) => {
      const server = make();
      const client = await connectRawClient(server);
      await client.initialize({ protocolVersion: revision });
      const facts: InboundFacts = { session: { revision, initialized: true }, servedRevisions: SERVED_REVISIONS, serverCapabilities: server.capabilities };
      let id = 0;
      for (const method of METHODS) expectSameAnswer(method, facts, await client.request(++id, method, {}));
      await client.close();
    });
  }

  it.each([undefined, ...LEGACY_REVISIONS])('a batch on a %s session', async (revision) => {
    const server = fullServer();
    const client = await connectRawClient(server);
    if (revision !== undefined) await client.initialize({ protocolVersion: revision });
    const facts: InboundFacts = revision === undefined
      ? { servedRevisions: SERVED_REVISIONS, serverCapabilities: server.capabilities }
      : { session: { revision, initialized: true }, servedRevisions: SERVED_REVISIONS, serverCapabilities: server.capabilities };
    const batch = [{ jsonrpc: '2.0', id: 'b1', method: 'ping' }, { jsonrpc: '2.0', id: 'b2', method: 'tools/nope' }] as const;
    await client.send(batch);
    const verdict = classifyInboundBatch(batch, facts);
    if (isInboundRefusal(verdict)) {
      expect(await client.waitFor((m) => 'error' in m && m.id === null)).toEqual({ jsonrpc: '2.0', id: null, error: { code: verdict.code, message: verdict.message } });
    } else {
      expect(await client.waitFor((m) => 'id' in m && m.id === 'b2')).toEqual({ jsonrpc: '2.0', id: 'b2', error: { code: -32601, message: 'Method not found: "tools/nope"' } });
      expect(verdict).toMatchObject([{ era: 'legacy' }, { refusal: 'unknownMethod' }]);
    }
    await client.close();
  });
});

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'wire', version: '1' } };

describe('the modern era on a session connection (the dual-era server)', () => {
  it.each([undefined, ...LEGACY_REVISIONS])('every method with a 2026-07-28 envelope gets the inbound step\'s verdict (%s session)', async (revision) => {
    const server = fullServer();
    const client = await connectRawClient(server);
    if (revision !== undefined) await client.initialize({ protocolVersion: revision });
    let id = 0;
    for (const method of METHODS) {
      const message = { jsonrpc: '2.0', id: ++id, method, params: { _meta: MODERN_META } } as const;
      const verdict = classifyInbound(message, { servedRevisions: server.servedRevisions, serverCapabilities: server.capabilities });
      const response = await client.request(id, method, { _meta: MODERN_META });
      if (isInboundRefusal(verdict)) {
        const error = verdict.data === undefined ? { code: verdict.code, message: verdict.message } : { code: verdict.code, message: verdict.message, data: verdict.data };
        expect({ method, response }).toEqual({ method, response: { jsonrpc: '2.0', id, error } });
      } else {
        // Served statelessly: no lifecycle, method, version or capability refusal, and never "not initialized".
        const code = 'error' in response ? response.error.code : undefined;
        expect({ method, code }).not.toEqual({ method, code: expect.toBeOneOf([-32600, -32601, -32022, -32021]) });
        if ('result' in response) expect({ method, result: response.result }).toMatchObject({ method, result: { resultType: 'complete', _meta: SERVER_INFO } });
      }
    }
    await client.close();
  });

  it('before and after initialize: a modern request is served, a claim of a legacy revision is -32022, a malformed claim -32602, and the session is untouched', async () => {
    const client = await connectRawClient(fullServer());
    const supported = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
    // Before any initialize: served from the envelope, not "not initialized".
    expect(await client.request(1, 'tools/list', { _meta: MODERN_META })).toEqual({
      jsonrpc: '2.0', id: 1,
      result: { tools: [{ name: 't', inputSchema: { type: 'object' } }], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO },
    });
    await client.initialize({ protocolVersion: '2025-11-25' });
    expect(await client.request(2, 'tools/list', { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } })).toEqual({
      jsonrpc: '2.0', id: 2,
      error: { code: -32022, message: `Unsupported protocol version: "2025-11-25" is negotiated with initialize, not claimed in _meta (this server supports ${supported.join(', ')})`, data: { supported, requested: '2025-11-25' } },
    });
    expect(await client.request(3, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } })).toEqual({
      jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: "io.modelcontextprotocol/protocolVersion" in params._meta must be a non-empty string' },
    });
    // The removed methods stay removed for the modern request, and stay served for the session.
    expect(await client.request(4, 'ping', { _meta: MODERN_META })).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found: "ping" (not a method of 2026-07-28)' } });
    expect(await client.request(5, 'ping')).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    // The session is untouched: an unclaimed request is still served, with no modern decoration.
    expect(await client.request(6, 'tools/list', {})).toEqual({ jsonrpc: '2.0', id: 6, result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } });
    await client.close();
  });

  it('an unknown version is an error for a modern request (-32022) but a counter-offer for initialize', async () => {
    const client = await connectRawClient(fullServer());
    for (const requested of ['2099-01-01', '2026-07-28']) {
      const other = await connectRawClient(fullServer());
      expect(await other.initialize({ protocolVersion: requested })).toMatchObject({ id: 'init', result: { protocolVersion: '2025-11-25', serverInfo: { name: 'wire', version: '1' } } });
      await other.close();
    }
    expect(await client.request(1, 'tools/list', { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } })).toMatchObject({ id: 1, error: { code: -32022, data: { requested: '2099-01-01' } } });
    await client.close();
  });

  it('a server that serves only the legacy revisions refuses the claim with -32022 naming them, before and after initialize', async () => {
    const server = new McpServer({ name: 'wire', version: '1' }, { logger: silent, revisions: [...LEGACY_REVISIONS] });
    server.tool('t', {}, () => ({ content: [] }));
    const client = await connectRawClient(server);
    const refused = (id: number) => ({
      jsonrpc: '2.0', id,
      error: {
        code: -32022,
        message: 'Unsupported protocol version: "2026-07-28" (this server supports 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)',
        data: { supported: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '2026-07-28' },
      },
    });
    expect(await client.request(1, 'tools/list', { _meta: MODERN_META })).toEqual(refused(1));
    await client.initialize({ protocolVersion: '2025-11-25' });
    expect(await client.request(2, 'tools/list', { _meta: MODERN_META })).toEqual(refused(2));
    expect(await client.request(3, 'tools/list', {})).toMatchObject({ id: 3, result: { tools: [{ name: 't' }] } });
    await client.close();
  });

  it('a modern-only server refuses initialize with -32022 naming its versions, and serves modern requests', async () => {
    const server = new McpServer({ name: 'wire', version: '1' }, { logger: silent, revisions: ['2026-07-28'] });
    server.tool('t', {}, () => ({ content: [] }));
    const client = await connectRawClient(server);
    expect(await client.initialize({ protocolVersion: '2025-11-25' })).toEqual({
      jsonrpc: '2.0', id: 'init',
      error: { code: -32022, message: 'Unsupported protocol version: "2025-11-25" (this server supports 2026-07-28)', data: { supported: ['2026-07-28'], requested: '2025-11-25' } },
    });
    expect(await client.request(1, 'tools/list', {})).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: the session is not initialized: send "initialize" first' } });
    expect(await client.request(2, 'server/discover', { _meta: MODERN_META })).toEqual({
      jsonrpc: '2.0', id: 2,
      result: { supportedVersions: ['2026-07-28'], capabilities: { logging: {}, tools: { listChanged: true } }, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO },
    });
    await client.close();
  });
});
