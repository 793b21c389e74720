/**
 * The demo server in both eras on one stdio process (`main.js --stdio`), on the wire (newline-delimited JSON written
 * by hand, no client library): before and after `initialize`, a request carrying the 2026-07-28 `_meta` envelope is
 * answered statelessly beside the session (MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"), and
 * the demo's elicitation step (execute_sql above 500 rows) is a live `elicitation/create` request on the session but
 * an `input_required` result with a signed `requestState` on 2026-07-28 (MCP 2026-07-28 basic/patterns/mrtr.mdx).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MAIN, DEMO_SERVER_INFO, ROOT, confirmForm, orderIds } from './helpers/demoServer.js';
import { endStdin } from './helpers/process.js';

const TEST_MS = 15_000;
/** How long (ms) to wait for one message from the server. */
const MESSAGE_MS = 10_000;
const MODERN = '2026-07-28';
const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': DEMO_SERVER_INFO };
const CLIENT_INFO = { name: 'switchboard-demo-eras-test', version: '1.0.0' };
const QUERY = 'SELECT id FROM orders ORDER BY id';
/** Runs for minutes in SQLite; the demo stops it after 5 s. */
const RUNAWAY = 'SELECT count(*) FROM order_items a, order_items b, order_items c';

interface Message {
  readonly jsonrpc: '2.0';
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** The 2026-07-28 envelope of one request (`_meta`), with the capabilities the request declares. */
const envelope = (clientCapabilities: Record<string, unknown> = { elicitation: {} }, extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
  ...extra,
});


/** The demo as a child process, read one message at a time. */
class StdioWire {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #queue: Message[] = [];
  #waiter: ((message: Message) => void) | undefined;

  constructor() {
    this.#child = spawn(process.execPath, [DEMO_MAIN, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr.resume();
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Message;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter === undefined) this.#queue.push(message);
      else waiter(message);
    });
  }

  send(message: Record<string, unknown>): void {
    this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  /** The next message the server writes. */
  next(): Promise<Message> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.#waiter = undefined; reject(new Error(`no message within ${MESSAGE_MS} ms`)); }, MESSAGE_MS);
      this.#waiter = (message) => { clearTimeout(timer); resolve(message); };
    });
  }

  /** Sends a request and resolves with the next message (on this sequential wire, its answer). */
  async request(message: Record<string, unknown>): Promise<Message> {
    this.send(message);
    return this.next();
  }

  /** Reads up to the answer to request `id`; resolves with it and with what came before it. */
  async until(id: string | number): Promise<{ readonly before: Message[]; readonly answer: Message }> {
    const before: Message[] = [];
    for (;;) {
      const message = await this.next();
      if (message.id === id && message.method === undefined) return { before, answer: message };
      before.push(message);
    }
  }

  /** Closes stdin (the MCP way to end a stdio server) and resolves with the exit code; kills it by PID after 5 s. */
  end(): Promise<number | null> {
    return endStdin(this.#child);
  }
}

describe('demo over stdio: one process, both eras', () => {
  let wire: StdioWire;

  beforeAll(() => {
    wire = new StdioWire();
  });

  afterAll(async () => {
    expect(await wire.end()).toBe(0);
  });

  it('answers 2026-07-28 before any initialize: server/discover and a tool call', async () => {
    const discovered = await wire.request({ id: 'd1', method: 'server/discover', params: { _meta: envelope() } });
    expect(discovered).toEqual({
      jsonrpc: '2.0',
      id: 'd1',
      result: {
        supportedVersions: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        capabilities: { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} },
        instructions: expect.stringMatching(/^A sample shop database /) as unknown,
        resultType: 'complete',
        _meta: SERVER_INFO_META,
        ttlMs: 0,
        cacheScope: 'private',
      },
    });
    expect(await wire.request({ id: 'm1', method: 'tools/call', params: { name: 'add_numbers', arguments: { a: 1, b: 1 }, _meta: envelope() } })).toEqual({
      jsonrpc: '2.0', id: 'm1', result: { content: [{ type: 'text', text: '2' }], structuredContent: { sum: 2 }, resultType: 'complete', _meta: SERVER_INFO_META },
    });
  }, TEST_MS);

  it('after initialize, session requests and 2026-07-28 requests interleave, each answered in its era', async () => {
    const initialized = await wire.request({
      id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: CLIENT_INFO },
    });
    expect(initialized.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: DEMO_SERVER_INFO });
    wire.send({ method: 'notifications/initialized' });
    expect(await wire.request({ id: 2, method: 'tools/call', params: { name: 'add_numbers', arguments: { a: 2, b: 3 } } }))
      .toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } } });
    expect(await wire.request({ id: 'm2', method: 'tools/call', params: { name: 'add_numbers', arguments: { a: 3, b: 4 }, _meta: envelope() } }))
      .toEqual({ jsonrpc: '2.0', id: 'm2', result: { content: [{ type: 'text', text: '7' }], structuredContent: { sum: 7 }, resultType: 'complete', _meta: SERVER_INFO_META } });
    expect(await wire.request({ id: 3, method: 'ping' })).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    // ping is not a method of 2026-07-28 (MCP 2026-07-28 changelog.mdx): refused for the modern request only.
    expect(await wire.request({ id: 'm3', method: 'ping', params: { _meta: envelope() } })).toEqual({
      jsonrpc: '2.0', id: 'm3', error: { code: -32601, message: `Method not found: "ping" (not a method of ${MODERN})` },
    });
  }, TEST_MS);

  it('the elicitation step on the session: a live elicitation/create request, answered, then the rows', async () => {
    wire.send({ id: 4, method: 'tools/call', params: { name: 'execute_sql', arguments: { query: QUERY, limit: 501 } } });
    const asked = await wire.next();
    expect(asked).toEqual({ jsonrpc: '2.0', id: expect.anything() as unknown, method: 'elicitation/create', params: confirmForm(501) });
    wire.send({ id: asked.id, result: { action: 'accept', content: { confirm: true } } });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 4, result: orderIds(501) });
  }, TEST_MS);

  it('the elicitation step on 2026-07-28: input_required with the form, then the retry with inputResponses and requestState', async () => {
    const call = { name: 'execute_sql', arguments: { query: QUERY, limit: 501 } };
    const first = await wire.request({ id: 'm4', method: 'tools/call', params: { ...call, _meta: envelope() } });
    expect(first).toEqual({
      jsonrpc: '2.0',
      id: 'm4',
      result: {
        resultType: 'input_required',
        inputRequests: { confirm_rows: { method: 'elicitation/create', params: confirmForm(501) } },
        requestState: expect.any(String) as unknown,
        _meta: SERVER_INFO_META,
      },
    });
    const requestState = first.result!.requestState as string;
    const accepted = { confirm_rows: { action: 'accept', content: { confirm: true } } };
    expect(await wire.request({ id: 'm5', method: 'tools/call', params: { ...call, inputResponses: accepted, requestState, _meta: envelope() } }))
      .toEqual({ jsonrpc: '2.0', id: 'm5', result: { ...orderIds(501), resultType: 'complete', _meta: SERVER_INFO_META } });
    // A state continues one retry (MCP 2026-07-28 basic/patterns/mrtr.mdx "Security Considerations"): a replay is refused.
    expect(await wire.request({ id: 'm5r', method: 'tools/call', params: { ...call, inputResponses: accepted, requestState, _meta: envelope() } })).toEqual({
      jsonrpc: '2.0', id: 'm5r', error: { code: -32602, message: 'Invalid params: "requestState" was already used: a request state continues one retry only' },
    });
    /** The state of a new first round of the same call. */
    const fresh = async (id: string): Promise<string> => (await wire.request({ id, method: 'tools/call', params: { ...call, _meta: envelope() } })).result!.requestState as string;
    const declined = { confirm_rows: { action: 'decline' } };
    expect(await wire.request({ id: 'm6', method: 'tools/call', params: { ...call, inputResponses: declined, requestState: await fresh('m6f'), _meta: envelope() } })).toEqual({
      jsonrpc: '2.0',
      id: 'm6',
      result: {
        content: [{ type: 'text', text: 'The user did not confirm sending 501 rows (decline): narrow the query or set limit to 500 or less' }],
        isError: true,
        resultType: 'complete',
        _meta: SERVER_INFO_META,
      },
    });
    // An answer under another key is not the one asked for: ignored, and the form is asked again.
    const elsewhere = { 'elicitation-0': { action: 'accept', content: { confirm: true } } };
    expect(await wire.request({ id: 'm6b', method: 'tools/call', params: { ...call, inputResponses: elsewhere, requestState: await fresh('m6bf'), _meta: envelope() } }))
      .toMatchObject({ id: 'm6b', result: { resultType: 'input_required', inputRequests: { confirm_rows: { method: 'elicitation/create', params: confirmForm(501) } } } });
    // The state is bound to the request it was issued for: other arguments, or a changed token, are refused.
    const invalidState = { code: -32602, message: 'Invalid params: "requestState" is not valid for this request (tampered with, expired, or issued for another request)' };
    expect(await wire.request({
      id: 'm7', method: 'tools/call', params: { name: 'execute_sql', arguments: { query: QUERY, limit: 900 }, inputResponses: accepted, requestState, _meta: envelope() },
    })).toEqual({ jsonrpc: '2.0', id: 'm7', error: invalidState });
    const tampered = `${requestState.slice(0, -2)}${requestState.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await wire.request({ id: 'm8', method: 'tools/call', params: { ...call, inputResponses: accepted, requestState: tampered, _meta: envelope() } }))
      .toEqual({ jsonrpc: '2.0', id: 'm8', error: invalidState });
  }, TEST_MS);

  it('on 2026-07-28 a request that declares no elicitation capability gets the tool error, never an input request', async () => {
    expect(await wire.request({ id: 'm9', method: 'tools/call', params: { name: 'execute_sql', arguments: { query: QUERY, limit: 501 }, _meta: envelope({}) } })).toEqual({
      jsonrpc: '2.0',
      id: 'm9',
      result: {
        content: [{
          type: 'text',
          text: 'The result has 501 rows; more than 500 need the user\'s confirmation, and this client cannot ask for it (no elicitation capability): '
            + 'narrow the query or set limit to 500 or less',
        }],
        isError: true,
        resultType: 'complete',
        _meta: SERVER_INFO_META,
      },
    });
  }, TEST_MS);

  // The notification carries the 2026-07-28 envelope, as the v2 client sends it (MCP 2026-07-28 schema.ts
  // `CancelledNotification`: on stdio the client cancels with it).
  it('on 2026-07-28 notifications/cancelled stops the request: no response, and the query is stopped', async () => {
    wire.send({ id: 'c1', method: 'tools/call', params: { name: 'execute_sql', arguments: { query: RUNAWAY }, _meta: envelope({}) } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    wire.send({ method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'the user stopped it', _meta: envelope({}) } });
    // Past the 5 s time limit: a query still running would be answered with the time-limit tool error by now.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    wire.send({ id: 'c2', method: 'tools/call', params: { name: 'add_numbers', arguments: { a: 1, b: 2 }, _meta: envelope({}) } });
    const { before, answer } = await wire.until('c2');
    expect(answer).toMatchObject({ result: { structuredContent: { sum: 3 } } });
    expect(before).toEqual([]);
  }, TEST_MS);

  it('on 2026-07-28 progress goes to the request that sent a progress token, before its result', async () => {
    wire.send({ id: 'm10', method: 'tools/call', params: { name: 'execute_sql', arguments: { query: QUERY, limit: 500 }, _meta: envelope({}, { progressToken: 'p1' }) } });
    const messages = [await wire.next(), await wire.next(), await wire.next()];
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 200, total: 500, message: 'Read 200 rows' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 400, total: 500, message: 'Read 400 rows' } },
      { jsonrpc: '2.0', id: 'm10', result: { ...orderIds(500), resultType: 'complete', _meta: SERVER_INFO_META } },
    ]);
  }, TEST_MS);
});
