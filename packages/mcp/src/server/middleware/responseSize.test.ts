import { describe, expect, it, vi } from 'vitest';
import type { JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer } from '../mcpServer.js';
import { responseSizeMiddleware } from './responseSize.js';

const call = (id: number, text: string, meta = false): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'say', arguments: { text }, ...(meta ? { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } : {}) },
});

/** Bytes of the JSON of `say`'s result for `text`. */
const resultBytes = (text: string): number => new TextEncoder().encode(JSON.stringify({ content: [{ type: 'text', text }] })).length;

function guarded(maxBytes: number) {
  const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const server = new McpServer({ name: 'guard', version: '1' }, { logger });
  server.tool('say', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.resource('test://big', { name: 'big' }, (uri) => ({ contents: [{ uri, text: 'x'.repeat(2000) }] }));
  server.use(responseSizeMiddleware({ maxBytes }));
  return { server, logger };
}

describe('responseSizeMiddleware', () => {
  it('lets a result of exactly maxBytes through and turns one byte more into an isError tool result', async () => {
    const limit = resultBytes('a'.repeat(100));
    const { server, logger } = guarded(limit);
    expect(await server.handle(call(1, 'a'.repeat(100)))).toMatchObject({ result: { content: [{ text: 'a'.repeat(100) }] } });
    expect(await server.handle(call(2, 'a'.repeat(101)))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: `Tool "say" returned ${limit + 1} bytes, over this server's limit of ${limit} bytes: ask for less` }], isError: true },
    });
    expect(logger.warn).toHaveBeenCalledWith('Result over the size limit replaced by an error', { method: 'tools/call', name: 'say', bytes: limit + 1, maxBytes: limit });
  });

  it('counts UTF-8 bytes, not UTF-16 units (é is 2 bytes, an emoji 4)', async () => {
    const text = 'é'.repeat(30) + '😀'.repeat(10);
    const limit = resultBytes(text);
    expect(limit).toBeGreaterThan(JSON.stringify({ content: [{ type: 'text', text }] }).length);
    expect(await guarded(limit).server.handle(call(1, text))).toMatchObject({ result: { content: [{ text }] } });
    expect(await guarded(limit - 1).server.handle(call(2, text))).toMatchObject({ result: { isError: true } });
  });

  it('answers other methods with -32603 and the sizes, and measures a 2026-07-28 result as sent', async () => {
    const { server } = guarded(1000);
    expect(await server.handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'test://big' } })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'Result too large', data: { bytes: expect.any(Number), maxBytes: 1000 } },
    });
    // The same text fits a legacy answer but not the modern one, which carries resultType and serverInfo too.
    const text = 'b'.repeat(1000 - resultBytes(''));
    expect(await server.handle(call(2, text))).toMatchObject({ result: { content: [{ text }] } });
    expect(await server.handle(call(3, text, true))).toMatchObject({ result: { resultType: 'complete', isError: true } });
  });

  it('refuses a maxBytes that is not a positive integer', () => {
    expect(() => responseSizeMiddleware({ maxBytes: 0 })).toThrow(RangeError);
    expect(() => responseSizeMiddleware({ maxBytes: 1.5 })).toThrow(RangeError);
  });
});
