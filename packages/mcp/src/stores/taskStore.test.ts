import { describe, expect, it } from 'vitest';
import { InMemoryTaskStore } from './taskStore.js';

describe('InMemoryTaskStore', () => {
  it('creates, reads, updates, lists and deletes tasks, and forgets them after their TTL', async () => {
    let now = 1000;
    const store = new InMemoryTaskStore({ now: () => now });
    expect(await store.create({ taskId: 'a', ttlMs: 100 })).toEqual({ taskId: 'a', status: 'working', createdAtMs: 1000, updatedAtMs: 1000, ttlMs: 100 });
    await store.create({ taskId: 'b', ttlMs: 1000 });
    await expect(store.create({ taskId: 'a', ttlMs: 5 })).rejects.toThrow('Task already exists: "a"');
    await expect(store.create({ taskId: 'c', ttlMs: 0 })).rejects.toThrow(TypeError);
    now = 1050;
    expect(await store.update('a', { status: 'completed', result: { content: [] } })).toEqual({
      taskId: 'a', status: 'completed', result: { content: [] }, createdAtMs: 1000, updatedAtMs: 1050, ttlMs: 100,
    });
    await expect(store.update('a', { status: 'working' })).rejects.toThrow('Task is already final: "a" is "completed"');
    expect((await store.list()).map((t) => t.taskId)).toEqual(['a', 'b']);
    now = 1100;
    expect(await store.get('a')).toBeUndefined();
    expect(await store.update('a', { status: 'failed' })).toBeUndefined();
    expect((await store.list()).map((t) => t.taskId)).toEqual(['b']);
    expect(await store.delete('b')).toBe(true);
    expect(await store.delete('b')).toBe(false);
    expect(await store.list()).toEqual([]);
  });
});
