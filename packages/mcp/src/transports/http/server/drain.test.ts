/**
 * A graceful close (`serveHttp` handle `close({ drainMs })`) lets a call in flight finish even when it waits for its
 * client: the client's answer to a server-to-client request (sampling) may arrive on a new connection, so the
 * listener stays open during the drain while new sessions get 503.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/mcpServer.js';
import { serveHttp } from '../../node/index.js';
import type { ServeHttpHandle } from '../../node/index.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 't', version: '0' } } };

let handle: ServeHttpHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** Reads SSE `data:` payloads of a streaming response, without ever cancelling it (that would end the call's POST). */
function sseMessages(response: Response): (stop: (message: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let seen = 0;
  return async (stop) => {
    for (;;) {
      const lines = text.split('\n');
      for (; seen < lines.length - 1; seen++) {
        const line = lines[seen]!;
        if (!line.startsWith('data: ') || line === 'data: ') continue;
        const message = JSON.parse(line.slice(6)) as Record<string, unknown>;
        if (stop(message)) { seen++; return message; }
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended; got ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  };
}

describe('graceful close and server-to-client requests', () => {
  it('a call waiting for its sampling answer is answered during the drain; a new session meanwhile gets 503', async () => {
    const server = new McpServer({ name: 'drain', version: '0' });
    server.tool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
      return { content: [{ type: 'text', text: `sampled: ${(answer.content as { text?: string }).text ?? ''}` }] };
    });
    handle = await serveHttp({ server, port: 0 });
    const url = handle.url;
    const init = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
    const call = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } }) });
    const next = sseMessages(call);
    const request = await next((m) => m.method === 'sampling/createMessage');
    const closed = handle.close({ drainMs: 10_000 });
    const refused = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) });
    expect(refused.status).toBe(503);
    await refused.text();
    // The client answers on a new connection (the listener is still open during the drain).
    const answer = await fetch(url, {
      method: 'POST',
      headers: { ...headers, connection: 'close' },
      body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'm' } }),
    });
    expect(answer.status).toBe(202);
    await answer.text();
    expect(await next((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'sampled: yes' }] } });
    await closed;
    handle = undefined;
  });
});
