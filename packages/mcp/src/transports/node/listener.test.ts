/**
 * The Node adapter reaches the handler's core by a named call (`httpCoreOf`), at once: an object that is not the
 * one `createMcpHttpHandler` returned is refused when the listener is made, not when its first request arrives.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../server/index.js';
import { createMcpHttpHandler } from '../http/server/handler.js';
import type { McpHttpHandler } from '../http/server/handler.js';
import { toNodeListener } from './listener.js';

describe('toNodeListener: the handler and its core', () => {
  it('drives the core of a handler createMcpHttpHandler made', async () => {
    const handler = createMcpHttpHandler({ server: new McpServer({ name: 'core', version: '1' }, { logger: silentLogger }) });
    expect(typeof toNodeListener(handler)).toBe('function');
    expect(typeof toNodeListener(handler, { via: 'fetch' })).toBe('function');
    await handler.close();
  });

  it('refuses, when made, an object with the shape of a handler but no core', () => {
    const lookalike: McpHttpHandler = {
      fetch: () => Promise.resolve(new Response(null, { status: 204 })),
      handle: () => Promise.resolve(new Response(null, { status: 204 })),
      matches: () => true,
      sessionCount: 0,
      bufferedSseBytes: 0,
      close: () => Promise.resolve(),
    };
    expect(() => toNodeListener(lookalike)).toThrow(new TypeError('Invalid handler: expected the object createMcpHttpHandler returned'));
  });
});
