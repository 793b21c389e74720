import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransientMap } from './transientMap.js';

type Op = { readonly kind: 'set'; readonly key: number; readonly value: number } | { readonly kind: 'delete'; readonly key: number } | { readonly kind: 'clear' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 40 }), value: fc.integer() }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 40 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('TransientMap', () => {
  it('answers as a Map does through any sequence of sets, deletes and clears, across renewals of its storage', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 600, maxLength: 3000 }), (ops) => {
        const model = new Map<number, number>();
        const map = new TransientMap<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            model.set(o.key, o.value);
            expect(map.set(o.key, o.value)).toBe(map);
          } else if (o.kind === 'delete') {
            expect(map.delete(o.key)).toBe(model.delete(o.key));
          } else {
            model.clear();
            map.clear();
          }
          expect(map.size).toBe(model.size);
        }
        // Insertion order survives renewal (a re-set key keeps its place, as in a Map).
        expect([...map]).toEqual([...model]);
        expect([...map.keys()]).toEqual([...model.keys()]);
        expect([...map.values()]).toEqual([...model.values()]);
        expect([...map.entries()]).toEqual([...model.entries()]);
        for (let key = 0; key <= 40; key++) {
          expect(map.has(key)).toBe(model.has(key));
          expect(map.get(key)).toBe(model.get(key));
        }
      }),
      { numRuns: 60 },
    );
  });

  for (const live of [4_000, 10_000]) {
    it(`keeps every entry in order while ${live.toLocaleString('en-US')} are live (renewed up to 4,096), requests coming and going`, () => {
      const map = new TransientMap<number, { readonly id: number }>();
      for (let id = 0; id < live; id++) map.set(id, { id });
      for (let id = live; id < 4 * live; id++) {
        expect(map.get(id - live)?.id).toBe(id - live);
        map.delete(id - live);
        map.set(id, { id });
      }
      expect(map.size).toBe(live);
      expect([...map.keys()]).toEqual(Array.from({ length: live }, (_, i) => 3 * live + i));
    });
  }

  it('ends an iteration in progress on clear(), as a Map does', () => {
    const map = new TransientMap<number, number>();
    const model = new Map<number, number>();
    for (let i = 0; i < 5; i++) {
      map.set(i, i);
      model.set(i, i);
    }
    const visit = (m: { clear(): void; keys(): Iterable<number> }): number[] => {
      const seen: number[] = [];
      for (const key of m.keys()) {
        seen.push(key);
        if (key === 1) m.clear();
      }
      return seen;
    };
    expect(visit(map)).toEqual(visit(model));
    expect(map.size).toBe(0);
  });

  it('lets an iteration delete what it visits, even when a set during it renews the storage', () => {
    const map = new TransientMap<number, number>();
    for (let i = 0; i < 511; i++) map.set(i, i);
    map.delete(0);
    const seen: number[] = [];
    for (const [key] of map) {
      seen.push(key);
      map.delete(key);
      if (key === 1) map.set(1_000, 1_000); // the 512th insertion: the storage is renewed here
    }
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
    expect(seen).toContain(510);
    expect(map.has(1_000)).toBe(true);
    expect(map.has(510)).toBe(false);
  });
});
