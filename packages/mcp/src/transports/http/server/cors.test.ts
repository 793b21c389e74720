/**
 * CORS for browser clients: the header logic (which requested headers a preflight allows, what actual answers
 * carry), the `cors` option's validation, and the wire through the Web handler and both Node adapter paths (a
 * socket on 127.0.0.1): preflights from listed origins answered 204, answers exposing `Mcp-Session-Id`, unlisted
 * origins still 403, nothing CORS without `allowedOrigins` or with `cors: false`. A real browser runs a session in
 * test/cors-browser.test.ts.
 */
import http from 'node:http';
import { silentLogger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { PROTOCOL_VERSION_META_KEY } from '../../../protocol/envelope.js';
import { createMcpHttpHandler } from '../index.js';
import type { McpHttpHandlerOptions } from '../index.js';
import { serveHttp } from '../../node/index.js';
import { CorsPolicy, MCP_EXPOSED_HEADERS, allowedRequestHeaders, corsSettings } from './cors.js';
import type { HttpInput } from './inputOutput.js';

const APP = 'http://localhost:5173';
const ACCEPT_BOTH = 'application/json, text/event-stream';

function inputOf(method: string, headers: Record<string, string>): HttpInput {
  return {
    method,
    path: '/mcp',
    query: '',
    scheme: 'http',
    header: (name) => headers[name],
    headers: () => headers,
    readBody: () => Promise.resolve({ kind: 'text', text: '' }),
  };
}

describe('CORS header logic', () => {
  it('allows the requested MCP headers (any Mcp-Param-* name), in request order, once each; drops others', () => {
    expect(allowedRequestHeaders('content-type,mcp-protocol-version,mcp-session-id')).toEqual(['content-type', 'mcp-protocol-version', 'mcp-session-id']);
    expect(allowedRequestHeaders(' Authorization , MCP-Method,mcp-name, mcp-param-region,Mcp-Param-Tenant-Id, last-event-id, accept'))
      .toEqual(['authorization', 'mcp-method', 'mcp-name', 'mcp-param-region', 'mcp-param-tenant-id', 'last-event-id', 'accept']);
    expect(allowedRequestHeaders('x-api-key, cookie, mcp-param-, content-type, content-type, mcp-param-a b, mcp-param-\u00e9')).toEqual(['content-type']);
    expect(allowedRequestHeaders('x-api-key, content-type', new Set(['x-api-key']))).toEqual(['x-api-key', 'content-type']);
    expect(allowedRequestHeaders(undefined)).toEqual([]);
    expect(allowedRequestHeaders('')).toEqual([]);
  });

  it('a preflight answer: 204, the origin echoed, the methods, the allowed headers, max age, Vary', () => {
    const policy = new CorsPolicy(corsSettings(true));
    const answer = policy.preflight(inputOf('OPTIONS', {
      origin: APP,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,mcp-param-region,x-evil',
    }), APP, 'GET, POST, DELETE');
    expect(answer).toEqual({
      status: 204,
      headers: {
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'GET, POST, DELETE',
        'access-control-allow-headers': 'content-type, mcp-param-region',
        'access-control-max-age': '7200',
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      },
    });
    const custom = new CorsPolicy(corsSettings({ maxAgeSeconds: 60, allowCredentials: true, allowHeaders: ['X-Api-Key'] }));
    const withPna = custom.preflight(inputOf('OPTIONS', {
      origin: APP,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-api-key',
      'access-control-request-private-network': 'true',
    }), APP, 'GET');
    expect(withPna.headers).toMatchObject({
      'access-control-allow-headers': 'x-api-key',
      'access-control-max-age': '60',
      'access-control-allow-credentials': 'true',
      'access-control-allow-private-network': 'true',
    });
    expect(policy.preflight(inputOf('OPTIONS', { origin: APP, 'access-control-request-method': 'GET' }), APP, 'GET').headers['access-control-allow-headers']).toBeUndefined();
  });

  it('an actual answer: the origin echoed (never *), the MCP headers exposed, Vary: Origin; Vary alone for a non-CORS request', () => {
    const policy = new CorsPolicy(corsSettings({ exposeHeaders: ['X-Trace', 'mcp-session-id'] }));
    const out = policy.answer({ status: 200, headers: Object.freeze({ 'content-type': 'application/json', 'mcp-session-id': 's' }), body: '{}' }, APP);
    expect(out).toEqual({
      status: 200,
      body: '{}',
      headers: {
        'content-type': 'application/json',
        'mcp-session-id': 's',
        vary: 'Origin',
        'access-control-allow-origin': APP,
        'access-control-expose-headers': 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-Trace',
      },
    });
    expect(policy.answer({ status: 202, headers: { vary: 'Accept' } }, undefined)).toEqual({ status: 202, headers: { vary: 'Accept, Origin' } });
    expect(MCP_EXPOSED_HEADERS).toContain('Mcp-Session-Id');
  });

  it('CorsPolicy.isPreflight: OPTIONS with Origin and Access-Control-Request-Method', () => {
    expect(CorsPolicy.isPreflight(inputOf('OPTIONS', { origin: APP, 'access-control-request-method': 'POST' }))).toBe(true);
    expect(CorsPolicy.isPreflight(inputOf('OPTIONS', { origin: APP }))).toBe(false);
    expect(CorsPolicy.isPreflight(inputOf('OPTIONS', { 'access-control-request-method': 'POST' }))).toBe(false);
    expect(CorsPolicy.isPreflight(inputOf('POST', { origin: APP, 'access-control-request-method': 'POST' }))).toBe(false);
  });

  it('the cors option is validated', () => {
    const server = new McpServer({ name: 'cors', version: '1' }, { logger: silentLogger });
    const make = (cors: unknown): unknown => createMcpHttpHandler({ server, cors: cors as McpHttpHandlerOptions['cors'] });
    expect(() => make('yes')).toThrow(new TypeError('Invalid option cors: expected a boolean or an object, got "yes"'));
    expect(() => make({ maxAgeSeconds: '10' })).toThrow(TypeError);
    expect(() => make({ maxAgeSeconds: -1 })).toThrow(new RangeError('Invalid option cors.maxAgeSeconds: expected an integer of 0 or more seconds, got -1'));
    expect(() => make({ maxAgeSeconds: 1.5 })).toThrow(RangeError);
    expect(() => make({ allowCredentials: 'true' })).toThrow(TypeError);
    expect(() => make({ allowHeaders: ['x-ok', 'bad header'] })).toThrow('Invalid option cors.allowHeaders: expected an array of header names');
    expect(() => make({ exposeHeaders: 'x-trace' })).toThrow(TypeError);
    expect(() => make({ maxAgeSeconds: 0, allowHeaders: ['X-Api-Key'], exposeHeaders: [] })).not.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------------------
// On the wire

type PathKind = 'web' | 'node' | 'node-fetch';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

interface Target {
  /** The Host header this target's clients send. */
  readonly host: string;
  send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer>;
  close(): Promise<void>;
}

/** One exchange over a fresh socket to 127.0.0.1; an SSE body is read until the stream ends. */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: out, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function createServer(): McpServer {
  const server = new McpServer({ name: 'cors-test', version: '1.0.0' }, { logger: silentLogger });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) =>
    ({ content: [{ type: 'text', text: `echo:${args.text ?? ''}` }] }));
  return server;
}

async function startTarget(kind: PathKind, server: McpServer, options: Partial<McpHttpHandlerOptions>): Promise<Target> {
  if (kind === 'web') {
    const handler = createMcpHttpHandler({ server, ...options });
    return {
      host: 'localhost',
      async send(method, path, headers, body) {
        const res = await handler.fetch(new Request(`http://localhost${path}`, { method, headers, body }));
        return { status: res.status, headers: res.headers, text: await res.text() };
      },
      close: () => handler.close(),
    };
  }
  const handle = await serveHttp({ server, ...options, via: kind === 'node' ? 'direct' : 'fetch' });
  return {
    host: `127.0.0.1:${handle.port}`,
    send: (method, path, headers, body) => rawRequest(handle.port, method, path, { host: `127.0.0.1:${handle.port}`, ...headers }, body),
    close: () => handle.close(),
  };
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
const POST_HEADERS = { 'content-type': 'application/json', accept: ACCEPT_BOTH };

function preflight(t: Target, origin: string, requestHeaders: string, path = '/mcp', method = 'POST'): Promise<Answer> {
  return t.send('OPTIONS', path, { origin, 'access-control-request-method': method, 'access-control-request-headers': requestHeaders });
}

describe.each<PathKind>(['web', 'node', 'node-fetch'])('CORS on the wire via %s', (kind) => {
  let server: McpServer;
  let t: Target | undefined;

  afterEach(async () => {
    await t?.close();
    t = undefined;
    await server.close();
  });

  it('a listed origin: the preflight is answered 204 with the MCP headers it asked for', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP] });
    const res = await preflight(t, APP, 'content-type,mcp-method,mcp-name,mcp-param-region,mcp-protocol-version,x-unknown');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type, mcp-method, mcp-name, mcp-param-region, mcp-protocol-version');
    expect(res.headers.get('access-control-max-age')).toBe('7200');
    expect(res.headers.get('vary')).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(server.sessions.size).toBe(0);
  });

  it('a listed origin: initialize exposes Mcp-Session-Id, and later requests and DELETE carry the origin too', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP] });
    const init = await t.send('POST', '/mcp', { ...POST_HEADERS, origin: APP }, INITIALIZE);
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id') as string;
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(init.headers.get('access-control-allow-origin')).toBe(APP);
    expect(init.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After');
    expect(init.headers.get('vary')).toBe('Origin');
    const session = { ...POST_HEADERS, origin: APP, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const call = await t.send('POST', '/mcp', session, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }));
    expect(call.status).toBe(200);
    expect(call.text).toContain('echo:hi');
    expect(call.headers.get('access-control-allow-origin')).toBe(APP);
    // A refusal is readable too: the page sees the 400 and its JSON-RPC error, not a network error.
    const missing = await t.send('POST', '/mcp', { ...POST_HEADERS, origin: APP }, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    expect(missing.status).toBe(400);
    expect(missing.headers.get('access-control-allow-origin')).toBe(APP);
    const ended = await t.send('DELETE', '/mcp', { origin: APP, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    expect(ended.status).toBe(200);
    expect(ended.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('a 2026-07-28 request from a listed origin gets its answer with the origin echoed', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP] });
    const body = JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'modern' }, _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    });
    const res = await t.send('POST', '/mcp', { ...POST_HEADERS, origin: APP, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, body);
    expect(res.status).toBe(200);
    expect(res.text).toContain('echo:modern');
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('the 2024-11-05 paths: /sse allows GET, /messages POST; the stream carries the origin', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP], sseKeepAliveMs: 0 });
    expect((await preflight(t, APP, 'last-event-id', '/sse', 'GET')).headers.get('access-control-allow-methods')).toBe('GET');
    const messages = await preflight(t, APP, 'content-type', '/messages');
    expect(messages.status).toBe(204);
    expect(messages.headers.get('access-control-allow-methods')).toBe('POST');
    expect(messages.headers.get('access-control-allow-headers')).toBe('content-type');
    // The stream's head is what matters: end it with a made-up id refusal instead (404 from /messages).
    const post = await t.send('POST', '/messages?sessionId=none', { 'content-type': 'application/json', origin: APP }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(post.status).toBe(404);
    expect(post.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('an unlisted origin: the preflight and the request stay 403 without CORS headers; the server\'s own origin gets CORS', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP] });
    for (const res of [await preflight(t, 'http://evil.example.com', 'content-type'), await t.send('POST', '/mcp', { ...POST_HEADERS, origin: 'http://evil.example.com' }, INITIALIZE)]) {
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-expose-headers')).toBeNull();
    }
    const own = await preflight(t, `http://${t.host}`, 'content-type');
    expect(own.status).toBe(204);
    expect(own.headers.get('access-control-allow-origin')).toBe(`http://${t.host}`);
    // A request without Origin (not a browser) is served as ever, with Vary: Origin for caches.
    const plain = await t.send('POST', '/mcp', POST_HEADERS, INITIALIZE);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Origin');
    expect(server.sessions.size).toBe(1);
  });

  it('a listed null origin (sandboxed frames, file: pages) is served but gets no CORS: any site can send it', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP, 'null'] });
    const res = await preflight(t, 'null', 'content-type');
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const init = await t.send('POST', '/mcp', { ...POST_HEADERS, origin: 'null' }, INITIALIZE);
    expect(init.status).toBe(200);
    expect(init.headers.get('access-control-allow-origin')).toBeNull();
    expect(init.headers.get('vary')).toBe('Origin');
  });

  it('no CORS without allowedOrigins, with cors: false, or for origins allowAnyOrigin lets in: OPTIONS stays 405', async () => {
    for (const options of [{}, { allowedOrigins: [APP], cors: false }, { allowAnyOrigin: true, logger: silentLogger }] satisfies Partial<McpHttpHandlerOptions>[]) {
      server = createServer();
      t = await startTarget(kind, server, options);
      const origin = options.allowAnyOrigin === true ? APP : `http://${t.host}`;
      const res = await preflight(t, origin, 'content-type');
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const init = await t.send('POST', '/mcp', { ...POST_HEADERS, origin }, INITIALIZE);
      expect(init.status).toBe(200);
      expect(init.headers.get('access-control-allow-origin')).toBeNull();
      expect(init.headers.get('vary')).toBeNull();
      await t.close();
      t = undefined;
      await server.close();
    }
    server = createServer();
  });

  it('cors options: credentials and extra headers', async () => {
    server = createServer();
    t = await startTarget(kind, server, { allowedOrigins: [APP], cors: { allowCredentials: true, allowHeaders: ['X-Api-Key'], exposeHeaders: ['X-Trace'], maxAgeSeconds: 5 } });
    const res = await preflight(t, APP, 'content-type,x-api-key');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type, x-api-key');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-max-age')).toBe('5');
    const init = await t.send('POST', '/mcp', { ...POST_HEADERS, origin: APP }, INITIALIZE);
    expect(init.headers.get('access-control-allow-credentials')).toBe('true');
    expect(init.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-Trace');
  });
});
