/**
 * The {@link NotificationBus} and {@link RequestStateStore} checks of the conformance kit. A bus delivers every
 * message published after a listener subscribed, in order, to every listener of every instance of its space
 * (once each), survives a throwing listener, and stops delivering when unsubscribed. A request state store
 * claims an id once across every instance (MCP 2026-07-28 basic/patterns/mrtr.mdx "Security Considerations": single
 * use is enforced by the server) and never claims an expired state.
 */
import type { BusMessage, NotificationBus } from '../../stores/notificationBus.js';
import type { RequestStateStore } from '../../stores/requestStateStore.js';
import { assertEqual, assertTrue, eventually, makeCheck, sleep, type CheckContext, type ConformanceFactory, type StoreCheck } from './conformanceKit.js';

const TOOLS: BusMessage = { type: 'list_changed', capability: 'tools' };
const updated = (n: number): BusMessage => ({ type: 'resource_updated', uri: `file:///${n}` });

/** The bus checks, for `factory`. */
export function notificationBusChecks(factory: ConformanceFactory<NotificationBus>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, space = ctx.space()) => ctx.open(factory, space, undefined);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'NotificationBus', name, deliveryTimeoutMs }, body);
  return [
    check("delivers to this instance's listeners in order, once per subscription, past a throwing listener; unsubscribing is idempotent", async (ctx) => {
      const bus = await open(ctx);
      const seen: BusMessage[] = [];
      const twice: BusMessage[] = [];
      const listener = (m: BusMessage) => {
        twice.push(m);
      };
      bus.subscribe(() => {
        throw new Error('a broken listener');
      });
      const stop = bus.subscribe((m) => {
        seen.push(m);
      });
      const stopFirst = bus.subscribe(listener);
      bus.subscribe(listener);
      let settled = false;
      bus.subscribe(() => sleep(20).then(() => {
        settled = true;
      }));
      await bus.publish(TOOLS);
      assertTrue(settled, "publish resolves once the local listeners' promises settled");
      for (let n = 1; n <= 5; n++) await bus.publish(updated(n));
      await eventually(() => seen.length >= 6, ctx.deliveryTimeoutMs, 'six messages delivered');
      assertEqual(seen, [TOOLS, updated(1), updated(2), updated(3), updated(4), updated(5)], 'the messages, in order');
      await eventually(() => twice.length >= 12, ctx.deliveryTimeoutMs, 'a function subscribed twice hears each message twice');
      stop();
      stop();
      stopFirst();
      await bus.publish(updated(6));
      await eventually(() => twice.length >= 13, ctx.deliveryTimeoutMs, 'the remaining subscription of the function hears the next message');
      await sleep(50);
      assertEqual([seen.length, twice.length], [6, 13], 'an unsubscribed listener hears nothing more, the other subscription one more');
    }),
    check('a message published on one instance reaches the listeners of every instance of its space once, in order', async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, space);
      const b = await open(ctx, space);
      const c = await open(ctx, space);
      const stranger = await open(ctx);
      const heard: Record<string, BusMessage[]> = { a: [], b: [], c: [], stranger: [] };
      for (const [name, bus] of [['a', a], ['b', b], ['c', c], ['stranger', stranger]] as const) {
        bus.subscribe((m) => {
          heard[name]!.push(m);
        });
      }
      await sleep(50);
      const task: BusMessage = { type: 'task', task: { taskId: 't1', status: 'working' } };
      await a.publish(TOOLS);
      await b.publish(task);
      await a.publish(updated(1));
      await eventually(() => ['a', 'b', 'c'].every((n) => heard[n]!.length >= 3), ctx.deliveryTimeoutMs, 'every instance hears three messages');
      await sleep(100);
      for (const name of ['a', 'b', 'c']) {
        assertEqual(heard[name]!.filter((m) => m.type !== 'task'), [TOOLS, updated(1)], `what ${name} heard from a, in order`);
        assertEqual(heard[name]!.filter((m) => m.type === 'task'), [task], `what ${name} heard from b, once`);
      }
      assertEqual(heard.stranger, [], 'an instance of another space hears nothing');
    }),
  ];
}

/** The request state store checks, for `factory`. */
export function requestStateStoreChecks(factory: ConformanceFactory<RequestStateStore>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, space = ctx.space()) => ctx.open(factory, space, undefined);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'RequestStateStore', name, deliveryTimeoutMs }, body);
  const id = (n: number) => `s${String(n).padStart(21, '0')}`;
  return [
    check('claims a state once, on any instance; never claims an expired one', async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, space);
      const b = await open(ctx, space);
      const later = Date.now() + 60_000;
      assertEqual([await a.claim(id(1), later), await a.claim(id(1), later), await b.claim(id(1), later)], [true, false, false], 'claims of one id: first, again, on another instance');
      assertEqual(await b.claim(id(2), later), true, 'another id');
      assertEqual(await a.claim(id(3), Date.now() - 1), false, 'an expired state');
      assertEqual(await (await open(ctx)).claim(id(1), later), true, 'the same id in another space');
    }),
    check('concurrent claims of one state: exactly one wins', async (ctx) => {
      const space = ctx.space();
      const stores = [await open(ctx, space), await open(ctx, space), await open(ctx, space)];
      const later = Date.now() + 60_000;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.claim(id(7), later)));
      assertEqual(results.filter(Boolean).length, 1, 'winning claims');
    }),
  ];
}
