/**
 * An answer larger than `maxSseBufferBytes` (8 MiB) still reaches a client that reads: the cap is on a backlog (a
 * client that stopped reading), not on one event. It used to be dropped at once, logged as the client's fault.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/mcpServer.js';
import { serveHttp } from '../../node/index.js';
import type { ServeHttpHandle } from '../../node/index.js';
import { SseChannel } from '../sse/sseChannel.js';

let handle: ServeHttpHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

describe('large SSE events', () => {
  it('SseChannel lets one event over the cap through to a sink that kept up, and cuts a sink whose backlog passed it', () => {
    let unsent = 0;
    const sink = { write: (chunk: string) => { unsent += chunk.length; }, end: () => {}, buffered: () => unsent, abort: () => {} };
    const channel = new SseChannel(1000);
    channel.attach(sink);
    expect(channel.write('x'.repeat(5000))).toBe(true); // nothing unsent before it: goes out
    expect(channel.write('y')).toBe(false); // 5000 unsent before it, over the cap: the client is not reading
    expect(channel.overflowed).toBe(true);
  });

  it('a 9 MiB tool result is delivered over Streamable HTTP (SSE answer)', async () => {
    const server = new McpServer({ name: 'big', version: '0' });
    const text = 'z'.repeat(9 * 1024 * 1024);
    server.tool('big', {}, () => ({ content: [{ type: 'text', text }] }));
    handle = await serveHttp({ server, port: 0, responseMode: 'sse' });
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
    const init = await fetch(handle.url, { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } }) });
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await init.text();
    await (await fetch(handle.url, { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream', ...session }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
    const call = await fetch(handle.url, { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream', ...session }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } }) });
    const body = await call.text();
    const data = body.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6).map((l) => JSON.parse(l.slice(6)) as { id?: number; result?: { content: { text: string }[] } });
    const answer = data.find((m) => m.id === 1);
    expect(answer?.result?.content[0]?.text.length).toBe(text.length);
  });
});
