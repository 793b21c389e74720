import type { JsonRpcMessage } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from './eventStore.js';

function message(id: number): JsonRpcMessage {
  return { jsonrpc: '2.0', id, result: {} };
}


describe('InMemoryEventStore', () => {
  it('ids encode the stream; replay sends what came after, idempotently', () => {
    const store = new InMemoryEventStore();
    const a1 = store.storeEvent('S.1', {});
    const a2 = store.storeEvent('S.1', message(1));
    store.storeEvent('S.2', message(9));
    const a3 = store.storeEvent('S.1', message(2));
    expect([a1, a2, a3]).toEqual(['S.1.1', 'S.1.2', 'S.1.4']); // one counter for the store: ids never repeat
    expect(store.getStreamIdForEventId(a2)).toBe('S.1');
    for (let round = 0; round < 2; round++) {
      const seen: [string, unknown][] = [];
      expect(store.replayEventsAfter(a1, { send: (id, m) => { seen.push([id, m]); } })).toBe('S.1');
      expect(seen).toEqual([['S.1.2', message(1)], ['S.1.4', message(2)]]);
    }
    expect(store.replayEventsAfter('S.1.99', { send: () => {} })).toBeUndefined(); // never issued
    expect(store.replayEventsAfter('nonsense', { send: () => {} })).toBeUndefined();
    store.deleteStream('S.1');
    expect(store.getStreamIdForEventId(a2)).toBeUndefined();
  });

  it('is bounded per stream and in streams', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2, maxStreams: 2 });
    const first = store.storeEvent('A', message(1));
    store.storeEvent('A', message(2));
    store.storeEvent('A', message(3));
    const seen: unknown[] = [];
    store.replayEventsAfter(first, { send: (_id, m) => { seen.push(m); } });
    expect(seen).toEqual([message(2), message(3)]);
    store.storeEvent('B', message(1));
    store.storeEvent('C', message(1));
    expect(store.size).toBe(2);
    expect(store.getStreamIdForEventId(first)).toBeUndefined();
  });

  it('a session over its stream budget loses its own least recently written stream, never another session\'s', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 3 });
    const victim = store.storeEvent('victim.1', message(1));
    const attackerFirst = store.storeEvent('attacker.1', message(1));
    store.storeEvent('attacker.2', message(1));
    store.storeEvent('attacker.3', message(1));
    store.storeEvent('attacker.1', message(2)); // written again: now the most recent of the attacker's
    for (let i = 4; i < 10_000; i++) store.storeEvent(`attacker.${i}`, message(i));
    expect(store.getStreamIdForEventId(victim)).toBe('victim.1');
    expect(store.size).toBe(4);
    expect(store.getStreamIdForEventId(attackerFirst)).toBeUndefined();
  });

  it('evicts by last write: the stream written most recently survives the global cap', () => {
    const store = new InMemoryEventStore({ maxStreams: 2 });
    const a = store.storeEvent('a.1', message(1));
    store.storeEvent('b.1', message(1));
    store.storeEvent('a.1', message(2));
    store.storeEvent('c.1', message(1));
    expect(store.getStreamIdForEventId(a)).toBe('a.1');
    expect(store.getStreamIdForEventId('b.1.2')).toBeUndefined();
  });

  it('an evicted stream written again never repeats an event id', () => {
    const store = new InMemoryEventStore({ maxStreamsPerSession: 1 });
    const before = [store.storeEvent('s.1', message(1)), store.storeEvent('s.1', message(2))];
    store.storeEvent('s.2', message(1)); // evicts s.1
    const after = [store.storeEvent('s.1', message(3)), store.storeEvent('s.1', message(4))];
    expect(new Set([...before, ...after]).size).toBe(4);
  });

  it('a session whose only stream is evicted keeps its limits for the stream that evicted it', () => {
    // The eviction ends the session's record; the new stream joins the session's new record, so it still counts.
    const one = new InMemoryEventStore({ maxStreamsPerSession: 1 });
    const ids = ['s.a', 's.b', 's.c', 's.d', 's.e', 's.f'].map((stream) => one.storeEvent(stream, message(1), 10));
    expect(one.size).toBe(1);
    expect(ids.filter((id) => one.getStreamIdForEventId(id) !== undefined)).toEqual([ids.at(-1)]);
    const bytes = new InMemoryEventStore({ maxStreams: 2, maxStreamsPerSession: 5, maxBytesPerSession: 100 });
    bytes.storeEvent('a.1', message(1), 0);
    bytes.storeEvent('b.1', message(1), 0);
    const a2 = bytes.storeEvent('a.2', message(1), 60); // the global cap drops a.1, session a's only stream
    bytes.deleteStream('b.1');
    const a3 = bytes.storeEvent('a.3', message(1), 60); // session a would hold 120 bytes: a.2 goes
    expect(bytes.getStreamIdForEventId(a2)).toBeUndefined();
    expect(bytes.getStreamIdForEventId(a3)).toBe('a.3');
  });

  it('bounds the bytes of a session: its oldest streams go first, then the oldest events of the stream being written', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 1000 });
    const other = store.storeEvent('other.1', message(1), 900);
    const old = store.storeEvent('s.1', message(1), 600);
    store.storeEvent('s.2', message(1), 600); // s over 1000: drops s.1
    expect(store.getStreamIdForEventId(old)).toBeUndefined();
    const first = store.storeEvent('s.2', message(2), 600); // s.2 alone over budget: its oldest event goes
    const seen: unknown[] = [];
    store.replayEventsAfter(first.replace(/\.\d+$/, '.1'), { send: (_id, m) => { seen.push(m); } });
    expect(seen).toEqual([message(2)]);
    expect(store.getStreamIdForEventId(other)).toBe('other.1');
  });
});
