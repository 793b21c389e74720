/** The Streamable HTTP endpoint with a stub server: a failing connect, and close() with a live session. */
import type { Transport } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { createMcpHttpHandler } from './handler.js';

describe('createMcpHttpHandler edge cases (stub server)', () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  it('a server whose connect throws gets 500 + -32603 without its text, and no session is left', async () => {
    const handler = createMcpHttpHandler({
      server: { connect: () => Promise.reject(new Error('secret failure detail')) },
    });
    try {
      const res = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: initialize }));
      expect(res.status).toBe(500);
      const text = await res.text();
      // JSON-RPC 2.0 §5: the initialize request was read, so the error carries its id.
      expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
      expect(text).not.toContain('secret');
      expect(handler.sessionCount).toBe(0);
    } finally {
      await handler.close();
    }
  });

  it('close() closes live sessions and later initialize gets 503', async () => {
    const transports: Transport[] = [];
    const handler = createMcpHttpHandler({
      server: {
        connect(transport) {
          transports.push(transport);
          transport.onmessage = (inbound) => {
            if (inbound.kind === 'request') {
              // What a server's connection does once initialize negotiated a revision (the transport does not read MCP).
              (transport as Transport & { setProtocolVersion(revision: string): void }).setProtocolVersion('2025-11-25');
              void transport.send({ jsonrpc: '2.0', id: inbound.message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
            }
          };
          return Promise.resolve({ close: () => transport.close() });
        },
      },
    });
    const res = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: initialize }));
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
    await res.text();
    expect(handler.sessionCount).toBe(1);
    let closed = false;
    const transport = transports[0] as Transport;
    const previous = transport.onclose;
    transport.onclose = () => { closed = true; previous?.(); };
    await handler.close();
    expect(closed).toBe(true);
    expect(handler.sessionCount).toBe(0);
    const after = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: initialize }));
    expect(after.status).toBe(503);
    expect(JSON.parse(await after.text())).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000 } });
  });
});
