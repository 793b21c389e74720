import { describe, expect, it, vi } from 'vitest';
import { silentLogger, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpError } from '../../protocol/errors.js';
import { ToolError } from '../features/tools.js';
import { McpServer } from '../mcpServer.js';
import { connectRawClient } from '../../testing/index.js';
import { timingMiddleware } from './timing.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'host', version: '3.1' } };
const call = (id: number, name: string, meta = false): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: META } : {}) } });

function timed(options: Parameters<typeof timingMiddleware>[0] = {}) {
  const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const clock = { t: 100 };
  const server = new McpServer({ name: 'timed', version: '1' }, { logger });
  server.tool('ok', {}, () => {
    clock.t += 2.5;
    return { content: [] };
  });
  server.tool('fails', {}, () => {
    throw new ToolError('no');
  });
  server.tool('slow', {}, () => {
    clock.t += 1500;
    return { content: [] };
  });
  // First added, outermost: it times what the middlewares after it do too.
  server.use(timingMiddleware({ now: () => clock.t, ...options }));
  server.use({ methods: ['tools/list'] }, () => {
    throw new McpError(-32602, 'Invalid params: refused');
  });
  return { server, logger };
}

describe('timingMiddleware', () => {
  it('logs one line per request through the server logger: what, who, how long, how it ended', async () => {
    const { server, logger } = timed();
    await server.handle(call(7, 'ok', true), { extra: { caller: 'address:192.0.2.9' } });
    await server.handle(call(8, 'fails'));
    await server.handle({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    expect(logger.info.mock.calls).toEqual([
      ['MCP request', { method: 'tools/call', name: 'ok', id: 7, era: 'modern', revision: '2026-07-28', client: 'host/3.1', caller: 'address:192.0.2.9', durationMs: 2.5, outcome: 'ok' }],
      ['MCP request', { method: 'tools/call', name: 'fails', id: 8, era: 'legacy', durationMs: 0, outcome: 'tool error' }],
      ['MCP request', { method: 'tools/list', id: 9, era: 'legacy', durationMs: 0, outcome: 'error', code: -32602 }],
    ]);
  });

  it('warns at or above slowMs, logs at debug when asked, and can leave notifications out', async () => {
    const { server, logger } = timed({ level: 'debug', notifications: false });
    await server.handle(call(1, 'slow'));
    await server.handle(call(2, 'ok'));
    const raw = await connectRawClient(server);
    await raw.initialize();
    await raw.request(3, 'ping');
    await raw.close();
    expect(logger.warn).toHaveBeenCalledWith('MCP request', expect.objectContaining({ name: 'slow', durationMs: 1500 }));
    expect(logger.debug.mock.calls.map(([, fields]) => (fields as { method: string }).method)).toEqual(['tools/call', 'initialize', 'ping']);
    expect(logger.info).not.toHaveBeenCalled();
  });

  it('logs notifications by default, and cuts what the client chose to 200 characters', async () => {
    const { server, logger } = timed();
    const raw = await connectRawClient(server);
    await raw.initialize();
    await raw.request(1, 'tools/call', { name: 'x'.repeat(500), arguments: {} });
    await raw.close();
    const lines = logger.info.mock.calls.map(([message, fields]) => [message, (fields as { method: string }).method]);
    expect(lines).toContainEqual(['MCP notification', 'notifications/initialized']);
    const unknown = logger.info.mock.calls.find(([, fields]) => (fields as { name?: string }).name?.startsWith('xxx') === true)?.[1] as { name: string };
    expect(unknown.name.length).toBeLessThanOrEqual(201);
  });

  it('a logger that throws costs its line, never the answer', async () => {
    const server = new McpServer({ name: 'timed', version: '1' }, { logger: silentLogger });
    const broken = { ...silentLogger, info: () => { throw new Error('disk full'); } };
    server.use(timingMiddleware({ logger: broken }));
    expect(await server.handle({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(() => timingMiddleware({ slowMs: -1 })).toThrow(RangeError);
    expect(() => timingMiddleware({ level: 'warn' as never })).toThrow(TypeError);
  });
});
