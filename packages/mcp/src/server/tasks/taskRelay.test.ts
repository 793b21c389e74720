// Two McpServers of one cluster in one process (a shared InMemoryTaskStore, InMemoryClusterBus and
// InMemoryLeaseStore): a 2026-07-28 tasks/update that lands on B reaches the task running on A; when A is gone the
// task fails and the update says so; when A does not answer the update is refused, never acknowledged and lost.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { InMemoryClusterBus } from '../../stores/clusterBus.js';
import { InMemoryLeaseStore } from '../../stores/leaseStore.js';
import { InMemoryTaskStore } from '../../stores/taskStore.js';
import type { ClientChannel } from '../channel.js';
import { McpServer } from '../mcpServer.js';
import type { ServerClusterOptions } from '../options.js';

const TASKS = 'io.modelcontextprotocol/tasks';

const channel: ClientChannel = {
  notify: () => Promise.resolve(),
  request: () => Promise.reject(new Error('a modern request never reaches the client with a request')),
};

let nextId = 1;
const servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function call(s: McpServer, method: string, params: Record<string, unknown>): Promise<JsonRpcResponse> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} }, elicitation: {} },
  };
  const message: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta } };
  return s.handle(message, { channel }) as Promise<JsonRpcResponse>;
}

async function result(s: McpServer, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await call(s, method, params);
  if (!('result' in response)) throw new Error(`Expected a result, got ${JSON.stringify(response)}`);
  return response.result as Record<string, any>;
}

async function until(s: McpServer, taskId: string, done: (task: Record<string, any>) => boolean): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i++) {
    const task = await result(s, 'tasks/get', { taskId });
    if (done(task)) return task;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`Task ${taskId} never got there`);
}

/** One cluster's shared parts, and its instances. */
function cluster(shared: { leases?: InMemoryLeaseStore; forwardTimeoutMs?: number } = {}) {
  const taskStore = new InMemoryTaskStore();
  const bus = new InMemoryClusterBus();
  return (instanceId: string): McpServer => {
    const options: ServerClusterOptions = { bus, instanceId, ...shared };
    const s = new McpServer({ name: instanceId, version: '1' }, { logger: silentLogger, taskStore, cluster: options });
    s.tool('ask', { task: true }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'name' });
      return { content: [{ type: 'text', text: `${instanceId} heard ${String(answer.content?.name)}` }] };
    });
    servers.push(s);
    return s;
  };
}

async function askOn(a: McpServer): Promise<string> {
  const taskId = (await result(a, 'tools/call', { name: 'ask', arguments: {} })).taskId as string;
  await until(a, taskId, (t) => t.status === 'input_required');
  return taskId;
}

const ANSWER = { name: { action: 'accept', content: { name: 'Ada' } } };

describe('tasks of a cluster (McpServerOptions.cluster)', () => {
  it('hands the input responses of a tasks/update on B to the task running on A, and acknowledges only then', async () => {
    const join = cluster({ leases: new InMemoryLeaseStore() });
    const a = join('a');
    const b = join('b');
    const taskId = await askOn(a);
    expect(await result(b, 'tasks/get', { taskId })).toMatchObject({ status: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    expect(await result(b, 'tasks/update', { taskId, inputResponses: ANSWER })).toMatchObject({ resultType: 'complete' });
    expect(await until(b, taskId, (t) => t.status === 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'a heard Ada' }] } });
  });

  it('fails the task (-32603 instance_lost) when the instance running it is gone, and answers the update so', async () => {
    const leases = new InMemoryLeaseStore();
    const join = cluster({ leases });
    const a = join('a');
    const b = join('b');
    const taskId = await askOn(a);
    // A stops without ending its work in the store (as a killed process): its lease goes, the record stays.
    await a.close();
    expect((await result(b, 'tasks/get', { taskId })).status).toBe('input_required');
    const response = await call(b, 'tasks/update', { taskId, inputResponses: ANSWER });
    expect(response).toMatchObject({ error: { code: -32603, data: { reason: 'instance_lost', taskId } } });
    expect(await result(b, 'tasks/get', { taskId })).toMatchObject({ status: 'failed', error: { code: -32603, data: { reason: 'instance_lost' } } });
  });

  it('refuses the update (-32603 instance_unreachable) when the instance running it does not answer in time, leaving the task as it is', async () => {
    const join = cluster({ forwardTimeoutMs: 50 });
    const a = join('a');
    const b = join('b');
    const taskId = await askOn(a);
    await a.close();
    const response = await call(b, 'tasks/update', { taskId, inputResponses: ANSWER });
    expect(response).toMatchObject({ error: { code: -32603, data: { reason: 'instance_unreachable', taskId } } });
    expect((await result(b, 'tasks/get', { taskId })).status).toBe('input_required');
  });

  it('checks the cluster option', () => {
    const bus = new InMemoryClusterBus();
    expect(() => new McpServer({ name: 's', version: '1' }, { cluster: { bus, instanceId: 'a:b' } })).toThrow(TypeError);
    expect(() => new McpServer({ name: 's', version: '1' }, { cluster: { bus: {} as InMemoryClusterBus, instanceId: 'a' } })).toThrow(TypeError);
    expect(() => new McpServer({ name: 's', version: '1' }, { cluster: { bus, instanceId: 'a', forwardTimeoutMs: 0 } })).toThrow(RangeError);
  });
});
