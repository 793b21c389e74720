import { describe, expect, it } from 'vitest';
import { SseChannel, type SseSink } from '../sse/sseChannel.js';
import { SseBufferBudget } from './sseBudget.js';

/** A sink whose client never reads: everything written stays buffered until it is aborted. */
function unreadSink(): SseSink & { aborted: boolean } {
  let held = 0;
  return {
    aborted: false,
    write(chunk: string): void {
      held += chunk.length;
    },
    end(): void {},
    buffered: () => held,
    abort(): void {
      this.aborted = true;
      held = 0;
    },
  };
}

function channel(budget: SseBufferBudget, caller: string): { channel: SseChannel; sink: ReturnType<typeof unreadSink> } {
  const c = new SseChannel(1000);
  const sink = unreadSink();
  c.attach(sink);
  budget.track(c, caller);
  return { channel: c, sink };
}

describe('SseBufferBudget', () => {
  it('past the total, drops the largest backlog of the caller holding most; the others keep their streams', () => {
    const budget = new SseBufferBudget(1000);
    const a1 = channel(budget, 'a');
    const a2 = channel(budget, 'a');
    const b = channel(budget, 'b');
    b.channel.write('b'.repeat(450));
    a1.channel.write('a'.repeat(300));
    a2.channel.write('a'.repeat(200));
    expect(budget.bytes).toBe(950);
    // a holds 500 (more than b's 450): its largest backlog (a1) goes.
    expect(a2.channel.write('a'.repeat(100))).toBe(true);
    expect(a1.channel.open).toBe(false);
    expect(a1.channel.overflowed).toBe(true);
    expect(a1.sink.aborted).toBe(true);
    expect([a2.channel.open, b.channel.open]).toEqual([true, true]);
    expect(budget.bytes).toBe(750);
    expect(budget.streams).toBe(2);
    // An ended stream is no longer counted.
    b.channel.end();
    expect(budget.streams).toBe(1);
  });
});
