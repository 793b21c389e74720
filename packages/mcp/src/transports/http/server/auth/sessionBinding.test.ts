/**
 * A 2024-11-05 HTTP+SSE session is bound to the principal whose token opened it (`GET /sse`): another principal's
 * POST to `/messages?sessionId=…` — a request, or a bare response to the opener's server→client request — is
 * answered 404 like an unknown session (MCP 2025-11-25 basic/security_best_practices.mdx "Session Hijacking"), as a
 * Streamable HTTP session is. In process, through the Web handler, with a verifier of our own (two principals).
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthInfo } from '../../../../protocol/auth/authInfo.js';
import { McpServer } from '../../../../server/index.js';
import { createMcpHttpHandler, type McpHttpHandler, type TokenVerifier } from '../../index.js';

const RESOURCE = 'http://localhost/mcp';

/** `alice-token` and `bob-token` speak for two users of one client; anything else is refused. */
const verifier: TokenVerifier = {
  verify(token) {
    const subject = /^(alice|bob)-token$/.exec(token)?.[1];
    if (subject === undefined) return { refused: 'unknown token' };
    const info: AuthInfo = { token, clientId: 'client-1', scopes: [], audience: [RESOURCE], subject, issuer: 'https://as.example' };
    return info;
  },
};

let handler: McpHttpHandler | undefined;
const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];

afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.cancel().catch(() => undefined);
  await handler?.close();
  handler = undefined;
});

/** Opens a 2024-11-05 session as `token`'s principal: the POST path its `endpoint` event names. */
async function openSession(h: McpHttpHandler, token: string): Promise<string> {
  const response = await h.fetch(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }));
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  readers.push(reader);
  let text = '';
  const decoder = new TextDecoder();
  while (!/^data: (.*)$/m.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before the endpoint event');
    text += decoder.decode(value, { stream: true });
  }
  return (/^data: (.*)$/m.exec(text) as RegExpExecArray)[1] as string;
}

async function post(h: McpHttpHandler, path: string, token: string, message: unknown): Promise<{ status: number; body: string }> {
  const response = await h.fetch(new Request(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(message),
  }));
  return { status: response.status, body: await response.text() };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('2024-11-05 HTTP+SSE sessions bound to their opener', () => {
  it("another principal's request and bare response get 404 like an unknown session; the opener's are accepted", async () => {
    handler = createMcpHttpHandler({ server: new McpServer({ name: 's', version: '1' }, { logger: silentLogger }), auth: { verifier, authorizationServers: ['https://as.example'] } });
    const path = await openSession(handler, 'alice-token');
    expect(path).toMatch(/^\/messages\?sessionId=/);
    const unknown = await post(handler, '/messages?sessionId=no-such-session', 'bob-token', INITIALIZE);
    const bobRequest = await post(handler, path, 'bob-token', INITIALIZE);
    expect(bobRequest).toEqual(unknown);
    expect(bobRequest.status).toBe(404);
    expect(JSON.parse(bobRequest.body)).toMatchObject({ id: 1 });
    // A bare response (Bob answering a server→client request of Alice's session) is refused the same way.
    const bobResponse = await post(handler, path, 'bob-token', { jsonrpc: '2.0', id: 77, result: {} });
    expect(bobResponse.status).toBe(404);
    expect((await post(handler, path, 'alice-token', INITIALIZE)).status).toBe(202);
    expect((await post(handler, path, 'alice-token', { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  });
});
