/**
 * `redisStores`: every store of a Switchboard server on one Redis URL, in the shape the options want them —
 * `sessionStore` and `eventStore` for `serveHttp` / `createMcpHttpHandler`, `bus`, `taskStore` and
 * `requestStateStore` for `McpServer`, `rateLimitStore` for `rateLimitMiddleware` — and the cluster's `clusterBus` and
 * `leaseStore`, over three connections (commands, and one subscriber per bus).
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { Redis } from 'ioredis';
import { connectRedis, type RedisConnectionOptions } from './connection.js';
import { RedisClusterBus } from './redisClusterBus.js';
import { RedisEventStore, type RedisEventStoreOptions } from './redisEventStore.js';
import { RedisLeaseStore } from './redisLeaseStore.js';
import { RedisNotificationBus } from './redisNotificationBus.js';
import { RedisRateLimitStore } from './redisRateLimitStore.js';
import { RedisRequestStateStore } from './redisRequestStateStore.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from './redisSessionStore.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './redisTaskStore.js';

/** Options of {@link redisStores}: the connection's, the key prefix, and each store's bounds. */
export interface RedisStoresOptions extends RedisConnectionOptions {
  /**
   * Prefix of every key and of the bus channel: instances that share it share their sessions, events, tasks and
   * notifications; give each deployment its own. @default 'switchboard:'
   */
  readonly keyPrefix?: string;
  /** Where connection losses and failed publishes are reported. @default silent */
  readonly logger?: Logger;
  /** Bounds and expiry of the event store (see {@link RedisEventStoreOptions}). */
  readonly events?: Omit<RedisEventStoreOptions, 'redis' | 'keyPrefix'>;
  /** Expiry of session records (see {@link RedisSessionStoreOptions}). */
  readonly sessions?: Omit<RedisSessionStoreOptions, 'redis' | 'keyPrefix'>;
  /** Bounds of the task store (see {@link RedisTaskStoreOptions}). */
  readonly tasks?: Omit<RedisTaskStoreOptions, 'redis' | 'keyPrefix'>;
  /**
   * Put the `cluster` option (the cluster bus and leases on this Redis) in {@link RedisStores.httpOptions}, so any
   * instance serves any session's requests, and in {@link RedisStores.serverOptions}, so a `tasks/update` reaches
   * its task on any instance. `false`: only the shared stores (a session is then served by the instance that opened
   * it; the others see its record and history). @default true
   */
  readonly cluster?: boolean;
  /** This instance's id in the cluster (letters, digits, `_`, `-`; at most 64). @default a random id */
  readonly instanceId?: string;
  /**
   * How long (ms) an instance's lease lasts (renewed every third of it): a dead instance's calls are known lost at most
   * this long after its last renewal. @default the handler's (10_000)
   */
  readonly leaseTtlMs?: number;
}

/**
 * The `cluster` option of the HTTP handler and of `McpServer` as {@link redisStores} fills both (the shape of
 * `HttpClusterOptions` and `ServerClusterOptions`).
 */
export interface RedisClusterOptions {
  readonly bus: RedisClusterBus;
  readonly leases: RedisLeaseStore;
  readonly instanceId: string;
  readonly leaseTtlMs?: number;
}

/** What {@link redisStores} returns. */
export interface RedisStores {
  /** The command connection every store uses. */
  readonly redis: Redis;
  /** For `serveHttp` / `createMcpHttpHandler`'s `sessionStore`. */
  readonly sessionStore: RedisSessionStore;
  /** For `serveHttp` / `createMcpHttpHandler`'s `eventStore`. */
  readonly eventStore: RedisEventStore;
  /** For `McpServer`'s `bus`. */
  readonly bus: RedisNotificationBus;
  /** For `McpServer`'s `taskStore`. */
  readonly taskStore: RedisTaskStore;
  /** For `McpServer`'s `requestStateStore` (share the `requestState` keys between instances too). */
  readonly requestStateStore: RedisRequestStateStore;
  /** The cluster bus (per-instance and per-session channels between instances). */
  readonly clusterBus: RedisClusterBus;
  /** The lease store (instance heartbeats and work records). */
  readonly leaseStore: RedisLeaseStore;
  /**
   * For `rateLimitMiddleware({ store })`: each caller's limit counted for the whole deployment (keys `P:rl:<caller>`).
   * One store per rate-limit middleware: a second one needs `new RedisRateLimitStore({ redis, keyPrefix })` with a
   * prefix of its own.
   */
  readonly rateLimitStore: RedisRateLimitStore;
  /** This instance's id in the cluster: {@link RedisStoresOptions.instanceId}, else a random one (the same in both option sets). */
  readonly instanceId: string;
  /**
   * `{ bus, taskStore, requestStateStore, cluster }`: the options of `new McpServer(info, options)` (spread them into
   * yours); `cluster` (the cluster bus, leases and {@link RedisStores.instanceId}: a `tasks/update` reaches its task
   * on whichever instance runs it) is left out with `cluster: false`.
   */
  readonly serverOptions: {
    readonly bus: RedisNotificationBus;
    readonly taskStore: RedisTaskStore;
    readonly requestStateStore: RedisRequestStateStore;
    readonly cluster?: RedisClusterOptions;
  };
  /** `{ sessionStore, eventStore, cluster }`: spread into `serveHttp({ … })` (no `cluster` with `cluster: false`). */
  readonly httpOptions: { readonly sessionStore: RedisSessionStore; readonly eventStore: RedisEventStore; readonly cluster?: RedisClusterOptions };
  /** Resolves once the bus listens (the first command connects too). */
  readonly ready: Promise<void>;
  /** Stops the session heartbeat and closes the three connections. */
  close(): Promise<void>;
}

/**
 * Every store on the Redis at `url` (see {@link RedisStoresOptions}).
 * @example
 * const stores = redisStores({ url: process.env.SWITCHBOARD_REDIS_URL, keyPrefix: 'myapp:' });
 * const server = new McpServer({ name: 'x', version: '1' }, stores.serverOptions);
 * await serveHttp({ server, port: 3000, ...stores.httpOptions });
 * @throws TypeError when `url` is not a `redis:` or `rediss:` URL
 */
export function redisStores(options: RedisStoresOptions = {}): RedisStores {
  const redis = connectRedis(options);
  const keyPrefix = options.keyPrefix;
  const shared = { redis, ...(keyPrefix === undefined ? {} : { keyPrefix }) };
  // The heartbeat keeps a live session's SSE history at least as long as the event store keeps a written one.
  const eventsTtl = options.events?.streamTtlMs === undefined ? {} : { eventsTtlMs: options.events.streamTtlMs };
  const sessionStore = new RedisSessionStore({ ...eventsTtl, ...options.sessions, ...shared });
  const eventStore = new RedisEventStore({ ...options.events, ...shared });
  const taskStore = new RedisTaskStore({ ...options.tasks, ...shared });
  const requestStateStore = new RedisRequestStateStore(shared);
  const logging = options.logger === undefined ? {} : { logger: options.logger };
  const bus = new RedisNotificationBus({ ...shared, ...logging });
  const clusterBus = new RedisClusterBus({ ...shared, ...logging });
  const leaseStore = new RedisLeaseStore(shared);
  const rateLimitStore = new RedisRateLimitStore(shared);
  // One id for the server and the handler: the lease the handler renews is the one a task's instance is judged by.
  const instanceId = options.instanceId ?? globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 12);
  const leaseTtl = options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs };
  const cluster = { bus: clusterBus, leases: leaseStore, instanceId, ...leaseTtl };
  return {
    redis,
    sessionStore,
    eventStore,
    bus,
    taskStore,
    requestStateStore,
    clusterBus,
    leaseStore,
    rateLimitStore,
    instanceId,
    serverOptions: { bus, taskStore, requestStateStore, ...(options.cluster === false ? {} : { cluster }) },
    httpOptions: { sessionStore, eventStore, ...(options.cluster === false ? {} : { cluster }) },
    ready: bus.ready,
    async close() {
      sessionStore.close();
      await bus.close();
      await clusterBus.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
