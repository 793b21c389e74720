/**
 * Field bugs of MCP clients, replayed against `McpClient` over stdio (docs/field-bugs.md): B02 (ids never coerced),
 * B15 (a banner on stdout), B17 (chunk boundaries), B38 (progress next to the response), B41 (`structuredContent`
 * and `outputSchema`), B44 (cursors), B45 (error responses without a usable id). The server is a scripted child
 * process (test/helpers/fakeStdioServer.ts): each test asserts what the client wrote to its stdin and what the
 * caller got. The HTTP cases are in test/field-bugs-client-http.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  InvalidResultError, McpClient, PaginationLimitError, RequestTimeoutError, type McpClientOptions,
} from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { FakeStdioServer, type Message } from './helpers/fakeStdioServer.js';
import { logLines, type LogLines } from './helpers/logLines.js';

const REVISION = '2025-11-25';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let fake: FakeStdioServer | undefined;
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

interface Connected { readonly fake: FakeStdioServer; readonly client: McpClient; readonly log: LogLines; readonly initialize: Message }

/** Spawns the fake through the client (pinned to a session-based revision, so no probe), then runs the handshake. */
async function connect(options: Partial<McpClientOptions> = {}): Promise<Connected> {
  fake = await FakeStdioServer.start();
  const log = logLines();
  const connecting = McpClient.connect({
    connector: spawnStdio({ command: fake.command, args: fake.args }),
    pin: REVISION,
    logger: log,
    ...options,
  });
  const [initialize, connected] = await Promise.all([fake.handshake(), connecting]);
  client = connected;
  return { fake, client: connected, log, initialize };
}

/** `_meta.progressToken` of a request as received. */
const tokenOf = (request: Message): unknown => ((request.params as Message | undefined)?._meta as Message | undefined)?.progressToken;
const line = (message: Message): string => `${JSON.stringify(message)}\n`;
/** A request's params as the client sends them in a session: the caller's, plus the progress token in `_meta`. */
const withToken = (params: Message = {}): Message => ({ ...params, _meta: { progressToken: expect.anything() as unknown } });

describe('B02: response ids are never coerced', () => {
  it('B02: a response id "0" does not settle request 0; the answer with id 0 does', async () => {
    fake = await FakeStdioServer.start();
    const log = logLines();
    const connecting = McpClient.connect({ connector: spawnStdio({ command: fake.command, args: fake.args }), pin: REVISION, logger: log });
    const initialize = await fake.request('initialize');
    expect(initialize).toEqual({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'switchboard-client', version: expect.any(String) as unknown } },
    });
    const result = (name: string): Message => ({ protocolVersion: REVISION, capabilities: {}, serverInfo: { name, version: '0' } });
    await fake.write([line({ jsonrpc: '2.0', id: '0', result: result('impostor') }), line({ jsonrpc: '2.0', id: 0, result: result('fake-stdio') })]);
    client = await connecting;
    expect(client.serverInfo).toEqual({ name: 'fake-stdio', version: '0' });
    await fake.notification('notifications/initialized');
    expect(log.loud().filter((l) => l.fields?.id === '0')).toHaveLength(1);
  });

  it('B02: a ping answered only with its id as a string times out; notifications/cancelled names the number', async () => {
    const { fake, client, log } = await connect();
    const pinging = client.ping({ timeoutMs: 300 });
    const ping = await fake.request('ping');
    expect(ping).toEqual({ jsonrpc: '2.0', id: expect.any(Number) as unknown, method: 'ping', params: withToken() });
    await fake.send({ jsonrpc: '2.0', id: String(ping.id), result: {} });
    const error = await pinging.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: 'request_timeout', method: 'ping', timeoutMs: 300 });
    expect(await fake.notification('notifications/cancelled')).toEqual({
      jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: ping.id, reason: expect.any(String) as unknown },
    });
    expect(log.loud().filter((l) => l.fields?.id === String(ping.id))).toHaveLength(1);
    // The answer with the right id, after the timeout: dropped quietly, and the client lives on.
    const loudBefore = log.loud().length;
    await fake.answer(ping, {});
    const next = client.ping();
    await fake.answer(await fake.request('ping'), {});
    await next;
    expect(log.loud()).toHaveLength(loudBefore);
  });
});

describe('B15: text on stdout that is not a message', () => {
  it('B15: a banner and a blank line on stdout are skipped with a warning; initialize still resolves', async () => {
    fake = await FakeStdioServer.start();
    const log = logLines();
    const connecting = McpClient.connect({ connector: spawnStdio({ command: fake.command, args: fake.args }), pin: REVISION, logger: log });
    await fake.connected();
    await fake.write(['Server ready on stdio\n']);
    const initialize = await fake.request('initialize');
    await fake.write([`\n${line({ jsonrpc: '2.0', id: initialize.id, result: { protocolVersion: REVISION, capabilities: {}, serverInfo: { name: 's', version: '0' } } })}`]);
    client = await connecting;
    expect(client.serverInfo).toEqual({ name: 's', version: '0' });
    expect(client.protocolVersion).toBe(REVISION);
    await fake.notification('notifications/initialized');
    expect(log.mentioning('Server ready on stdio').filter((l) => l.level === 'warn')).not.toHaveLength(0);
    const pinging = client.ping();
    await fake.answer(await fake.request('ping'), {});
    await expect(pinging).resolves.toBeUndefined();
    expect(fake.received.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized', 'ping']);
  });
});

describe('B17: chunk boundaries that do not match message boundaries', () => {
  it('B17: a notification and half a response in one write, the rest in the next: the notification, then the response', async () => {
    const order: string[] = [];
    const { fake, client } = await connect({ notifications: { message: (params) => order.push(`message ${JSON.stringify(params)}`) } });
    const pinging = client.ping().then(() => order.push('response'));
    const ping = await fake.request('ping');
    const notification = line({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    await fake.write([`${notification}{"jsonrpc":"2.0","id":${JSON.stringify(ping.id)},"res`, 'ult":{}}\n']);
    await pinging;
    expect(order).toEqual(['message {"level":"info","data":"x"}', 'response']);
  });

  it('B17: a multi-byte UTF-8 character split across two writes is decoded once the line is complete', async () => {
    const { fake, client } = await connect();
    const calling = client.callTool({ name: 'echo', arguments: { text: 'café' } });
    const call = await fake.request('tools/call');
    expect(call.params).toEqual(withToken({ name: 'echo', arguments: { text: 'café' } }));
    const bytes = Buffer.from(line({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'café' }] } }));
    const cut = bytes.indexOf(0xc3) + 1; // between C3 and A9, the two bytes of "é"
    await fake.write([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(await calling).toEqual({ content: [{ type: 'text', text: 'café' }] });
  });
});

describe('B38: a progress notification next to the final response', () => {
  it('B38: progress right after the response, in the same write, is dropped quietly: the call resolves once, no warning, no disconnect', async () => {
    const { fake, client, log } = await connect();
    const onprogress = vi.fn();
    const calling = client.callTool({ name: 'work' }, { onprogress });
    const call = await fake.request('tools/call');
    const token = tokenOf(call);
    expect(token).toBeDefined();
    await fake.send(
      { jsonrpc: '2.0', id: call.id, result: { content: [] } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 10, total: 10 } },
    );
    expect(await calling).toEqual({ content: [] });
    const pinging = client.ping();
    await fake.answer(await fake.request('ping'), {});
    await pinging;
    expect(onprogress).not.toHaveBeenCalled();
    expect(log.loud()).toEqual([]);
  });

  it('B38: progress for a token never issued ("nope") is discarded; the call takes its own progress and resolves', async () => {
    const { fake, client } = await connect();
    const onprogress = vi.fn();
    const calling = client.callTool({ name: 'work' }, { onprogress });
    const call = await fake.request('tools/call');
    await fake.send(
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'nope', progress: 1 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: tokenOf(call), progress: 5, total: 10 } },
      { jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'done' }] } },
    );
    expect(await calling).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(onprogress).toHaveBeenCalledTimes(1);
    expect(onprogress).toHaveBeenCalledWith(expect.objectContaining({ progress: 5, total: 10 }));
  });
});

describe('B41: structuredContent and outputSchema', () => {
  const outputSchema = { type: 'object', properties: { things: { type: 'array', items: { type: 'string' } } }, required: ['things'] };

  /** Connects, has the client list `get_things` (so it knows the schema), and returns the caller of one tools/call. */
  async function listed(): Promise<{ fake: FakeStdioServer; call: (answer: Message) => Promise<unknown> }> {
    const { fake, client } = await connect();
    const listing = client.listTools();
    await fake.answer(await fake.request('tools/list'), {
      tools: [{ name: 'get_things', inputSchema: { type: 'object' }, outputSchema }],
    });
    await listing;
    return {
      fake,
      call: async (answer) => {
        const calling = client.callTool({ name: 'get_things', arguments: {} });
        await fake.answer(await fake.request('tools/call'), answer);
        return calling;
      },
    };
  }

  it('B41: an isError result whose structuredContent fails the outputSchema is returned unchanged', async () => {
    const { fake, call } = await listed();
    const result = { content: [{ type: 'text', text: 'not found' }], structuredContent: { error: { code: 'NOT_FOUND' } }, isError: true };
    expect(await call(result)).toEqual(result);
    expect(fake.received.filter((m) => m.method === 'tools/call')).toEqual([
      { jsonrpc: '2.0', id: expect.any(Number) as unknown, method: 'tools/call', params: withToken({ name: 'get_things', arguments: {} }) },
    ]);
  });

  it('B41: a success without structuredContent, when the tool has an outputSchema, fails with InvalidResultError', async () => {
    const { call } = await listed();
    const result = { content: [{ type: 'text', text: 'ok' }] };
    const error = await call(result).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect(error).toMatchObject({ code: 'invalid_result', result });
  });

  it('B41 controls: a success whose structuredContent fits is returned; one that does not fit is an InvalidResultError', async () => {
    const { call } = await listed();
    const fits = { content: [{ type: 'text', text: '["a"]' }], structuredContent: { things: ['a'] } };
    expect(await call(fits)).toEqual(fits);
    const misfit = { content: [{ type: 'text', text: '[1]' }], structuredContent: { things: [1] } };
    await expect(call(misfit)).rejects.toBeInstanceOf(InvalidResultError);
  });
});

describe('B44: cursors are opaque', () => {
  const tool = (name: string): Message => ({ name, inputSchema: { type: 'object' } });
  const cursorOf = (request: Message): unknown => {
    const params = request.params as Message;
    expect(params).toEqual(withToken('cursor' in params ? { cursor: params.cursor } : {}));
    return params.cursor;
  };

  const lists = (fake: FakeStdioServer): Message[] => fake.received.filter((m) => m.method === 'tools/list');

  it('B44: cursors "" and a repeated "same" are followed: a–d are all fetched', async () => {
    const { fake, client } = await connect();
    const pages = [
      { tools: [tool('a')], nextCursor: '' },
      { tools: [tool('b')], nextCursor: 'same' },
      { tools: [tool('c')], nextCursor: 'same' },
      { tools: [tool('d')] },
    ];
    fake.serve('tools/list', (_request, i) => pages[i] ?? { tools: [] });
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(lists(fake).map(cursorOf)).toEqual([undefined, '', 'same', 'same']);
  });

  it('B44: a cursor that never ends stops at maxPages with PaginationLimitError and the items so far, never silently', async () => {
    const { fake, client } = await connect({ maxPages: 3 });
    fake.serve('tools/list', (_request, i) => ({ tools: [tool(`t${i}`)], nextCursor: `page-${i + 1}` }));
    const error = await client.listAllTools().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(error).toMatchObject({ code: 'pagination_limit', stop: 'max_pages', pages: 3 });
    expect((error as PaginationLimitError).items.map((t) => (t as Message).name)).toEqual(['t0', 't1', 't2']);
    await sleep(100);
    expect(lists(fake).map(cursorOf)).toEqual([undefined, 'page-1', 'page-2']);
  });

  it('B44: a page that repeats itself verbatim under the same cursor is a loop: PaginationLimitError long before maxPages', async () => {
    const { fake, client } = await connect();
    fake.serve('tools/list', (_request, i) => (i === 0 ? { tools: [tool('a')], nextCursor: 'same' } : { tools: [tool('b')], nextCursor: 'same' }));
    const error = await client.listAllTools().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(error).toMatchObject({ code: 'pagination_limit', stop: 'cursor_loop' });
    await sleep(100);
    // The first page, "same" answered with b, "same" answered with b again: a loop, seen on the third page.
    expect(lists(fake).map(cursorOf)).toEqual([undefined, 'same', 'same']);
  });
});

describe('B45: error responses without a usable id', () => {
  it('B45: error responses with "id": null and with no id are surfaced as warnings; the connection and the pending request live on', async () => {
    const { fake, client, log } = await connect();
    const pinging = client.ping();
    const ping = await fake.request('ping');
    await fake.write([
      line({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
      line({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }),
    ]);
    await sleep(50);
    expect(log.mentioning('-32700').filter((l) => l.level === 'warn')).toHaveLength(2);
    await fake.answer(ping, {});
    await expect(pinging).resolves.toBeUndefined();
    const again = client.ping();
    await fake.answer(await fake.request('ping'), {});
    await expect(again).resolves.toBeUndefined();
    expect(fake.stdinEnded).toBe(false);
  });
});
