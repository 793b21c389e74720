/**
 * Tasks through the proxy, in process: a session-based-only upstream (2025-11-25 core tasks) behind the proxy,
 * the front driven by our own client in both eras (2026-07-28 with the tasks extension, 2025-11-25 core tasks):
 * the task's status, its result, a JSON-RPC failure, an input request inside the task, and a cancel on the front
 * that cancels the upstream task.
 */
import { describe, expect, it } from 'vitest';
import { McpError } from '@switchboard/mcp';
import { ConnectionRefusedError, McpClient, type InputContext } from '@switchboard/mcp/client';
import { McpServer, type RequestContext } from '@switchboard/mcp/server';
import { inMemoryConnector } from '@switchboard/mcp/testing';
import { createProxyServer } from '../index.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const FAST = { pollIntervalMs: 100 };

/** The upstream: session-based revisions only, three task-capable tools and one plain. */
function upstreamServer(seen: { aborted?: boolean; taskIds: (string | undefined)[] }) {
  const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: ['2024-11-05', '2025-06-18', '2025-11-25'], logger: silent, tasks: FAST });
  upstream.tool('plain', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'plain' }] }));
  upstream.tool('slow', { inputSchema: { type: 'object', properties: { ms: { type: 'number' } } }, task: FAST }, async (args: Record<string, unknown>, ctx: RequestContext) => {
    seen.taskIds.push(ctx.taskId);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Number(args.ms ?? 50));
      ctx.signal.addEventListener('abort', () => {
        seen.aborted = true;
        clearTimeout(timer);
        reject(new Error('aborted'));
      }, { once: true });
    });
    return { content: [{ type: 'text', text: `slept ${Number(args.ms ?? 50)}` }] };
  });
  upstream.tool('confirm', { inputSchema: { type: 'object' }, task: { required: true, ...FAST } }, async (_args, ctx: RequestContext) => {
    const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return { content: [{ type: 'text', text: `answer ${JSON.stringify(answer.content ?? null)}` }] };
  });
  upstream.tool('crash', { inputSchema: { type: 'object' }, task: FAST }, () => {
    throw new McpError(-32603, 'Internal error: the job crashed');
  });
  return upstream;
}

async function setUp(era: 'modern' | 'legacy', asked: { ctx?: InputContext; params?: unknown }[] = []) {
  const seen: { aborted?: boolean; taskIds: (string | undefined)[] } = { taskIds: [] };
  const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen)), server: { logger: silent, tasks: FAST } });
  const client = await McpClient.connect({
    connector: inMemoryConnector(front),
    era,
    ...(era === 'legacy' ? { pin: '2025-11-25' as const } : {}),
    logger: silent,
    onElicitation: (params, ctx) => {
      asked.push({ ctx, params });
      return Promise.resolve({ action: 'accept', content: { ok: true } });
    },
  });
  await client.listAllTools();
  return { front, client, seen, close: async () => { await client.close(); await front.close(); } };
}

describe.each(['modern', 'legacy'] as const)('tasks through the proxy, front client %s', (era) => {
  it('lists the upstream task support and runs the call as an upstream task: status, then the result', async () => {
    const { client, seen, front, close } = await setUp(era);
    try {
      const listed = await client.listAllTools();
      if (era === 'legacy') {
        expect(listed.find((t) => t.name === 'slow')).toMatchObject({ execution: { taskSupport: 'optional' } });
        expect(listed.find((t) => t.name === 'confirm')).toMatchObject({ execution: { taskSupport: 'required' } });
        expect(listed.find((t) => t.name === 'plain')).not.toHaveProperty('execution');
      }
      const task = await client.callToolAsTask({ name: 'slow', arguments: { ms: 300 } });
      expect(task.taskId).toEqual(expect.any(String));
      expect(await task.poll()).toBe('working');
      expect(front.stats.upstreamTasks).toBe(1);
      const result = await task.result();
      expect(result.content).toEqual([{ type: 'text', text: 'slept 300' }]);
      // The upstream task's related-task _meta is not passed on; a 2025-11-25 front tags the result with its own task.
      expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual(era === 'legacy' ? { taskId: task.taskId } : undefined);
      // The upstream ran it as its own task (a different id), and nothing stays followed.
      expect(seen.taskIds).toEqual([expect.any(String)]);
      expect(seen.taskIds[0]).not.toBe(task.taskId);
      expect(front.stats.upstreamTasks).toBe(0);
    } finally {
      await close();
    }
  });

  it('asks the upstream task\'s question through the front task, attributed by task id', async () => {
    const asked: { ctx?: InputContext; params?: unknown }[] = [];
    const { client, close } = await setUp(era, asked);
    try {
      const task = await client.callToolAsTask({ name: 'confirm' });
      const result = await task.result();
      expect(result.content).toEqual([{ type: 'text', text: 'answer {"ok":true}' }]);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params).toMatchObject({ message: 'Sure?' });
      // The question belongs to the FRONT task (the upstream's related-task _meta is not passed on).
      expect(asked[0]?.ctx?.taskId).toBe(task.taskId);
      const related = (asked[0]?.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.['io.modelcontextprotocol/related-task'];
      expect(related).toEqual(era === 'legacy' ? { taskId: task.taskId } : undefined);
    } finally {
      await close();
    }
  });

  it('a JSON-RPC failure of the upstream task fails the front task with it (-32603 without the upstream\'s text)', async () => {
    const { client, close } = await setUp(era);
    try {
      const task = await client.callToolAsTask({ name: 'crash' });
      await expect(task.result()).rejects.toMatchObject({ code: -32603, message: 'Internal error' });
    } finally {
      await close();
    }
  });

  it('tasks/cancel on the front cancels the upstream task', async () => {
    const { client, seen, front, close } = await setUp(era);
    try {
      const task = await client.callToolAsTask({ name: 'slow', arguments: { ms: 30_000 } });
      await expect.poll(() => seen.taskIds.length).toBe(1);
      await task.cancel();
      await expect.poll(() => seen.aborted, { timeout: 3000 }).toBe(true);
      await expect.poll(() => front.stats.upstreamTasks).toBe(0);
      expect(await task.poll()).toBe('cancelled');
    } finally {
      await close();
    }
  });
});

describe('a task-required upstream tool, front client without tasks', () => {
  it('a 2025-06-18 client calls it plainly: the proxy runs it upstream as a task and answers the result', async () => {
    const asked: { ctx?: InputContext; params?: unknown }[] = [];
    const seen: { aborted?: boolean; taskIds: (string | undefined)[] } = { taskIds: [] };
    const front = await createProxyServer({ upstream: inMemoryConnector(upstreamServer(seen)), server: { logger: silent, tasks: FAST } });
    const client = await McpClient.connect({
      connector: inMemoryConnector(front),
      era: 'legacy',
      pin: '2025-06-18',
      logger: silent,
      onElicitation: (params, ctx) => {
        asked.push({ ctx, params });
        return Promise.resolve({ action: 'accept', content: { ok: false } });
      },
    });
    try {
      const result = await client.callTool({ name: 'confirm' });
      expect(result.content).toEqual([{ type: 'text', text: 'answer {"ok":false}' }]);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.ctx?.taskId).toBeUndefined();
    } finally {
      await client.close();
      await front.close();
    }
  });
});

describe('a tool the upstream runs only as a task, called plainly', () => {
  it('the upstream gone mid-task: an isError result in the proxy\'s words, as for any plain call (no address, no JSON-RPC error)', async () => {
    const upstream = new McpServer({ name: 'old', version: '1.0.0' }, { revisions: ['2024-11-05', '2025-06-18', '2025-11-25'], logger: silent, tasks: FAST });
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    upstream.tool('long', { inputSchema: { type: 'object' }, task: { required: true, ...FAST } }, async (_args, ctx: RequestContext) => {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return { content: [] };
    });
    const connector = inMemoryConnector(upstream);
    let dead = false;
    // Once dead, it cannot be reached again either (the address is the operator's, never the caller's).
    const gone = { ...connector, open: (options: Parameters<typeof connector.open>[0]) => (dead ? Promise.reject(new ConnectionRefusedError({ url: 'http://10.0.0.7:8080/mcp' })) : connector.open(options)) };
    const front = await createProxyServer({ upstream: gone, server: { logger: silent, tasks: FAST } });
    const client = await McpClient.connect({ connector: inMemoryConnector(front), era: 'legacy', pin: '2025-06-18', logger: silent });
    try {
      const call = client.callTool({ name: 'long' });
      await running;
      dead = true;
      await connector.drop();
      const result = await call;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/^\[\{"type":"text","text":"The upstream server is unavailable: (its connection ended|it refused the connection)"\}\]$/);
    } finally {
      await client.close();
      await front.close();
    }
  });
});
