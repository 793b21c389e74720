/** The 2024-11-05 HTTP+SSE client transport against scripted `node:http` servers. */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError, HttpStatusError, type McpClientError } from '../../../protocol/clientErrors.js';
import { capture, collect, fakeServer, json, sse, type FakeServer } from './clientFakeServer.test.js';
import { HttpSseClientTransport } from './httpSseClient.js';

let fake: FakeServer | undefined;
let transport: HttpSseClientTransport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await fake?.close();
  fake = undefined;
});

function open(url: string, extra: { endpointTimeoutMs?: number } = {}) {
  const logger = capture();
  transport = new HttpSseClientTransport({ url, logger, ...extra });
  return { t: transport, logger, inbox: collect(transport) };
}

/** A 2024-11-05 server: `GET /sse` names `endpoint`; POSTs are answered on the stream by `answer`. */
function sseServer(endpoint: string, answer: (body: any) => unknown = (body) => ({ jsonrpc: '2.0', id: body.id, result: {} })) {
  let stream: ServerResponse | undefined;
  return async (): Promise<FakeServer> =>
    fakeServer((req, res) => {
      if (req.method === 'GET') {
        sse(res);
        res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
        stream = res;
        return;
      }
      res.writeHead(202);
      res.end('Accepted');
      if (req.json?.id !== undefined) stream?.write(`event: message\ndata: ${JSON.stringify(answer(req.json))}\n\n`);
    }, '/sse');
}

describe('HTTP+SSE client transport', () => {
  it('resolves a relative endpoint against the stream URL and POSTs there; answers come as message events', async () => {
    fake = await sseServer('/messages?sessionId=abc')();
    const { t, inbox } = open(fake.url);
    await t.start();
    expect(t.endpoint?.href).toBe(`${fake.origin}/messages?sessionId=abc`);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await inbox.next((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const [get, post] = fake.requests;
    expect(get?.headers.accept).toBe('text/event-stream');
    expect([post?.method, post?.url, post?.headers['content-type']]).toEqual(['POST', '/messages?sessionId=abc', 'application/json']);
  });

  it('refuses to carry a 2026-07-28 message (the probe then means legacy), before any POST', async () => {
    fake = await sseServer('/messages')();
    const { t } = open(fake.url);
    await t.start();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const error = (await t.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }).catch((e: unknown) => e)) as McpClientError;
    expect([error.code, error.message]).toEqual(['not_supported', 'Not supported: the 2024-11-05 HTTP+SSE transport carries session-based revisions only, not "2026-07-28"']);
    expect(fake.of('POST')).toEqual([]);
  });

  it('refuses an endpoint of another origin', async () => {
    fake = await sseServer('http://198.51.100.7/messages')();
    const { t } = open(fake.url);
    const error = (await t.start().catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.reason).toBe('the endpoint event names another origin: "http://198.51.100.7"');
    expect(fake.of('POST')).toEqual([]);
  });

  it('a GET refused with 404 is an HttpStatusError', async () => {
    fake = await fakeServer((_req, res) => json(res, 404, { error: 'not here' }), '/sse');
    const { t } = open(fake.url);
    const error = (await t.start().catch((e: unknown) => e)) as HttpStatusError;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(404);
    expect(t.endFacts?.reason).toBe('HTTP 404 for the HTTP+SSE stream: body "{"error":"not here"}"');
  });

  it('refuses an endpointTimeoutMs no timer holds (it would fire at once)', () => {
    expect(() => open('http://127.0.0.1:9/sse', { endpointTimeoutMs: Infinity })).toThrow(
      new RangeError('Invalid option endpointTimeoutMs: expected a number of milliseconds above 0, at most 2147483647, got Infinity'),
    );
  });

  it('no endpoint event within endpointTimeoutMs', async () => {
    fake = await fakeServer((_req, res) => sse(res), '/sse');
    const { t } = open(fake.url, { endpointTimeoutMs: 50 });
    const error = (await t.start().catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error.reason).toBe('no endpoint event within 50 ms');
  });

  it('the stream ending closes the transport with its reason; a later send fails', async () => {
    let stream: ServerResponse | undefined;
    fake = await fakeServer((_req, res) => {
      sse(res);
      res.write('event: endpoint\ndata: /messages\n\n');
      stream = res;
    }, '/sse');
    const { t, logger, inbox } = open(fake.url);
    await t.start();
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    stream?.write('event: message\ndata: {oops\n\n');
    stream?.end('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}\n\n');
    await closed;
    expect(t.endFacts).toEqual({ reason: 'the SSE stream ended' });
    expect(inbox.received).toEqual([{ kind: 'notification', message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'bye' } } }]);
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual(['Dropped an SSE event that is not JSON-RPC']);
    await expect(t.send({ jsonrpc: '2.0', id: 2, method: 'ping' })).rejects.toThrow(ConnectionClosedError);
  });

  it('a POST refused with an id-less JSON-RPC error is an HttpStatusError carrying it', async () => {
    fake = await fakeServer((req, res) => {
      if (req.method === 'GET') {
        sse(res);
        res.write('event: endpoint\ndata: /messages\n\n');
        return;
      }
      json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No session' } });
    }, '/sse');
    const { t } = open(fake.url);
    await t.start();
    const error = (await t.send({ jsonrpc: '2.0', id: 3, method: 'ping' }).catch((e: unknown) => e)) as HttpStatusError;
    expect([error.status, error.error?.code, error.message]).toEqual([400, -32000, 'HTTP 400 for request "ping": error -32000: "No session"']);
  });
});
