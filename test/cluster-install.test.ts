/**
 * The one line naming what to install for a cluster (scripts/lib/install.mjs), as the cluster script and the nginx
 * cluster tests show it: every missing tool is named, nginx and redis-server both when both are missing.
 */
import { describe, expect, it } from 'vitest';
import { missingClusterTools } from '../scripts/lib/install.mjs';
import { NGINX } from '../scripts/lib/nginx.mjs';
import { REDIS_SERVER } from '../scripts/lib/redis.mjs';
import { NGINX_CLUSTER_MISSING } from './helpers/nginxCluster.js';

describe('missingClusterTools', () => {
  it('names nginx and redis-server when both are missing', () => {
    expect(missingClusterTools({ found: {} })).toBe('install nginx and redis-server (Debian: apt-get install nginx redis-server)');
  });

  it('names only the missing one', () => {
    expect(missingClusterTools({ found: { redisServer: '/usr/bin/redis-server' } })).toBe('install nginx (Debian: apt-get install nginx)');
    expect(missingClusterTools({ found: { nginx: '/usr/sbin/nginx' } })).toBe('install redis-server (Debian: apt-get install redis-server)');
    expect(missingClusterTools({ found: { nginx: '/usr/sbin/nginx', redisServer: '/usr/bin/redis-server' } })).toBeUndefined();
  });

  it('leaves out what is not needed', () => {
    expect(missingClusterTools({ nginx: false, found: {} })).toBe('install redis-server (Debian: apt-get install redis-server)');
    expect(missingClusterTools({ redis: false, found: {} })).toBe('install nginx (Debian: apt-get install nginx)');
    expect(missingClusterTools({ nginx: false, redis: false, found: {} })).toBeUndefined();
  });

  it('is the skip line of the nginx cluster tests, judged on this machine', () => {
    expect(NGINX_CLUSTER_MISSING).toBe(missingClusterTools({ found: { nginx: NGINX, redisServer: REDIS_SERVER } }));
  });
});
