import { describe, expect, it } from 'vitest';
import type { CheckContext, HttpProbeResponse } from '../../types.js';
import { answersId, exchangeEvidence, isLoopbackTarget, mediaType, statusText } from './wire.js';

function response(overrides: Partial<HttpProbeResponse>): HttpProbeResponse {
  return { status: 200, headers: {}, text: '', messages: [], eventIds: [], ...overrides };
}

function ctxFor(url: string): CheckContext {
  return { target: { transport: 'http', url } } as unknown as CheckContext;
}

describe('http check wire helpers', () => {
  it('quote both sides of an exchange: method, headers sent, status, the headers that matter, the body', () => {
    const evidence = exchangeEvidence(
      { method: 'POST', headers: { accept: 'text/html', 'mcp-session-id': null }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      response({ status: 406, headers: { 'content-type': 'application/json', date: 'x', allow: 'POST' }, text: '{"error":{}}\n' }),
    );
    expect(evidence).toEqual(['→ POST accept: text/html {"jsonrpc":"2.0","id":1,"method":"ping"}', '← 406 content-type: application/json; allow: POST {"error":{}}']);
  });

  it('quote an SSE answer as its event ids and messages', () => {
    const [, got] = exchangeEvidence(
      { method: 'GET' },
      response({ headers: { 'content-type': 'text/event-stream' }, text: 'id: e1\ndata: \n\nid: e2\ndata: {"id":"1"}\n\n', eventIds: ['e1', 'e2'], messages: [{ id: '1' }] }),
    );
    expect(got).toBe('← 200 content-type: text/event-stream (event ids e1, e2) {"id":"1"}');
  });

  it('cut evidence to 500 characters and say why no answer came', () => {
    const [sent, got] = exchangeEvidence({ method: 'POST', body: 'x'.repeat(2000) }, response({ status: 0, error: 'No answer within 2000 ms' }));
    expect(sent).toHaveLength(500);
    expect(sent?.endsWith('…')).toBe(true);
    expect(got).toBe('← no answer: No answer within 2000 ms');
    expect(statusText(response({ status: 0, error: 'refused' }))).toBe('did not answer (refused)');
    expect(statusText(response({ status: 404 }))).toBe('answered 404');
  });

  it('tell a loopback target from another', () => {
    expect(['http://127.0.0.1:3000/mcp', 'http://localhost/mcp', 'http://[::1]:8080/mcp', 'http://app.localhost/mcp'].map((u) => isLoopbackTarget(ctxFor(u)))).toEqual([true, true, true, true]);
    expect(['https://example.com/mcp', 'http://10.0.0.2/mcp', 'http://127.example/mcp'].map((u) => isLoopbackTarget(ctxFor(u)))).toEqual([false, false, false]);
  });

  it('find the response to a request by id and type, and read a media type', () => {
    const got = response({ messages: [{ jsonrpc: '2.0', method: 'notifications/progress' }, { jsonrpc: '2.0', id: '1', result: {} }] });
    expect(answersId(got, '1')).toBe(true);
    expect(answersId(response({ messages: [{ jsonrpc: '2.0', id: 1, result: {} }] }), '1')).toBe(false);
    expect(mediaType('Application/JSON; charset=utf-8')).toBe('application/json');
    expect(mediaType(undefined)).toBe('');
  });
});
