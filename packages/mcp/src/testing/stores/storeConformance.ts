/**
 * The store conformance kit's entry points: {@link storeConformanceChecks} lists the checks for the stores given,
 * {@link describeStoreConformance} registers them with a test framework's `describe` and `it` (vitest, jest, mocha,
 * `node:test` all fit). See `conformanceKit.ts` for how stores are handed over (factories and spaces).
 */
import { notificationBusChecks, requestStateStoreChecks } from './busChecks.js';
import { clusterBusChecks, leaseStoreChecks } from './clusterChecks.js';
import type { StoreCheck, StoreConformanceSubjects } from './conformanceKit.js';
import { eventStoreChecks } from './eventStoreChecks.js';
import { rateLimitStoreChecks } from './rateLimitStoreChecks.js';
import { sessionStoreChecks } from './sessionStoreChecks.js';
import { taskStoreChecks } from './taskStoreChecks.js';

const DEFAULT_DELIVERY_TIMEOUT_MS = 2000;

/**
 * The conformance checks for every store `subjects` names, grouped by interface (sessions, events, tasks, bus,
 * request states, cluster bus, leases, rate limits). Each check opens its stores in spaces of its own and closes them (`close()`, when they have one)
 * when it ends; a check rejects with a `StoreConformanceError` saying what the store did.
 * @example
 * for (const check of storeConformanceChecks({ eventStore: () => new InMemoryEventStore() })) await check.run();
 */
export function storeConformanceChecks(subjects: StoreConformanceSubjects): StoreCheck[] {
  const timeout = subjects.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  return [
    ...(subjects.sessionStore === undefined ? [] : sessionStoreChecks(subjects.sessionStore, timeout)),
    ...(subjects.eventStore === undefined ? [] : eventStoreChecks(subjects.eventStore, timeout)),
    ...(subjects.taskStore === undefined ? [] : taskStoreChecks(subjects.taskStore, timeout)),
    ...(subjects.notificationBus === undefined ? [] : notificationBusChecks(subjects.notificationBus, timeout)),
    ...(subjects.requestStateStore === undefined ? [] : requestStateStoreChecks(subjects.requestStateStore, timeout)),
    ...(subjects.clusterBus === undefined ? [] : clusterBusChecks(subjects.clusterBus, timeout)),
    ...(subjects.leaseStore === undefined ? [] : leaseStoreChecks(subjects.leaseStore, timeout)),
    ...(subjects.rateLimitStore === undefined ? [] : rateLimitStoreChecks(subjects.rateLimitStore, timeout)),
  ];
}

/** The two functions of a test framework {@link describeStoreConformance} needs. */
export interface ConformanceFramework {
  describe(name: string, body: () => void): void;
  it(name: string, run: () => Promise<void>, timeoutMs?: number): void;
}

/**
 * Registers the checks of {@link storeConformanceChecks} as tests: one `describe(title)` holding one `describe` per
 * interface and one `it` per check (with a 10 s timeout, for stores over a network).
 * @example
 * import { describe, it } from 'vitest';
 * describeStoreConformance('in-memory stores', { sessionStore: () => new InMemorySessionStore() }, { describe, it });
 */
export function describeStoreConformance(title: string, subjects: StoreConformanceSubjects, framework: ConformanceFramework): void {
  const checks = storeConformanceChecks(subjects);
  framework.describe(title, () => {
    for (const kind of new Set(checks.map((c) => c.store))) {
      framework.describe(kind, () => {
        for (const check of checks.filter((c) => c.store === kind)) framework.it(check.name, () => check.run(), 10_000);
      });
    }
  });
}
