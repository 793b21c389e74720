/**
 * Field bugs of MCP clients over Streamable HTTP (docs/field-bugs.md): B34 (`Last-Event-ID` kept across a resumed
 * stream that closed empty), B38 (progress after the response on the same stream) and B45 (an HTTP 400 whose body
 * is a JSON-RPC error without a usable id). The server is a scripted `node:http` server on 127.0.0.1
 * (test/helpers/fakeHttpServer.ts) holding a session of a session-based revision; each test asserts the requests the
 * client made and what the caller got. The stdio cases are in test/field-bugs-client.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpStatusError, McpClient } from '@switchboard/mcp/client';
import { streamableHttp } from '@switchboard/mcp/client';
import {
  FakeHttpServer, isPost, legacySession, openSse, sendJson, type FakeHandler, type Message, type RecordedRequest,
} from './helpers/fakeHttpServer.js';
import { logLines, type LogLines } from './helpers/logLines.js';

const REVISION = '2025-11-25';

let fake: FakeHttpServer | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  try {
    await client?.close();
  } finally {
    client = undefined;
    await fake?.close();
    fake = undefined;
  }
});

/** Starts the fake with `other` behind the session script and connects a client pinned to a session-based revision. */
async function connect(other: FakeHandler): Promise<{ fake: FakeHttpServer; client: McpClient; log: LogLines }> {
  fake = await FakeHttpServer.start(legacySession({ other }));
  const log = logLines();
  client = await McpClient.connect({ connector: streamableHttp({ url: fake.url }), pin: REVISION, logger: log });
  return { fake, client, log };
}

const messageOf = (request: RecordedRequest): Message => request.json as Message;
const tokenOf = (request: RecordedRequest): unknown => ((messageOf(request).params as Message | undefined)?._meta as Message | undefined)?.progressToken;
const resumptions = (request: RecordedRequest): boolean => request.method === 'GET' && request.headers['last-event-id'] !== undefined;

describe('B34: resuming with Last-Event-ID', () => {
  it('B34: a stream resumed with Last-Event-ID that closes empty is resumed again with the same id; the call resolves once', async () => {
    let call: RecordedRequest | undefined;
    let resumed = 0;
    const { fake, client } = await connect((request, response) => {
      if (isPost(request, 'tools/call')) {
        call = request;
        // The first event sets a short reconnection delay (MCP 2025-11-25 basic/transports.mdx "Resumability and
        // Redelivery": the client waits `retry` ms), then the connection is cut with no response.
        openSse(response, [{ id: 'e1', retry: 20, data: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: tokenOf(request), progress: 1 } } }]);
        setTimeout(() => response.destroy(), 20);
        return;
      }
      if (resumptions(request)) {
        resumed += 1;
        if (resumed === 1) {
          openSse(response);
          response.end();
          return;
        }
        openSse(response, [{ id: 'e2', data: { jsonrpc: '2.0', id: messageOf(call!).id, result: { content: [{ type: 'text', text: 'done' }] } } }]);
        response.end();
        return;
      }
      response.writeHead(500).end();
    });
    const onprogress = vi.fn();
    // A client that resumes without the header gets 405 and the call hangs: fail it in 5 s rather than at 60 s.
    const result = await client.callTool({ name: 'slow' }, { onprogress, timeoutMs: 5000 });
    expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(onprogress).toHaveBeenCalledTimes(1);
    const gets = fake.filter(resumptions);
    expect(gets).toHaveLength(2);
    for (const get of gets) {
      expect(get.headers).toMatchObject({
        'last-event-id': 'e1',
        'mcp-session-id': 'S1',
        'mcp-protocol-version': REVISION,
      });
      expect(get.headers.accept).toContain('text/event-stream');
    }
    const posts = fake.filter((r) => isPost(r, 'tools/call'));
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers).toMatchObject({ 'mcp-session-id': 'S1', 'mcp-protocol-version': REVISION, accept: 'application/json, text/event-stream' });
  });
});

describe('B38 over HTTP: progress next to the response', () => {
  it('B38 over HTTP: progress after the response on the same SSE stream is dropped quietly; the call resolves once', async () => {
    const { fake, client, log } = await connect((request, response) => {
      if (isPost(request, 'tools/call')) {
        const id = messageOf(request).id;
        openSse(response, [
          { id: 'r1', data: { jsonrpc: '2.0', id, result: { content: [] } } },
          { id: 'r2', data: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: tokenOf(request), progress: 10, total: 10 } } },
        ]);
        response.end();
        return;
      }
      if (isPost(request, 'ping')) {
        sendJson(response, 200, { jsonrpc: '2.0', id: messageOf(request).id, result: {} });
        return;
      }
      response.writeHead(500).end();
    });
    const onprogress = vi.fn();
    expect(await client.callTool({ name: 'work' }, { onprogress })).toEqual({ content: [] });
    await expect(client.ping()).resolves.toBeUndefined();
    expect(onprogress).not.toHaveBeenCalled();
    expect(log.loud()).toEqual([]);
    expect(fake.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined)).toEqual([]);
  });
});

describe('B45: an HTTP 400 whose JSON-RPC error has no usable id', () => {
  const forms = [
    { form: '"id": null', body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request' } } },
    { form: 'no id', body: { jsonrpc: '2.0', error: { code: -32600, message: 'Bad Request' } } },
  ];

  it.each(forms)('B45 over HTTP, $form: the pending request fails with HttpStatusError (status 400 and the typed error); the session goes on', async ({ body }) => {
    const { fake, client } = await connect((request, response) => {
      if (isPost(request, 'tools/call')) {
        sendJson(response, 400, body);
        return;
      }
      if (isPost(request, 'ping')) {
        sendJson(response, 200, { jsonrpc: '2.0', id: messageOf(request).id, result: {} });
        return;
      }
      response.writeHead(500).end();
    });
    const error = await client.callTool({ name: 'echo', arguments: {} }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ code: 'http_status', status: 400, error: { code: -32600, message: 'Bad Request' } });
    await expect(client.ping()).resolves.toBeUndefined();
    const posts = fake.filter((r) => r.method === 'POST').map((r) => messageOf(r).method);
    expect(posts).toEqual(['initialize', 'notifications/initialized', 'tools/call', 'ping']);
    for (const later of fake.filter((r) => r.method === 'POST').slice(1)) expect(later.headers['mcp-session-id']).toBe('S1');
  });
});
