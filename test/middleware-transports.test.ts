/**
 * Middleware over real transports (`McpServer.use`): one chain sees both eras on one endpoint, over Streamable
 * HTTP (`serveHttp` on 127.0.0.1: a session's POSTs and sessionless 2026-07-28 POSTs, with the caller key the HTTP
 * transport computes) and over stdio (a child process serving a session and 2026-07-28 requests on one pipe). A
 * rate-limit refusal over HTTP is in-band: HTTP 200 with the JSON-RPC error 429. Runs the built package.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer, rateLimitMiddleware, type MiddlewareCall } from '@switchboard/mcp/server';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { endStdin, stopByPid } from './helpers/process.js';
import { StdioLines, type Message } from './helpers/stdioLines.js';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'modern-host', version: '1' } };
const ECHO_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

describe('middleware over Streamable HTTP (serveHttp)', () => {
  let served: ServeHttpHandle | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  async function post(body: Message, headers: Record<string, string>): Promise<{ status: number; headers: Headers; json: Message | undefined }> {
    const res = await fetch(served!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text === '' ? undefined : (JSON.parse(text) as Message) };
  }

  it('one chain sees a session\'s requests (legacy) and 2026-07-28 requests on the same endpoint, with the caller key', async () => {
    const server = new McpServer({ name: 'http-middleware', version: '1' });
    server.tool('echo', { inputSchema: ECHO_SCHEMA }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    const seen: string[] = [];
    const record = (call: MiddlewareCall): void => {
      seen.push(`${call.era} ${call.revision} ${call.method} ${call.name ?? '-'} ${call.caller} ${call.clientInfo?.name}`);
    };
    server.use((call, next) => {
      record(call);
      return next();
    });
    served = await serveHttp({ server, port: 0, responseMode: 'json' });

    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'legacy-host', version: '1' } } }, {});
    const session = init.headers.get('mcp-session-id')!;
    const onSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, onSession)).status).toBe(202);
    const legacy = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'old' } } }, onSession);
    expect(legacy.json).toMatchObject({ id: 2, result: { content: [{ text: 'old' }] } });
    const modern = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'new' }, _meta: META } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    expect(modern.json).toMatchObject({ id: 3, result: { resultType: 'complete', content: [{ text: 'new' }] } });

    expect(seen).toEqual([
      'legacy undefined initialize - address:127.0.0.1 undefined',
      'legacy 2025-06-18 notifications/initialized - address:127.0.0.1 legacy-host',
      'legacy 2025-06-18 tools/call echo address:127.0.0.1 legacy-host',
      `modern ${MODERN} tools/call echo address:127.0.0.1 modern-host`,
    ]);
  });

  it('a rate-limited request is answered in-band: HTTP 200 with the JSON-RPC error 429 and data.retryAfterMs', async () => {
    const server = new McpServer({ name: 'http-limited', version: '1' });
    server.tool('echo', { inputSchema: ECHO_SCHEMA }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.use({ methods: ['tools/call'] }, rateLimitMiddleware({ requestsPerSecond: 0.001, burst: 1 }));
    served = await serveHttp({ server, port: 0, responseMode: 'json' });
    const call = (id: number) =>
      post(
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: META } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
      );
    expect((await call(1)).json).toMatchObject({ result: { content: [{ text: 'x' }] } });
    const refused = await call(2);
    expect(refused.status).toBe(200);
    expect(refused.json).toEqual({ jsonrpc: '2.0', id: 2, error: { code: 429, message: expect.stringMatching(/^Rate limit exceeded: retry in \d+ ms$/), data: { retryAfterMs: expect.any(Number) } } });
  });
});

describe('middleware over stdio (a child process)', () => {
  let client: StdioLines | undefined;
  afterEach(async () => {
    if (client !== undefined) await endStdin(client.proc).catch(() => stopByPid(client?.proc));
    client = undefined;
  });

  it('one chain sees the session and the 2026-07-28 requests interleaved on one pipe', async () => {
    client = new StdioLines(fileURLToPath(new URL('./fixtures/middleware-server.mjs', import.meta.url)));
    await client.ask({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy-host', version: '1' } } });
    client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await client.ask({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'old' } } })).toMatchObject({ result: { content: [{ text: 'old' }] } });
    expect(await client.ask({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'new' }, _meta: META } })).toMatchObject({
      result: { resultType: 'complete', content: [{ text: 'new' }] },
    });
    const seen = await client.ask({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'seen', arguments: {} } });
    const text = (seen as { result: { content: { text: string }[] } }).result.content[0]!.text;
    expect(JSON.parse(text)).toEqual([
      'legacy undefined initialize',
      'legacy 2025-11-25 notifications/initialized',
      'legacy 2025-11-25 tools/call',
      `modern ${MODERN} tools/call`,
      'legacy 2025-11-25 tools/call',
    ]);
  });
});
