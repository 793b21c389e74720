/**
 * `--redis-url` and `SWITCHBOARD_REDIS_URL` of `switchboard serve` (in-process `run`, a real `redis-server`): the
 * module's function gets the Redis bus, task store and request state store, and the HTTP sessions are recorded in
 * Redis (`serve`, and `gateway`, whose front server publishes its list changes on the Redis bus and counts its
 * configured rate limit in Redis); an unreachable Redis is one line naming it (password hidden) and a non-zero exit, in bounded time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { RedisSessionStore, connectRedis } from '@switchboard/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';
import { freePort, INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODULE = path.join('test', 'fixtures', 'cli-redis-module.mjs');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(REDIS_SERVER === undefined)('switchboard serve --redis-url', () => {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('gives the module the Redis stores and records its HTTP sessions in Redis (flag, then environment)', async () => {
    const connection = connectRedis({ url: redis!.url });
    const sessions = new RedisSessionStore({ redis: connection });
    try {
      for (const how of ['flag', 'env'] as const) {
        const stop = new AbortController();
        const io = captureIo({ cwd: ROOT, signal: stop.signal, ...(how === 'env' ? { env: { SWITCHBOARD_REDIS_URL: redis!.url } } : {}) });
        const done = run(['serve', MODULE, '--port', '0', ...(how === 'flag' ? ['--redis-url', redis!.url] : [])], io);
        await expect.poll(() => io.err(), { timeout: 10_000 }).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+\/mcp with the stores on Redis/);
        const url = /on (http:\/\/\S+) /.exec(io.err())![1]!;
        const client = await McpClient.connect({ connector: streamableHttp({ url }), era: 'legacy', logger: silent });
        expect((await client.callTool({ name: 'stores', arguments: {} })).content).toEqual([{ type: 'text', text: 'RedisNotificationBus,RedisTaskStore,RedisRequestStateStore' }]);
        expect(await sessions.count()).toBe(1);
        await client.close();
        stop.abort();
        expect(await done).toBe(0);
        await expect.poll(() => sessions.count(), { timeout: 5000 }).toBe(0);
      }
    } finally {
      sessions.close();
      await connection.quit();
    }
  }, 60_000);

  it('gateway --redis-url records the front\'s sessions in Redis, gives its server the Redis bus and its rate limit the Redis buckets', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-gateway-redis-'));
    writeFileSync(path.join(dir, 'gateway.json'), JSON.stringify({ upstreams: { one: { command: process.execPath, args: [path.join(ROOT, 'test', 'fixtures', 'stdio-server.mjs')] } }, middleware: { rateLimit: { requestsPerSecond: 0.01, burst: 1000 } } }));
    const connection = connectRedis({ url: redis!.url });
    const sessions = new RedisSessionStore({ redis: connection, keyPrefix: 'switchboard:' });
    const listener = connectRedis({ url: redis!.url });
    const heard: string[] = [];
    try {
      await listener.subscribe('switchboard:bus');
      listener.on('message', (_channel: string, text: string) => void heard.push(text));
      const stop = new AbortController();
      const io = captureIo({ cwd: dir, signal: stop.signal });
      const done = run(['gateway', '--config', 'gateway.json', '--port', '0', '--redis-url', redis!.url], io);
      await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/serving 1 upstreams on http:\/\/127\.0\.0\.1:\d+\/mcp with the stores on Redis/);
      const url = /on (http:\/\/\S+) /.exec(io.err())![1]!;
      await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/upstream "one" ready \(/);
      const client = await McpClient.connect({ connector: streamableHttp({ url }), era: 'legacy', logger: silent });
      expect((await client.listAllTools()).map((t) => t.name)).toContain('one_echo');
      expect(await sessions.count()).toBe(1);
      // The front's list changed when the upstream came: published on the Redis bus.
      expect(heard.some((text) => text.includes('"list_changed"'))).toBe(true);
      // The configured rate limit counts in Redis (one bucket per caller for every gateway instance).
      expect(await connection.keys('switchboard:rl:*')).toEqual(['switchboard:rl:address:127.0.0.1']);
      expect(Number(await connection.hget('switchboard:rl:address:127.0.0.1', 'tk'))).toBeLessThan(1000);
      await client.close();
      stop.abort();
      expect(await done).toBe(0);
    } finally {
      sessions.close();
      await connection.quit();
      await listener.quit();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('an unreachable Redis is one line naming it, password hidden, and exit code 2', async () => {
    const port = await freePort();
    const io = captureIo({ cwd: ROOT, env: { SWITCHBOARD_REDIS_URL: `redis://:secret@127.0.0.1:${port}` } });
    expect(await run(['serve', MODULE, '--port', '0'], io)).not.toBe(0);
    expect(io.err()).toContain(`Cannot reach Redis at redis://…@127.0.0.1:${port}: `);
    expect(io.err()).not.toContain('secret');
  }, 30_000);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
