/**
 * The session transport is told what it needs of MCP (the negotiated revision, a cancelled request) instead of
 * reading messages: `setProtocolVersion` and `requestCancelled`, driven here without a server.
 */
import { readFileSync } from 'node:fs';
import { silentLogger } from '@switchboard/jsonrpc';
import type { Inbound, JsonRpcMessage } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { StreamableHttpSessionTransport } from './sessionTransport.js';

const EXTRA = { authInfo: undefined, headers: {} };

function transport(): { t: StreamableHttpSessionTransport; inbound: Inbound[] } {
  const inbound: Inbound[] = [];
  const t = new StreamableHttpSessionTransport({
    sessionId: 's-1',
    eventStore: undefined,
    logger: silentLogger,
    retryMs: 1000,
    keepAliveMs: 0,
    maxSseBufferBytes: 1 << 20,
    sseAfterMs: 50,
    onClosed: () => undefined,
  });
  t.onmessage = (message) => void inbound.push(message);
  return { t, inbound };
}

describe('StreamableHttpSessionTransport told, not reading', () => {
  it('setProtocolVersion before the initialize result: the session exists (Mcp-Session-Id) at that revision', async () => {
    const { t } = transport();
    const request = { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} } as const;
    const answer = t._initialize(request, 'json', EXTRA);
    t.setProtocolVersion('2025-06-18');
    const result: JsonRpcMessage = { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x', version: '0' } } };
    await t.send(result);
    const output = await answer;
    expect(output).toMatchObject({ status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 's-1' } });
    expect(JSON.parse(output.body ?? '')).toEqual(result);
    expect(t.protocolVersion).toBe('2025-06-18');
    await t.close();
  });

  it('requestCancelled ends the exchange of that request: a JSON answer with nothing collected is 202', async () => {
    const { t, inbound } = transport();
    t.setProtocolVersion('2025-11-25');
    const message = { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'slow' } } as const;
    const answer = t._post({ kind: 'message', era: 'legacy', sessionId: 's', inbound: { kind: 'request', message }, requestIds: ['c1'], replies: [], batch: false, respondWith: 'json' }, EXTRA);
    expect(inbound).toEqual([{ kind: 'request', message }]);
    t.requestCancelled('c1');
    t.requestCancelled('not-in-flight'); // ignored
    expect(await answer).toEqual({ status: 202, headers: { 'mcp-session-id': 's-1' } });
    // The id is free again: a new request with it is routed, not refused as a duplicate.
    const again = t._post({ kind: 'message', era: 'legacy', sessionId: 's', inbound: { kind: 'request', message }, requestIds: ['c1'], replies: [], batch: false, respondWith: 'json' }, EXTRA);
    await t.send({ jsonrpc: '2.0', id: 'c1', result: {} });
    expect(await again).toMatchObject({ status: 200, body: '{"jsonrpc":"2.0","id":"c1","result":{}}' });
    await t.close();
  });

  // Enabled by the lead once the server calls setProtocolVersion() and the Peer calls requestCancelled(), and the
  // FALLBACK code in sessionTransport.ts (#sniffCancels, CANCELLED, #initId and the initialize-result block in
  // #route) is deleted: method knowledge lives in the inbound step, the transport only routes.
  it.each(['sessionTransport.ts', '../exchanges/streamRouter.ts', 'sessionTransportBase.ts', 'sessionExchangeHost.ts'])('%s names no MCP method', (file) => {
    const source = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    expect(code.match(/['"`](initialize|notifications\/[\w/]+|[a-z]+\/[a-z][\w/]*)['"`]/g) ?? []).toEqual([]);
  });
});
