/**
 * The Streamable HTTP client transport against scripted `node:http` servers: the edge cases a real server rarely
 * shows on demand (a session that is gone, a stream cut after one event, error bodies of every shape).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError, ConnectionRefusedError, HttpStatusError, SessionExpiredError } from '../../../protocol/clientErrors.js';
import { McpError, UnsupportedProtocolVersionError } from '../../../protocol/errors.js';
import { capture, collect, event, fakeServer, json, sse, type FakeServer } from './clientFakeServer.test.js';
import { StreamableHttpClientTransport } from './streamableHttpClient.js';

let fake: FakeServer | undefined;
let transport: StreamableHttpClientTransport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await fake?.close();
  fake = undefined;
});

const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } } as const;
const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function open(url: string, extra: Partial<ConstructorParameters<typeof StreamableHttpClientTransport>[0]> = {}) {
  const logger = capture();
  transport = new StreamableHttpClientTransport({ url, logger, ...extra });
  return { transport, logger, inbox: collect(transport) };
}

/** A fake legacy server: `initialize` gets a session id, everything else goes to `rest`. */
function legacy(rest: Parameters<typeof fakeServer>[0]): Parameters<typeof fakeServer>[0] {
  let sessions = 0;
  return (req, res, raw) => {
    if (req.method === 'POST' && req.json?.method === 'initialize') {
      return json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: INIT_RESULT }, { 'mcp-session-id': `sess-${++sessions}` });
    }
    if (req.method === 'DELETE') {
      res.writeHead(200);
      res.end();
      return;
    }
    if (req.method === 'POST' && req.json?.id === undefined) {
      res.writeHead(202);
      res.end();
      return;
    }
    return rest(req, res, raw);
  };
}

async function initialize(t: StreamableHttpClientTransport): Promise<void> {
  await t.send(INIT);
  t.setProtocol({ era: 'legacy', revision: '2025-11-25' });
}

describe('Streamable HTTP client: requests and answers', () => {
  it('POSTs each message with the two Accept types, a JSON answer settles its request; after initialize every POST carries the session id and MCP-Protocol-Version (B22)', async () => {
    fake = await fakeServer(legacy((req, res) => json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: { tools: [] } })));
    const { transport: t, inbox } = open(fake.url);
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await inbox.next((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    const [init, list] = fake.of('POST');
    expect(init?.headers['content-type']).toBe('application/json');
    expect(init?.headers.accept).toBe('application/json, text/event-stream');
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers['mcp-protocol-version']).toBeUndefined();
    expect(list?.headers['mcp-session-id']).toBe('sess-1');
    expect(list?.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(list?.json).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  });

  it('an SSE answer: comments and the priming event are skipped, notifications come before the response', async () => {
    fake = await fakeServer(legacy((req, res) => {
      sse(res);
      res.write(': keep-alive\n\nid: p1\ndata: \n\n');
      res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } }, 'p2'));
      res.write(event({ jsonrpc: '2.0', id: 'e-1', method: 'elicitation/create', params: { message: 'x', requestedSchema: { type: 'object', properties: {} } } }, 'p3'));
      res.end(event({ jsonrpc: '2.0', id: req.json.id, result: { content: [] } }, 'p4'));
    }));
    const { transport: t, inbox } = open(fake.url);
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
    await inbox.next((m) => m.id === 2);
    expect(inbox.received.slice(1).map((m) => ('message' in m ? m.message : m))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } },
      { jsonrpc: '2.0', id: 'e-1', method: 'elicitation/create', params: { message: 'x', requestedSchema: { type: 'object', properties: {} } } },
      { jsonrpc: '2.0', id: 2, result: { content: [] } },
    ]);
  });

  it('an SSE event that is not JSON-RPC is dropped with a warning, the stream goes on (B15)', async () => {
    fake = await fakeServer(legacy((req, res) => {
      sse(res);
      res.write(event('this is not json'));
      res.end(event({ jsonrpc: '2.0', id: req.json.id, result: {} }));
    }));
    const { transport: t, inbox, logger } = open(fake.url);
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(await inbox.next((m) => m.id === 3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual(['Dropped an SSE event that is not JSON-RPC']);
  });

  it('ids are kept as they are: a response for "0" does not answer request 0 (B02)', async () => {
    fake = await fakeServer(legacy((req, res) => json(res, 200, { jsonrpc: '2.0', id: String(req.json.id), result: {} })));
    const { transport: t } = open(fake.url);
    await initialize(t);
    const error = (await t.send({ jsonrpc: '2.0', id: 0, method: 'ping' }).catch((e: unknown) => e)) as HttpStatusError;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.message).toBe('HTTP 200 for request "ping": the answer holds no response for it: body "{"jsonrpc":"2.0","id":"0","result":{}}"');
  });

  it('an answer of another content type is an HttpStatusError', async () => {
    fake = await fakeServer(legacy((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    }));
    const { transport: t } = open(fake.url);
    await initialize(t);
    const error = (await t.send({ jsonrpc: '2.0', id: 4, method: 'ping' }).catch((e: unknown) => e)) as HttpStatusError;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(200);
    expect(error.body).toBe('hello');
    expect(error.message).toBe('HTTP 200 for request "ping": expected application/json or text/event-stream, got "text/plain": body "hello"');
  });

  it('an SSE event longer than maxSseEventBytes ends the stream: the request fails', async () => {
    fake = await fakeServer(legacy((_req, res) => {
      sse(res);
      res.write(`data: ${'x'.repeat(5000)}`);
    }));
    const { transport: t } = open(fake.url, { maxSseEventBytes: 1024 });
    await initialize(t);
    const error = (await t.send({ jsonrpc: '2.0', id: 5, method: 'ping' }).catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.reason).toBe('an SSE event exceeded 1024 characters');
  });
});

describe('Streamable HTTP client: error bodies (B45)', () => {
  const cases = [
    ['a 400 with an HTML body', 400, '<html><body>Bad Request</body></html>', undefined],
    ['"id": null', 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request' } }, -32600],
    ['no id at all', 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no session' } }, -32000],
    ['an empty body', 503, '', undefined],
  ] as const;
  for (const [name, status, body, code] of cases) {
    it(`${name} → HttpStatusError with the status, the body and the typed error`, async () => {
      fake = await fakeServer((_req, res) => {
        if (typeof body !== 'string') return json(res, status, body);
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end(body);
      });
      const { transport: t, inbox } = open(fake.url);
      const error = (await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).catch((e: unknown) => e)) as HttpStatusError;
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error.status).toBe(status);
      expect(error.body).toBe(typeof body === 'string' ? body : JSON.stringify(body));
      expect(error.error?.code).toBe(code);
      if (code !== undefined) expect(error.error).toBeInstanceOf(McpError);
      expect(inbox.received).toEqual([]);
    });
  }

  it('an error response with the request id is delivered whatever the status (-32022 settles as a wire error)', async () => {
    const refusal = { jsonrpc: '2.0', id: 7, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2025-11-25'], requested: '2026-07-28' } } };
    fake = await fakeServer((_req, res) => json(res, 400, refusal));
    const { transport: t, inbox } = open(fake.url);
    await t.send({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: MODERN_META } });
    expect(inbox.received).toEqual([{ kind: 'response', message: refusal }]);
  });

  it('a notification refused with an id-less error → HttpStatusError carrying it', async () => {
    fake = await fakeServer((_req, res) => json(res, 400, { jsonrpc: '2.0', error: { code: -32022, message: 'Unsupported', data: { supported: ['2026-07-28'], requested: 'x' } } }));
    const { transport: t } = open(fake.url);
    const error = (await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' }).catch((e: unknown) => e)) as HttpStatusError;
    expect(error.error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect((error.error as UnsupportedProtocolVersionError).supported).toEqual(['2026-07-28']);
  });

  it('a connection reset under a POST: sent once more, except a tools/call (it may have side effects)', async () => {
    const reset = new Set<unknown>();
    fake = await fakeServer((req, res, raw) => {
      if (!reset.has(req.json?.id)) {
        reset.add(req.json?.id);
        raw.socket.destroy();
        return;
      }
      json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: {} });
    });
    const { transport: t, inbox } = open(fake.url);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await inbox.next((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(fake.of('POST').map((r) => r.json.id)).toEqual([1, 1]);
    const error = (await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'pay' } }).catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(fake.of('POST').map((r) => r.json.id)).toEqual([1, 1, 2]);
  });

  it('a POST to nowhere is a ConnectionRefusedError naming the URL, the socket error its cause', async () => {
    fake = await fakeServer(() => undefined);
    const url = fake.url;
    await fake.close();
    fake = undefined;
    const { transport: t } = open(url);
    const error = (await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).catch((e: unknown) => e)) as ConnectionRefusedError;
    expect(error).toBeInstanceOf(ConnectionRefusedError);
    expect(error).toMatchObject({ code: 'connection_refused', url: new URL(url).href });
    expect(((error.cause as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('Streamable HTTP client: sessions', () => {
  it('a 404 to a request carrying the session id: SessionExpiredError, the id is never sent again', async () => {
    let gone = false;
    fake = await fakeServer(legacy((req, res) => {
      if (gone && req.headers['mcp-session-id'] === 'sess-1') return json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      return json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: {} });
    }));
    const { transport: t } = open(fake.url);
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    gone = true;
    const error = (await t.send({ jsonrpc: '2.0', id: 2, method: 'ping' }).catch((e: unknown) => e)) as SessionExpiredError;
    expect(error).toBeInstanceOf(SessionExpiredError);
    expect(error.sessionId).toBe('sess-1');
    expect(t.sessionId).toBeUndefined();
    // Until a new initialize, every message fails at once, without going out with or without the dead id.
    const posts = fake.of('POST').length;
    await expect(t.send({ jsonrpc: '2.0', id: 3, method: 'ping' })).rejects.toThrow(SessionExpiredError);
    await expect(t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } })).rejects.toThrow(SessionExpiredError);
    expect(fake.of('POST').length).toBe(posts);
    await t.send({ ...INIT, id: 4 });
    await t.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(fake.of('POST').slice(posts).map((r) => [r.json.method, r.headers['mcp-session-id']])).toEqual([
      ['initialize', undefined],
      ['ping', 'sess-2'],
    ]);
  });

  it('the GET stream opens after notifications/initialized and delivers server messages; close sends DELETE', async () => {
    fake = await fakeServer(legacy((req, res) => {
      if (req.method === 'GET') {
        sse(res);
        res.write(event({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'g1'));
        return;
      }
      res.writeHead(204);
      res.end();
    }));
    const { transport: t, inbox } = open(fake.url);
    await initialize(t);
    expect(fake.of('GET')).toEqual([]);
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await inbox.next((m) => m.method === 'notifications/tools/list_changed')).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const [get] = fake.of('GET');
    expect(get?.headers.accept).toBe('text/event-stream');
    expect(get?.headers['mcp-session-id']).toBe('sess-1');
    expect(get?.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(get?.headers['last-event-id']).toBeUndefined();
    let closed = 0;
    t.onclose = () => closed++;
    await t.close();
    await t.close();
    expect(closed).toBe(1);
    expect(t.endFacts).toEqual({ reason: 'closed by the client' });
    expect(fake.of('DELETE').map((r) => r.headers['mcp-session-id'])).toEqual(['sess-1']);
    await expect(t.send({ jsonrpc: '2.0', id: 9, method: 'ping' })).rejects.toThrow(ConnectionClosedError);
  });

  it('the GET stream also opens when setProtocol comes after notifications/initialized; never at 2026-07-28', async () => {
    fake = await fakeServer(legacy((req, res) => {
      sse(res);
      res.write(': open\n\n');
    }));
    const { transport: t } = open(fake.url);
    await t.send(INIT);
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(fake.of('GET')).toEqual([]);
    t.setProtocol({ era: 'legacy', revision: '2025-11-25' });
    const [get] = await fake.waitFor('GET', 1);
    expect(get?.headers['mcp-session-id']).toBe('sess-1');
    t.setProtocol({ era: 'modern', revision: '2026-07-28' });
    expect(t.sessionId).toBeUndefined();
    await t.close();
    expect(fake.of('DELETE')).toEqual([]);
  });

  it('close() also ends a POST stream that stays open after its response', async () => {
    let socketClosed: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => (socketClosed = resolve));
    fake = await fakeServer(legacy((req, res, raw) => {
      sse(res);
      res.write(event({ jsonrpc: '2.0', id: req.json.id, result: {} }, 'x1'));
      raw.socket.on('close', socketClosed);
    }));
    const { transport: t } = open(fake.url);
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await t.close();
    await gone;
  });

  for (const status of [405, 404, 400]) {
  it(`${status} to the GET: no stream, no retry, no warning, the session lives on`, async () => {
    fake = await fakeServer(legacy((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(status, { allow: 'POST' });
        res.end();
        return;
      }
      json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: {} });
    }));
    const { transport: t, logger } = open(fake.url, { reconnect: { initialDelayMs: 10 } });
    await initialize(t);
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await fake.waitFor('GET', 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(fake.of('GET').length).toBe(1);
    expect(fake.of('POST').at(-1)?.headers['mcp-session-id']).toBe('sess-1');
    expect(logger.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });
  }
});

describe('Streamable HTTP client: SSE reconnection', () => {
  it('B34: cut after "id: e1", resumed stream closes empty, the next GET still sends Last-Event-ID: e1; the request resolves once', async () => {
    let gets = 0;
    fake = await fakeServer(legacy((req, res, raw) => {
      if (req.method === 'POST') {
        sse(res);
        res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } }, 'e1'));
        setTimeout(() => raw.socket.destroy(), 20);
        return;
      }
      gets++;
      sse(res);
      if (gets === 1) res.end();
      else res.end(`retry: 10\n${event({ jsonrpc: '2.0', id: 5, result: { content: [] } }, 'e2')}`);
    }));
    const { transport: t, inbox } = open(fake.url, { reconnect: { initialDelayMs: 10 } });
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'p' } } });
    expect(fake.of('GET').map((r) => r.headers['last-event-id'])).toEqual(['e1', 'e1']);
    expect(inbox.received.filter((m) => m.kind === 'response' && m.message.id === 5)).toEqual([{ kind: 'response', message: { jsonrpc: '2.0', id: 5, result: { content: [] } } }]);
  });

  it('waits the retry the stream asked for before reconnecting', async () => {
    let closedAt = 0;
    fake = await fakeServer(legacy((req, res) => {
      if (req.method === 'POST') {
        sse(res);
        res.write('id: s1\nretry: 150\ndata: \n\n');
        setTimeout(() => {
          closedAt = performance.now();
          res.end();
        }, 20);
        return;
      }
      sse(res);
      res.end(event({ jsonrpc: '2.0', id: 6, result: {} }, 's2'));
    }));
    const { transport: t } = open(fake.url);
    await initialize(t);
    await t.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'x' } });
    const [get] = fake.of('GET');
    expect(get?.headers['last-event-id']).toBe('s1');
    // No upper bound here (a loaded machine may be late); reconnecting early is the bug this catches.
    expect(performance.now() - closedAt).toBeGreaterThanOrEqual(140);
  });

  it('a stream that ends before the response without any event id: ConnectionClosedError, no GET', async () => {
    fake = await fakeServer(legacy((_req, res) => {
      sse(res);
      res.end(event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }));
    }));
    const { transport: t } = open(fake.url, { reconnect: { initialDelayMs: 10 } });
    await initialize(t);
    const error = (await t.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } }).catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toBe('Connection closed (the response stream ended): the stream carried no event id to resume from');
    expect(fake.of('GET')).toEqual([]);
  });

  it('gives up after maxAttempts reconnections that bring nothing', async () => {
    fake = await fakeServer(legacy((req, res) => {
      sse(res);
      res.end(req.method === 'POST' ? 'id: z1\ndata: \n\n' : '');
    }));
    const { transport: t } = open(fake.url, { reconnect: { initialDelayMs: 5, maxAttempts: 3 } });
    await initialize(t);
    const error = (await t.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'x' } }).catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error.reason).toBe('nothing new after 3 reconnection attempts');
    expect(fake.of('GET').map((r) => r.headers['last-event-id'])).toEqual(['z1', 'z1', 'z1']);
  });

  it('a modern request whose stream ends early fails at once (2026-07-28 removed resumption)', async () => {
    fake = await fakeServer((_req, res) => {
      sse(res);
      res.end('id: m1\ndata: \n\n');
    });
    const { transport: t } = open(fake.url, { reconnect: { initialDelayMs: 5 } });
    const error = (await t.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'x', _meta: MODERN_META } }).catch((e: unknown) => e)) as ConnectionClosedError;
    expect(error.reason).toBe('a 2026-07-28 response stream is not resumable');
    expect(fake.of('GET')).toEqual([]);
  });
});

describe('Streamable HTTP client: 2026-07-28', () => {
  it('the probe (a request claiming 2026-07-28 before setProtocol) carries the standard headers, no session id', async () => {
    fake = await fakeServer((req, res) => json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: { resultType: 'complete' } }));
    const { transport: t } = open(fake.url);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN_META } });
    const [probe] = fake.of('POST');
    expect(probe?.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(probe?.headers['mcp-method']).toBe('server/discover');
    expect(probe?.headers['mcp-name']).toBeUndefined();
  });

  it('Mcp-Name and Mcp-Param-* (encoded, omitted for null or absent values) after setProtocol', async () => {
    fake = await fakeServer((req, res) => json(res, 200, { jsonrpc: '2.0', id: req.json.id, result: { resultType: 'complete', content: [] } }));
    const { transport: t } = open(fake.url);
    t.setProtocol({ era: 'modern', revision: '2026-07-28' });
    t.setToolParamHeaders('sql', [
      { header: 'Region', field: 'mcp-param-region', path: ['region'], type: 'string' },
      { header: 'Limit', field: 'mcp-param-limit', path: ['opts', 'limit'], type: 'integer' },
      { header: 'Dry', field: 'mcp-param-dry', path: ['dry'], type: 'boolean' },
      { header: 'Note', field: 'mcp-param-note', path: ['note'], type: 'string' },
      { header: 'Empty', field: 'mcp-param-empty', path: ['empty'], type: 'string' },
      { header: 'Pad', field: 'mcp-param-pad', path: ['pad'], type: 'string' },
    ]);
    const params = { name: 'sql', arguments: { region: 'Zürich', opts: { limit: 42 }, dry: false, note: null, empty: '', pad: ' x' }, _meta: MODERN_META };
    await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params });
    await t.send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///a b', _meta: MODERN_META } });
    const [call, read] = fake.of('POST');
    expect(call?.headers['mcp-method']).toBe('tools/call');
    expect(call?.headers['mcp-name']).toBe('sql');
    expect(call?.headers['mcp-param-region']).toBe('=?base64?WsO8cmljaA==?=');
    expect(call?.headers['mcp-param-limit']).toBe('42');
    expect(call?.headers['mcp-param-dry']).toBe('false');
    expect(call?.headers['mcp-param-note']).toBeUndefined();
    expect(call?.headers['mcp-param-empty']).toBe('');
    expect(call?.headers['mcp-param-pad']).toBe('=?base64?IHg=?=');
    expect(call?.headers['mcp-session-id']).toBeUndefined();
    expect(read?.headers['mcp-name']).toBe('file:///a b');
    t.setToolParamHeaders('sql', undefined);
    await t.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params });
    expect(fake.of('POST')[2]?.headers['mcp-param-region']).toBeUndefined();
  });

  it('abandonRequest closes the request stream and returns true; the send settles quietly', async () => {
    let aborted: () => void = () => undefined;
    const closedByClient = new Promise<void>((resolve) => (aborted = resolve));
    fake = await fakeServer((_req, res, raw) => {
      sse(res);
      res.write(': open\n\n');
      raw.socket.on('close', aborted);
    });
    const { transport: t } = open(fake.url);
    t.setProtocol({ era: 'modern', revision: '2026-07-28' });
    const sent = t.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', _meta: MODERN_META } });
    await fake.waitFor('POST', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(t.abandonRequest(5)).toBe(true);
    await closedByClient;
    await expect(sent).resolves.toBeUndefined();
  });

  it('on a session abandonRequest returns false (the client sends notifications/cancelled)', async () => {
    fake = await fakeServer(legacy((_req, res) => {
      sse(res);
      res.write('id: a1\ndata: \n\n');
    }));
    const { transport: t } = open(fake.url);
    await initialize(t);
    const sent = t.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'slow' } });
    await fake.waitFor('POST', 2);
    expect(t.abandonRequest(6)).toBe(false);
    await expect(sent).resolves.toBeUndefined();
  });
});
