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

const METHODS = [...MCP_METHODS.keys(), 'tools/nope', 'y'.repeat(300)];

function expectSameAnswer(method: string, facts: InboundFacts, response: JsonRpcResponse): void {
  const verdict = classifyInbound({ jsonrpc: '2.0', id: response.id as number, method, params: {} }, facts);
  if (isInboundRefusal(verdict)) {
    const error = verdict.data === undefined ? { code: verdict.code, message: verdict.message } : { code: verdict.code, message: verdict.message, data: verdict.data };
    expect({ method, response }).toEqual({ method, response: { jsonrpc: '2.0', id: response.id, error } });
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

describe('a modern-era claim on the legacy transports', () => {
  // The one deliberate change of the inbound step: a request whose _meta claims a revision is modern whatever
  // its session, and no modern revision is served yet, so it is -32022 with data.supported before and after
  // initialize (it was -32600 "not initialized" before, and served after).
  const claim = (id: number, requested: unknown) => ({
    jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': requested } },
  }) as const;
  const refused = (id: number, requested: string) => ({
    jsonrpc: '2.0', id,
    error: {
      code: -32022,
      message: 'Unsupported protocol version: this endpoint serves the session-based revisions (send initialize first)',
      data: { supported: [...SERVED_REVISIONS], requested },
    },
  });

  it('is -32022 with data.supported and data.requested before and after initialize', async () => {
    const client = await connectRawClient(fullServer());
    await client.send(claim(1, '2026-07-28'));
    expect(await client.waitFor((m) => 'id' in m && m.id === 1)).toEqual(refused(1, '2026-07-28'));
    await client.initialize({ protocolVersion: '2025-11-25' });
    await client.send(claim(2, '2025-11-25'));
    expect(await client.waitFor((m) => 'id' in m && m.id === 2)).toEqual(refused(2, '2025-11-25'));
    await client.send(claim(3, 7));
    expect(await client.waitFor((m) => 'id' in m && m.id === 3)).toEqual(refused(3, ''));
    // The session is untouched: an unclaimed request is still served.
    expect(await client.request(4, 'tools/list', {})).toMatchObject({ id: 4, result: { tools: [{ name: 't' }] } });
    await client.close();
  });
});
