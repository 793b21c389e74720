// The conformance server's task fixtures (examples/conformance-server/taskTools.js), through the published
// package: the 2026-07-28 extension answered by McpServer.handle with the request's facts.
import { silentLogger, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { McpServer } from '@switchboard/mcp/server';
import { afterEach, describe, expect, it } from 'vitest';
import { registerTaskTools } from '../examples/conformance-server/taskTools.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const channel = { notify: () => Promise.resolve(), request: () => Promise.reject(new Error('no client requests in 2026')) };
/** The request's `_meta` envelope (MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"). */
const envelope = (clientCapabilities: Record<string, unknown>): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'suite', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
});

let server: McpServer | undefined;
let id = 1;
afterEach(async () => {
  await server?.close();
});

async function ask(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = { extensions: { [TASKS]: {} }, elicitation: {} }): Promise<JsonRpcResponse> {
  return (await server!.handle({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: envelope(capabilities) } }, { channel })) as JsonRpcResponse;
}

async function settled(taskId: string, until: (status: string) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const got = (await ask('tasks/get', { taskId })) as { result: Record<string, unknown> };
    if (until(got.result.status as string)) return got.result;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('never settled');
}

describe('conformance task fixtures', () => {
  it('serve the tasks-* scenarios: sync greet, task slow_compute, failing_job completed with isError, protocol_error_job failed, confirm_delete input round trip', async () => {
    server = new McpServer({ name: 'c', version: '1' }, { logger: silentLogger });
    registerTaskTools(server);
    expect(await ask('tools/call', { name: 'greet', arguments: { name: 'World' } })).toMatchObject({ result: { content: [{ type: 'text', text: 'Hello, World!' }] } });
    const slow = (await ask('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'x' } })) as { result: { resultType: string; taskId: string } };
    expect(slow.result).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 200 });
    expect(await settled(slow.result.taskId, (s) => s !== 'working')).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Computed x in 0s' }] } });

    expect(await ask('tools/call', { name: 'failing_job' }, {})).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } } });
    const failing = (await ask('tools/call', { name: 'failing_job' })) as { result: { taskId: string } };
    expect(await settled(failing.result.taskId, (s) => s !== 'working')).toMatchObject({ status: 'completed', result: { isError: true } });
    const crash = (await ask('tools/call', { name: 'protocol_error_job' })) as { result: { taskId: string } };
    const crashed = await settled(crash.result.taskId, (s) => s !== 'working');
    expect(crashed).toMatchObject({ status: 'failed', error: { code: -32603, message: 'Internal error: the job crashed' } });
    expect(crashed).not.toHaveProperty('result');

    const confirm = (await ask('tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } })) as { result: { taskId: string } };
    const waiting = await settled(confirm.result.taskId, (s) => s === 'input_required');
    const keys = Object.keys(waiting.inputRequests as object);
    expect(keys).toEqual(['elicitation-0']);
    expect(await ask('tasks/update', { taskId: confirm.result.taskId, inputResponses: { [keys[0]!]: { action: 'accept', content: { confirm: true } } } })).toMatchObject({ result: { resultType: 'complete' } });
    expect(await settled(confirm.result.taskId, (s) => s === 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'Deleted a.txt' }] } });

    const long = (await ask('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } })) as { result: { taskId: string } };
    expect(await ask('tasks/cancel', { taskId: long.result.taskId })).toMatchObject({ result: { resultType: 'complete' } });
    expect(await settled(long.result.taskId, (s) => s !== 'working')).toMatchObject({ status: 'cancelled' });
  });
});
