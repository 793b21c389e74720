// @ts-check
/**
 * redis-server for the local cluster tooling (scripts/cluster.mjs and test/helpers/redisServer.ts): where it is, what
 * to install when it is not, and the arguments of a throwaway server (loopback, no persistence).
 */
import { findExecutable } from './processes.mjs';

/** `redis-server`, or `undefined` when not installed. */
export const REDIS_SERVER = findExecutable('redis-server', ['--version']);

/** What to install when {@link REDIS_SERVER} is `undefined` (the line a skipped test shows). */
export const INSTALL_REDIS = 'install redis-server (Debian: apt-get install redis-server)';

/**
 * The arguments of a redis-server on 127.0.0.1:`port` that keeps nothing: no RDB snapshots, no append-only file,
 * its working folder `dir`, protected mode on.
 * @param {number} port
 * @param {string} dir
 * @returns {string[]}
 */
export function redisServerArgs(port, dir) {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'];
}
