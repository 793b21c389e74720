/** One upstream's backoff when it keeps failing right after it comes up (a flapping upstream). */
import { describe, expect, it } from 'vitest';
import { McpServer } from '@switchboard/mcp/server';
import { inMemoryConnector } from '@switchboard/mcp/testing';
import { UpstreamPool } from '../index.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe('Upstream backoff', () => {
  it('refuses a deadline no timer can hold (setTimeout would fire it at once)', () => {
    expect(() => new UpstreamPool({ logger: silent, connectTimeoutMs: 2 ** 31 })).toThrow(
      new RangeError('Invalid connectTimeoutMs: expected a number of milliseconds from 0 to 2147483647, got 2147483648'),
    );
    expect(() => new UpstreamPool({ logger: silent, healthCheckIntervalMs: Infinity })).toThrow(RangeError);
    expect(() => new UpstreamPool({ logger: silent, connectTimeoutMs: true as never })).toThrow(RangeError);
    expect(new UpstreamPool({ logger: silent, connectTimeoutMs: 2 ** 31 - 1 })).toBeInstanceOf(UpstreamPool);
  });

  it('an upstream that dies right after each listing is tried less and less often, not at the first delay forever', async () => {
    const server = new McpServer({ name: 'flaky', version: '1.0.0' }, { logger: silent });
    server.tool('t0', {}, () => ({ content: [] }));
    const connector = inMemoryConnector(server);
    const pool = new UpstreamPool({ upstreams: [{ name: 'flaky', connector }], logger: silent, healthCheckIntervalMs: 0, backoff: { initialDelayMs: 10, maxDelayMs: 1_000, multiplier: 2, jitter: 0 } });
    const delays: number[] = [];
    const fourDowns = new Promise<void>((resolve) => {
      pool.onHealth((health) => {
        // Each time it is ready, its connection ends at once.
        if (health.state === 'ready') void connector.drop({ reason: 'crashed after listing' });
        if (health.state === 'down' && health.nextAttemptAt !== undefined && health.lastErrorAt !== undefined) {
          delays.push(health.nextAttemptAt - health.lastErrorAt);
          if (delays.length === 4) resolve();
        }
      });
    });
    pool.start();
    try {
      await fourDowns;
      expect(delays).toEqual([10, 20, 40, 80]);
      // What an operator reads stays "failed attempts since it was last ready".
      expect(pool.health()[0]?.failures).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
