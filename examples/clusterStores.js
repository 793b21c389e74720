// @ts-check
/**
 * The Redis mode of the example and benchmark servers, read from the environment, so that `scripts/cluster.mjs`
 * can start several instances of them on one Redis behind nginx:
 *
 *   SWITCHBOARD_REDIS_URL             the stores of `@switchboard/redis` on this Redis (unset or empty: in memory)
 *   SWITCHBOARD_INSTANCE_ID           this instance's id in the cluster (default: a random one)
 *   SWITCHBOARD_REQUEST_STATE_SECRET  the key that seals and verifies 2026-07-28 `requestState` (at least 32
 *                                     bytes; the same on every instance, or a retry sealed by one is refused by
 *                                     another); unset: each server's own random key
 *
 * `@switchboard/redis` is imported only in Redis mode.
 */
import process from 'node:process';

/**
 * @typedef {object} ClusterStores
 * @property {Pick<import('@switchboard/mcp/server').McpServerOptions, 'bus' | 'taskStore' | 'requestStateStore' | 'requestState' | 'cluster'>} serverOptions
 *   what the `McpServer` takes: the bus, task store and request state store, the shared `requestState` key, and the
 *   cluster (bus, leases, instance id: a `tasks/update` reaches its task on any instance)
 * @property {import('@switchboard/redis').RedisStores['httpOptions']} httpOptions
 *   what the HTTP handler takes: the session and event stores and the cluster's bus and leases
 * @property {() => Promise<void>} close  closes the Redis connections (after the server closed)
 */

/**
 * The stores the environment asks for, or `undefined` when `SWITCHBOARD_REDIS_URL` is unset (in-memory stores).
 * @param {{ keyPrefix?: string }} [options] `keyPrefix`: the Redis key prefix (default `switchboard:`)
 * @returns {Promise<ClusterStores | undefined>}
 * @throws Error when `SWITCHBOARD_REQUEST_STATE_SECRET` is shorter than 32 bytes
 */
export async function clusterStoresFromEnv(options = {}) {
  const url = process.env.SWITCHBOARD_REDIS_URL;
  if (url === undefined || url === '') return undefined;
  const secret = process.env.SWITCHBOARD_REQUEST_STATE_SECRET;
  if (secret !== undefined && Buffer.byteLength(secret) < 32) throw new Error('SWITCHBOARD_REQUEST_STATE_SECRET must be at least 32 bytes');
  const instanceId = process.env.SWITCHBOARD_INSTANCE_ID;
  const { redisStores } = await import('@switchboard/redis');
  const stores = redisStores({
    url,
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
    ...(instanceId === undefined || instanceId === '' ? {} : { instanceId }),
  });
  await stores.ready;
  return {
    serverOptions: { ...stores.serverOptions, ...(secret === undefined ? {} : { requestState: { keys: [{ id: 'cluster', secret }] } }) },
    httpOptions: stores.httpOptions,
    close: () => stores.close(),
  };
}
