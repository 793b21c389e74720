/**
 * One inbound step, the same answer on every transport: the same message sent over stdio (a real child
 * process), over the in-memory transport and over Streamable HTTP (a real server on 127.0.0.1) gets the same
 * JSON-RPC error (code, message, data). The three servers are built alike (one tool), from the built package.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@switchboard/mcp/server';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { connectRawClient } from '@switchboard/mcp/testing';
import { endStdin, stopByPid } from './helpers/process.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
/** Every revision, newest first: the default server is dual-era. */
const SUPPORTED = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'same-answer', version: '0' } };
const silent = { debug() {}, info() {}, warn() {}, error() {} };

type Message = Record<string, unknown>;
/** What one transport answered: the JSON-RPC error member, and the HTTP status where there is one. */
interface Answer {
  readonly error: unknown;
  readonly status?: number;
}
/** One connection of one transport: `ask` sends a request and resolves with its answer; `tell` sends a notification. */
interface Wire {
  ask(message: Message): Promise<Answer>;
  tell(message: Message): Promise<void>;
  close(): Promise<void>;
}

/** A stdio child process, its stdout read line by line. */
function stdioWire(): Wire {
  const proc: ChildProcessWithoutNullStreams = spawn(process.execPath, [FIXTURE], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Message[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as Message);
      buffer = buffer.slice(nl + 1);
    }
    for (const wake of [...waiters]) wake();
  });
  proc.stderr.resume();
  const answerTo = (id: unknown): Promise<Message> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stdio: no answer to ${JSON.stringify(id)}`)), 10_000);
      const check = (): void => {
        const found = lines.find((m) => m.id === id && !('method' in m));
        if (found === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      waiters.add(check);
      check();
    });
  return {
    async ask(message) {
      proc.stdin.write(`${JSON.stringify(message)}\n`);
      return { error: (await answerTo(message.id)).error };
    },
    tell(message) {
      proc.stdin.write(`${JSON.stringify(message)}\n`);
      return Promise.resolve();
    },
    async close() {
      try {
        await endStdin(proc);
      } finally {
        stopByPid(proc);
      }
    },
  };
}

function makeServer(): McpServer {
  const server = new McpServer({ name: 'same-answer', version: '0' }, { logger: silent });
  server.tool('echo', {}, () => ({ content: [] }));
  return server;
}

async function memoryWire(): Promise<Wire> {
  const client = await connectRawClient(makeServer());
  return {
    async ask(message) {
      await client.send(message);
      return { error: ((await client.waitFor((m) => 'id' in m && m.id === message.id && !('method' in m))) as { error?: unknown }).error };
    },
    tell: (message) => client.send(message),
    close: () => client.close(),
  };
}

let http: ServeHttpHandle;

/** One Streamable HTTP session (its id learnt from the `initialize` answer); JSON answers only here. */
function httpWire(): Wire {
  let session: string | undefined;
  const post = async (message: Message): Promise<Response> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const claim = ((message.params as Message | undefined)?._meta as Message | undefined)?.['io.modelcontextprotocol/protocolVersion'];
    // A modern message carries the headers a 2026-07-28 client sends (MCP 2026-07-28 basic/transports/
    // streamable-http.mdx "Request Metadata Headers"); the session's id means nothing to it.
    if (typeof claim === 'string') {
      Object.assign(headers, { 'mcp-protocol-version': claim, 'mcp-method': message.method });
      const p = message.params as Message | undefined;
      const name = p?.name ?? p?.uri ?? p?.taskId;
      if (typeof name === 'string') headers['mcp-name'] = name;
    }
    else if (session !== undefined) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    const response = await fetch(http.url, { method: 'POST', headers, body: JSON.stringify(message) });
    session ??= response.headers.get('mcp-session-id') ?? undefined;
    return response;
  };
  return {
    async tell(message) {
      const response = await post(message);
      expect(response.status).toBe(202);
      await response.body?.cancel();
    },
    async ask(message) {
      const response = await post(message);
      const text = await response.text();
      const body = response.headers.get('content-type')?.startsWith('text/event-stream') === true ? JSON.parse(/^data: (.*)$/m.exec(text)![1]!) : JSON.parse(text);
      return { error: (body as Message).error, status: response.status };
    },
    close: () => Promise.resolve(),
  };
}

const TRANSPORTS = { stdio: stdioWire, memory: memoryWire, http: httpWire } as const;

/** Opens a connection on every transport, `initialize`d (then `notifications/initialized`) when asked. */
async function everyTransport(initialized: boolean): Promise<Record<keyof typeof TRANSPORTS, Wire>> {
  const wires = {} as Record<keyof typeof TRANSPORTS, Wire>;
  for (const [name, open] of Object.entries(TRANSPORTS) as [keyof typeof TRANSPORTS, () => Wire | Promise<Wire>][]) {
    const wire = await open();
    if (initialized) {
      expect(await wire.ask({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT_PARAMS })).toMatchObject({ error: undefined });
      await wire.tell({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    wires[name] = wire;
  }
  return wires;
}

async function closeAll(wires: Record<string, Wire>): Promise<void> {
  await Promise.all(Object.values(wires).map((w) => w.close()));
}

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
/** A 2026-07-28 request, its `_meta` over the required fields. */
const modern = (id: number, method: string, meta: Message = {}, params: Message = {}): Message => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...MODERN_META, ...meta } } });
const unsupportedClaim = (id: number): Message => modern(id, 'tools/list', { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
const UNSUPPORTED = {
  code: -32022,
  message: `Unsupported protocol version: "2099-01-01" (this server supports ${SUPPORTED.join(', ')})`,
  data: { supported: SUPPORTED, requested: '2099-01-01' },
};
/** The modern refusals of the inbound step: the same on every transport that reaches it. */
const MODERN_REFUSALS: readonly (readonly [message: (id: number) => Message, error: unknown])[] = [
  [(id) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }),
    { code: -32602, message: 'Invalid params: "io.modelcontextprotocol/clientCapabilities" is required in params._meta (an object)' }],
  [(id) => modern(id, 'ping'), { code: -32601, message: 'Method not found: "ping" (not a method of 2026-07-28)' }],
  [(id) => modern(id, 'initialize', {}, INIT_PARAMS), { code: -32601, message: 'Method not found: "initialize" (not a method of 2026-07-28)' }],
  [(id) => modern(id, 'prompts/list'), { code: -32601, message: 'Method not found: "prompts/list" (the server does not advertise the "prompts" capability)' }],
  [(id) => modern(id, 'tasks/get', {}, { taskId: 't' }), {
    code: -32021,
    message: 'Missing required client capability: "tasks/get" needs the "io.modelcontextprotocol/tasks" extension',
    data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
  }],
];

beforeAll(async () => {
  http = await serveHttp({ server: makeServer(), port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await http.close();
});

describe('the same inbound message gets the same answer over stdio, in memory and over Streamable HTTP', () => {
  it('a request claiming a revision not served: -32022 with data.supported and data.requested, HTTP 400, before initialize', async () => {
    const wires = await everyTransport(false);
    try {
      expect(await wires.stdio.ask(unsupportedClaim(1))).toEqual({ error: UNSUPPORTED });
      expect(await wires.memory.ask(unsupportedClaim(1))).toEqual({ error: UNSUPPORTED });
      expect(await wires.http.ask(unsupportedClaim(1))).toEqual({ error: UNSUPPORTED, status: 400 });
    } finally {
      await closeAll(wires);
    }
  });

  it('the same claim inside an initialized session: -32022 again, HTTP 400', async () => {
    const wires = await everyTransport(true);
    try {
      expect(await wires.stdio.ask(unsupportedClaim(2))).toEqual({ error: UNSUPPORTED });
      expect(await wires.memory.ask(unsupportedClaim(2))).toEqual({ error: UNSUPPORTED });
      expect(await wires.http.ask(unsupportedClaim(2))).toEqual({ error: UNSUPPORTED, status: 400 });
    } finally {
      await closeAll(wires);
    }
  });

  it.each([false, true])('the modern refusals (envelope, removed method, capability, tasks extension) over stdio, in memory and over Streamable HTTP, initialized: %s', async (initialized) => {
    const wires = await everyTransport(initialized);
    try {
      let id = 100;
      for (const [message, error] of MODERN_REFUSALS) {
        id += 1;
        expect({ id, answer: await wires.stdio.ask(message(id)) }).toEqual({ id, answer: { error } });
        expect({ id, answer: await wires.memory.ask(message(id)) }).toEqual({ id, answer: { error } });
        // Over Streamable HTTP with the statuses of the modern path: 404 for -32601, 400 for the others.
        const status = (error as { code: number }).code === -32601 ? 404 : 400;
        expect({ id, answer: await wires.http.ask(message(id)) }).toEqual({ id, answer: { error, status } });
      }
    } finally {
      await closeAll(wires);
    }
  });


  it('an unknown method in a session: -32601 naming it', async () => {
    const wires = await everyTransport(true);
    const unknown = { jsonrpc: '2.0', id: 3, method: 'nope/x' };
    const error = { code: -32601, message: 'Method not found: "nope/x"' };
    try {
      expect(await wires.stdio.ask(unknown)).toEqual({ error });
      expect(await wires.memory.ask(unknown)).toEqual({ error });
      expect(await wires.http.ask(unknown)).toEqual({ error, status: 200 });
    } finally {
      await closeAll(wires);
    }
  });

  it('a second initialize (B30): -32600 and the session is kept, HTTP 400', async () => {
    const wires = await everyTransport(true);
    const again = { jsonrpc: '2.0', id: 4, method: 'initialize', params: INIT_PARAMS };
    const error = { code: -32600, message: 'Invalid Request: the session is already initialized' };
    try {
      expect(await wires.stdio.ask(again)).toEqual({ error });
      expect(await wires.memory.ask(again)).toEqual({ error });
      expect(await wires.http.ask(again)).toEqual({ error, status: 400 });
      // Still served afterwards.
      for (const wire of Object.values(wires)) expect(await wire.ask({ jsonrpc: '2.0', id: 5, method: 'ping' })).toMatchObject({ error: undefined });
    } finally {
      await closeAll(wires);
    }
  });

  it('a request before initialize: -32600 "not initialized" on stdio and in memory', async () => {
    const wires = await everyTransport(false);
    const early = { jsonrpc: '2.0', id: 6, method: 'tools/list' };
    const error = { code: -32600, message: 'Invalid Request: the session is not initialized: send "initialize" first' };
    try {
      expect(await wires.stdio.ask(early)).toEqual({ error });
      expect(await wires.memory.ask(early)).toEqual({ error });
      // On Streamable HTTP a request before initialize has no session to name: the transport refuses it before
      // the inbound step (MCP 2025-11-25 basic/transports.mdx "Session Management"), with no id.
      expect(await wires.http.ask(early)).toEqual({ error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, status: 400 });
    } finally {
      await closeAll(wires);
    }
  });
});
