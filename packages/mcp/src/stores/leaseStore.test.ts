import { describe, expect, it } from 'vitest';
import { InMemoryLeaseStore, instanceLeaseKey, streamLeaseKey } from './leaseStore.js';
import { InMemoryClusterBus, instanceChannel, sessionChannel, type ClusterMessage } from './clusterBus.js';

describe('InMemoryLeaseStore', () => {
  it('one holder at a time; renewal replaces the value; release only by the holder; expiry frees the key', async () => {
    let now = 1000;
    const leases = new InMemoryLeaseStore({ now: () => now });
    expect(await leases.acquire(instanceLeaseKey('a'), { holder: 'a', ttlMs: 100, value: { n: 1 } })).toBe(true);
    expect(await leases.acquire(instanceLeaseKey('a'), { holder: 'b', ttlMs: 100 })).toBe(false);
    expect(await leases.get(instanceLeaseKey('a'))).toEqual({ holder: 'a', expiresAt: 1100, value: { n: 1 } });
    expect(await leases.acquire(instanceLeaseKey('a'), { holder: 'a', ttlMs: 200, value: 'x' })).toBe(true);
    expect(await leases.get(instanceLeaseKey('a'))).toEqual({ holder: 'a', expiresAt: 1200, value: 'x' });
    await leases.release(instanceLeaseKey('a'), 'b');
    expect((await leases.get(instanceLeaseKey('a')))?.holder).toBe('a');
    now = 1200;
    expect(await leases.get(instanceLeaseKey('a'))).toBeUndefined();
    expect(await leases.acquire(instanceLeaseKey('a'), { holder: 'b', ttlMs: 100 })).toBe(true);
    await leases.release(instanceLeaseKey('a'), 'b');
    expect(leases.size).toBe(0);
    await expect(leases.acquire('k', { holder: 'a', ttlMs: 0 })).rejects.toThrow(RangeError);
  });

  it('is bounded: past maxLeases the lease closest to its end goes', async () => {
    const leases = new InMemoryLeaseStore({ maxLeases: 2 });
    await leases.acquire(streamLeaseKey('s1'), { holder: 'a', ttlMs: 1000 });
    await leases.acquire(streamLeaseKey('s2'), { holder: 'a', ttlMs: 5000 });
    await leases.acquire(streamLeaseKey('s3'), { holder: 'a', ttlMs: 5000 });
    expect(leases.size).toBe(2);
    expect(await leases.get(streamLeaseKey('s1'))).toBeUndefined();
    expect(() => new InMemoryLeaseStore({ maxLeases: 0 })).toThrow(RangeError);
  });
});

describe('InMemoryClusterBus', () => {
  it('delivers a JSON copy to the listeners of the channel only, past a failing one; unsubscribing is idempotent', async () => {
    const bus = new InMemoryClusterBus();
    const heard: ClusterMessage[] = [];
    const other: ClusterMessage[] = [];
    bus.subscribe(sessionChannel('s'), () => {
      throw new Error('broken');
    });
    const stop = bus.subscribe(sessionChannel('s'), (m) => void heard.push(m));
    bus.subscribe(instanceChannel('a'), (m) => void other.push(m));
    const message: ClusterMessage = { type: 'closed', from: 'a', sessionId: 's' };
    await bus.publish(sessionChannel('s'), message);
    expect(heard).toEqual([message]);
    expect(heard[0]).not.toBe(message);
    expect(other).toEqual([]);
    stop();
    stop();
    await bus.publish(sessionChannel('s'), message);
    expect(heard).toHaveLength(1);
    expect(bus.channelCount).toBe(2);
  });
});
