import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer } from '../mcpServer.js';
import { connectRawClient } from '../../testing/index.js';
import { toolTimeoutMiddleware } from './toolTimeout.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const call = (id: number, name: string, meta = false): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: META } : {}) } });

/** A server whose `hang` tool waits for its signal (and records why it aborted) and whose `stubborn` tool ignores it. */
function server(options: Parameters<typeof toolTimeoutMiddleware>[0]) {
  const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const reasons: unknown[] = [];
  const s = new McpServer({ name: 'deadlines', version: '1' }, { logger });
  s.tool('hang', {}, (_args, ctx) =>
    new Promise<{ content: { type: 'text'; text: string }[] }>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        reasons.push(ctx.signal.reason);
        resolve({ content: [{ type: 'text', text: 'stopped' }] });
      });
    }),
  );
  s.tool('stubborn', {}, () => new Promise(() => {}));
  s.tool('quick', {}, () => ({ content: [{ type: 'text', text: 'done' }] }));
  s.use(toolTimeoutMiddleware(options));
  return { server: s, logger, reasons };
}

describe('toolTimeoutMiddleware', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers an isError result at the deadline and aborts the handler signal with a TimeoutError', async () => {
    const { server: s, logger, reasons } = server({ timeoutMs: 1000 });
    const answer = s.handle(call(1, 'hang'));
    await vi.advanceTimersByTimeAsync(999);
    expect(reasons).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Tool "hang" timed out after 1000 ms' }], isError: true } });
    expect(reasons).toEqual([expect.objectContaining({ name: 'TimeoutError' })]);
    expect(logger.warn).toHaveBeenCalledWith('Tool call timed out', { tool: 'hang', timeoutMs: 1000 });
  });

  it('answers a tool that ignores its signal all the same, and a 2026-07-28 answer is completed (resultType)', async () => {
    const { server: s } = server({ timeoutMs: 50 });
    const answer = s.handle(call(1, 'stubborn', true));
    await vi.advanceTimersByTimeAsync(50);
    expect(await answer).toMatchObject({ result: { resultType: 'complete', isError: true, content: [{ text: 'Tool "stubborn" timed out after 50 ms' }] } });
  });

  it('uses the tool\'s own deadline over the default, Infinity meaning none; leaves quick calls and other methods alone', async () => {
    const { server: s } = server({ timeoutMs: 10, tools: { stubborn: 5000, hang: Infinity } });
    const stubborn = s.handle(call(1, 'stubborn'));
    const hang = s.handle(call(2, 'hang'));
    let hangSettled = false;
    void hang.then(() => (hangSettled = true));
    await vi.advanceTimersByTimeAsync(4999);
    expect(await s.handle(call(3, 'quick'))).toMatchObject({ result: { content: [{ text: 'done' }] } });
    expect(await s.handle({ jsonrpc: '2.0', id: 4, method: 'tools/list' })).toMatchObject({ result: { tools: expect.any(Array) } });
    await vi.advanceTimersByTimeAsync(1);
    expect(await stubborn).toMatchObject({ result: { isError: true, content: [{ text: 'Tool "stubborn" timed out after 5000 ms' }] } });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(hangSettled).toBe(false);
  });

  it('still lets the client cancel: notifications/cancelled aborts the handler before the deadline', async () => {
    const { server: s, reasons } = server({ timeoutMs: 60_000 });
    const raw = await connectRawClient(s);
    await raw.initialize();
    await raw.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    await vi.advanceTimersByTimeAsync(10);
    await raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'user' } });
    await vi.advanceTimersByTimeAsync(10);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).not.toMatchObject({ name: 'TimeoutError' });
    await raw.close();
  });

  it('refuses a deadline that is not a number > 0', () => {
    expect(() => toolTimeoutMiddleware({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => toolTimeoutMiddleware({ tools: { x: Number.NaN } })).toThrow(/tools\["x"\]/);
    // A tool named with no deadline is a mistake, not "the default".
    expect(() => toolTimeoutMiddleware({ tools: { x: undefined as unknown as number } })).toThrow(new TypeError('Invalid option tools["x"]: expected a number of milliseconds, got undefined'));
    expect(toolTimeoutMiddleware({ timeoutMs: Infinity, tools: { x: Infinity } })).toBeTypeOf('function');
    expect(() => toolTimeoutMiddleware({ tools: 'ab' as never })).toThrow(new TypeError('Invalid option tools: expected an object of deadlines by tool name, got "ab"'));
    expect(() => toolTimeoutMiddleware({ tools: [5] as never })).toThrow(/got an array$/);
  });
});
