/**
 * The in-memory stores pass the store conformance kit (instances of one space are one object: a process shares its
 * stores by sharing the instance). And the kit can fail: a store that breaks a rule fails the check about it.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryClusterBus } from '../../stores/clusterBus.js';
import { InMemoryEventStore } from '../../stores/eventStore.js';
import { InMemoryLeaseStore } from '../../stores/leaseStore.js';
import { InMemoryNotificationBus } from '../../stores/notificationBus.js';
import { InMemoryRateLimitStore, type RateLimit, type RateLimitStore } from '../../stores/rateLimitStore.js';
import { InMemoryRequestStateStore } from '../../stores/requestStateStore.js';
import { InMemorySessionStore } from '../../stores/sessionStore.js';
import { InMemoryTaskStore } from '../../stores/taskStore.js';
import type { EventStore } from '../../stores/eventStore.js';
import { StoreConformanceError } from './conformanceKit.js';
import { describeStoreConformance, storeConformanceChecks } from './storeConformance.js';

/** One instance per space, made on first use. */
function perSpace<T>(make: (limits: never) => T): (open: { space: string; limits: unknown }) => T {
  const spaces = new Map<string, T>();
  return ({ space, limits }) => {
    let store = spaces.get(space);
    if (store === undefined) spaces.set(space, (store = make(limits as never)));
    return store;
  };
}

describeStoreConformance('the in-memory stores', {
  sessionStore: perSpace(() => new InMemorySessionStore()),
  eventStore: perSpace((limits) => new InMemoryEventStore(limits)),
  taskStore: perSpace((limits) => new InMemoryTaskStore(limits)),
  notificationBus: perSpace(() => new InMemoryNotificationBus()),
  requestStateStore: perSpace(() => new InMemoryRequestStateStore()),
  clusterBus: perSpace(() => new InMemoryClusterBus()),
  leaseStore: perSpace(() => new InMemoryLeaseStore()),
  rateLimitStore: perSpace(() => new InMemoryRateLimitStore()),
}, { describe, it });

describe('the store conformance kit', () => {
  it('fails a store that replays across streams, naming what it did', async () => {
    /** Replays every event stored after the given one, whatever its stream (the cross-session replay bug class). */
    class Leaky extends InMemoryEventStore {
      readonly #all: [string, unknown][] = [];
      override storeEvent(streamId: string, message: Parameters<EventStore['storeEvent']>[1], size?: number): string {
        const id = super.storeEvent(streamId, message, size);
        this.#all.push([id, message]);
        return id;
      }
      override replayEventsAfter(lastEventId: string, sink: Parameters<EventStore['replayEventsAfter']>[1]): string | undefined {
        const stream = super.replayEventsAfter(lastEventId, { send: () => {} });
        if (stream === undefined) return undefined;
        const from = this.#all.findIndex(([id]) => id === lastEventId);
        for (const [id, message] of this.#all.slice(from + 1)) void sink.send(id, message as never);
        return stream;
      }
    }
    const checks = storeConformanceChecks({ eventStore: perSpace((limits) => new Leaky(limits)) });
    const failures: string[] = [];
    for (const check of checks) await check.run().catch((error: unknown) => failures.push(`${check.name}: ${error instanceof StoreConformanceError ? 'StoreConformanceError' : String(error)}`));
    expect(failures).toContain("an id of one session never replays another session's stream, and names no other stream: StoreConformanceError");
    expect(failures.length).toBeGreaterThanOrEqual(2);
  });

  it('fails a session store whose touch creates records, and a bus that delivers twice', async () => {
    class Creating extends InMemorySessionStore {
      override async touch(sessionId: string, activity: Parameters<InMemorySessionStore['touch']>[1]): Promise<boolean | void> {
        if ((await this.get(sessionId)) === undefined) await this.create({ sessionId, transport: 'streamable-http', caller: null, createdAt: activity.at, lastActivity: activity.at, phase: 'opened', ttlMs: 0, streamPrefix: null, protocolVersion: null });
        return super.touch(sessionId, activity);
      }
    }
    class Echoing extends InMemoryNotificationBus {
      override async publish(message: Parameters<InMemoryNotificationBus['publish']>[0]): Promise<void> {
        await super.publish(message);
        await super.publish(message);
      }
    }
    const checks = storeConformanceChecks({ sessionStore: perSpace(() => new Creating()), notificationBus: perSpace(() => new Echoing()) });
    const failed = new Set<string>();
    for (const check of checks) await check.run().catch(() => failed.add(check.store));
    expect([...failed].sort()).toEqual(['NotificationBus', 'SessionStore']);
  });
});

describe('the rate limit checks', () => {
  it('fail a store whose buckets refill beyond burst, and one that counts each instance apart', async () => {
    /** Caps nothing: an idle caller saves up tokens without bound. */
    class Hoarding implements RateLimitStore {
      readonly #tokens = new Map<string, { tokens: number; at: number }>();
      take(key: string, limit: RateLimit): number {
        const now = performance.now();
        const bucket = this.#tokens.get(key) ?? { tokens: limit.burst, at: now };
        bucket.tokens += ((now - bucket.at) * limit.requestsPerSecond) / 1000;
        bucket.at = now;
        this.#tokens.set(key, bucket);
        if (bucket.tokens < 1) return Math.max(1, Math.ceil(((1 - bucket.tokens) * 1000) / limit.requestsPerSecond));
        bucket.tokens -= 1;
        return 0;
      }
    }
    const failures: string[] = [];
    const checks = storeConformanceChecks({ rateLimitStore: perSpace(() => new Hoarding()) });
    for (const check of checks) await check.run().catch(() => failures.push(check.name));
    expect(failures).toEqual(['refills at requestsPerSecond, never beyond burst; a refused take names when to come back']);
    // A store per instance (the in-memory one, not shared): the deployment's limit is then one per instance.
    const apart = storeConformanceChecks({ rateLimitStore: () => new InMemoryRateLimitStore() }).filter((check) => !check.name.startsWith('refills'));
    const failed: string[] = [];
    for (const check of apart) await check.run().catch(() => failed.push(check.name));
    expect(failed).toEqual([
      'a bucket starts full at burst and is shared by the instances of a space; keys and spaces are apart',
      'of concurrent takes of one key on three instances, exactly burst are admitted',
    ]);
  });
});
