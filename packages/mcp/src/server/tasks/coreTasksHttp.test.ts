// 2025-11-25 core tasks over Streamable HTTP (the Web handler): a task survives the session that started it.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@switchboard/jsonrpc';
import { createMcpHttpHandler, type McpHttpHandler } from '../../transports/http/index.js';
import { McpServer } from '../mcpServer.js';

const URL_ = 'http://localhost/mcp';
let handler: McpHttpHandler | undefined;

afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

async function post(body: unknown, session?: string): Promise<{ status: number; session: string | null; body: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  if (session !== undefined) headers['mcp-session-id'] = session;
  const res = await handler!.fetch(new Request(URL_, { method: 'POST', headers, body: JSON.stringify(body) }));
  const text = await res.text();
  return { status: res.status, session: res.headers.get('mcp-session-id'), body: text === '' ? undefined : JSON.parse(text) };
}

async function open(): Promise<string> {
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
  expect(init.body).toMatchObject({ result: { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } } });
  const session = init.session as string;
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
  return session;
}

describe('2025-11-25 core tasks over Streamable HTTP', () => {
  it('creates a task, and a second session reads its result after the first one was deleted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger });
    server.tool('job', { task: { pollIntervalMs: 10 } }, async () => {
      await gate;
      return { content: [{ type: 'text', text: 'done' }] };
    });
    handler = createMcpHttpHandler({ server, responseMode: 'json' });
    const first = await open();
    const created = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'job', task: { ttl: 30_000 } } }, first);
    const taskId = (created.body as { result: { task: { taskId: string } } }).result.task.taskId;
    expect(created).toEqual({
      status: 200, session: first,
      body: { jsonrpc: '2.0', id: 1, result: { task: { taskId, status: 'working', createdAt: expect.any(String) as unknown, lastUpdatedAt: expect.any(String) as unknown, ttl: 30_000, pollInterval: 10 } } },
    });
    const deleted = await handler.fetch(new Request(URL_, { method: 'DELETE', headers: { 'mcp-session-id': first, 'mcp-protocol-version': '2025-11-25' } }));
    expect(deleted.status).toBe(200);
    const second = await open();
    const result = post({ jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId } }, second);
    release();
    expect(await result).toEqual({
      status: 200, session: second,
      body: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'done' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId } } } },
    });
    expect(await post({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId } }, second)).toMatchObject({ status: 200, body: { id: 3, result: { taskId, status: 'completed' } } });
  });
});
