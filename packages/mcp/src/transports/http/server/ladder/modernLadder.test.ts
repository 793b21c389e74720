/**
 * The ladder's era decisions for modern POSTs, pure (ladder.ts + modernLadder.ts): which messages are modern, the
 * order of the rungs, and what a legacy-only or modern-only server answers. The wire rows are in modern.test.ts.
 */
import { parseMessage } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION_META_KEY } from '../../../../protocol/envelope.js';
import { compileParamHeaders } from '../../../../protocol/paramHeaders.js';
import { LEGACY_REVISIONS, PROTOCOL_REVISIONS } from '../../../../protocol/revisions.js';
import type { ProtocolRevision } from '../../../../protocol/revisions.js';
import { classifyStreamableHttp } from './ladder.js';
import type { HttpServerFacts, StreamableHttpDecision, StreamableHttpFacts } from './decisions.js';

const MODERN = '2026-07-28';
const META = { [PROTOCOL_VERSION_META_KEY]: MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

function server(served: readonly ProtocolRevision[] = PROTOCOL_REVISIONS, modern = true): HttpServerFacts {
  const headers = compileParamHeaders({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
  return {
    servedRevisions: served,
    servesModern: modern && served.includes(MODERN),
    servesLegacy: served.some((r) => r !== MODERN),
    capabilities: { tools: {} },
    paramHeaders: (name) => (name === 'sql' ? headers : undefined),
  };
}

function facts(body: unknown, over: Partial<StreamableHttpFacts> = {}): StreamableHttpFacts {
  const message = (body ?? {}) as { method?: string; params?: { name?: string } };
  return {
    httpMethod: 'POST',
    contentType: 'application/json',
    accept: 'application/json, text/event-stream',
    sessionId: undefined,
    protocolVersionHeader: MODERN,
    lastEventId: undefined,
    session: undefined,
    body: body === undefined ? undefined : parseMessage(JSON.stringify(body)),
    responseMode: 'auto',
    mcpMethod: message.method,
    mcpName: message.params?.name,
    headers: { header: () => undefined },
    server: server(),
    ...over,
  };
}

function outcome(decision: StreamableHttpDecision): string {
  if (decision.kind === 'refuse') return `${decision.httpStatus} ${decision.jsonrpcError.error.code}`;
  return decision.kind === 'modern' ? `modern ${decision.respondWith}` : decision.kind;
}

const request = (method: string, params: Record<string, unknown> = {}): unknown => ({ jsonrpc: '2.0', id: 7, method, params: { _meta: META, ...params } });

describe('the ladder for modern POSTs', () => {
  it('a body claim is modern, answered per Accept; a listen stream always as SSE', () => {
    expect(outcome(classifyStreamableHttp(facts(request('tools/list'))))).toBe('modern adaptive');
    expect(outcome(classifyStreamableHttp(facts(request('tools/list'), { responseMode: 'json' })))).toBe('modern json');
    expect(outcome(classifyStreamableHttp(facts(request('subscriptions/listen'))))).toBe('modern sse');
    expect(outcome(classifyStreamableHttp(facts(request('subscriptions/listen'), { accept: 'application/json' })))).toBe('406 -32000');
    expect(outcome(classifyStreamableHttp(facts(request('tools/list'), { accept: 'text/html' })))).toBe('406 -32000');
  });

  it('without a claim, the version header alone makes a message modern only when no live session is named', () => {
    const bare = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect(outcome(classifyStreamableHttp(facts(bare)))).toBe('400 -32602');
    expect(outcome(classifyStreamableHttp(facts(bare, { sessionId: 'stale' })))).toBe('400 -32602');
    expect(outcome(classifyStreamableHttp(facts(bare, { sessionId: 'S', session: { protocolVersion: '2025-11-25' } })))).toBe('400 -32000');
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    expect(outcome(classifyStreamableHttp(facts(note, { mcpMethod: undefined })))).toBe('modern accepted');
  });

  it('a notification needs only the version rungs (B23): 202 without Mcp-Method, -32020 when the header disagrees', () => {
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN } } };
    expect(outcome(classifyStreamableHttp(facts(note, { mcpMethod: undefined })))).toBe('modern accepted');
    expect(outcome(classifyStreamableHttp(facts(note, { protocolVersionHeader: '2025-11-25' })))).toBe('400 -32020');
    const unserved = { ...note, params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2099-01-01' } } };
    expect(outcome(classifyStreamableHttp(facts(unserved, { protocolVersionHeader: '2099-01-01' })))).toBe('400 -32022');
  });

  it('rungs in order: version header, envelope, revision, Mcp-Method/Mcp-Name, method, Mcp-Param-*', () => {
    // Each case breaks two rungs; the earlier one answers.
    const noEnvelope = { jsonrpc: '2.0', id: 1, method: 'nope', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN } } };
    expect(outcome(classifyStreamableHttp(facts(noEnvelope, { protocolVersionHeader: 'v1' })))).toBe('400 -32020');
    expect(outcome(classifyStreamableHttp(facts(noEnvelope)))).toBe('400 -32602');
    const v999 = request('nope', { _meta: { ...META, [PROTOCOL_VERSION_META_KEY]: 'v999' } });
    expect(outcome(classifyStreamableHttp(facts(v999, { protocolVersionHeader: 'v999', mcpMethod: 'x' })))).toBe('400 -32022');
    expect(outcome(classifyStreamableHttp(facts(request('nope'), { mcpMethod: 'other' })))).toBe('400 -32020');
    expect(outcome(classifyStreamableHttp(facts(request('nope'))))).toBe('404 -32601');
    expect(outcome(classifyStreamableHttp(facts(request('tools/call', { name: 'sql', arguments: { region: 'eu' } }), { mcpName: 'other' })))).toBe('400 -32020');
    expect(outcome(classifyStreamableHttp(facts(request('tools/call', { name: 'sql', arguments: { region: 'eu' } }))))).toBe('400 -32020');
    expect(outcome(classifyStreamableHttp(facts(request('tools/call', { name: 'sql', arguments: { region: 'eu' } }), {
      headers: { header: (name) => (name === 'mcp-param-region' ? 'eu' : undefined) },
    })))).toBe('modern adaptive');
  });

  it('Mcp-Name is checked only where the body has the value (the params check refuses the rest)', () => {
    expect(outcome(classifyStreamableHttp(facts(request('tools/call', { arguments: {} }), { mcpName: undefined })))).toBe('modern adaptive');
    expect(outcome(classifyStreamableHttp(facts(request('resources/read', { uri: 'a://b' }), { mcpName: undefined, server: { ...server(), capabilities: { resources: {} } } })))).toBe('400 -32020');
  });

  it('a server that serves no modern revision refuses every modern message -32022, whatever its headers', () => {
    const legacy = server(LEGACY_REVISIONS);
    for (const over of [{ server: legacy }, { server: legacy, protocolVersionHeader: undefined }, { server: undefined }]) {
      const decision = classifyStreamableHttp(facts(request('tools/list'), over));
      expect(decision).toMatchObject({ kind: 'refuse', httpStatus: 400, jsonrpcError: { id: 7, error: { code: -32022, data: { requested: MODERN } } } });
      const supported = decision.kind === 'refuse' ? (decision.jsonrpcError.error.data as { supported: string[] }).supported : [];
      expect([...supported].sort()).toEqual([...LEGACY_REVISIONS]);
    }
    // A server with the revisions but no modern handle is legacy-only too.
    expect(outcome(classifyStreamableHttp(facts(request('tools/list'), { server: server(PROTOCOL_REVISIONS, false) })))).toBe('400 -32022');
  });

  it('a server that serves no modern revision: a request whose header alone names 2026-07-28, without a session, is -32022 too', () => {
    const legacy = server(LEGACY_REVISIONS);
    const bare = { jsonrpc: '2.0', id: 8, method: 'tools/list' };
    expect(outcome(classifyStreamableHttp(facts(bare, { server: legacy })))).toBe('400 -32022');
    expect(outcome(classifyStreamableHttp(facts(bare, { server: legacy, sessionId: '' })))).toBe('400 -32022');
    // initialize negotiates by its body (B22 (e)); a named session is answered by the session rungs.
    const init = { jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    expect(outcome(classifyStreamableHttp(facts(init, { server: legacy })))).toBe('initialize');
    expect(outcome(classifyStreamableHttp(facts(bare, { server: legacy, sessionId: 'gone' })))).toBe('404 -32001');
  });

  it('a server that serves only 2026-07-28: GET/DELETE 405 (Allow: POST), legacy POSTs -32022, batches -32600', () => {
    const only = server([MODERN]);
    for (const httpMethod of ['GET', 'DELETE']) {
      expect(classifyStreamableHttp(facts(undefined, { httpMethod, body: undefined, server: only }))).toMatchObject({ kind: 'refuse', httpStatus: 405, allow: 'POST' });
    }
    const init = { jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    expect(classifyStreamableHttp(facts(init, { server: only, protocolVersionHeader: undefined }))).toMatchObject({
      httpStatus: 400, jsonrpcError: { id: 'i', error: { code: -32022, data: { supported: [MODERN], requested: '2025-06-18' } } },
    });
    expect(outcome(classifyStreamableHttp(facts({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { server: only, protocolVersionHeader: undefined })))).toBe('400 -32022');
    expect(outcome(classifyStreamableHttp(facts([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], { server: only })))).toBe('400 -32600');
    expect(outcome(classifyStreamableHttp(facts({ jsonrpc: '2.0', id: 1, result: {} }, { server: only })))).toBe('400 -32000');
  });
});
