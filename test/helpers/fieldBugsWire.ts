/**
 * What the field-bug replays of both eras share (test/field-bugs-eras.test.ts, test/field-bugs-cancel.test.ts):
 * message builders for the session-based revisions and 2026-07-28, the server under test, an in-memory client, a
 * stdio child process read line by line, and a POST that reads JSON or SSE answers.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ProtocolRevision } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, type RawClient } from '@switchboard/mcp/testing';
import { StdioLines } from './stdioLines.js';

export type Message = Record<string, unknown>;

export const FIXTURE = fileURLToPath(new URL('../fixtures/field-bugs-eras-server.mjs', import.meta.url));
export const MODERN = '2026-07-28';
export const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export const SUPPORTED = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const silent = { debug() {}, info() {}, warn() {}, error() {} };
export const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'field-bugs-eras', version: '0.0.1' } };
export const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A 2026-07-28 message: `_meta` over the required fields (`meta` replaces or adds fields). */
export function modern(id: number | string | undefined, method: string, params: Message = {}, meta: Message = {}): Message {
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params: { ...params, _meta: { ...META, ...meta } } };
}
export function legacy(id: number | string | undefined, method: string, params?: Message): Message {
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params === undefined ? {} : { params }) };
}
export const initialize = (id: string, revision: string, capabilities: Message = {}): Message =>
  legacy(id, 'initialize', { protocolVersion: revision, capabilities, clientInfo: { name: 'field-bugs', version: '0' } });
/** A modern-era complete result as the server sends it. */
export const complete = (result: Message): Message => ({ ...result, resultType: 'complete', _meta: SERVER_INFO });
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The server under test (in process): the tools the bugs need, and a count of handlers that saw the abort. */
export function makeServer(options: { revisions?: readonly ProtocolRevision[] } = {}): { server: McpServer; aborted: () => number } {
  let aborted = 0;
  const server = new McpServer({ name: 'field-bugs-eras', version: '0.0.1' }, {
    logger: silent,
    ...(options.revisions === undefined ? {} : { revisions: options.revisions }),
  });
  server.tool('add', {
    inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
  }, ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('none', {}, () => ({ content: [] }));
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `Hello ${String(answer.content?.name)}` }] };
  });
  // The same request, the failure caught by the handler: what it sees says why.
  server.tool('ask_caught', {}, async (_args, ctx) => {
    try {
      await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [{ type: 'text', text: 'answered' }] };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `ask failed: ${(error as Error).message}` }] };
    }
  });
  server.tool('slow', {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => {
      aborted += 1;
      resolve();
    }));
    return { content: [{ type: 'text', text: 'cancelled, yet answered' }] };
  });
  return { server, aborted: () => aborted };
}

/** An in-memory client: `ask` sends a request and resolves with its response. */
export async function memory(server: McpServer): Promise<RawClient & { ask(message: Message): Promise<unknown> }> {
  const client = await connectRawClient(server);
  return Object.assign(client, {
    async ask(message: Message): Promise<unknown> {
      await client.send(message);
      return client.waitFor((m) => 'id' in m && m.id === message.id && !('method' in m));
    },
  });
}

export async function session(server: McpServer, revision: string, capabilities: Message = {}): Promise<Awaited<ReturnType<typeof memory>>> {
  const client = await memory(server);
  await client.ask(initialize('init', revision, capabilities));
  await client.send(legacy(undefined, 'notifications/initialized'));
  return client;
}

/** The field-bugs fixture as a child process, with what the tests read of it. */
export class StdioClient extends StdioLines {
  constructor() {
    super(FIXTURE);
  }

  /** Every line that carries `id` (responses and anything else). */
  withId(id: unknown): Message[] {
    return this.lines.filter((m) => m.id === id);
  }

  async initialize(): Promise<void> {
    await this.ask(initialize('init', '2025-11-25'));
    this.send(legacy(undefined, 'notifications/initialized'));
  }
}
/** A POST to `url` with the JSON body; the answer's status, selected headers and parsed body (JSON or the SSE `data`). */
export async function post(url: string, body: Message, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown;
  if (text === '') parsed = undefined;
  else if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)) as unknown);
    parsed = data.length === 1 ? data[0] : data;
  } else parsed = JSON.parse(text) as unknown;
  return { status: response.status, headers: response.headers, body: parsed };
}
/** The headers a 2026-07-28 client sends with `message` (MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata"). */
export function modernHeaders(message: Message, version = MODERN): Record<string, string> {
  const params = message.params as Message;
  return { 'mcp-protocol-version': version, 'mcp-method': String(message.method), ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}) };
}

export async function openHttpSession(url: string, revision: string, capabilities: Message = {}): Promise<Record<string, string>> {
  const answer = await post(url, initialize('init', revision, capabilities));
  const headers = { 'mcp-session-id': answer.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': revision };
  expect((await post(url, legacy(undefined, 'notifications/initialized'), headers)).status).toBe(202);
  return headers;
}
/** Waits until `check` holds, polling every 10 ms, for at most 5 s. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 5000) throw new Error(`not within 5 s: ${what}`);
    await sleep(10);
  }
}
