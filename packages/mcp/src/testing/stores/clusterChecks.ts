/**
 * The {@link ClusterBus} and {@link LeaseStore} checks of the conformance kit, from the contracts in their TSDoc
 * (`stores/clusterBus.ts`, `stores/leaseStore.ts`). A cluster bus delivers a message on a channel at most once to
 * each listener of that channel on every instance of its space, in publish order, as a JSON copy, past a throwing
 * listener, and never to a listener of another channel or one that unsubscribed. A lease store gives a key to one
 * holder at a time (atomically, of racing acquires exactly one wins), lets its holder renew it with a new TTL and
 * value, forgets it when its TTL passed or its holder released it, and ignores a release by anyone else.
 */
import type { ClusterBus, ClusterMessage } from '../../stores/clusterBus.js';
import type { LeaseStore } from '../../stores/leaseStore.js';
import { assertEqual, assertRejects, assertTrue, eventually, makeCheck, sleep, type CheckContext, type ConformanceFactory, type StoreCheck } from './conformanceKit.js';

const closed = (n: number, from = 'i1'): ClusterMessage => ({ type: 'closed', from, sessionId: `s${n}` });

/** The cluster bus checks, for `factory`. */
export function clusterBusChecks(factory: ConformanceFactory<ClusterBus>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, space = ctx.space()) => ctx.open(factory, space, undefined);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'ClusterBus', name, deliveryTimeoutMs }, body);
  /** Lets a shared bus's subscriptions take effect (the contract delivers to listeners subscribed when published). */
  const settle = async (bus: ClusterBus) => {
    const subscribed = (bus as { subscribed?: () => Promise<void> }).subscribed;
    if (typeof subscribed === 'function') await subscribed.call(bus);
    else await sleep(50);
  };
  return [
    check('delivers on one channel, in order, once per listener and instance, as copies; other channels hear nothing', async (ctx) => {
      const space = ctx.space();
      const [a, b, stranger] = [await open(ctx, space), await open(ctx, space), await open(ctx)];
      const heard: Record<string, ClusterMessage[]> = { a: [], b: [], other: [], stranger: [] };
      const sent = closed(1);
      a.subscribe('session:x', (m) => void heard.a!.push(m));
      b.subscribe('session:x', (m) => void heard.b!.push(m));
      b.subscribe('session:y', (m) => void heard.other!.push(m));
      stranger.subscribe('session:x', (m) => void heard.stranger!.push(m));
      b.subscribe('session:x', () => {
        throw new Error('a broken listener');
      });
      for (const bus of [a, b, stranger]) await settle(bus);
      await a.publish('session:x', sent);
      for (let n = 2; n <= 5; n++) await (n % 2 === 0 ? b : a).publish('session:x', closed(n, n % 2 === 0 ? 'i2' : 'i1'));
      await eventually(() => heard.a!.length >= 5 && heard.b!.length >= 5, ctx.deliveryTimeoutMs, 'both instances hear five messages');
      await sleep(100);
      const ofOne = (list: ClusterMessage[], from: string) => list.filter((m) => m.from === from).map((m) => (m as { sessionId: string }).sessionId);
      for (const name of ['a', 'b']) {
        assertEqual(ofOne(heard[name]!, 'i1'), ['s1', 's3', 's5'], `what ${name} heard from the first instance, in order`);
        assertEqual(ofOne(heard[name]!, 'i2'), ['s2', 's4'], `what ${name} heard from the second instance, in order`);
      }
      assertTrue(heard.a![0] !== sent, 'a listener receives a copy, not the published object');
      assertEqual([heard.other, heard.stranger], [[], []], 'another channel and another space hear nothing');
    }),
    check('unsubscribing is idempotent and stops delivery; a listener added later never sees an earlier message', async (ctx) => {
      const space = ctx.space();
      const [a, b] = [await open(ctx, space), await open(ctx, space)];
      const heard: ClusterMessage[] = [];
      const stop = b.subscribe('instance:i9', (m) => void heard.push(m));
      await settle(b);
      await a.publish('instance:i9', closed(1));
      await eventually(() => heard.length === 1, ctx.deliveryTimeoutMs, 'the first message heard');
      stop();
      stop();
      const late: ClusterMessage[] = [];
      await a.publish('instance:i9', closed(2));
      b.subscribe('instance:i9', (m) => void late.push(m));
      await settle(b);
      await a.publish('instance:i9', closed(3));
      await eventually(() => late.length >= 1, ctx.deliveryTimeoutMs, 'the later listener hears the next message');
      await sleep(100);
      assertEqual([heard.length, late.map((m) => (m as { sessionId: string }).sessionId)], [1, ['s3']], 'what each listener heard');
    }),
  ];
}

/** The lease store checks, for `factory`. */
export function leaseStoreChecks(factory: ConformanceFactory<LeaseStore>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, space = ctx.space()) => ctx.open(factory, space, undefined);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'LeaseStore', name, deliveryTimeoutMs }, body);
  return [
    check('one holder at a time: its renewal replaces TTL and value, others are refused, a release by another is ignored', async (ctx) => {
      const space = ctx.space();
      const [a, b] = [await open(ctx, space), await open(ctx, space)];
      const before = Date.now();
      assertEqual(await a.acquire('stream:1', { holder: 'i1', ttlMs: 60_000, value: { ids: [1, 'x'] } }), true, 'a free key');
      const lease = await b.get('stream:1');
      assertEqual(lease && { holder: lease.holder, value: lease.value }, { holder: 'i1', value: { ids: [1, 'x'] } }, 'the lease read on another instance');
      assertTrue(lease !== undefined && lease.expiresAt >= before + 59_000 && lease.expiresAt <= Date.now() + 61_000, `expiresAt is about now + ttlMs (got ${lease?.expiresAt})`);
      assertEqual(await b.acquire('stream:1', { holder: 'i2', ttlMs: 60_000 }), false, "another holder, while the lease is live");
      await b.release('stream:1', 'i2');
      assertEqual((await a.get('stream:1'))?.holder, 'i1', 'the lease after a release by another holder');
      assertEqual(await a.acquire('stream:1', { holder: 'i1', ttlMs: 120_000 }), true, 'a renewal');
      const renewed = await b.get('stream:1');
      assertEqual(renewed?.value, null, 'the value after a renewal without one');
      assertTrue(renewed !== undefined && renewed.expiresAt > before + 110_000, 'the renewal set the new TTL');
      await a.release('stream:1', 'i1');
      await a.release('stream:1', 'i1');
      assertEqual(await b.get('stream:1'), undefined, 'the lease after its holder released it');
      assertEqual(await b.acquire('stream:1', { holder: 'i2', ttlMs: 60_000 }), true, 'the key after the release');
      assertEqual(await a.get('nothing'), undefined, 'a key never taken');
      await assertRejects(() => a.acquire('bad', { holder: 'i1', ttlMs: 0 }), { type: RangeError, what: 'a TTL of 0' });
    }),
    check('an expired lease is never read, and another holder takes it', async (ctx) => {
      const space = ctx.space();
      const [a, b] = [await open(ctx, space), await open(ctx, space)];
      assertEqual(await a.acquire('instance:i1', { holder: 'i1', ttlMs: 150 }), true, 'a short lease');
      await sleep(400);
      assertEqual(await b.get('instance:i1'), undefined, 'the lease after its TTL');
      assertEqual(await b.acquire('instance:i1', { holder: 'i2', ttlMs: 60_000 }), true, 'another holder after the TTL');
      assertEqual((await a.get('instance:i1'))?.holder, 'i2', 'the new holder');
    }),
    check('of racing acquires of a free key, exactly one wins', async (ctx) => {
      const space = ctx.space();
      const stores = [await open(ctx, space), await open(ctx, space), await open(ctx, space)];
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.acquire('race', { holder: `i${i}`, ttlMs: 60_000 })));
      assertEqual(results.filter(Boolean).length, 1, 'winning acquires');
      const winner = `i${results.indexOf(true)}`;
      assertEqual((await stores[0]!.get('race'))?.holder, winner, 'the holder is the winner');
    }),
  ];
}
