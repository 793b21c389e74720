/**
 * @switchboard/redis — the stores of `@switchboard/mcp/stores` on Redis, so several instances behind one endpoint
 * share sessions, resumable SSE events, tasks, used request states, notifications and each caller's rate limit: `redisStores({ url })` for
 * all of them on one URL, or each class on a connection of `connectRedis`. Every store passes the store conformance
 * kit (`@switchboard/mcp/testing`) against a real `redis-server`.
 *
 * @example
 * import { redisStores } from '@switchboard/redis';
 * const stores = redisStores({ url: 'redis://127.0.0.1:6379', keyPrefix: 'myapp:' });
 * const server = new McpServer({ name: 'x', version: '1' }, stores.serverOptions);
 * await serveHttp({ server, ...stores.httpOptions });
 * @packageDocumentation
 */
export { connectRedis, DEFAULT_KEY_PREFIX, RedisStoreError, type RedisConnectionOptions } from './connection.js';
export { RedisClusterBus, type RedisClusterBusOptions } from './redisClusterBus.js';
export { DEFAULT_STREAM_TTL_MS, RedisEventStore, type RedisEventStoreOptions } from './redisEventStore.js';
export { RedisLeaseStore, type RedisLeaseStoreOptions } from './redisLeaseStore.js';
export { RedisNotificationBus, type RedisNotificationBusOptions } from './redisNotificationBus.js';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './redisRateLimitStore.js';
export { RedisRequestStateStore, type RedisRequestStateStoreOptions } from './redisRequestStateStore.js';
export { DEFAULT_ORPHAN_TTL_MS, DEFAULT_SESSION_HEARTBEAT_MS, RedisSessionStore, type RedisSessionStoreOptions } from './redisSessionStore.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './redisTaskStore.js';
export { redisStores, type RedisClusterOptions, type RedisStores, type RedisStoresOptions } from './redisStores.js';
