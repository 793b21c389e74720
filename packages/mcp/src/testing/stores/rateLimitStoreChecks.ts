/**
 * The {@link RateLimitStore} checks of the conformance kit, from the contract in its TSDoc (`stores/rateLimitStore.ts`):
 * a token bucket per key that starts full at `burst`, gives one token per admitted take (answering `0`), refuses a
 * take that finds less than one token with the whole milliseconds until one is there (≥ 1, never more than one
 * token's refill time) and takes nothing then, refills at `requestsPerSecond` up to `burst` and no further; keys and
 * spaces are apart, instances of one space share their buckets, and concurrent takes never admit more than the
 * bucket holds. The checks run on the store's own clock (a shared store's is its server's), so their rates leave
 * room for a slow machine: each timing assertion holds unless a single take is slower than 200 ms.
 */
import type { RateLimit, RateLimitStore } from '../../stores/rateLimitStore.js';
import { assertEqual, assertTrue, makeCheck, sleep, type CheckContext, type ConformanceFactory, type StoreCheck } from './conformanceKit.js';

/** The rate limit store checks, for `factory`. */
export function rateLimitStoreChecks(factory: ConformanceFactory<RateLimitStore>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, space = ctx.space()) => ctx.open(factory, space, undefined);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'RateLimitStore', name, deliveryTimeoutMs }, body);
  const take = async (store: RateLimitStore, key: string, limit: RateLimit): Promise<number> => store.take(key, limit);
  return [
    check('a bucket starts full at burst and is shared by the instances of a space; keys and spaces are apart', async (ctx) => {
      const space = ctx.space();
      const [a, b, stranger] = [await open(ctx, space), await open(ctx, space), await open(ctx)];
      const limit = { requestsPerSecond: 1, burst: 3 };
      const taken = [await take(a, 'address:198.51.100.7', limit), await take(b, 'address:198.51.100.7', limit), await take(a, 'address:198.51.100.7', limit)];
      assertEqual(taken, [0, 0, 0], 'three takes from a bucket of three, on two instances');
      const refused = await take(b, 'address:198.51.100.7', limit);
      assertTrue(Number.isInteger(refused) && refused >= 1 && refused <= 1000, `the fourth take is refused with the ms until a token, 1…1000 at 1/s (got ${refused})`);
      assertTrue((await take(a, 'address:198.51.100.7', limit)) >= 1, 'a refused take took nothing back: the next is refused too');
      assertEqual(await take(a, 'address:198.51.100.70', limit), 0, 'another key has a bucket of its own');
      assertEqual(await take(b, '', limit), 0, 'the empty key is a key');
      assertEqual(await take(stranger, 'address:198.51.100.7', limit), 0, 'another space has buckets of its own');
    }),
    check('refills at requestsPerSecond, never beyond burst; a refused take names when to come back', async (ctx) => {
      const store = await open(ctx);
      const limit = { requestsPerSecond: 4, burst: 1 };
      assertEqual(await take(store, 'k', limit), 0, 'the first take');
      const wait = await take(store, 'k', limit);
      assertTrue(Number.isInteger(wait) && wait >= 1 && wait <= 250, `the next take is refused with the ms until a token, 1…250 at 4/s (got ${wait})`);
      await sleep(wait + 20);
      assertEqual(await take(store, 'k', limit), 0, `a take ${wait + 20} ms later, once the token is back`);
      const capped = { requestsPerSecond: 5, burst: 2 };
      assertEqual([await take(store, 'capped', capped), await take(store, 'capped', capped)], [0, 0], 'a full bucket of two');
      // Four tokens' worth of time, capped at two (at exactly three a store that refills beyond burst could still
      // refuse the third take when its millisecond clock reads 599 ms).
      await sleep(800);
      const after = [await take(store, 'capped', capped), await take(store, 'capped', capped), await take(store, 'capped', capped)];
      assertEqual(after.slice(0, 2), [0, 0], 'two takes after an idle 800 ms');
      assertTrue(after[2]! >= 1, `the third take after an idle 800 ms is refused: the bucket refilled to burst, not beyond (got ${after[2]})`);
    }),
    check('of concurrent takes of one key on three instances, exactly burst are admitted', async (ctx) => {
      const space = ctx.space();
      const stores = [await open(ctx, space), await open(ctx, space), await open(ctx, space)];
      const limit = { requestsPerSecond: 0.01, burst: 5 };
      const results = await Promise.all(Array.from({ length: 15 }, (_, i) => take(stores[i % 3]!, 'race', limit)));
      assertEqual(results.filter((r) => r === 0).length, 5, 'admitted takes');
      assertTrue(results.every((r) => r === 0 || (Number.isInteger(r) && r > 90_000)), `each refused take names about 100 s at 0.01/s (got ${results.join(', ')})`);
    }),
  ];
}
