/**
 * Field bugs whose right answer depends on the revision (docs/field-bugs.md): B22, B25, B26, B30, B31, B40, B42,
 * each replayed from its minimal input against a real server, once per era: the session-based revisions after
 * their `initialize`, and 2026-07-28 with its per-request `_meta`. Over `serveHttp` on 127.0.0.1 (B22, B25, B26,
 * B30, B31) and the in-memory pair of `@switchboard/mcp/testing` (B30, B31, B40, B42). Whole wire messages.
 * Cancellation (B23, B36, B37) is in test/field-bugs-cancel.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import {
  complete, initialize, legacy, LEGACY, makeServer, memory, META, modern, MODERN, modernHeaders, openHttpSession, post, session,
  SERVER_INFO, SUPPORTED, type Message,
} from './helpers/fieldBugsWire.js';

let dual: ServeHttpHandle;
let modernOnly: ServeHttpHandle;
beforeAll(async () => {
  // JSON answers only: a session's server-to-client request has no stream to travel on (B25).
  dual = await serveHttp({ server: makeServer().server, host: '127.0.0.1', port: 0, responseMode: 'json' });
  modernOnly = await serveHttp({ server: makeServer({ revisions: [MODERN] }).server, host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await dual.close();
  await modernOnly.close();
});

describe('B22: the MCP-Protocol-Version header, per era', () => {
  it('B22 legacy: on a 2025-11-25 session an unknown header is 400, a missing one means the session revision; initialize follows its body', async () => {
    const url = dual.url;
    const headers = await openHttpSession(url, '2025-11-25');
    for (const bad of ['1900-01-01', 'not-a-version']) {
      const answer = await post(url, legacy(2, 'tools/list'), { ...headers, 'mcp-protocol-version': bad });
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: {
          jsonrpc: '2.0', id: 2,
          error: { code: -32000, message: `Bad Request: unsupported MCP-Protocol-Version: '${bad}'`, data: { supported: [...LEGACY].reverse(), requested: bad } },
        },
      });
    }
    const { 'mcp-protocol-version': _dropped, ...withoutVersion } = headers;
    const served = await post(url, legacy(3, 'tools/list'), withoutVersion);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ jsonrpc: '2.0', id: 3, result: { tools: [{ name: 'add' }, { name: 'none' }, { name: 'ask' }, { name: 'ask_caught' }, { name: 'slow' }] } });
    const init = await post(url, initialize('e', '2025-11-25'), { 'mcp-protocol-version': '2025-06-18' });
    expect(init.status).toBe(200);
    expect(init.body).toMatchObject({ jsonrpc: '2.0', id: 'e', result: { protocolVersion: '2025-11-25' } });
  });

  it('B22 at 2026-07-28: the header is required and equals the _meta claim (-32020, 400); an unsupported claim is -32022 (400)', async () => {
    const url = dual.url;
    const list = modern(1, 'tools/list');
    const missing = await post(url, list, { 'mcp-method': 'tools/list' });
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 400, body: { jsonrpc: '2.0', id: 1, error: { code: -32020, message: 'Header mismatch: the MCP-Protocol-Version header is required' } },
    });
    const other = await post(url, list, modernHeaders(list, '2025-11-25'));
    expect({ status: other.status, body: other.body }).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0', id: 1,
        error: { code: -32020, message: "Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match the body's protocol version '2026-07-28'" },
      },
    });
    const future = modern(2, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    const unsupported = await post(url, future, modernHeaders(future, '2099-01-01'));
    expect({ status: unsupported.status, body: unsupported.body }).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: 2, error: { code: -32022, message: 'Unsupported protocol version: "2099-01-01" (this server supports 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)', data: { supported: SUPPORTED, requested: '2099-01-01' } } },
    });
    expect(unsupported.headers.get('mcp-session-id')).toBeNull();
  });
});
describe('B25: a server-to-client request that can never be answered', () => {
  it('B25 legacy: on a session answered as single JSON bodies, an elicitation fails fast and the handler is told why', async () => {
    const url = dual.url;
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const headers = await openHttpSession(url, revision, { elicitation: {} });
      const answer = await post(url, legacy(3, 'tools/call', { name: 'ask_caught', arguments: {} }), headers);
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0', id: 3,
          result: {
            isError: true,
            content: [{
              type: 'text',
              text: "ask failed: Cannot send 'elicitation/create' to the client: its request is answered with a single JSON body, which cannot carry server-to-client requests",
            }],
          },
        },
      });
    }
  });

  // Expected to fail until the server names the reason: a handler that lets the failure escape gets the generic
  // `Tool "ask" failed: internal error`, which does not say why the call failed (the bug's point: fail fast and say
  // why). The right answer names it, as an escaping MissingClientCapabilityError already does.
  it('B25 legacy: the same failure escaping the handler is an isError result that says why', async () => {
    const url = dual.url;
    const headers = await openHttpSession(url, '2025-11-25', { elicitation: {} });
    const answer = await post(url, legacy(3, 'tools/call', { name: 'ask', arguments: {} }), headers);
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 3, result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Tool "ask" failed: .*single JSON body/) as unknown }] } },
    });
  });

  it('B25 at 2026-07-28: nothing is sent to the client; the call answers input_required, and -32021 (400) with nothing asked when elicitation is not declared', async () => {
    const url = dual.url;
    const call = modern(4, 'tools/call', { name: 'ask', arguments: {} }, { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
    const asked = await post(url, call, modernHeaders(call));
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({
      jsonrpc: '2.0', id: 4,
      result: {
        resultType: 'input_required',
        inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } },
        requestState: expect.any(String) as unknown,
        _meta: SERVER_INFO,
      },
    });
    const bare = modern(5, 'tools/call', { name: 'ask', arguments: {} });
    const refused = await post(url, bare, modernHeaders(bare));
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: 5, error: { code: -32021, message: 'Missing required client capability: "elicitation"', data: { requiredCapabilities: { elicitation: {} } } } },
    });
  });
});

describe('B26: GET and DELETE, per served era', () => {
  it('B26: a dual-era endpoint keeps the legacy meaning of GET and DELETE; a modern-only one answers 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const dualAnswer = await fetch(dual.url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } });
      expect({ method, status: dualAnswer.status, body: await dualAnswer.json() as unknown }).toEqual({
        method, status: 400, body: { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } },
      });
      const modernAnswer = await fetch(modernOnly.url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } });
      expect({ method, status: modernAnswer.status, allow: modernAnswer.headers.get('allow'), body: await modernAnswer.json() as unknown })
        .toEqual({ method, status: 405, allow: 'POST', body: { jsonrpc: '2.0', error: { code: -32000, message: `Method Not Allowed: '${method}'` } } });
    }
  });
});

describe('B30 and B31: initialize and ping, per era', () => {
  it.each(LEGACY)('B30 legacy (%s): a second initialize is -32600 with its id, ping still answered', async (revision) => {
    const client = await session(makeServer().server, revision);
    expect(await client.ask({ ...initialize('init2', '2024-11-05', { sampling: {} }), params: { protocolVersion: '2024-11-05', capabilities: { sampling: {} }, clientInfo: { name: 'other', version: '9' } } }))
      .toEqual({ jsonrpc: '2.0', id: 'init2', error: { code: -32600, message: 'Invalid Request: the session is already initialized' } });
    expect(await client.ask(legacy(3, 'ping'))).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    await client.close();
  });

  it('B31 legacy: ping before initialize is {}; tools/list before initialize is -32600 with its id', async () => {
    const client = await memory(makeServer().server);
    expect(await client.ask(legacy(1, 'ping'))).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await client.ask(legacy(2, 'tools/list'))).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request: the session is not initialized: send "initialize" first' } });
    await client.close();
  });

  it('B30 and B31 at 2026-07-28: initialize and ping with a modern claim are -32601, over HTTP 404', async () => {
    const client = await memory(makeServer().server);
    const init = modern('i', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    const ping = modern('p', 'ping');
    const notInit = { jsonrpc: '2.0', id: 'i', error: { code: -32601, message: 'Method not found: "initialize" (not a method of 2026-07-28)' } };
    const notPing = { jsonrpc: '2.0', id: 'p', error: { code: -32601, message: 'Method not found: "ping" (not a method of 2026-07-28)' } };
    expect(await client.ask(init)).toEqual(notInit);
    expect(await client.ask(ping)).toEqual(notPing);
    await client.close();
    const overHttp = [await post(dual.url, init, modernHeaders(init)), await post(dual.url, ping, modernHeaders(ping))];
    expect(overHttp.map((a) => ({ status: a.status, body: a.body }))).toEqual([{ status: 404, body: notInit }, { status: 404, body: notPing }]);
  });
});
describe('B40: arguments that fail the input schema, per revision', () => {
  const replay = [
    legacy(4, 'tools/call', { name: 'add', arguments: { a: 'two', b: 2 } }),
    legacy(5, 'tools/call', { name: 'add', arguments: { a: 1 } }),
    legacy(6, 'tools/call', { arguments: { a: 1, b: 2 } }),
  ];
  const expected = (decorate: (result: Message) => Message): unknown[] => [
    { jsonrpc: '2.0', id: 4, result: decorate({ content: [{ type: 'text', text: 'Invalid arguments for tool "add": arguments/a: Instance type "string" is invalid. Expected "integer".' }], isError: true }) },
    { jsonrpc: '2.0', id: 5, result: decorate({ content: [{ type: 'text', text: 'Invalid arguments for tool "add": arguments: Instance does not have required property "b".' }], isError: true }) },
    { jsonrpc: '2.0', id: 6, error: { code: -32602, message: 'Invalid params: "name" must be a string' } },
  ];

  it.each(LEGACY)('B40 legacy (%s): failing arguments are isError results; a call without a name is -32602', async (revision) => {
    const client = await session(makeServer().server, revision);
    const answers = [];
    for (const message of replay) answers.push(await client.ask(message));
    expect(answers).toEqual(expected((r) => r));
    await client.close();
  });

  it('B40 at 2026-07-28: failing arguments are isError results; a call without a name is -32602', async () => {
    const client = await memory(makeServer().server);
    const answers = [];
    for (const message of replay) answers.push(await client.ask({ ...message, params: { ...(message.params as Message), _meta: META } }));
    expect(answers).toEqual(expected(complete));
    await client.close();
  });
});

describe('B42: an inputSchema without an object root', () => {
  it('B42: a schema without type "object" is refused at registration', () => {
    const { server } = makeServer();
    expect(() => server.tool('bad', { inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } as never }, () => ({ content: [] })))
      .toThrow(new TypeError('Invalid inputSchema of tool "bad": the root must declare "type": "object"'));
    expect(() => server.tool('bad', { inputSchema: { type: 'string' } as never }, () => ({ content: [] })))
      .toThrow(new TypeError('Invalid inputSchema of tool "bad": the root type must be "object"'));
  });

  it('B42: tools/list carries object roots in both eras', async () => {
    const { server } = makeServer();
    const client = await session(server, '2025-11-25');
    const legacyList = (await client.ask(legacy(2, 'tools/list'))) as { result: { tools: Array<{ name: string; inputSchema: Message }> } };
    const modernList = (await client.ask(modern(3, 'tools/list'))) as { result: { tools: Array<{ name: string; inputSchema: Message }> } };
    await client.close();
    for (const list of [legacyList, modernList]) {
      expect(list.result.tools.map((t) => ({ name: t.name, root: t.inputSchema.type }))).toEqual(
        ['add', 'none', 'ask', 'ask_caught', 'slow'].map((name) => ({ name, root: 'object' })),
      );
    }
    expect(modernList.result.tools.find((t) => t.name === 'none')?.inputSchema).toEqual(legacyList.result.tools.find((t) => t.name === 'none')?.inputSchema);
  });
});
