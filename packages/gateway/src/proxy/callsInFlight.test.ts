import { describe, expect, it } from 'vitest';
import { CallsInFlight, type CallInFlight } from './frontCall.js';

function call(caller: string): CallInFlight {
  return { ctx: undefined as never, caller, refused: undefined, cancel() {}, open: true, olderInFlight: undefined, newerInFlight: undefined };
}

describe('CallsInFlight', () => {
  it('keeps calls in start order through deletes anywhere, and finds the newest that matches', () => {
    const list = new CallsInFlight();
    const a = call('a');
    const b = call('b');
    const c = call('a');
    const d = call('b');
    for (const x of [a, b, c, d]) list.add(x);
    list.add(b); // already there: no move, no double count
    expect(list.size).toBe(4);
    expect([...list.values()]).toEqual([a, b, c, d]);
    expect(list.newest()).toBe(d);
    expect(list.newest((x) => x.caller === 'a')).toBe(c);
    list.delete(c);
    list.delete(c); // twice: a no-op
    expect([...list.values()]).toEqual([a, b, d]);
    expect(list.newest((x) => x.caller === 'a')).toBe(a);
    list.delete(a);
    list.delete(d);
    expect(list.all()).toEqual([b]);
    expect(list.size).toBe(1);
    list.delete(b);
    expect(list.size).toBe(0);
    expect(list.newest()).toBeUndefined();
    expect([b.olderInFlight, b.newerInFlight]).toEqual([undefined, undefined]);
    list.add(c);
    expect(list.all()).toEqual([c]);
  });

  it('lets the calls being visited be deleted (the proxy cancelling all on close)', () => {
    const list = new CallsInFlight();
    const calls = ['x', 'y', 'z'].map(call);
    for (const x of calls) list.add(x);
    const seen: CallInFlight[] = [];
    for (const x of list.values()) {
      seen.push(x);
      list.delete(x);
    }
    expect(seen).toEqual(calls);
    expect(list.size).toBe(0);
  });
});
