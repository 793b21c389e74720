/**
 * The session record holds what another instance needs to serve a resume (the stream prefix of the session's SSE
 * event ids and the negotiated revision), as plain JSON, and the `Last-Event-ID` ownership check reads the prefix
 * from the record.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/index.js';
import { closeRequestSseStream, createMcpHttpHandler } from '../index.js';
import { InMemoryEventStore, InMemorySessionStore } from '../../../stores/index.js';
import type { McpHttpHandler } from '../index.js';
import type { SessionRecord } from '../../../stores/index.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
});

function handlerWith(sessionStore: InMemorySessionStore): McpHttpHandler {
  const server = new McpServer({ name: 'record-test', version: '1.0.0' }, { logger: silentLogger });
  // Closes its POST stream on purpose (SSE polling), so the client resumes it to get the result.
  server.tool('poll', {}, async (_args, ctx) => {
    closeRequestSseStream(ctx, { retryMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    return { content: [{ type: 'text', text: 'polled' }] };
  });
  return createMcpHttpHandler({ server, sessionStore, eventStore: new InMemoryEventStore(), responseMode: 'sse', logger: silentLogger });
}

function send(handler: McpHttpHandler, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Response> {
  return handler.fetch(new Request('http://localhost/mcp', { method: init.method, body: init.body, headers: { ...HEADERS, ...init.headers } }));
}

/** initialize + `notifications/initialized`; the session's headers. */
async function open(handler: McpHttpHandler): Promise<Record<string, string>> {
  const res = await send(handler, { method: 'POST', body: INIT });
  expect(res.status).toBe(200);
  await res.text();
  const headers = { 'mcp-session-id': res.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-11-25' };
  const ack = await send(handler, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  expect(ack.status).toBe(202);
  return headers;
}

/** The SSE event ids of a ping's POST stream (its priming event and its response). */
async function pingEventIds(handler: McpHttpHandler, headers: Record<string, string>): Promise<string[]> {
  const res = await send(handler, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  const text = await res.text();
  expect(text).toContain('data: {"jsonrpc":"2.0","id":1,"result":{}}');
  return [...text.matchAll(/^id: (.+)$/gmu)].map((m) => m[1] as string);
}

/** The priming event id of a `poll` call's POST stream, once its result is stored. */
async function pollPrimingId(handler: McpHttpHandler, headers: Record<string, string>): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'poll', arguments: {} } });
  const text = await (await send(handler, { method: 'POST', headers, body })).text();
  expect(text).not.toContain('polled');
  await new Promise((resolve) => setTimeout(resolve, 30));
  return (/^id: (.+)$/mu.exec(text) as RegExpExecArray)[1] as string;
}

function resume(handler: McpHttpHandler, headers: Record<string, string>, lastEventId: string): Promise<Response> {
  return send(handler, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId } });
}

describe('the session record', () => {
  it('holds the stream prefix and the negotiated revision after initialize, and round-trips through JSON', async () => {
    const store = new InMemorySessionStore();
    const handler = handlerWith(store);
    const headers = await open(handler);
    const record = (await store.get(headers['mcp-session-id'] as string)) as SessionRecord;
    expect(record.protocolVersion).toBe('2025-11-25');
    expect(record.streamPrefix).toMatch(/^[0-9a-f]{32}\.$/u);
    expect(record.streamPrefix).not.toContain(headers['mcp-session-id']);
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
    const ids = await pingEventIds(handler, headers);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id.startsWith(record.streamPrefix as string)).toBe(true);
    await handler.close();
  });

  it('a resume with another session\'s event id is refused; with its own, replayed', async () => {
    const handler = handlerWith(new InMemorySessionStore());
    const a = await open(handler);
    const b = await open(handler);
    const priming = await pollPrimingId(handler, a);
    const foreign = await resume(handler, b, priming);
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: unknown Last-Event-ID' } });
    const own = await resume(handler, a, priming);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"text":"polled"');
    await handler.close();
  });

  it('the ownership check reads the prefix from the record, not from the process', async () => {
    // What another instance would see when the record says the session's streams start elsewhere.
    let rewrite = false;
    class Rewriting extends InMemorySessionStore {
      override async get(sessionId: string): Promise<SessionRecord | undefined> {
        const record = await super.get(sessionId);
        return record === undefined || !rewrite ? record : { ...record, streamPrefix: 'f'.repeat(32) + '.' };
      }
    }
    const handler = handlerWith(new Rewriting());
    const a = await open(handler);
    const priming = await pollPrimingId(handler, a);
    rewrite = true;
    expect((await resume(handler, a, priming)).status).toBe(400);
    rewrite = false;
    const own = await resume(handler, a, priming);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"text":"polled"');
    await handler.close();
  });
});
