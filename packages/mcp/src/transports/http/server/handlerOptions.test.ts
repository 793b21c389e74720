import { describe, expect, it } from 'vitest';
import { createMcpHttpHandler } from './handler.js';
import { serveHttp } from '../../node/serveHttp.js';

describe('option validation (createMcpHttpHandler and serveHttp)', () => {
  const server = { connect: () => Promise.reject(new Error('unused')) };
  const cases: [Record<string, unknown>, typeof TypeError | typeof RangeError, string][] = [
    [{ maxBodyBytes: -1 }, RangeError, 'Invalid option maxBodyBytes: expected a positive integer, got -1'],
    [{ maxBodyBytes: Number.NaN }, RangeError, 'Invalid option maxBodyBytes: expected a positive integer, got NaN'],
    [{ maxBodyBytes: '10' }, TypeError, 'Invalid option maxBodyBytes: expected a positive integer, got "10"'],
    [{ maxSessions: 0 }, RangeError, 'Invalid option maxSessions: expected a positive integer, got 0'],
    [{ maxBatchSize: 1.5 }, RangeError, 'Invalid option maxBatchSize: expected a positive integer, got 1.5'],
    [{ sessionIdleTimeoutMs: -5 }, RangeError, 'Invalid option sessionIdleTimeoutMs: expected a number of milliseconds from 0 (or Infinity), got -5'],
    [{ sessionHandshakeTimeoutMs: Number.NaN }, RangeError, 'Invalid option sessionHandshakeTimeoutMs: expected a number of milliseconds from 0 (or Infinity), got NaN'],
    [{ sseKeepAliveMs: 2 ** 31 }, RangeError, 'Invalid option sseKeepAliveMs: expected a number of milliseconds from 0 to 2147483647, got 2147483648'],
    [{ sseRetryMs: -1 }, RangeError, 'Invalid option sseRetryMs: expected a number of milliseconds from 0 to 2147483647, got -1'],
    [{ path: 'mcp' }, TypeError, 'Invalid option path: expected a URL path starting with "/" (no query, fragment or spaces), got "mcp"'],
    [{ path: '/mcp?x=1' }, TypeError, 'Invalid option path: expected a URL path starting with "/" (no query, fragment or spaces), got "/mcp?x=1"'],
    [{ path: '/sse' }, TypeError, 'Invalid option path: "/sse" is a 2024-11-05 HTTP+SSE path (set httpSse to other paths or false)'],
    [{ httpSse: { ssePath: 'events' } }, TypeError, 'Invalid option httpSse.ssePath: expected a URL path starting with "/" (no query, fragment or spaces), got "events"'],
    [{ responseMode: 'xml' }, TypeError, 'Invalid option responseMode: expected "auto", "sse" or "json", got "xml"'],
    [{ allowedHosts: 'localhost' }, TypeError, 'Invalid option allowedHosts: expected an array of strings, got "localhost"'],
  ];

  it.each(cases)('createMcpHttpHandler refuses %o', (bad, ErrorClass, message) => {
    expect(() => createMcpHttpHandler({ server, ...bad })).toThrow(new ErrorClass(message));
    try {
      createMcpHttpHandler({ server, ...bad });
    } catch (error) {
      expect(error).toBeInstanceOf(ErrorClass);
    }
  });

  it.each(cases)('serveHttp rejects %o before listening', async (bad, ErrorClass, message) => {
    const failure = await serveHttp({ server, ...bad }).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(ErrorClass);
    expect((failure as Error).message).toBe(message);
  });

  it('refuses a server without connect, and a bad port; sensible values (0 disables timers, paths) are accepted', async () => {
    expect(() => createMcpHttpHandler({ server: {} } as never)).toThrow(TypeError);
    await expect(serveHttp({ server, port: 70_000 })).rejects.toThrow(new RangeError('Invalid option port: expected an integer from 0 to 65535, got 70000'));
    const handler = createMcpHttpHandler({
      server,
      path: '/api/mcp',
      httpSse: { ssePath: '/api/sse', messagesPath: '/api/messages' },
      sessionIdleTimeoutMs: 0,
      sessionHandshakeTimeoutMs: 0,
      sseKeepAliveMs: 0,
      maxSessions: 1,
      maxBodyBytes: 1,
      maxBatchSize: 1,
    });
    expect(handler.matches('/api/mcp')).toBe(true);
    expect(handler.matches('/api/sse')).toBe(true);
    expect(handler.matches('/sse')).toBe(false);
    await handler.close();
    const renamed = createMcpHttpHandler({ server, httpSse: { ssePath: '/events' } });
    expect([renamed.matches('/events'), renamed.matches('/messages'), renamed.matches('/sse')]).toEqual([true, true, false]);
    await renamed.close();
    const off = createMcpHttpHandler({ server, httpSse: false });
    expect([off.matches('/mcp'), off.matches('/sse'), off.matches('/messages')]).toEqual([true, false, false]);
    await off.close();
  });
});
