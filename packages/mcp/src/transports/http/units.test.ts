/**
 * Unit tests: SseChannel, InMemoryEventStore, HostGuard, and handler edge cases with a stub server.
 */
import type { JsonRpcMessage, Transport } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import type { HttpSessionHandle } from './serverLike.js';
import { InMemoryEventStore } from '../../stores/eventStore.js';
import { createMcpHttpHandler } from './handler.js';
import { bindWarning, serveHttp } from '../node/serveHttp.js';
import { HostGuard, parseHostPort } from './security.js';
import { SseChannel, formatMessageEvent, formatPrimingEvent, formatRetry } from './sse.js';

function message(id: number): JsonRpcMessage {
  return { jsonrpc: '2.0', id, result: {} };
}

describe('SseChannel', () => {
  it('buffers until attached, then flushes in one write; end before attach ends on attach', () => {
    const channel = new SseChannel();
    expect(channel.write('a')).toBe(true);
    expect(channel.write('b')).toBe(true);
    channel.end();
    expect(channel.write('c')).toBe(false);
    const writes: string[] = [];
    let ended = false;
    channel.attach({ write: (c) => writes.push(c), end: () => { ended = true; }, buffered: () => 0, abort: () => {} });
    expect(writes).toEqual(['ab']);
    expect(ended).toBe(true);
  });

  it('detach fires ondetach once, unless the server ended the stream first; a throwing sink detaches', () => {
    let detached = 0;
    const a = new SseChannel();
    a.ondetach = () => detached++;
    a.attach({ write: () => { throw new Error('gone'); }, end: () => {} , buffered: () => 0, abort: () => {} });
    expect(a.write('x')).toBe(false);
    a.detach();
    expect(detached).toBe(1);
    expect(a.open).toBe(false);

    const b = new SseChannel();
    b.ondetach = () => detached++;
    b.end();
    b.detach();
    expect(detached).toBe(1);
  });

  it('ondelivered fires once the end reached a sink (attach, end, takeComplete), never when the client left first', () => {
    const fired: string[] = [];
    const a = new SseChannel();
    a.ondelivered = () => fired.push('a');
    a.write('x');
    a.attach({ write: () => {}, end: () => {} , buffered: () => 0, abort: () => {} });
    expect(fired).toEqual([]);
    a.end();
    a.end();
    expect(fired).toEqual(['a']);

    const b = new SseChannel();
    b.ondelivered = () => fired.push('b');
    b.write('p');
    b.write('q');
    expect(b.takeComplete()).toBeUndefined(); // not ended yet: nothing taken
    b.end();
    expect(b.takeComplete()).toBe('pq');
    expect(b.takeComplete()).toBeUndefined();
    b.attach({ write: () => { throw new Error('already taken'); }, end: () => {} , buffered: () => 0, abort: () => {} });
    expect(fired).toEqual(['a', 'b']);

    const c = new SseChannel();
    c.ondelivered = () => fired.push('c');
    c.write('x');
    c.detach();
    c.end();
    expect(c.takeComplete()).toBeUndefined();
    const d = new SseChannel();
    d.ondelivered = () => fired.push('d');
    d.end();
    d.attach({ write: () => {}, end: () => { throw new Error('gone'); }, buffered: () => 0, abort: () => {} });
    expect(fired).toEqual(['a', 'b']);
  });

  it('formats events per the SSE grammar', () => {
    expect(formatMessageEvent('{"a":1}')).toBe('event: message\ndata: {"a":1}\n\n');
    expect(formatMessageEvent('{}', 's.1')).toBe('id: s.1\nevent: message\ndata: {}\n\n');
    expect(formatPrimingEvent('s.1', 500)).toBe('id: s.1\nretry: 500\ndata: \n\n');
    expect(formatRetry(20.7)).toBe('retry: 20\n\n');
  });
});

describe('InMemoryEventStore', () => {
  it('ids encode the stream; replay sends what came after, idempotently', () => {
    const store = new InMemoryEventStore();
    const a1 = store.storeEvent('S.1', {});
    const a2 = store.storeEvent('S.1', message(1));
    store.storeEvent('S.2', message(9));
    const a3 = store.storeEvent('S.1', message(2));
    expect([a1, a2, a3]).toEqual(['S.1.1', 'S.1.2', 'S.1.4']); // one counter for the store: ids never repeat
    expect(store.getStreamIdForEventId(a2)).toBe('S.1');
    for (let round = 0; round < 2; round++) {
      const seen: [string, unknown][] = [];
      expect(store.replayEventsAfter(a1, { send: (id, m) => { seen.push([id, m]); } })).toBe('S.1');
      expect(seen).toEqual([['S.1.2', message(1)], ['S.1.4', message(2)]]);
    }
    expect(store.replayEventsAfter('S.1.99', { send: () => {} })).toBeUndefined(); // never issued
    expect(store.replayEventsAfter('nonsense', { send: () => {} })).toBeUndefined();
    store.deleteStream('S.1');
    expect(store.getStreamIdForEventId(a2)).toBeUndefined();
  });

  it('is bounded per stream and in streams', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2, maxStreams: 2 });
    const first = store.storeEvent('A', message(1));
    store.storeEvent('A', message(2));
    store.storeEvent('A', message(3));
    const seen: unknown[] = [];
    store.replayEventsAfter(first, { send: (_id, m) => { seen.push(m); } });
    expect(seen).toEqual([message(2), message(3)]);
    store.storeEvent('B', message(1));
    store.storeEvent('C', message(1));
    expect(store.size).toBe(2);
    expect(store.getStreamIdForEventId(first)).toBeUndefined();
  });

  it('a session over its stream budget loses its own least recently written stream, never another session\'s', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 3 });
    const victim = store.storeEvent('victim.1', message(1));
    const attackerFirst = store.storeEvent('attacker.1', message(1));
    store.storeEvent('attacker.2', message(1));
    store.storeEvent('attacker.3', message(1));
    store.storeEvent('attacker.1', message(2)); // written again: now the most recent of the attacker's
    for (let i = 4; i < 10_000; i++) store.storeEvent(`attacker.${i}`, message(i));
    expect(store.getStreamIdForEventId(victim)).toBe('victim.1');
    expect(store.size).toBe(4);
    expect(store.getStreamIdForEventId(attackerFirst)).toBeUndefined();
  });

  it('evicts by last write: the stream written most recently survives the global cap', () => {
    const store = new InMemoryEventStore({ maxStreams: 2 });
    const a = store.storeEvent('a.1', message(1));
    store.storeEvent('b.1', message(1));
    store.storeEvent('a.1', message(2));
    store.storeEvent('c.1', message(1));
    expect(store.getStreamIdForEventId(a)).toBe('a.1');
    expect(store.getStreamIdForEventId('b.1.2')).toBeUndefined();
  });

  it('an evicted stream written again never repeats an event id', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 1 });
    const before = [store.storeEvent('s.1', message(1)), store.storeEvent('s.1', message(2))];
    store.storeEvent('s.2', message(1)); // evicts s.1
    const after = [store.storeEvent('s.1', message(3)), store.storeEvent('s.1', message(4))];
    expect(new Set([...before, ...after]).size).toBe(4);
  });

  it('bounds the bytes of a session: its oldest streams go first, then the oldest events of the stream being written', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 1000 });
    const other = store.storeEvent('other.1', message(1), 900);
    const old = store.storeEvent('s.1', message(1), 600);
    store.storeEvent('s.2', message(1), 600); // s over 1000: drops s.1
    expect(store.getStreamIdForEventId(old)).toBeUndefined();
    const first = store.storeEvent('s.2', message(2), 600); // s.2 alone over budget: its oldest event goes
    const seen: unknown[] = [];
    store.replayEventsAfter(first.replace(/\.\d+$/, '.1'), { send: (_id, m) => { seen.push(m); } });
    expect(seen).toEqual([message(2)]);
    expect(store.getStreamIdForEventId(other)).toBe('other.1');
  });
});

describe('HostGuard', () => {
  it('parses host[:port] with IPv6 brackets', () => {
    expect(parseHostPort('LocalHost:3000')).toEqual({ hostname: 'localhost', port: '3000' });
    expect(parseHostPort('[::1]:8080')).toEqual({ hostname: '[::1]', port: '8080' });
    expect(parseHostPort('::1')).toEqual({ hostname: '[::1]', port: undefined });
    expect(parseHostPort('[::1')).toBeUndefined();
  });

  it('Host: loopback defaults and explicit lists; off without protection', () => {
    const guard = new HostGuard({ protection: true });
    expect(guard.hostAllowed('localhost:1234')).toBe(true);
    expect(guard.hostAllowed('127.0.0.1')).toBe(true);
    expect(guard.hostAllowed('evil.example.com')).toBe(false);
    expect(guard.hostAllowed(undefined)).toBe(false);

    const custom = new HostGuard({ protection: true, allowedHosts: ['mcp.example.com', 'api.example.com:8443'] });
    expect(custom.hostAllowed('mcp.example.com:1')).toBe(true);
    expect(custom.hostAllowed('api.example.com:8443')).toBe(true);
    expect(custom.hostAllowed('api.example.com')).toBe(false);

    expect(new HostGuard({ protection: false }).hostAllowed('anything')).toBe(true);
  });

  it('Origin: absent allowed; same origin (scheme, host, port) or listed; else refused, with or without Host protection', () => {
    for (const protection of [true, false]) {
      const guard = new HostGuard({ protection, allowedOrigins: ['https://APP.example.com/'] });
      expect(guard.originAllowed(undefined, 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('HTTP://LocalHost:3000', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://[::1]:3000', '[::1]:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://10.0.0.5:3000', '10.0.0.5:3000', 'http')).toBe(true);
      // default ports are implied on either side
      expect(guard.originAllowed('http://mcp.example.com', 'mcp.example.com:80', 'http')).toBe(true);
      expect(guard.originAllowed('https://mcp.example.com:443', 'mcp.example.com', 'https')).toBe(true);
      // port, scheme or host mismatch
      expect(guard.originAllowed('http://localhost:5173', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('http://localhost', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('https://localhost:3000', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('http://127.0.0.1:3000', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('http://evil.example.com', 'localhost:3000', 'http')).toBe(false);
      // null, opaque, non-http(s), paths, credentials, no Host
      for (const bad of ['null', '', 'file://', 'chrome-extension://abc', 'http://localhost:3000/x', 'http://u@localhost:3000']) {
        expect(guard.originAllowed(bad, 'localhost:3000', 'http')).toBe(false);
      }
      expect(guard.originAllowed('http://localhost:3000', undefined, 'http')).toBe(false);
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000/x', 'http')).toBe(false);
      // the list: exact, case-insensitive, trailing slash ignored
      expect(guard.originAllowed('https://app.example.com', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('https://app.example.com:8443', 'localhost:3000', 'http')).toBe(false);
      // the same-origin cache never lets a different triple through
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000', 'https')).toBe(false);
    }
    const any = new HostGuard({ protection: false, allowAnyOrigin: true });
    expect(any.originAllowed('http://evil.example.com', 'localhost:3000', 'http')).toBe(true);
    expect(any.originAllowed('null', 'localhost:3000', 'http')).toBe(true);
  });
});

describe('serveHttp bind warning', () => {
  it('a non-loopback bind without Host validation says what is off, what is still checked and what to set', () => {
    expect(bindWarning('0.0.0.0', false, false)).toBe(
      'MCP HTTP server bound to "0.0.0.0" without Host validation: set allowedHosts to the names clients use (e.g. ["mcp.example.com"]) to enable it; Origin is still checked (a browser request from another origin gets 403 unless listed in allowedOrigins)',
    );
    expect(bindWarning('::', false, true)).toBe(
      'MCP HTTP server bound to "::" without Host validation: set allowedHosts to the names clients use (e.g. ["mcp.example.com"]) to enable it; Origin validation is off too (allowAnyOrigin: true): set allowedOrigins instead to accept only the listed browser pages',
    );
    expect(bindWarning('0.0.0.0', true, false)).toBeUndefined();
    expect(bindWarning('127.0.0.1', false, false)).toBeUndefined();
    expect(bindWarning('localhost', false, true)).toBeUndefined();
  });
});

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
      expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' } });
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
        async connect(transport) {
          transports.push(transport);
          transport.onmessage = (inbound) => {
            if (inbound.kind === 'request') {
              void transport.send({ jsonrpc: '2.0', id: inbound.message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
            }
          };
          return { close: () => transport.close() } as HttpSessionHandle;
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
    await after.text();
  });
});

describe('option validation (createMcpHttpHandler and serveHttp)', () => {
  const server = { connect: () => Promise.reject(new Error('unused')) };
  const cases: [Record<string, unknown>, typeof TypeError | typeof RangeError, string][] = [
    [{ maxBodyBytes: -1 }, RangeError, 'Invalid option maxBodyBytes: expected a positive integer, got "-1"'],
    [{ maxBodyBytes: Number.NaN }, RangeError, 'Invalid option maxBodyBytes: expected a positive integer, got "NaN"'],
    [{ maxBodyBytes: '10' }, TypeError, 'Invalid option maxBodyBytes: expected a number, got "10"'],
    [{ maxSessions: 0 }, RangeError, 'Invalid option maxSessions: expected a positive integer, got "0"'],
    [{ maxBatchSize: 1.5 }, RangeError, 'Invalid option maxBatchSize: expected a positive integer, got "1.5"'],
    [{ sessionIdleTimeoutMs: -5 }, RangeError, 'Invalid option sessionIdleTimeoutMs: expected 0 or more milliseconds, got "-5"'],
    [{ sessionHandshakeTimeoutMs: Number.NaN }, RangeError, 'Invalid option sessionHandshakeTimeoutMs: expected 0 or more milliseconds, got "NaN"'],
    [{ sseKeepAliveMs: 2 ** 31 }, RangeError, 'Invalid option sseKeepAliveMs: expected between 0 and 2147483647 milliseconds, got "2147483648"'],
    [{ sseRetryMs: -1 }, RangeError, 'Invalid option sseRetryMs: expected between 0 and 2147483647 milliseconds, got "-1"'],
    [{ path: 'mcp' }, TypeError, 'Invalid option path: expected a URL path starting with "/" (no query, fragment or spaces), got "mcp"'],
    [{ path: '/mcp?x=1' }, TypeError, 'Invalid option path: expected a URL path starting with "/" (no query, fragment or spaces), got "/mcp?x=1"'],
    [{ path: '/sse' }, TypeError, 'Invalid option path: "/sse" is a 2024-11-05 HTTP+SSE path (set sse2024 to other paths or false)'],
    [{ legacySse: { ssePath: 'events' } }, TypeError, 'Invalid option legacySse.ssePath: expected a URL path starting with "/" (no query, fragment or spaces), got "events"'],
    [{ sse2024: { ssePath: 'events' } }, TypeError, 'Invalid option sse2024.ssePath: expected a URL path starting with "/" (no query, fragment or spaces), got "events"'],
    [{ responseMode: 'xml' }, TypeError, 'Invalid option responseMode: expected "auto", "sse" or "json", got "xml"'],
    [{ allowedHosts: 'localhost' }, TypeError, 'Invalid option allowedHosts: expected an array of strings, got "localhost"'],
  ];

  it.each(cases)('createMcpHttpHandler refuses %o', (bad, ErrorClass, message) => {
    expect(() => createMcpHttpHandler({ server, ...bad } as never)).toThrow(new ErrorClass(message));
    try {
      createMcpHttpHandler({ server, ...bad } as never);
    } catch (error) {
      expect(error).toBeInstanceOf(ErrorClass);
    }
  });

  it.each(cases)('serveHttp rejects %o before listening', async (bad, ErrorClass, message) => {
    const failure = await serveHttp({ server, ...bad } as never).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(ErrorClass);
    expect((failure as Error).message).toBe(message);
  });

  it('refuses a server without connect, and a bad port; sensible values (0 disables timers, paths) are accepted', async () => {
    expect(() => createMcpHttpHandler({ server: {} } as never)).toThrow(TypeError);
    await expect(serveHttp({ server, port: 70_000 })).rejects.toThrow(new RangeError('Invalid option port: expected an integer from 0 to 65535, got "70000"'));
    const handler = createMcpHttpHandler({
      server,
      path: '/api/mcp',
      legacySse: { ssePath: '/api/sse', messagesPath: '/api/messages' },
      sessionIdleTimeoutMs: 0,
      sessionHandshakeTimeoutMs: 0,
      sseKeepAliveMs: 0,
      maxSessions: 1,
      maxBodyBytes: 1,
      maxBatchSize: 1,
    });
    expect(handler.matches('/api/mcp')).toBe(true);
    expect(handler.matches('/api/sse')).toBe(true); // legacySse: the deprecated name of sse2024, still honoured
    expect(handler.matches('/sse')).toBe(false);
    await handler.close();
    const renamed = createMcpHttpHandler({ server, sse2024: { ssePath: '/events' } });
    expect([renamed.matches('/events'), renamed.matches('/messages'), renamed.matches('/sse')]).toEqual([true, true, false]);
    await renamed.close();
    const off = createMcpHttpHandler({ server, sse2024: false, legacySse: true }); // the new name wins
    expect([off.matches('/mcp'), off.matches('/sse'), off.matches('/messages')]).toEqual([true, false, false]);
    await off.close();
  });
});
