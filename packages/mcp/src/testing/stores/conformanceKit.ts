/**
 * The store conformance kit: the behaviour every implementation of the `./stores` interfaces must show, as a list of
 * named async checks that need no test framework (each throws a {@link StoreConformanceError} when the store does
 * not behave). The in-memory stores pass it in this repository's tests, `@switchboard/redis` passes it against a
 * real `redis-server`; a Postgres, Valkey or Durable Objects store written elsewhere is certified the same way.
 *
 * A store is handed over as a factory called with a *space*: every call with the same space must return an
 * instance that shares its data with the others of that space (two instances of one deployment behind a load
 * balancer), and a new space must start empty. Each check uses spaces of its own, so checks may run in any order.
 *
 * @example
 * import { describeStoreConformance } from '@switchboard/mcp/testing';
 * import { describe, it } from 'vitest';
 * describeStoreConformance('my Postgres stores', { sessionStore: ({ space }) => new PgSessionStore({ schema: space }) }, { describe, it });
 */
import type { ClusterBus } from '../../stores/clusterBus.js';
import type { EventStore } from '../../stores/eventStore.js';
import type { LeaseStore } from '../../stores/leaseStore.js';
import type { NotificationBus } from '../../stores/notificationBus.js';
import type { RateLimitStore } from '../../stores/rateLimitStore.js';
import type { RequestStateStore } from '../../stores/requestStateStore.js';
import type { SessionStore } from '../../stores/sessionStore.js';
import type { TaskStore } from '../../stores/taskStore.js';

/** The bounds an event store under test is built with (the names of `InMemoryEventStoreOptions`). */
export interface ConformanceEventStoreLimits {
  readonly maxEventsPerStream?: number;
  readonly maxStreams?: number;
  readonly maxStreamsPerSession?: number;
  readonly maxBytesPerSession?: number;
}

/** The bounds a task store under test is built with (the names of `InMemoryTaskStoreOptions`). */
export interface ConformanceTaskStoreLimits {
  readonly maxTasks?: number;
  readonly maxTasksPerCaller?: number;
  readonly maxStoredBytesPerCaller?: number;
}

/** What a factory of {@link StoreConformanceSubjects} is called with. */
export interface ConformanceOpen<Limits = undefined> {
  /** Instances opened with the same space share their data; a new space starts empty. */
  readonly space: string;
  /** The bounds of this check (unset ones at the store's defaults). */
  readonly limits: Limits;
}

/** A factory of one kind of store; what it returns may have a `close()`, which the kit calls after the check. */
export type ConformanceFactory<Store, Limits = undefined> = (open: ConformanceOpen<Limits>) => Store | Promise<Store>;

/** The stores to check: leave out a kind to skip its checks. */
export interface StoreConformanceSubjects {
  readonly sessionStore?: ConformanceFactory<SessionStore>;
  readonly eventStore?: ConformanceFactory<EventStore, ConformanceEventStoreLimits>;
  readonly taskStore?: ConformanceFactory<TaskStore, ConformanceTaskStoreLimits>;
  readonly notificationBus?: ConformanceFactory<NotificationBus>;
  readonly requestStateStore?: ConformanceFactory<RequestStateStore>;
  /** A cluster bus; if what it returns has `subscribed(): Promise<void>`, the kit awaits it after subscribing. */
  readonly clusterBus?: ConformanceFactory<ClusterBus>;
  readonly leaseStore?: ConformanceFactory<LeaseStore>;
  /** The rate limit's token buckets (runs on the store's own clock: its checks take about a second). */
  readonly rateLimitStore?: ConformanceFactory<RateLimitStore>;
  /** How long (ms) a message published on one bus instance may take to reach another. @default 2000 */
  readonly deliveryTimeoutMs?: number;
}

/** The interface a check is about. */
export type StoreKind = 'SessionStore' | 'EventStore' | 'TaskStore' | 'NotificationBus' | 'RequestStateStore' | 'ClusterBus' | 'LeaseStore' | 'RateLimitStore';

/** One named check: resolves when the store behaves, rejects with a {@link StoreConformanceError} when not. */
export interface StoreCheck {
  readonly store: StoreKind;
  readonly name: string;
  run(): Promise<void>;
}

/** Thrown by a check: what the store did and what the interface wants. */
export class StoreConformanceError extends Error {
  override readonly name = 'StoreConformanceError';
}

/** The kit's view of one check: opens stores in fresh spaces, closes them after. */
export class CheckContext {
  readonly #opened: unknown[] = [];
  readonly #base: string;
  #spaces = 0;
  readonly deliveryTimeoutMs: number;

  constructor(base: string, deliveryTimeoutMs: number) {
    this.#base = base;
    this.deliveryTimeoutMs = deliveryTimeoutMs;
  }

  /** A space no other check uses. */
  space(): string {
    return `${this.#base}-${++this.#spaces}`;
  }

  async open<Store, Limits>(factory: ConformanceFactory<Store, Limits>, space: string, limits: Limits): Promise<Store> {
    const store = await factory({ space, limits });
    this.#opened.push(store);
    return store;
  }

  async close(): Promise<void> {
    for (const store of this.#opened.reverse()) {
      const close = (store as { close?: unknown } | null)?.close;
      if (typeof close === 'function') await (close as () => unknown).call(store);
    }
  }
}

let runs = 0;

/**
 * Wraps check bodies: a fresh {@link CheckContext} per run, its stores closed afterwards (also when the body fails).
 * @internal used by the kit's check lists
 */
export function makeCheck(about: { readonly store: StoreKind; readonly name: string; readonly deliveryTimeoutMs: number }, body: (ctx: CheckContext) => Promise<void>): StoreCheck {
  const { store, name, deliveryTimeoutMs } = about;
  return {
    store,
    name,
    async run() {
      const ctx = new CheckContext(`conformance-${Date.now().toString(36)}-${++runs}-${Math.random().toString(36).slice(2, 8)}`, deliveryTimeoutMs);
      try {
        await body(ctx);
      } finally {
        await ctx.close();
      }
    },
  };
}

/** JSON text with sorted keys (so two equal plain values compare equal whatever their key order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  ) ?? 'undefined';
}

/** Fails unless `actual` and `expected` are equal as JSON values. */
export function assertEqual(actual: unknown, expected: unknown, what: string): void {
  const a = canonical(actual);
  const e = canonical(expected);
  if (a !== e) throw new StoreConformanceError(`${what}: expected ${e.slice(0, 2000)}, got ${a.slice(0, 2000)}`);
}

/** Fails unless `condition`. */
export function assertTrue(condition: boolean, what: string): void {
  if (!condition) throw new StoreConformanceError(what);
}

/** Fails unless `run()` rejects (or throws) with an instance of `type` whose message contains `part`. */
export async function assertRejects(run: () => Promise<unknown>, expected: { readonly type: new (...args: never[]) => Error; readonly what: string; readonly part?: string }): Promise<void> {
  const { type, what, part } = expected;
  let outcome: unknown;
  try {
    await run();
  } catch (error) {
    outcome = error;
  }
  if (!(outcome instanceof type)) throw new StoreConformanceError(`${what}: expected a ${type.name} rejection, got ${outcome === undefined ? 'a fulfilment' : outcome instanceof Error ? outcome.toString() : JSON.stringify(outcome)}`);
  if (part !== undefined && !outcome.message.includes(part)) throw new StoreConformanceError(`${what}: expected a message with "${part}", got "${outcome.message}"`);
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms until it holds; fails with `what` after `timeoutMs`. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new StoreConformanceError(`${what} (waited ${timeoutMs} ms)`);
    await sleep(10);
  }
}
