import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '@switchboard/jsonrpc';
import { InMemoryTaskStore } from '../../stores/taskStore.js';
import { TaskRunner } from './runner.js';

describe('TaskRunner', () => {
  it('answers for a task another instance started, from the shared store: waiting for its end, and cancelling it', async () => {
    const store = new InMemoryTaskStore();
    const here = new TaskRunner({ store, logger: silentLogger, pollIntervalMs: 5 });
    const there = new TaskRunner({ store, logger: silentLogger, pollIntervalMs: 5 });
    const handle = there.begin({ ttlMs: 10_000 })!;
    await handle.commit();
    let finish!: () => void;
    handle.settle(new Promise((r) => (finish = () => r({ kind: 'result', result: { content: [] }, failed: false }))));
    const final = here.whenFinal(handle.taskId);
    finish();
    expect(await final).toMatchObject({ taskId: handle.taskId, status: 'completed', result: { content: [] } });

    const other = there.begin({ ttlMs: 10_000 })!;
    await other.commit();
    expect(await here.cancel(other.taskId)).toMatchObject({ status: 'cancelled' });
    // Its work is not aborted from here (cooperative), but its stored state is final: the outcome is dropped.
    expect(other.signal.aborted).toBe(false);
    other.settle(Promise.resolve({ kind: 'result', result: { content: [] }, failed: false }));
    expect(await there.whenFinal(other.taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('a TTL longer than a timer holds (2^31 - 1 ms) ends at its own deadline, not at the timer\'s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const runner = new TaskRunner({ store: new InMemoryTaskStore(), logger: silentLogger });
      const day = 86_400_000;
      const handle = runner.begin({ ttlMs: 30 * day })!;
      await handle.commit();
      await vi.advanceTimersByTimeAsync(25 * day);
      expect(handle.signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(5 * day);
      expect(handle.signal.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('bounds the live tasks, gives a slot back on release, and aborts every live task on close', async () => {
    const runner = new TaskRunner({ store: new InMemoryTaskStore(), logger: silentLogger, maxLiveTasks: 2 });
    const a = runner.begin({ ttlMs: 1000 })!;
    const b = runner.begin({ ttlMs: 1000 })!;
    expect(runner.begin({ ttlMs: 1000 })).toBeUndefined();
    b.release();
    const c = runner.begin({ ttlMs: 1000 })!;
    await a.commit();
    const input = a.requestInput('elicitation-0', { method: 'elicitation/create' });
    await expect(a.requestInput('elicitation-0', { method: 'elicitation/create' })).rejects.toThrow('Input request key already used in this task: "elicitation-0"');
    runner.close();
    expect([a.signal.aborted, c.signal.aborted]).toEqual([true, true]);
    await expect(input).rejects.toThrow('The server closed');
    expect(runner.live.size).toBe(0);
  });
});
