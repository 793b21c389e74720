/**
 * Unit tests of the pure Streamable HTTP classifier (ladder.ts) and the status table.
 */
import { parseMessage } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { unsupportedRevisionRefusal } from '../../../../protocol/inbound.js';
import { classifyStreamableHttp } from './ladder.js';
import { negotiateResponseShape } from '../../media.js';
import { acceptsMediaType, isJsonContentType } from '../../media.js';
import type { StreamableHttpFacts } from './decisions.js';
import { HttpRefusal, httpRefusal } from '../refusals.js';

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
});
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
const SESSION = { protocolVersion: '2025-11-25' };

function facts(overrides: Partial<StreamableHttpFacts> & { text?: string }): StreamableHttpFacts {
  const { text, ...rest } = overrides;
  return {
    httpMethod: 'POST',
    contentType: 'application/json',
    accept: 'application/json, text/event-stream',
    sessionId: 'S1',
    protocolVersionHeader: undefined,
    lastEventId: undefined,
    session: SESSION,
    body: text === undefined ? undefined : parseMessage(text),
    responseMode: 'sse',
    ...rest,
  };
}

function refusal(d: ReturnType<typeof classifyStreamableHttp>): { status: number; code: number; id: unknown } {
  if (d.kind !== 'refuse') throw new Error(`expected a refusal, got ${d.kind}`);
  return { status: d.httpStatus, code: d.jsonrpcError.error.code, id: d.jsonrpcError.id };
}

describe('classifyStreamableHttp', () => {
  it('initialize without a session id is a new session, answered per Accept', () => {
    const d = classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, text: INIT }));
    expect(d).toMatchObject({ kind: 'initialize', era: 'legacy', respondWith: 'sse' });
  });

  it('B30: initialize on a live session is 400 + -32600 with its id', () => {
    expect(refusal(classifyStreamableHttp(facts({ text: INIT })))).toEqual({ status: 400, code: -32600, id: 'init' });
  });

  it('initialize naming an unknown session is 404 + -32001', () => {
    expect(refusal(classifyStreamableHttp(facts({ session: undefined, text: INIT })))).toEqual({ status: 404, code: -32001, id: 'init' });
  });

  it('initialize inside a batch is 400 + -32600', () => {
    const d = classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, text: `[${INIT}]` }));
    expect(refusal(d)).toEqual({ status: 400, code: -32600, id: 'init' });
  });

  it('a non-initialize request without a session id is 400; with an unknown one 404', () => {
    expect(refusal(classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, text: LIST })))).toMatchObject({ status: 400, code: -32000 });
    expect(refusal(classifyStreamableHttp(facts({ session: undefined, text: LIST })))).toMatchObject({ status: 404, code: -32001 });
  });

  it('a parse error is 400 + -32700 with id null', () => {
    expect(refusal(classifyStreamableHttp(facts({ text: '{"jsonrpc":' })))).toEqual({ status: 400, code: -32700, id: null });
  });

  it('an invalid request is 400 + -32600 echoing a readable id', () => {
    expect(refusal(classifyStreamableHttp(facts({ text: '{"jsonrpc":"1.0","id":7,"method":"x"}' })))).toEqual({ status: 400, code: -32600, id: 7 });
  });

  it('batches only from a 2025-03-26 session; invalid members become replies', () => {
    const batch = `[${LIST},{"jsonrpc":"2.0","method":"notifications/x"},{"foo":1}]`;
    expect(refusal(classifyStreamableHttp(facts({ text: batch })))).toMatchObject({ status: 400, code: -32600 });
    const d = classifyStreamableHttp(facts({ text: batch, session: { protocolVersion: '2025-03-26' } }));
    expect(d).toMatchObject({ kind: 'message', batch: true, requestIds: [2], respondWith: 'sse' });
    if (d.kind !== 'message') throw new Error('unreachable');
    expect(d.replies).toHaveLength(1);
    expect(d.replies[0]?.error.code).toBe(-32600);
    expect(d.inbound.kind === 'batch' && d.inbound.items.length).toBe(2);
  });

  it('notifications and responses only are answered 202 (no Accept needed)', () => {
    const d = classifyStreamableHttp(facts({ accept: 'text/html', text: '{"jsonrpc":"2.0","method":"notifications/initialized"}' }));
    expect(d).toMatchObject({ kind: 'message', respondWith: 'accepted' });
    const r = classifyStreamableHttp(facts({ text: '{"jsonrpc":"2.0","id":"s1","result":{}}' }));
    expect(r).toMatchObject({ kind: 'message', respondWith: 'accepted' });
  });

  it('B22: MCP-Protocol-Version unsupported or different from the session is 400; missing is fine', () => {
    for (const header of ['1900-01-01', 'not-a-version', '2025-06-18']) {
      expect(refusal(classifyStreamableHttp(facts({ protocolVersionHeader: header, text: LIST })))).toMatchObject({ status: 400 });
    }
    expect(classifyStreamableHttp(facts({ protocolVersionHeader: '2025-11-25', text: LIST }))).toMatchObject({ kind: 'message' });
    expect(classifyStreamableHttp(facts({ protocolVersionHeader: undefined, text: LIST }))).toMatchObject({ kind: 'message' });
    expect(refusal(classifyStreamableHttp(facts({ protocolVersionHeader: '2026-07-28', text: LIST })))).toMatchObject({ status: 400 });
  });

  it('without a session, a header naming no revision is refused for the version, not the session', () => {
    const d = classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, protocolVersionHeader: ' 2099-01-01 ', text: LIST }));
    if (d.kind !== 'refuse') throw new Error(`expected a refusal, got ${d.kind}`);
    expect(d.httpStatus).toBe(400);
    expect(d.jsonrpcError).toMatchObject({ id: 2, error: { code: -32000, data: { requested: '2099-01-01', supported: expect.arrayContaining(['2025-11-25']) } } });
    expect(d.jsonrpcError.error.message).toMatch(/MCP-Protocol-Version/);
    // A known revision without a session is still the missing session.
    const known = classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, protocolVersionHeader: '2025-11-25', text: LIST }));
    expect(known.kind === 'refuse' && known.jsonrpcError.error.message).toMatch(/Mcp-Session-Id/);
  });

  it('data.supported names what this server serves, newest first as -32022 does: every revision without a session, its session-based ones with one', () => {
    const server = { servedRevisions: ['2025-06-18', '2025-11-25', '2026-07-28'], servesModern: true, servesLegacy: true, capabilities: {}, paramHeaders: () => [] } as const;
    const supported = (d: ReturnType<typeof classifyStreamableHttp>): unknown => (d.kind === 'refuse' ? (d.jsonrpcError.error.data as { supported: unknown }).supported : d.kind);
    expect(supported(classifyStreamableHttp(facts({ server, sessionId: undefined, session: undefined, protocolVersionHeader: '1900-01-01', text: LIST })))).toEqual(['2026-07-28', '2025-11-25', '2025-06-18']);
    expect(supported(classifyStreamableHttp(facts({ server, protocolVersionHeader: '1900-01-01', text: LIST })))).toEqual(['2025-11-25', '2025-06-18']);
    // The -32022 of a request naming a revision this server does not serve lists them in the same order.
    expect((unsupportedRevisionRefusal('2099-01-01', server.servedRevisions).data as { supported: unknown }).supported).toEqual(['2026-07-28', '2025-11-25', '2025-06-18']);
  });

  it('B22: a header naming a revision without the header (2025-03-26, as conformance 0.1.16 sends) is served as the session', () => {
    for (const header of ['2025-03-26', '2024-11-05']) {
      expect(classifyStreamableHttp(facts({ protocolVersionHeader: header, text: LIST }))).toMatchObject({ kind: 'message' });
    }
  });

  it('B22 (e): the header on initialize is not checked; the body drives negotiation', () => {
    const d = classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, protocolVersionHeader: '2025-06-18', text: INIT }));
    expect(d.kind).toBe('initialize');
  });

  it('B19: JSON mode accepts Accept: application/json alone, */* and application/*', () => {
    for (const accept of ['application/json', '*/*', 'application/*', undefined]) {
      expect(classifyStreamableHttp(facts({ accept, responseMode: 'json', text: LIST }))).toMatchObject({ respondWith: 'json' });
    }
    expect(classifyStreamableHttp(facts({ accept: 'application/json', responseMode: 'sse', text: LIST }))).toMatchObject({ respondWith: 'json' });
    expect(refusal(classifyStreamableHttp(facts({ accept: 'text/html', text: LIST })))).toMatchObject({ status: 406 });
    expect(refusal(classifyStreamableHttp(facts({ accept: 'text/event-stream', responseMode: 'json', text: LIST })))).toMatchObject({ status: 406 });
  });

  it('B21: Content-Type with parameters and mixed case is accepted; text/plain is 415', () => {
    for (const ct of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      expect(classifyStreamableHttp(facts({ contentType: ct, text: LIST })).kind).toBe('message');
    }
    expect(refusal(classifyStreamableHttp(facts({ contentType: 'text/plain', text: LIST })))).toMatchObject({ status: 415 });
    expect(refusal(classifyStreamableHttp(facts({ contentType: undefined, text: LIST })))).toMatchObject({ status: 415 });
  });

  it('other methods are 405 with Allow', () => {
    const d = classifyStreamableHttp(facts({ httpMethod: 'PUT' }));
    expect(d).toMatchObject({ kind: 'refuse', httpStatus: 405, allow: 'GET, POST, DELETE' });
  });

  it('GET: session checks, Accept text/event-stream, Last-Event-ID', () => {
    expect(classifyStreamableHttp(facts({ httpMethod: 'GET', lastEventId: 'x.1' }))).toMatchObject({ kind: 'listen', lastEventId: 'x.1' });
    expect(refusal(classifyStreamableHttp(facts({ httpMethod: 'GET', accept: 'application/json' })))).toMatchObject({ status: 406 });
    expect(refusal(classifyStreamableHttp(facts({ httpMethod: 'GET', sessionId: undefined, session: undefined })))).toMatchObject({ status: 400 });
    expect(refusal(classifyStreamableHttp(facts({ httpMethod: 'DELETE', session: undefined })))).toMatchObject({ status: 404 });
    expect(classifyStreamableHttp(facts({ httpMethod: 'DELETE' }))).toMatchObject({ kind: 'terminate', sessionId: 'S1' });
  });

  it('without the server facts (a legacy-only server), a request naming 2026-07-28 in _meta is refused with -32022', () => {
    const modern = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    });
    const d = classifyStreamableHttp(facts({ sessionId: undefined, session: undefined, text: modern }));
    expect(refusal(d)).toEqual({ status: 400, code: -32022, id: 9 });
    if (d.kind !== 'refuse') throw new Error('unreachable');
    const data = d.jsonrpcError.error.data as { supported: string[]; requested: string };
    expect(data.requested).toBe('2026-07-28');
    expect([...data.supported].sort()).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
  });
});

describe('media types', () => {
  it('acceptsMediaType follows RFC 9110 precedence and q=0', () => {
    expect(acceptsMediaType('text/event-stream;q=0, */*', 'text/event-stream')).toBe(false);
    expect(acceptsMediaType('text/*', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('', 'application/json')).toBe(true);
    expect(acceptsMediaType('text/html', 'application/json')).toBe(false);
    expect(negotiateResponseShape('text/event-stream', 'sse')).toBe('sse');
    // auto: both types accepted ⇒ decided per exchange; one type ⇒ that type; none ⇒ 406.
    expect(negotiateResponseShape('application/json, text/event-stream', 'auto')).toBe('adaptive');
    expect(negotiateResponseShape(undefined, 'auto')).toBe('adaptive');
    expect(negotiateResponseShape('text/event-stream', 'auto')).toBe('sse');
    expect(negotiateResponseShape('application/json, text/event-stream;q=0', 'auto')).toBe('json');
    expect(negotiateResponseShape('text/html', 'auto')).toBeUndefined();
    // Pure: the same Accept under another mode is not answered from an earlier call.
    expect(negotiateResponseShape('application/json, text/event-stream', 'sse')).toBe('sse');
    expect(negotiateResponseShape('application/json, text/event-stream', 'json')).toBe('json');
    expect(negotiateResponseShape('application/json, text/event-stream', 'auto')).toBe('adaptive');
    expect(negotiateResponseShape('text/html', 'sse')).toBeUndefined();
  });

  it('isJsonContentType', () => {
    expect(isJsonContentType(' application/json ; charset=utf-8')).toBe(true);
    expect(isJsonContentType('application/jsonx')).toBe(false);
  });
});

describe('httpRefusal', () => {
  it('builds status + JSON-RPC body from the table', () => {
    expect(httpRefusal('sessionNotFound')).toEqual({
      httpStatus: 404,
      jsonrpcError: { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } },
    });
    expect(httpRefusal('alreadyInitialized', { id: 3, detail: 'detail' }).jsonrpcError.error.message).toBe(`${HttpRefusal.alreadyInitialized.message}: detail`);
  });
});
