/**
 * The dual-era stdio process (MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility"): a real child process
 * that began with `initialize` keeps its session for legacy messages and serves 2026-07-28 requests (and
 * `server/discover`) statelessly from their own `_meta`, interleaved on the one pipe; listen streams over stdio
 * (MCP 2026-07-28 basic/transports/stdio.mdx): acknowledged first, tagged with their id, ended by the client's
 * `notifications/cancelled` with no response. Whole wire messages, read line by line from stdout.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { endStdin, stopByPid } from './helpers/process.js';
import { StdioLines } from './helpers/stdioLines.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/dual-era-server.mjs', import.meta.url));
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'dual-era-fixture', version: '0.0.1' } };
const SUB = 'io.modelcontextprotocol/subscriptionId';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

type Message = Record<string, unknown>;

/** A 2026-07-28 request, its `_meta` over the required fields. */
const modern = (id: number | string, method: string, params: Message = {}, meta: Message = {}): Message => ({
  jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...META, ...meta } },
});
const legacy = (id: number | string, method: string, params?: Message): Message => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** The dual-era fixture as a child process, with what the tests read of it. */
class StdioClient extends StdioLines {
  constructor() {
    super(FIXTURE);
  }

  /** The notifications received so far with `method`. */
  notifications(method: string): Message[] {
    return this.lines.filter((m) => m.method === method && !('id' in m));
  }

  async initialize(capabilities: Message = {}): Promise<Message> {
    const reply = await this.ask(legacy('init', 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'dual', version: '0' } }));
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }
}

/** Lets the child process answer what it already has (a round trip through it). */
async function roundTrip(client: StdioClient, id: string): Promise<void> {
  await client.ask(legacy(id, 'ping'));
}

let client: StdioClient | undefined;
afterEach(async () => {
  if (client === undefined) return;
  try {
    await endStdin(client.proc);
  } finally {
    stopByPid(client.proc);
    client = undefined;
  }
});

describe('one stdio process, both eras', () => {
  it('a process that began with initialize keeps its session and serves 2026-07-28 requests statelessly, interleaved', async () => {
    client = new StdioClient();
    expect(await client.initialize({ elicitation: {} })).toMatchObject({ id: 'init', result: { protocolVersion: '2025-11-25', serverInfo: { name: 'dual-era-fixture' } } });
    client.send(
      legacy(1, 'tools/call', { name: 'echo', arguments: { text: 'legacy' } }),
      modern(2, 'server/discover'),
      legacy(3, 'ping'),
      modern(4, 'tools/call', { name: 'echo', arguments: { text: 'modern' } }),
      modern(5, 'ping'),
      legacy(6, 'logging/setLevel', { level: 'error' }),
      modern(7, 'resources/read', { uri: 'test://a' }),
      legacy(8, 'resources/read', { uri: 'test://a' }),
      modern(9, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
    );
    const answers = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => client!.answer(id)));
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'legacy' }] } },
      {
        jsonrpc: '2.0', id: 2,
        result: {
          supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
          capabilities: { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
          resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO,
        },
      },
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'modern' }], resultType: 'complete', _meta: SERVER_INFO } },
      { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Method not found: "ping" (not a method of 2026-07-28)' } },
      { jsonrpc: '2.0', id: 6, result: {} },
      { jsonrpc: '2.0', id: 7, result: { contents: [{ uri: 'test://a', text: 'a' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO } },
      { jsonrpc: '2.0', id: 8, result: { contents: [{ uri: 'test://a', text: 'a' }] } },
      { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'Method not found: "initialize" (not a method of 2026-07-28)' } },
    ]);
    // The session is intact: a second (legacy) initialize is still refused, B30.
    expect(await client.ask(legacy(10, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} }))).toEqual({
      jsonrpc: '2.0', id: 10, error: { code: -32600, message: 'Invalid Request: the session is already initialized' },
    });
  });

  it('the same handler asks the session live and answers the modern request input_required, with no request on the pipe', async () => {
    client = new StdioClient();
    await client.initialize({ elicitation: {} });
    client.send(legacy(1, 'tools/call', { name: 'greet' }));
    const asked = await client.waitFor((m) => m.method === 'elicitation/create' && 'id' in m, 'elicitation/create request');
    expect(asked).toEqual({ jsonrpc: '2.0', id: expect.anything() as unknown, method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } });
    // While the session's request waits for its answer, a modern request with the same tool is served.
    const round = await client.ask(modern(2, 'tools/call', { name: 'greet' }, { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }));
    expect(round).toEqual({
      jsonrpc: '2.0', id: 2,
      result: {
        resultType: 'input_required',
        inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } },
        requestState: expect.any(String) as unknown,
        _meta: SERVER_INFO,
      },
    });
    client.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Session' } } });
    expect(await client.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Hello Session' }] } });
    const requestState = (round.result as { requestState: string }).requestState;
    expect(await client.ask(modern(3, 'tools/call', { name: 'greet', inputResponses: { 'elicitation-0': { action: 'accept', content: { name: 'Modern' } } }, requestState }, { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }))).toEqual({
      jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'Hello Modern' }], resultType: 'complete', _meta: SERVER_INFO },
    });
    // Exactly one server → client request went over the pipe: the session's.
    expect(client.lines.filter((m) => 'method' in m && 'id' in m)).toHaveLength(1);
  });

  it('a modern request gets log messages only at or above its logLevel and progress only with its token; a session its own level', async () => {
    client = new StdioClient();
    await client.initialize();
    await client.ask(modern(1, 'tools/call', { name: 'work' }));
    await client.ask(modern(2, 'tools/call', { name: 'work' }, { 'io.modelcontextprotocol/logLevel': 'warning', progressToken: 'p2' }));
    await client.ask(legacy(3, 'tools/call', { name: 'work', _meta: { progressToken: 'p3' } }));
    expect(client.lines.filter((m) => !('id' in m))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p2', progress: 1, total: 1 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'careful' } },
      // The session set no level: it hears everything.
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p3', progress: 1, total: 1 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'fine detail' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'careful' } },
    ]);
  });
});

describe('listen streams over stdio', () => {
  it('acknowledged first, tagged with the listen id beside the session\'s own notifications; the client\'s notifications/cancelled ends it with no response', async () => {
    client = new StdioClient();
    await client.initialize();
    client.send(modern('L1', 'subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] } }, { 'io.modelcontextprotocol/logLevel': 'debug', progressToken: 'lp' }));
    expect(await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 'acknowledgement')).toEqual({
      jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUB]: 'L1' }, notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] } },
    });
    expect(await client.ask(modern(1, 'tools/call', { name: 'add_tool' }))).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'added_1' }] } });
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed' && (m.params as Message | undefined)?._meta !== undefined, 'tagged list_changed');
    await client.ask(modern(2, 'tools/call', { name: 'touch' }));
    await client.waitFor((m) => m.method === 'notifications/resources/updated', 'resources/updated');
    await roundTrip(client, 'rt1');
    // The listen stream's notifications carry its id; the session (told of tools with listChanged) gets its own,
    // untagged; the session subscribed to nothing, so only the stream hears of test://a.
    expect(client.notifications('notifications/tools/list_changed')).toEqual(expect.arrayContaining([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'L1' } } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]));
    expect(client.notifications('notifications/tools/list_changed')).toHaveLength(2);
    expect(client.notifications('notifications/resources/updated')).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://a', _meta: { [SUB]: 'L1' } } },
    ]);
    // Nothing else: no log or progress on the stream, whatever its request asked.
    expect(client.lines.filter((m) => !('id' in m)).map((m) => m.method).sort()).toEqual([
      'notifications/resources/updated', 'notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'notifications/tools/list_changed',
    ]);
    // The acknowledgement came first of everything tagged with the stream's id.
    expect(client.lines.find((m) => (m.params as { _meta?: Message } | undefined)?._meta?.[SUB] === 'L1')?.method).toBe('notifications/subscriptions/acknowledged');

    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L1', reason: 'done' } });
    await roundTrip(client, 'rt2');
    await client.ask(modern(3, 'tools/call', { name: 'add_tool' }));
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed' && client!.notifications('notifications/tools/list_changed').length === 3, 'the session\'s second list_changed');
    await roundTrip(client, 'rt3');
    // The stream ended: no more tagged notifications, and no response to the listen request, ever.
    expect(client.notifications('notifications/tools/list_changed').filter((m) => (m.params as Message | undefined)?._meta !== undefined)).toHaveLength(1);
    expect(client.lines.filter((m) => m.id === 'L1')).toEqual([]);
  });

  // Core bug (reported to the lead): a notifications/cancelled whose _meta carries the protocol version claim
  // is served as a modern message with no connection, so the session-era handler that cancels requests ignores
  // it and the listen stream stays open. The 2026-07-28 schema gives notifications no version key, but a client
  // may send one (the inbound step accepts such a notification as modern).
  it('a notifications/cancelled carrying the version claim ends the listen stream too', async () => {
    client = new StdioClient();
    client.send(modern('L2', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 'acknowledgement');
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L2', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
    await client.ask(modern(1, 'tools/call', { name: 'add_tool' }));
    await client.ask(modern(2, 'tools/list'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.notifications('notifications/tools/list_changed')).toEqual([]);
  });

  it('a modern-only process: the stream needs no initialize, and stdin EOF with a stream open still exits 0', async () => {
    client = new StdioClient();
    client.send(modern('L3', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 'acknowledgement');
    await client.ask(modern(1, 'tools/call', { name: 'add_tool' }));
    expect(await client.waitFor((m) => m.method === 'notifications/tools/list_changed', 'list_changed')).toEqual({
      jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'L3' } },
    });
    // No session was opened: no untagged list_changed.
    await roundTrip(client, 'rt');
    expect(client.notifications('notifications/tools/list_changed')).toHaveLength(1);
    const proc = client.proc;
    client = undefined;
    try {
      expect(await endStdin(proc, 8_000)).toBe(0);
    } finally {
      stopByPid(proc);
    }
  });
});
