// The bounded queue behind a subscription's async iterator.
import { describe, expect, it } from 'vitest';
import { LISTEN_BUFFER_LIMIT, NotificationQueue } from './notificationQueue.js';

function logger(): { warnings: string[]; debug(): void; info(): void; warn(m: string): void; error(): void } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

describe('NotificationQueue', () => {
  it('hands items out in order, to a waiting reader at once, and ends after finish()', async () => {
    const queue = new NotificationQueue<number>(logger(), () => {});
    const waiting = queue.next();
    queue.push(1);
    queue.push(2);
    expect(await waiting).toEqual({ value: 1, done: false });
    queue.finish();
    expect(await queue.next()).toEqual({ value: 2, done: false });
    expect(await queue.next()).toEqual({ value: undefined, done: true });
  });

  it(`keeps at most ${LISTEN_BUFFER_LIMIT} unread items, dropping the oldest with one warning per 1,000 dropped`, async () => {
    const log = logger();
    const queue = new NotificationQueue<number>(log, () => {});
    for (let i = 0; i < LISTEN_BUFFER_LIMIT + 2; i++) queue.push(i);
    const warning = 'A subscription iterator fell more than 1000 notifications behind: the oldest are dropped';
    expect(log.warnings).toEqual([warning]);
    expect(await queue.next()).toEqual({ value: 2, done: false });
    // A flood of 200,000 more: 200 warnings, not 200,000.
    for (let i = 0; i < 200_000; i++) queue.push(i);
    expect(log.warnings).toHaveLength(201);
  });

  it('return() empties it, ends it and detaches it', async () => {
    let detached = 0;
    const queue = new NotificationQueue<number>(logger(), () => detached++);
    queue.push(1);
    expect(await queue.return()).toEqual({ value: undefined, done: true });
    expect(await queue.next()).toEqual({ value: undefined, done: true });
    expect(detached).toBe(1);
  });
});
