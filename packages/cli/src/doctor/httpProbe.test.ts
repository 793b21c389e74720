import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpProbe, MAX_PROBE_BODY_BYTES } from './httpProbe.js';
import { nodeDoctorEnv } from './nodeEnv.js';

const env = nodeDoctorEnv();
let server: Server;
let base: string;
const seen: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ method: req.method ?? '', headers: req.headers, body });
  switch (req.url ?? '') {
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'abc' }).end('[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]');
      return;
    case '/sse':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: e1\ndata: \n\n');
      res.write('id: e2\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
      res.write('id: e3\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'); // then the stream stays open
      return;
    case '/hang':
      return; // never answers
    case '/big':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(MAX_PROBE_BODY_BYTES + 1000));
      return;
    default:
      res.writeHead(405, { allow: 'POST' }).end();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => route(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('httpProbe', () => {
  it('sends exactly the headers asked over the target\'s (null removes one), no default Accept or Content-Type, and spreads a JSON array body', async () => {
    seen.length = 0;
    const answer = await httpProbe({
      env,
      target: { url: `${base}/json`, headers: { Authorization: 'Bearer t', 'X-Drop': 'd' } },
      request: { method: 'POST', headers: { 'x-drop': null, 'Content-Type': 'text/plain' }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      timeoutMs: 2000,
    });
    expect(answer).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json', 'mcp-session-id': 'abc' }),
      text: '[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]',
      messages: [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', method: 'n' }],
      eventIds: [],
    });
    expect(seen[0]!.headers.authorization).toBe('Bearer t');
    expect(seen[0]!.headers['x-drop']).toBeUndefined();
    expect(seen[0]!.headers['content-type']).toBe('text/plain');
    expect(seen[0]!.headers.accept).toBeUndefined();
    expect(seen[0]!.body).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  });

  it('sends the Host header asked (the DNS-rebinding probe), which undici\'s fetch would replace', async () => {
    seen.length = 0;
    await httpProbe({ env, target: { url: `${base}/json` }, request: { method: 'POST', headers: { host: 'evil.example' }, body: '{}' }, timeoutMs: 2000 });
    expect(seen[0]!.headers.host).toBe('evil.example');
  });

  it('reads an SSE answer up to the first JSON-RPC response (the stream left open), with the event ids', async () => {
    const started = performance.now();
    const answer = await httpProbe({ env, target: { url: `${base}/sse` }, request: { method: 'POST', body: '{}' }, timeoutMs: 5000 });
    expect(performance.now() - started).toBeLessThan(4000);
    expect(answer.status).toBe(200);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress' }, { jsonrpc: '2.0', id: 1, result: {} }]);
    expect(answer.eventIds).toEqual(['e1', 'e2', 'e3']);
  });

  it('until-end reads an open SSE stream until the timeout, and returns what came with the real status', async () => {
    const answer = await httpProbe({ env, target: { url: `${base}/sse` }, request: { method: 'GET', readSse: 'until-end', timeoutMs: 300 }, timeoutMs: 5000 });
    expect(answer.status).toBe(200);
    expect(answer.messages).toHaveLength(2);
    expect(answer.error).toBeUndefined();
  });

  it('never throws: a server that never answers is status 0 after the timeout; a closed port is status 0 with the cause', async () => {
    const hang = await httpProbe({ env, target: { url: `${base}/hang` }, request: { method: 'POST', body: '{}' }, timeoutMs: 200 });
    expect(hang).toEqual({ status: 0, headers: {}, text: '', messages: [], eventIds: [], error: 'Request timeout: no answer within 200 ms' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await httpProbe({ env, target: { url: `http://127.0.0.1:${port}/mcp` }, request: { method: 'POST', body: '{}' }, timeoutMs: 2000 });
    expect(refused.status).toBe(0);
    expect(refused.error).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    const aborted = new AbortController();
    aborted.abort(new Error('The check is over'));
    expect((await httpProbe({ env, target: { url: `${base}/json` }, request: { method: 'POST' }, timeoutMs: 2000, signal: aborted.signal })).error).toBe('The check is over');
  });

  it('cuts a body at 1 MiB', async () => {
    const answer = await httpProbe({ env, target: { url: `${base}/big` }, request: { method: 'GET' }, timeoutMs: 5000 });
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBe(MAX_PROBE_BODY_BYTES);
    const other = await httpProbe({ env, target: { url: `${base}/other` }, request: { method: 'DELETE' }, timeoutMs: 2000 });
    expect([other.status, other.headers.allow, other.text, other.messages]).toEqual([405, 'POST', '', []]);
  });
});
