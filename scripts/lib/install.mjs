// @ts-check
/**
 * What to install for the local cluster tooling: the one line scripts/cluster.mjs, the scripts built on it and the
 * skipped cluster tests show when nginx or redis-server is missing.
 */
import { NGINX } from './nginx.mjs';
import { REDIS_SERVER } from './redis.mjs';

/**
 * What to install for a cluster, or `undefined` when everything it needs is there.
 * @param {{ nginx?: boolean, redis?: boolean, found?: { nginx?: string | undefined, redisServer?: string | undefined } }} [options]
 *   `nginx: false` / `redis: false`: that one is not needed (both default true); `found`: the executables to judge
 *   (default: {@link NGINX} and {@link REDIS_SERVER}, what this machine has)
 * @returns {string | undefined} e.g. `install nginx and redis-server (Debian: apt-get install nginx redis-server)`
 */
export function missingClusterTools({ nginx = true, redis = true, found = { nginx: NGINX, redisServer: REDIS_SERVER } } = {}) {
  const missing = [...(nginx && found.nginx === undefined ? ['nginx'] : []), ...(redis && found.redisServer === undefined ? ['redis-server'] : [])];
  return missing.length === 0 ? undefined : `install ${missing.join(' and ')} (Debian: apt-get install ${missing.join(' ')})`;
}
