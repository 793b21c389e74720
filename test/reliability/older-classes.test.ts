/**
 * Five classes an earlier attack run found, each driven over every transport that can carry it: stdio (a real child
 * process, `test/fixtures/stdio-server.mjs`), Streamable HTTP and the 2024-11-05 HTTP+SSE transport (`serveHttp` on
 * 127.0.0.1, port 0, real sockets), and the in-memory pair of `@switchboard/jsonrpc`. (Host/Origin parsing, the
 * third class, is a pure function: its table is in `packages/mcp/src/transports/http/security.test.ts`; one row per
 * outcome is driven over a socket here.)
 *
 * 1. Peer input that reaches a log line (a method name, an id, a peer's error message) is cut at 200 characters
 *    with `…` (`echo` of `@switchboard/jsonrpc`, the same cap as echoed input in errors).
 * 2. A request whose id is still in flight on the same session is refused with -32600 and that id; the first one
 *    gets its result (MCP 2025-11-25 basic/index.mdx "Requests": an id MUST NOT be reused within a session).
 * 3. A malformed `Host` (RFC 9110 §7.2) or `Origin` (RFC 6454 §7.1) is refused 403, never read as loopback.
 * 4. Responses are never answered (JSON-RPC 2.0 §5, §6): a lone response, a batch of responses, responses with
 *    unknown ids get no reply (HTTP: 202, MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server").
 * 5. An error response carries the request's id whenever the request could be read, `null` (over HTTP: no `id`
 *    member, field bug B45) when it could not.
 *
 * Smoke sizes by default; `STRESS=1` quotes 60,000-character values and sends 200 duplicates of an id in flight,
 * printing `reliability ` figures.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { createMemoryTransportPair, type Inbound, type JsonRpcMessage, type Logger } from '@switchboard/jsonrpc';
import { McpServer } from '@switchboard/mcp/server';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endStdin } from '../helpers/process.js';
import { addSleepTool } from '../fixtures/tools.mjs';
import { open, type OpenExchange } from './http-wire.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/stdio-server.mjs', import.meta.url));
const STRESS = process.env['STRESS'] === '1';
/** Peer input this long is quoted in logs (under the 64 KiB body limit set below, so HTTP reads it too). */
const LONG = STRESS ? 60_000 : 5000;
/** Duplicates of one in-flight id sent while it runs, and how long it runs (ms). */
const DUPLICATES = STRESS ? 200 : 1;
const HOLD_MS = STRESS ? 3000 : 400;
/** A log line may quote several capped values plus its own words; an uncapped one is over 5,000 characters. */
const MAX_LOG_LINE = 1500;
const MAX_BODY = 64 * 1024;
const MAX_BATCH = 4;

type Message = Record<string, unknown>;
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>): void => {
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function makeServer(logger: Logger): McpServer {
  const server = new McpServer({ name: 'older-classes', version: '0' }, { logger });
  addSleepTool(server);
  return server;
}

const initialize = (revision: string, id: string | number = 'init'): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'older', version: '0' } } });
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
const ping = (id: string | number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const sleep = (id: string | number, ms: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'sleep', arguments: { ms } } });

/** One transport as a test sees it: send JSON text, read every JSON-RPC message answered and every log line. */
interface Wire {
  readonly name: string;
  /** Sends one JSON text; resolves with the HTTP status when there is one (after the whole answer was read). */
  send(text: string): Promise<number | undefined>;
  readonly answers: unknown[];
  readonly logs: string[];
  close(): Promise<void>;
}

function waitFor(check: () => boolean, what: () => string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = (): void => {
      if (check()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting: ${what()}`));
      else setTimeout(poll, 5);
    };
    poll();
  });
}

let sentinels = 0;
/** Sends `texts` one after another, then a sentinel ping, and returns what was answered before the sentinel. */
async function exchange(wire: Wire, texts: readonly string[]): Promise<{ answers: unknown[]; statuses: (number | undefined)[] }> {
  const from = wire.answers.length;
  const statuses: (number | undefined)[] = [];
  for (const text of texts) statuses.push(await wire.send(text));
  const sentinel = `sentinel-${++sentinels}`;
  await wire.send(ping(sentinel));
  const isSentinel = (m: unknown): boolean => (m as Message | undefined)?.['id'] === sentinel;
  await waitFor(() => wire.answers.slice(from).some(isSentinel), () => JSON.stringify(wire.answers.slice(from)).slice(0, 500));
  const got = wire.answers.slice(from);
  return { answers: got.slice(0, got.findIndex(isSentinel)), statuses };
}

// ---------------------------------------------------------------------------------------------------------------
// The wires

class StdioWire implements Wire {
  readonly answers: unknown[] = [];
  readonly logs: string[] = [];
  readonly proc: ChildProcessWithoutNullStreams;

  constructor(readonly name: string, args: readonly string[] = []) {
    this.proc = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = (sink: (line: string) => void): ((chunk: string) => void) => {
      let buffer = '';
      return (chunk) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          sink(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
      };
    };
    this.proc.stdout.setEncoding('utf8').on('data', lines((line) => this.answers.push(JSON.parse(line))));
    this.proc.stderr.setEncoding('utf8').on('data', lines((line) => this.logs.push(line)));
  }

  send(text: string): Promise<number | undefined> {
    this.proc.stdin.write(`${text}\n`);
    return Promise.resolve(undefined);
  }

  async close(): Promise<void> {
    expect(await endStdin(this.proc)).toBe(0);
  }
}

class MemoryWire implements Wire {
  readonly answers: unknown[] = [];
  readonly logs: string[] = [];
  readonly name = 'in-memory';
  readonly #server = makeServer(recordingLogger(this.logs));
  readonly #client: ReturnType<typeof createMemoryTransportPair>[0];
  readonly #serverSide: ReturnType<typeof createMemoryTransportPair>[1];

  constructor() {
    const [client, serverSide] = createMemoryTransportPair();
    this.#client = client;
    this.#serverSide = serverSide;
    const raw = (item: Inbound): unknown => ('message' in item ? item.message : 'reply' in item ? item.reply : undefined);
    client.onmessage = (inbound) => {
      this.answers.push(inbound.kind === 'batch' ? inbound.items.map((item) => raw(item)) : raw(inbound));
    };
  }

  async start(): Promise<void> {
    await this.#server.connect(this.#serverSide);
    await this.#client.start();
  }

  async send(text: string): Promise<number | undefined> {
    await this.#client.send(JSON.parse(text) as JsonRpcMessage);
    return undefined;
  }

  async close(): Promise<void> {
    await this.#server.close();
  }
}

interface Posted {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A raw POST; `headers` replace the defaults (JSON in, JSON or SSE out). */
function post(url: string, body: string, headers: Record<string, string | undefined> = {}): Promise<Posted> {
  const all: Record<string, string | undefined> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const set: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) if (v !== undefined) set[k] = v;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: set, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of an HTTP answer: a JSON body (an error body included) or the data of each SSE event. */
function messagesOf(reply: Posted): unknown[] {
  const type = String(reply.headers['content-type'] ?? '');
  if (type.startsWith('application/json') && reply.body !== '') return [JSON.parse(reply.body)];
  if (!type.startsWith('text/event-stream')) return [];
  return reply.body.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '').map((l) => JSON.parse(l.slice(5)) as unknown);
}

class StreamableWire implements Wire {
  readonly answers: unknown[] = [];
  sessionId = '';

  constructor(readonly name: string, readonly url: string, readonly logs: string[], readonly revision: string) {}

  async start(): Promise<void> {
    const init = await post(this.url, initialize(this.revision));
    expect(init.status).toBe(200);
    this.sessionId = String(init.headers['mcp-session-id']);
    expect((await post(this.url, INITIALIZED, this.headers())).status).toBe(202);
  }

  headers(): Record<string, string> {
    return { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': this.revision };
  }

  async send(text: string): Promise<number | undefined> {
    const reply = await post(this.url, text, this.headers());
    this.answers.push(...messagesOf(reply));
    return reply.status;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class HttpSseWire implements Wire {
  readonly answers: unknown[] = [];
  readonly name = 'HTTP+SSE 2024-11-05';
  #stream: OpenExchange | undefined;
  postUrl = '';

  constructor(readonly base: string, readonly logs: string[]) {}

  async start(): Promise<void> {
    const stream = await open(`${this.base}/sse`, { method: 'GET', headers: { accept: 'text/event-stream' } });
    this.#stream = stream;
    await stream.waitForEvents(1);
    // MCP 2024-11-05 basic/transports.mdx "HTTP with SSE": the first event names where to POST.
    this.postUrl = `${this.base}${stream.events[0]!.data}`;
    const collect = (): void => {
      while (this.answers.length < stream.events.length - 1) this.answers.push(JSON.parse(stream.events[this.answers.length + 1]!.data));
    };
    const timer = setInterval(collect, 2);
    const stop = (): void => clearInterval(timer);
    stream.done.then(stop, stop);
    await this.send(initialize('2024-11-05'));
    await waitFor(() => this.answers.length > 0, () => 'the initialize result');
    await this.send(INITIALIZED);
  }

  async send(text: string): Promise<number | undefined> {
    return (await post(this.postUrl, text)).status;
  }

  close(): Promise<void> {
    this.#stream?.cut();
    return Promise.resolve();
  }
}

// ---------------------------------------------------------------------------------------------------------------

let handle: ServeHttpHandle;
const httpLogs: string[] = [];
let stdio: StdioWire;
let stdioBatches: StdioWire;
let memory: MemoryWire;
let streamable: StreamableWire;
let streamableBatches: StreamableWire;
let httpSse: HttpSseWire;
let wires: Wire[];

beforeAll(async () => {
  handle = await serveHttp({
    server: makeServer(recordingLogger(httpLogs)),
    port: 0,
    host: '127.0.0.1',
    httpSse: true,
    maxBodyBytes: MAX_BODY,
    maxBatchSize: MAX_BATCH,
  });
  const url = handle.url;
  const base = url.replace(/\/mcp$/, '');
  stdio = new StdioWire('stdio');
  stdioBatches = new StdioWire('stdio 2025-03-26');
  memory = new MemoryWire();
  streamable = new StreamableWire('Streamable HTTP', url, httpLogs, '2025-11-25');
  streamableBatches = new StreamableWire('Streamable HTTP 2025-03-26', url, httpLogs, '2025-03-26');
  httpSse = new HttpSseWire(base, httpLogs);
  await memory.start();
  for (const [wire, revision] of [[stdio, '2025-11-25'], [stdioBatches, '2025-03-26'], [memory, '2025-11-25']] as const) {
    await wire.send(initialize(revision));
    await waitFor(() => wire.answers.length > 0, () => `${wire.name} initialize`);
    await wire.send(INITIALIZED);
  }
  await Promise.all([streamable.start(), streamableBatches.start(), httpSse.start()]);
  wires = [stdio, memory, streamable, httpSse];
}, 30_000);

afterAll(async () => {
  await Promise.all([stdio?.close(), stdioBatches?.close(), memory?.close(), httpSse?.close()]);
  await handle?.close();
});

describe('1. peer input in log lines is cut at 200 characters', () => {
  const method = `x/${'m'.repeat(LONG)}`;
  const id = 'i'.repeat(LONG);
  for (const name of ['stdio', 'in-memory', 'Streamable HTTP', 'HTTP+SSE 2024-11-05']) {
    it(`${name}: an unknown notification method, a response id and a peer error message`, async () => {
      const wire = wires.find((w) => w.name === name)!;
      const from = wire.logs.length;
      const got = await exchange(wire, [
        JSON.stringify({ jsonrpc: '2.0', method }),
        JSON.stringify({ jsonrpc: '2.0', id, result: {} }),
        JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -1, message: 'e'.repeat(LONG) } }),
      ]);
      expect(got.answers).toEqual([]);
      const cut = (text: string): string => `${text.slice(0, 200)}…`;
      // The lines naming the method and the id, however long (stderr may trail stdout), then their length.
      const naming = (text: string): string | undefined => wire.logs.slice(from).find((l) => l.includes(text.slice(0, 200)));
      await waitFor(() => naming(method) !== undefined && naming(id) !== undefined, () => wire.logs.slice(from).join('\n').slice(0, 1000));
      expect([naming(method)!.includes(cut(method)), naming(id)!.includes(cut(id))]).toEqual([true, true]);
      const long = wire.logs.slice(from).filter((l) => l.length > MAX_LOG_LINE).map((l) => `${l.length}: ${l.slice(0, 120)}`);
      expect(long).toEqual([]);
      if (STRESS) process.stderr.write(`reliability older-classes: ${name}: ${LONG}-character method, id and error message, longest log line ${Math.max(...wire.logs.slice(from).map((l) => l.length))} characters\n`);
    });
  }
});

describe('2. a request id still in flight is refused with -32600 and that id; the first gets its result', () => {
  for (const name of ['stdio', 'in-memory', 'Streamable HTTP', 'HTTP+SSE 2024-11-05']) {
    it(name, async () => {
      const wire = wires.find((w) => w.name === name)!;
      const id = `dup-${name}`;
      const from = wire.answers.length;
      const first = wire.send(sleep(id, HOLD_MS));
      await delay(100);
      for (let i = 0; i < DUPLICATES; i++) await wire.send(sleep(id, 5));
      await first;
      const mine = (): Message[] => wire.answers.slice(from).filter((m) => (m as Message)['id'] === id) as Message[];
      await waitFor(() => mine().length >= 1 + DUPLICATES, () => JSON.stringify(wire.answers.slice(from)).slice(0, 500));
      await delay(50);
      const refused = { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: this request id is already in flight on this session' } };
      expect(mine()).toHaveLength(1 + DUPLICATES);
      expect(mine().filter((m) => 'result' in m)).toEqual([{ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `slept ${HOLD_MS}` }] } }]);
      expect(mine().filter((m) => !('result' in m))).toEqual(Array.from({ length: DUPLICATES }, () => refused));
      if (STRESS) process.stderr.write(`reliability older-classes: ${name}: ${DUPLICATES} duplicates of an id in flight, ${DUPLICATES} refused with the id, 1 result\n`);
      // Once answered, the id is free again (only ids in flight are remembered).
      expect((await exchange(wire, [ping(id)])).answers).toEqual([{ jsonrpc: '2.0', id, result: {} }]);
    });
  }
});

describe('3. Host and Origin over a socket (the full table: security.test.ts)', () => {
  const rows: readonly (readonly [Record<string, string>, number])[] = [
    [{ host: '[::1]:3000' }, 200],
    [{ host: '127.0.0.1:abc' }, 403],
    [{ host: '127.0.0.1:3000x' }, 403],
    [{ host: '127.0.0.1:99999' }, 403],
    [{ host: '127.0.0.1:3000', origin: 'http://a@127.0.0.1:3000' }, 403],
    [{ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000/' }, 403],
    [{ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }, 200],
  ];
  for (const [headers, status] of rows) {
    it(`${JSON.stringify(headers)} ⇒ ${status}`, async () => {
      const reply = await post(handle.url, initialize('2025-11-25', 'h'), headers);
      expect(reply.status).toBe(status);
      if (status === 403) expect(JSON.parse(reply.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/^Forbidden: (Host|Origin)/) as unknown } });
    });
  }
});

describe('4. responses are never answered', () => {
  const responsesOnly = [
    '{"jsonrpc":"2.0","id":424242,"result":{}}',
    '{"jsonrpc":"2.0","id":"nobody","error":{"code":-1,"message":"x"}}',
    '[{"jsonrpc":"2.0","id":424243,"result":{}},{"jsonrpc":"2.0","id":424244,"error":{"code":-1,"message":"x"}}]',
    '[{"jsonrpc":"2.0","id":424245,"result":{}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}]',
  ];
  for (const name of ['stdio', 'in-memory', 'Streamable HTTP', 'HTTP+SSE 2024-11-05']) {
    it(`${name}: a lone response, unknown ids, a batch of responses (on a revision without batches): no reply`, async () => {
      const wire = wires.find((w) => w.name === name)!;
      const got = await exchange(wire, responsesOnly);
      expect(got.answers).toEqual([]);
      // Streamable HTTP: 202 Accepted, no body (MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"
      // item 4); the 2024-11-05 POST endpoint answers 202 too.
      if (name.includes('HTTP')) expect(got.statuses).toEqual(responsesOnly.map(() => 202));
    });
  }
  for (const name of ['stdio 2025-03-26', 'Streamable HTTP 2025-03-26']) {
    it(`${name}: a batch of responses and a request: only the request is answered`, async () => {
      const w = name.startsWith('stdio') ? stdioBatches : streamableBatches;
      const got = await exchange(w, [`[{"jsonrpc":"2.0","id":515151,"result":{}},${ping('mixed')},{"jsonrpc":"2.0","id":515152,"error":{"code":-1,"message":"x"}}]`]);
      expect(got.answers).toEqual([[{ jsonrpc: '2.0', id: 'mixed', result: {} }]]);
    });
  }
});

describe('5. every refusal carries the request id when it was readable, none (null) when not', () => {
  const R = 'r5';
  const request = (extra: Record<string, unknown> = {}): string => JSON.stringify({ jsonrpc: '2.0', id: R, method: 'ping', ...extra });
  interface Row {
    readonly label: string;
    readonly send: () => Promise<Posted>;
    readonly status: number;
    /** The id the body carries; `null`: no `id` member (B45). */
    readonly id: string | null;
  }
  const s = (): Record<string, string> => streamable.headers();
  const rows: Row[] = [
    { label: 'no Mcp-Session-Id', send: () => post(handle.url, request(), { 'mcp-protocol-version': '2025-11-25' }), status: 400, id: R },
    { label: 'session not found', send: () => post(handle.url, request(), { 'mcp-session-id': 'gone', 'mcp-protocol-version': '2025-11-25' }), status: 404, id: R },
    { label: 'MCP-Protocol-Version not a revision', send: () => post(handle.url, request(), { ...s(), 'mcp-protocol-version': 'bogus' }), status: 400, id: R },
    { label: 'MCP-Protocol-Version not the negotiated one', send: () => post(handle.url, request(), { ...s(), 'mcp-protocol-version': '2025-06-18' }), status: 400, id: R },
    { label: 'Accept rules out both types', send: () => post(handle.url, request(), { ...s(), accept: 'text/plain' }), status: 406, id: R },
    { label: 'a second initialize', send: () => post(handle.url, initialize('2025-11-25', R), s()), status: 400, id: R },
    { label: 'initialize in a batch', send: () => post(handle.url, `[${initialize('2025-03-26', R)}]`, streamableBatches.headers()), status: 400, id: R },
    { label: 'a batch repeating an id', send: () => post(handle.url, `[${request()},${request()}]`, streamableBatches.headers()), status: 400, id: R },
    {
      label: 'modern era: header and body disagree',
      send: () => post(handle.url, request({ params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }),
      status: 400,
      id: R,
    },
    { label: '2024-11-05: no sessionId', send: () => post(`${httpSse.base}/messages`, request()), status: 400, id: R },
    { label: '2024-11-05: session not found', send: () => post(`${httpSse.base}/messages?sessionId=gone`, request()), status: 404, id: R },
    { label: 'not JSON', send: () => post(handle.url, '{"jsonrpc":', s()), status: 400, id: null },
    { label: 'an id that is not an id', send: () => post(handle.url, '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', s()), status: 400, id: null },
    { label: 'a body over maxBodyBytes', send: () => post(handle.url, request({ params: { pad: 'x'.repeat(MAX_BODY) } }), s()), status: 413, id: null },
    { label: 'JSON nested 65 deep', send: () => post(handle.url, request({ params: { a: JSON.parse(`${'['.repeat(63)}${']'.repeat(63)}`) as unknown } }), s()), status: 400, id: null },
    { label: 'a batch over maxBatchSize', send: () => post(handle.url, `[${Array.from({ length: MAX_BATCH + 1 }, (_, i) => ping(i)).join(',')}]`, streamableBatches.headers()), status: 400, id: null },
    { label: 'Content-Type not JSON (the body is not read)', send: () => post(handle.url, request(), { ...s(), 'content-type': 'text/plain' }), status: 415, id: null },
  ];
  for (const row of rows) {
    it(`${row.label}: ${row.status}, ${row.id === null ? 'no id' : 'its id'}`, async () => {
      const reply = await row.send();
      expect(reply.status).toBe(row.status);
      const body = JSON.parse(reply.body) as Message;
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) as unknown } });
      if (row.id === null) expect(body).not.toHaveProperty('id');
      else expect(body['id']).toBe(row.id);
    });
  }

  it('a session ended (DELETE) while a POST waits for its JSON answer: 404 with the request id', async () => {
    const doomed = new StreamableWire('doomed', handle.url, [], '2025-11-25');
    await doomed.start();
    const pending = post(handle.url, sleep(R, 5000), { ...doomed.headers(), accept: 'application/json' });
    await delay(100);
    const ended = await new Promise<number>((resolve, reject) => {
      http.request(handle.url, { method: 'DELETE', headers: doomed.headers(), agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject).end();
    });
    expect(ended).toBe(200);
    const reply = await pending;
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', id: R, error: { code: -32001 } });
  });

  it('an initialize refused at admission (maxSessions reached by a session in use, inside its grace): 503 with its id', async () => {
    const other = await serveHttp({ server: makeServer(recordingLogger([])), port: 0, host: '127.0.0.1', maxSessions: 1, sessionIdleTimeoutMs: 600_000 });
    try {
      const held = new StreamableWire('held', other.url, [], '2025-11-25');
      await held.start();
      // Two requests after the handshake (a ping does not count): the session keeps its sessionGraceMs, so it is not
      // reclaimed for the newcomer.
      await exchange(held, [JSON.stringify({ jsonrpc: '2.0', id: 'list-1', method: 'tools/list' })]);
      await exchange(held, [JSON.stringify({ jsonrpc: '2.0', id: 'list-2', method: 'tools/list' })]);
      const reply = await post(other.url, initialize('2025-11-25', R));
      expect(reply.status).toBe(503);
      expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', id: R, error: { code: -32000 } });
    } finally {
      await other.close();
    }
  });

  it('stdio: a readable id is echoed; a line that is not JSON, too deep or too long gets id null', async () => {
    const small = new StdioWire('stdio 1 KiB', ['1024']);
    try {
      await small.send(initialize('2025-11-25'));
      await waitFor(() => small.answers.length > 0, () => 'initialize');
      const got = await exchange(small, [
        '{"jsonrpc":"1.0","id":"r5","method":"ping"}',
        '{"jsonrpc":"2.0","id":"r5","method":"ping","params":3}',
        '{"jsonrpc":',
        `${'['.repeat(65)}${']'.repeat(65)}`,
        request({ params: { pad: 'x'.repeat(2048) } }),
      ]);
      expect(got.answers.map((m) => [(m as Message)['id'], ((m as Message)['error'] as Message | undefined)?.['code']])).toEqual([
        [R, -32600], [R, -32600], [null, -32700], [null, -32600], [null, -32600],
      ]);
    } finally {
      await small.close();
    }
  });
});
