/**
 * The in-memory record of used request states: a state is claimed once; records leave with their expiry; the
 * record is bounded in count and in bytes, and a state that expires no later than one it forgot is refused (a
 * forgotten state is never replayable).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryRequestStateStore } from './requestStateStore.js';

/** A 22-character id like `OpenedRequestState.id`. */
const id = (n: number): string => `s${String(n).padStart(21, '0')}`;

describe('InMemoryRequestStateStore', () => {
  it('claims a state once; an expired state is never claimed; a record leaves when its state expires', async () => {
    let now = 1_000;
    const store = new InMemoryRequestStateStore({ now: () => now });
    expect(await store.claim(id(1), 2_000)).toBe(true);
    expect(await store.claim(id(1), 2_000)).toBe(false);
    expect(await store.claim(id(2), 1_000)).toBe(false);
    expect(store.size).toBe(1);
    now = 2_000;
    expect(await store.claim(id(3), 3_000)).toBe(true);
    // id(1) expired and was swept: only id(3) is left (a replay of id(1) is refused by the codec as expired).
    expect(store.size).toBe(1);
  });

  it('is bounded in count: the oldest record goes, and states expiring no later than it are refused from then on', async () => {
    const now = 0;
    const store = new InMemoryRequestStateStore({ maxEntries: 3, now: () => now });
    for (let i = 1; i <= 3; i++) expect(await store.claim(id(i), 1_000 + i)).toBe(true);
    expect(await store.claim(id(4), 1_004)).toBe(true);
    expect(store.size).toBe(3);
    // id(1) was forgotten: its replay is still refused, and so is any state expiring no later (issued no later).
    expect(await store.claim(id(1), 1_001)).toBe(false);
    expect(await store.claim(id(99), 1_000)).toBe(false);
    // A newer state is still served.
    expect(await store.claim(id(5), 1_005)).toBe(true);
    expect(store.size).toBe(3);
    for (let i = 2; i <= 5; i++) expect(await store.claim(id(i), 1_000 + i)).toBe(false);
  });

  it('is bounded in bytes', async () => {
    const store = new InMemoryRequestStateStore({ maxBytes: 4096, now: () => 0 });
    for (let i = 0; i < 1_000; i++) expect(await store.claim(id(i), 10_000 + i)).toBe(true);
    expect(store.bytes).toBeLessThanOrEqual(4096);
    expect(store.size).toBeGreaterThan(10);
    expect(store.size).toBeLessThan(1_000);
    expect(await store.claim(id(0), 10_000)).toBe(false);
  });

  it('a flood of distinct states within one lifetime holds the record at its bound', async () => {
    const maxEntries = process.env.STRESS === '1' ? 100_000 : 5_000;
    const store = new InMemoryRequestStateStore({ maxEntries, now: () => 0 });
    for (let i = 0; i < maxEntries * 3; i++) await store.claim(id(i), 600_000 + i);
    expect(store.size).toBe(maxEntries);
    expect(store.bytes).toBe(maxEntries * (128 + 2 * 22));
  });

  it('refuses bad options', () => {
    expect(() => new InMemoryRequestStateStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new InMemoryRequestStateStore({ maxEntries: 1.5 })).toThrow(RangeError);
    expect(() => new InMemoryRequestStateStore({ maxBytes: 100 })).toThrow('"maxBytes" must be an integer >= 4096, got 100');
    expect(() => new InMemoryRequestStateStore({ now: 5 as unknown as () => number })).toThrow(TypeError);
  });
});
