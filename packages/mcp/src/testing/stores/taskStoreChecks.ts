/**
 * The {@link TaskStore} checks of the conformance kit, from what `InMemoryTaskStore` promises and the task runner
 * and the `tasks/*` methods rely on: a task's life (created `working`, updated with its whole status part, final
 * states final), its TTL (gone from every method once it passed), listing oldest first per owner with opaque
 * cursors, instances sharing the store answering for each other's tasks, and per-caller bounds (a caller's burst
 * never pushes out another caller's finished task; a live task is never evicted; a result no share can hold fails
 * the task with why).
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx; the 2026-07-28 extension `io.modelcontextprotocol/tasks`
 */
import type { TaskStore } from '../../stores/taskStore.js';
import { assertEqual, assertRejects, assertTrue, makeCheck, sleep, type CheckContext, type ConformanceFactory, type ConformanceTaskStoreLimits, type StoreCheck } from './conformanceKit.js';

const RESULT = { content: [{ type: 'text', text: 'done' }] };

async function ids(store: TaskStore, options?: Parameters<TaskStore['list']>[0]): Promise<string[]> {
  return (await store.list(options)).tasks.map((t) => t.taskId);
}

/** The task store checks, for `factory`. */
export function taskStoreChecks(factory: ConformanceFactory<TaskStore, ConformanceTaskStoreLimits>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, limits: ConformanceTaskStoreLimits = {}, space = ctx.space()) => ctx.open(factory, space, limits);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'TaskStore', name, deliveryTimeoutMs }, body);
  return [
    check('creates a working task, refuses a duplicate id and a TTL that is not positive', async (ctx) => {
      const s = await open(ctx);
      const before = Date.now();
      const created = await s.create({ taskId: 'a', ttlMs: 60_000, pollIntervalMs: 50, owner: 'alice', caller: 'address:a', runner: 'instance-1' });
      const { createdAtMs, updatedAtMs, ...rest } = created;
      assertEqual(rest, { taskId: 'a', status: 'working', ttlMs: 60_000, pollIntervalMs: 50, owner: 'alice', caller: 'address:a', runner: 'instance-1' }, 'the created record');
      assertTrue(createdAtMs >= before - 1000 && createdAtMs <= Date.now() + 1000 && updatedAtMs === createdAtMs, `createdAtMs and updatedAtMs are the creation time (got ${createdAtMs}, ${updatedAtMs})`);
      assertEqual(await s.get('a'), created, 'get returns what create returned');
      const bare = await s.create({ taskId: 'b', ttlMs: 60_000 });
      assertEqual(Object.keys(bare).sort(), ['createdAtMs', 'status', 'taskId', 'ttlMs', 'updatedAtMs'], 'a record has no keys for options not given');
      await assertRejects(() => s.create({ taskId: 'a', ttlMs: 5 }), { type: TypeError, what: 'a duplicate id', part: 'Task already exists: "a"' });
      await assertRejects(() => s.create({ taskId: 'c', ttlMs: 0 }), { type: TypeError, what: 'a TTL of 0' });
      await assertRejects(() => s.create({ taskId: 'd', ttlMs: -1 }), { type: TypeError, what: 'a negative TTL' });
      assertEqual(await s.get('nope'), undefined, 'an unknown task');
      assertEqual((await s.update('a', { status: 'input_required' }))?.runner, 'instance-1', 'an update keeps the runner (where a cluster forwards input)');
    }),
    check('an update replaces the whole status part; a final task never changes again', async (ctx) => {
      const s = await open(ctx);
      await s.create({ taskId: 't', ttlMs: 60_000, pollIntervalMs: 2, owner: 'o' });
      const inputRequests = { 'elicitation-0': { method: 'elicitation/create', params: { message: 'Name?' } } };
      const waiting = await s.update('t', { status: 'input_required', statusMessage: 'asking', inputRequests });
      assertEqual(waiting && { ...waiting, createdAtMs: 0, updatedAtMs: 0 }, { taskId: 't', status: 'input_required', statusMessage: 'asking', inputRequests, createdAtMs: 0, updatedAtMs: 0, ttlMs: 60_000, pollIntervalMs: 2, owner: 'o' }, 'the waiting task');
      const failed = await s.update('t', { status: 'failed', error: { code: -32603, message: 'Internal error' } });
      assertEqual(failed && { ...failed, createdAtMs: 0, updatedAtMs: 0 }, { taskId: 't', status: 'failed', error: { code: -32603, message: 'Internal error' }, createdAtMs: 0, updatedAtMs: 0, ttlMs: 60_000, pollIntervalMs: 2, owner: 'o' }, 'the failed task: the input requests and the message are gone');
      assertTrue(failed !== undefined && failed.updatedAtMs >= failed.createdAtMs, 'updatedAtMs is not before createdAtMs');
      assertEqual(await s.get('t'), failed, 'get returns what update returned');
      await assertRejects(() => s.update('t', { status: 'working' }), { type: TypeError, what: 'an update of a final task', part: 'Task is already final: "t" is "failed"' });
      assertEqual(await s.update('nope', { status: 'completed' }), undefined, 'an update of an unknown task');
      for (const status of ['completed', 'cancelled'] as const) {
        await s.create({ taskId: status, ttlMs: 60_000 });
        await s.update(status, { status, ...(status === 'completed' ? { result: RESULT } : {}) });
        await assertRejects(() => s.update(status, { status: 'working' }), { type: TypeError, what: `an update of a ${status} task` });
      }
      assertEqual((await s.get('completed'))?.result, RESULT, 'the result of a completed task');
    }),
    check('a task is gone from get, update, list and delete once its TTL passed', async (ctx) => {
      const s = await open(ctx);
      await s.create({ taskId: 'short', ttlMs: 150 });
      await s.create({ taskId: 'long', ttlMs: 60_000 });
      assertEqual(await ids(s), ['short', 'long'], 'both listed at first');
      await sleep(400);
      assertEqual(await s.get('short'), undefined, 'get after the TTL');
      assertEqual(await s.update('short', { status: 'completed' }), undefined, 'update after the TTL');
      assertEqual(await ids(s), ['long'], 'list after the TTL');
      assertEqual(await s.delete('short'), false, 'delete after the TTL');
      assertEqual([await s.delete('long'), await s.delete('long')], [true, false], 'delete of a live task, twice');
      assertEqual(await s.list(), { tasks: [] }, 'the list at the end');
    }),
    check('lists oldest first, per owner, in pages whose cursors survive deletions; refuses a cursor it did not issue', async (ctx) => {
      const s = await open(ctx);
      for (const id of ['a', 'b', 'c', 'd', 'e']) await s.create({ taskId: id, ttlMs: 60_000, owner: id === 'c' ? 'bob' : 'alice' });
      const first = await s.list({ owner: 'alice', limit: 2 });
      assertEqual(first.tasks.map((t) => t.taskId), ['a', 'b'], 'the first page');
      assertTrue(typeof first.nextCursor === 'string', 'the first page has a cursor');
      await s.delete('d');
      const second = await s.list({ owner: 'alice', limit: 2, cursor: first.nextCursor });
      assertEqual([second.tasks.map((t) => t.taskId), second.nextCursor], [['e'], undefined], 'the last page');
      assertEqual(await ids(s, { owner: 'bob' }), ['c'], "bob's tasks");
      assertEqual(await ids(s), ['a', 'b', 'c', 'e'], 'every task');
      await assertRejects(() => s.list({ cursor: 'nope' }), { type: TypeError, what: 'a cursor the store did not issue', part: 'Invalid task cursor' });
    }),
    check("instances sharing the store read, update and cancel each other's tasks", async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, {}, space);
      const b = await open(ctx, {}, space);
      const created = await a.create({ taskId: 'shared', ttlMs: 60_000, owner: 'alice' });
      assertEqual(await b.get('shared'), created, 'the other instance reads the task');
      const cancelled = await b.update('shared', { status: 'cancelled', statusMessage: 'by the user' });
      assertEqual(await a.get('shared'), cancelled, 'the first instance reads the cancellation');
      await assertRejects(() => a.update('shared', { status: 'completed', result: RESULT }), { type: TypeError, what: 'a result after the other instance cancelled' });
      assertEqual(await ids(b, { owner: 'alice' }), ['shared'], "the other instance lists alice's task");
      assertEqual(await ids(await open(ctx)), [], 'an instance of another space lists nothing');
    }),
    check("a caller's burst of finished tasks evicts only its own oldest; a live task is never evicted", async (ctx) => {
      const s = await open(ctx, { maxTasks: 100, maxTasksPerCaller: 3 });
      await s.create({ taskId: 'victim', ttlMs: 60_000, caller: 'address:b' });
      await s.update('victim', { status: 'completed', result: RESULT });
      await s.create({ taskId: 'live', ttlMs: 60_000, caller: 'address:a' });
      for (let i = 0; i < 12; i++) {
        await s.create({ taskId: `burst-${i}`, ttlMs: 60_000, caller: 'address:a' });
        await s.update(`burst-${i}`, { status: 'completed', result: RESULT });
      }
      assertEqual((await s.get('victim'))?.status, 'completed', "the other caller's finished task");
      assertEqual((await s.get('live'))?.status, 'working', "the caller's own live task");
      assertEqual(await ids(s), ['victim', 'live', 'burst-10', 'burst-11'], 'what is kept');
    }),
    check('a result larger than a caller may keep fails the task with why', async (ctx) => {
      const s = await open(ctx, { maxStoredBytesPerCaller: 4000 });
      await s.create({ taskId: 'huge', ttlMs: 60_000, caller: 'e' });
      const failed = await s.update('huge', { status: 'completed', result: { content: [{ type: 'text', text: 'y'.repeat(5000) }] } });
      assertEqual(failed && { status: failed.status, error: failed.error }, { status: 'failed', error: { code: -32603, message: 'Task result too large to keep', data: { resultBytes: failed?.error?.data && (failed.error.data as { resultBytes: number }).resultBytes, maxResultBytes: 4000 } } }, 'the task that could not keep its result');
      assertTrue(((failed?.error?.data as { resultBytes?: number } | undefined)?.resultBytes ?? 0) > 4000, 'resultBytes is the size of the result');
    }),
  ];
}
