/**
 * Two `serveHttp` instances, A and B, in the test's own process, each with its own `McpServer` on `redisStores` of one
 * real `redis-server` (test/helpers/redisServer.ts): the cluster of test/redis-two-instances.test.ts and
 * test/redis-session-failures.test.ts, where the test sends each request to the instance it names.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { redisStores, type RedisStores, type RedisStoresOptions } from '@switchboard/redis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisServer, type RedisServer } from './redisServer.js';

/** One instance: its stores, its server, and where it serves. */
export interface RedisInstance {
  readonly name: string;
  readonly stores: RedisStores;
  readonly server: McpServer;
  readonly http: ServeHttpHandle;
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** Closes the server, the HTTP listener, then the stores (its Redis connections). */
  close(): Promise<void>;
}

/** How each instance is made. */
export interface RedisInstanceOptions {
  /** The stores' key prefix (one per test file). */
  readonly keyPrefix: string;
  /** More options of `redisStores` (the URL, the key prefix and the instance id are set here). */
  readonly stores?: Omit<RedisStoresOptions, 'url' | 'keyPrefix' | 'instanceId'>;
  /** Registers the instance's tools; `name` is the instance's (`A`, `B`, …), also its `instanceId`. */
  readonly tools: (server: McpServer, name: string) => void;
}

/** Starts one instance on `redisUrl`: its stores ready, its tools registered, serving on a free loopback port. */
export async function startRedisInstance(redisUrl: string, name: string, options: RedisInstanceOptions): Promise<RedisInstance> {
  const stores = redisStores({ ...options.stores, url: redisUrl, keyPrefix: options.keyPrefix, instanceId: name });
  await stores.ready;
  const server = new McpServer({ name: 'redis-instance', version: '1' }, { ...stores.serverOptions, logger: silentLogger });
  options.tools(server, name);
  const http = await serveHttp({ server, ...stores.httpOptions, logger: silentLogger });
  return {
    name, stores, server, http,
    url: `http://127.0.0.1:${http.port}/mcp`,
    async close() {
      await server.close();
      await http.close();
      await stores.close();
    },
  };
}

/** The running pair and their Redis (read inside a test: the getters throw before `beforeAll` ran). */
export interface TwoRedisInstances {
  readonly redis: RedisServer;
  readonly a: RedisInstance;
  readonly b: RedisInstance;
}

/**
 * A redis-server and instances A and B on it for the tests of the enclosing `describe`: started in its `beforeAll`,
 * closed in its `afterAll` (`beforeStop` first: release what a test may have left waiting or stopped), Redis last.
 * Call it inside `describe.skipIf(REDIS_SERVER === undefined)`.
 */
export function useTwoRedisInstances(options: RedisInstanceOptions & { readonly beforeStop?: (redis: RedisServer) => void }): TwoRedisInstances {
  let redis: RedisServer | undefined;
  const started: RedisInstance[] = [];
  const get = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started (useTwoRedisInstances: read it inside a test)`);
    return value;
  };
  beforeAll(async () => {
    redis = await startRedisServer();
    const url = redis.url;
    // At once: the two share only Redis. What did start is kept, so afterAll closes it when the other failed.
    const both = await Promise.allSettled(['A', 'B'].map((name) => startRedisInstance(url, name, options)));
    for (const one of both) if (one.status === 'fulfilled') started.push(one.value);
    const failed = both.find((one) => one.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  });
  afterAll(async () => {
    if (redis !== undefined) options.beforeStop?.(redis);
    for (const one of started) await one.close();
    await redis?.stop();
  });
  return {
    get redis() {
      return get(redis, 'redis-server');
    },
    get a() {
      return get(started[0], 'instance A');
    },
    get b() {
      return get(started[1], 'instance B');
    },
  };
}
