/**
 * The unread notifications of one async iterator of a subscription (`for await (const n of subscription)`): pushed
 * as they arrive, taken in order by `next()`, finished when the subscription ends. Bounded: a reader that falls
 * more than {@link LISTEN_BUFFER_LIMIT} behind loses the oldest, with a warning.
 */
import type { Logger } from '@switchboard/jsonrpc';

/** Most notifications an async iterator of a subscription holds unread; past it the oldest is dropped (with a warning). */
export const LISTEN_BUFFER_LIMIT = 1_000;

/** The unread items of one async iterator, bounded (see the module comment). */
export class NotificationQueue<T> implements AsyncIterator<T> {
  readonly #items: T[] = [];
  readonly #waiters: ((result: IteratorResult<T>) => void)[] = [];
  readonly #logger: Logger;
  readonly #detach: () => void;
  #done = false;
  /** Notifications dropped so far because the iterator fell behind. */
  #dropped = 0;

  constructor(logger: Logger, detach: () => void) {
    this.#logger = logger;
    this.#detach = detach;
  }

  push(item: T): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) return waiter({ value: item, done: false });
    this.#items.push(item);
    if (this.#items.length > LISTEN_BUFFER_LIMIT) {
      this.#items.shift();
      // One warning when the iterator first falls behind, then one per 1,000 dropped (a flood logged every drop).
      if (this.#dropped++ % 1000 === 0) {
        this.#logger.warn(`A subscription iterator fell more than ${LISTEN_BUFFER_LIMIT} notifications behind: the oldest are dropped`, { dropped: this.#dropped });
      }
    }
  }

  finish(): void {
    this.#done = true;
    for (const waiter of this.#waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The consumer stopped early (`break`): the iterator lets go, the subscription stays open. */
  return(): Promise<IteratorResult<T>> {
    this.#items.length = 0;
    this.finish();
    this.#detach();
    return Promise.resolve({ value: undefined, done: true });
  }
}
