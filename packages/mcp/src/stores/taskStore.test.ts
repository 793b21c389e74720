import { describe, expect, it } from 'vitest';
import { InMemoryTaskStore } from './taskStore.js';

describe('InMemoryTaskStore', () => {
  it('keeps at most maxTasks: past it the oldest finished task goes first, a live one never', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 3 });
    for (const id of ['a', 'b', 'c']) await store.create({ taskId: id, ttlMs: 60_000 });
    await store.update('b', { status: 'completed', result: { content: [] } });
    await store.create({ taskId: 'd', ttlMs: 60_000 });
    expect((await store.list()).tasks.map((t) => t.taskId)).toEqual(['a', 'c', 'd']);
    // Nothing finished: all live, kept (the server bounds live tasks itself).
    await store.create({ taskId: 'e', ttlMs: 60_000 });
    expect((await store.list()).tasks.map((t) => t.taskId)).toEqual(['a', 'c', 'd', 'e']);
    expect(() => new InMemoryTaskStore({ maxTasks: 0 })).toThrow(RangeError);
  });

  it('creates, reads, updates, lists and deletes tasks, and forgets them after their TTL', async () => {
    let now = 1000;
    const store = new InMemoryTaskStore({ now: () => now });
    expect(await store.create({ taskId: 'a', ttlMs: 100 })).toEqual({ taskId: 'a', status: 'working', createdAtMs: 1000, updatedAtMs: 1000, ttlMs: 100 });
    await store.create({ taskId: 'b', ttlMs: 1000, pollIntervalMs: 50, owner: 'alice' });
    await expect(store.create({ taskId: 'a', ttlMs: 5 })).rejects.toThrow('Task already exists: "a"');
    await expect(store.create({ taskId: 'c', ttlMs: 0 })).rejects.toThrow(TypeError);
    now = 1050;
    expect(await store.update('a', { status: 'completed', result: { content: [] } })).toEqual({
      taskId: 'a', status: 'completed', result: { content: [] }, createdAtMs: 1000, updatedAtMs: 1050, ttlMs: 100,
    });
    await expect(store.update('a', { status: 'working' })).rejects.toThrow('Task is already final: "a" is "completed"');
    expect((await store.list()).tasks.map((t) => t.taskId)).toEqual(['a', 'b']);
    now = 1100;
    expect(await store.get('a')).toBeUndefined();
    expect(await store.update('a', { status: 'failed' })).toBeUndefined();
    expect((await store.list()).tasks.map((t) => t.taskId)).toEqual(['b']);
    expect(await store.delete('b')).toBe(true);
    expect(await store.delete('b')).toBe(false);
    expect(await store.list()).toEqual({ tasks: [] });
  });

  it('replaces the whole status part on update: input requests go when the status moves on', async () => {
    const store = new InMemoryTaskStore({ now: () => 5 });
    await store.create({ taskId: 't', ttlMs: 10, pollIntervalMs: 2, owner: 'o' });
    const waiting = await store.update('t', { status: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: { message: 'Name?' } } } });
    expect(waiting).toEqual({
      taskId: 't', status: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: { message: 'Name?' } } },
      createdAtMs: 5, updatedAtMs: 5, ttlMs: 10, pollIntervalMs: 2, owner: 'o',
    });
    expect(await store.update('t', { status: 'failed', error: { code: -32603, message: 'Internal error' } })).toEqual({
      taskId: 't', status: 'failed', error: { code: -32603, message: 'Internal error' }, createdAtMs: 5, updatedAtMs: 5, ttlMs: 10, pollIntervalMs: 2, owner: 'o',
    });
  });

  it('pages by owner with opaque cursors that survive deletions, and refuses a cursor it did not issue', async () => {
    const store = new InMemoryTaskStore();
    for (const id of ['a', 'b', 'c', 'd', 'e']) await store.create({ taskId: id, ttlMs: 60_000, owner: id === 'c' ? 'bob' : 'alice' });
    const first = await store.list({ owner: 'alice', limit: 2 });
    expect(first.tasks.map((t) => t.taskId)).toEqual(['a', 'b']);
    expect(typeof first.nextCursor).toBe('string');
    await store.delete('d');
    const second = await store.list({ owner: 'alice', limit: 2, cursor: first.nextCursor });
    expect(second).toEqual({ tasks: [expect.objectContaining({ taskId: 'e' })] });
    expect((await store.list({ owner: 'bob' })).tasks.map((t) => t.taskId)).toEqual(['c']);
    await expect(store.list({ cursor: 'nope' })).rejects.toThrow('Invalid task cursor: "nope"');
    await expect(store.list({ cursor: '99' })).rejects.toThrow(TypeError);
  });

  it("keeps a caller's finished task for its TTL while another caller bursts: each caller's quota evicts only its own", async () => {
    const store = new InMemoryTaskStore({ maxTasks: 100, maxTasksPerCaller: 3 });
    await store.create({ taskId: 'victim', ttlMs: 60_000, caller: 'address:b' });
    await store.update('victim', { status: 'completed', result: { content: [] } });
    for (let i = 0; i < 20; i++) {
      await store.create({ taskId: `burst-${i}`, ttlMs: 60_000, caller: 'address:a' });
      await store.update(`burst-${i}`, { status: 'completed', result: { content: [] } });
    }
    expect(await store.get('victim')).toMatchObject({ status: 'completed' });
    expect(store.holding('address:a').tasks).toBe(3);
    expect((await store.list()).tasks.map((t) => t.taskId)).toEqual(['victim', 'burst-17', 'burst-18', 'burst-19']);
  });

  it('bounds stored bytes per caller and in total; a result no share can hold fails the task with why', async () => {
    const store = new InMemoryTaskStore({ maxStoredBytes: 10_000, maxStoredBytesPerCaller: 4000 });
    const result = { content: [{ type: 'text', text: 'x'.repeat(1500) }] };
    for (let i = 0; i < 5; i++) {
      await store.create({ taskId: `a${i}`, ttlMs: 60_000, caller: 'a' });
      await store.update(`a${i}`, { status: 'completed', result });
    }
    expect(store.holding('a').bytes).toBeLessThanOrEqual(4000);
    expect(store.holding('a').tasks).toBe(2);
    for (const caller of ['b', 'c', 'd']) {
      for (let i = 0; i < 2; i++) {
        await store.create({ taskId: `${caller}${i}`, ttlMs: 60_000, caller });
        await store.update(`${caller}${i}`, { status: 'completed', result });
      }
    }
    expect(store.storedBytes).toBeLessThanOrEqual(10_000);
    await store.create({ taskId: 'huge', ttlMs: 60_000, caller: 'e' });
    const failed = await store.update('huge', { status: 'completed', result: { content: [{ type: 'text', text: 'y'.repeat(5000) }] } });
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: 'Task result too large to keep', data: { maxResultBytes: 4000 } } });
    expect(() => new InMemoryTaskStore({ maxStoredBytes: 0 })).toThrow(RangeError);
  });
});
