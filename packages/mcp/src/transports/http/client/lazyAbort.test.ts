import { describe, expect, it } from 'vitest';
import { LazyAbortController } from './lazyAbort.js';

describe('LazyAbortController', () => {
  it('aborts once: the callback of the operation in progress is called and cleared, a later abort changes nothing', () => {
    const controller = new LazyAbortController();
    const calls: string[] = [];
    controller.onAbort = () => calls.push('request');
    const reason = new Error('closed');
    controller.abort(reason);
    controller.abort(new Error('again'));
    expect([controller.aborted, controller.reason, calls, controller.onAbort]).toEqual([true, reason, ['request'], undefined]);
  });

  it('a signal made before the abort aborts with it, one made after is already aborted, both with the same reason', () => {
    const early = new LazyAbortController();
    const signal = early.signal;
    expect(signal.aborted).toBe(false);
    expect(early.signal).toBe(signal);
    let heard: unknown;
    signal.addEventListener('abort', () => (heard = signal.reason));
    const reason = new Error('closed');
    early.abort(reason);
    expect(heard).toBe(reason);

    const late = new LazyAbortController();
    late.abort();
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(late.reason);
    expect(late.reason).toBeInstanceOf(DOMException);
    expect((late.reason as DOMException).name).toBe('AbortError');
  });
});
