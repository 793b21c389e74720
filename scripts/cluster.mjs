#!/usr/bin/env node
// @ts-check
/**
 * A real Switchboard cluster on 127.0.0.1: one `redis-server` (a free port, no persistence), N instances of a server
 * script sharing it, and nginx doing plain round-robin in front (an `upstream` block: no `ip_hash`, no cookie;
 * HTTP/1.1 with upstream keep-alive, `proxy_buffering off`, 1 h read and send timeouts for SSE streams). Every
 * process is started here and stopped by its own PID.
 *
 *   node scripts/cluster.mjs [--instances 3] [--no-nginx] [--log-dir DIR] -- SCRIPT [ARGS...]
 *       starts the cluster, prints its URL on stdout, and stops it on SIGINT/SIGTERM (during start-up too: what was
 *       started is stopped and the log folder it made removed)
 *   node scripts/cluster.mjs -- examples/conformance-server/main.js
 *
 * The server script's contract: it takes `--port N` (appended to ARGS) and serves Streamable HTTP at
 * `http://127.0.0.1:N/mcp`; when `SWITCHBOARD_REDIS_URL` is set it takes its stores from
 * `redisStores({ url, instanceId: SWITCHBOARD_INSTANCE_ID })` of `@switchboard/redis`, and seals its 2026-07-28
 * `requestState` with the key `SWITCHBOARD_REQUEST_STATE_SECRET` (the same for every instance, so a retry sealed by
 * one is verified by another). `examples/conformance-server/main.js` and `bench/servers/switchboard.js` do.
 *
 * In code: `const cluster = await startCluster({ script, instances: 3 }); … await cluster.stop();`.
 * `missingClusterTools()` of scripts/lib/install.mjs names the Debian packages to install when nginx or redis-server
 * is missing.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { missingClusterTools } from './lib/install.mjs';
import { startNginx } from './lib/nginx.mjs';
import { freePort, launchProcess, stopProcess } from './lib/processes.mjs';
import { REDIS_SERVER, redisServerArgs } from './lib/redis.mjs';

/**
 * A started process of the cluster (`name`: `redis`, `nginx`, or the instance's id `i1`, `i2`, …).
 * @typedef {import('./lib/processes.mjs').LaunchedProcess} ClusterProcess
 */

/**
 * @typedef {object} ClusterOptions
 * @property {string} script             the server script (absolute, or relative to the working folder)
 * @property {string[]} [args]           its arguments (`--port N` is appended)
 * @property {number} [instances]        how many instances (default 3)
 * @property {boolean} [nginx]           nginx in front (default true); `false`: the URL is the first instance's
 * @property {boolean} [redis]           a redis-server and `SWITCHBOARD_REDIS_URL` (default true); `false`: the
 *                                       instances keep their in-memory stores
 * @property {string} [logDir]           where the logs go (default: a new temporary folder, removed by `stop()`)
 * @property {NodeJS.ProcessEnv} [env]   extra environment of the instances
 * @property {string[]} [nodeFlags]      flags of `node` for the instances
 * @property {AbortSignal} [signal]      aborting it during start-up stops what was started (a process still starting
 *                                       too), removes an own log folder, and rejects with the signal's reason
 */

/**
 * @typedef {object} Cluster
 * @property {string} url                the MCP endpoint: nginx's, else the first instance's
 * @property {string | undefined} redisUrl
 * @property {ClusterProcess | undefined} redis
 * @property {ClusterProcess | undefined} nginx
 * @property {ClusterProcess[]} instances
 * @property {string} logDir
 * @property {() => Promise<void>} stop  stops every process by its own PID (nginx, the instances, then Redis)
 */

/** Every cluster process still running, so an exit path can kill them by PID. */
/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
process.once('exit', () => {
  for (const child of running) {
    try {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

/**
 * Starts a cluster (see the file comment). On failure, or when `options.signal` aborts first, what was started is
 * stopped (each process by its PID) and an own log folder removed before the error is thrown.
 * @param {ClusterOptions} options
 * @returns {Promise<Cluster>}
 */
export async function startCluster(options) {
  const count = options.instances ?? 3;
  const withNginx = options.nginx ?? true;
  const withRedis = options.redis ?? true;
  const missing = missingClusterTools({ nginx: withNginx, redis: withRedis });
  if (missing !== undefined) throw new Error(`cluster: ${missing}`);
  const ownDir = options.logDir === undefined;
  const logDir = options.logDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cluster-'));
  fs.mkdirSync(logDir, { recursive: true });
  /** @type {ClusterProcess[]} */
  const started = [];
  const track = (/** @type {ClusterProcess} */ p) => {
    started.push(p);
    running.add(p.child);
    p.child.once('exit', () => running.delete(p.child));
    return p;
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // nginx first (no new requests), then the instances, then Redis (the instances' stores close against it).
    for (const p of [...started].reverse()) await stopProcess(p.child);
    if (ownDir) fs.rmSync(logDir, { recursive: true, force: true });
  };
  const signal = options.signal;
  try {
    /** @type {ClusterProcess | undefined} */
    let redis;
    if (withRedis) {
      signal?.throwIfAborted();
      const port = await freePort();
      const redisDir = path.join(logDir, 'redis');
      fs.mkdirSync(redisDir, { recursive: true });
      redis = track(await launchProcess({
        name: 'redis', command: /** @type {string} */ (REDIS_SERVER), port, logFile: path.join(logDir, 'redis.log'),
        args: redisServerArgs(port, redisDir), signal,
      }));
    }
    const redisUrl = redis === undefined ? undefined : `redis://127.0.0.1:${redis.port}`;
    const secret = randomBytes(32).toString('base64url');
    /** @type {ClusterProcess[]} */
    const instances = [];
    for (let i = 1; i <= count; i++) {
      signal?.throwIfAborted();
      const port = await freePort();
      const env = {
        ...process.env,
        ...options.env,
        ...(redisUrl === undefined ? {} : { SWITCHBOARD_REDIS_URL: redisUrl, SWITCHBOARD_INSTANCE_ID: `i${i}`, SWITCHBOARD_REQUEST_STATE_SECRET: secret }),
      };
      instances.push(track(await launchProcess({
        name: `i${i}`, command: process.execPath, port, env, logFile: path.join(logDir, `instance-i${i}.log`),
        args: [...(options.nodeFlags ?? []), options.script, ...(options.args ?? []), '--port', String(port)], signal,
      })));
    }
    /** @type {ClusterProcess | undefined} */
    let nginx;
    if (withNginx) {
      signal?.throwIfAborted();
      nginx = track(await startNginx({ dir: path.join(logDir, 'nginx'), upstreams: instances.map((p) => p.port), logFile: path.join(logDir, 'nginx.log'), signal }));
    }
    signal?.throwIfAborted();
    const front = nginx ?? /** @type {ClusterProcess} */ (instances[0]);
    return { url: `http://localhost:${front.port}/mcp`, redisUrl, redis, nginx, instances, logDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ------------------------------------------------------------------------------------------------
// Command line

/** @param {string} [error] @returns {never} */
function usage(error) {
  if (error) console.error(`cluster: ${error}`);
  console.error('usage: node scripts/cluster.mjs [--instances N] [--no-nginx] [--no-redis] [--log-dir DIR] -- SCRIPT [ARGS...]');
  process.exit(error ? 2 : 0);
}

async function main() {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const rest = dash < 0 ? [] : argv.slice(dash + 1);
  /** @type {ClusterOptions} */
  const options = { script: rest[0] ?? '', args: rest.slice(1) };
  for (let i = 0; i < own.length; i++) {
    const arg = own[i];
    if (arg === '--instances') options.instances = Number(own[++i]);
    else if (arg === '--no-nginx') options.nginx = false;
    else if (arg === '--no-redis') options.redis = false;
    else if (arg === '--log-dir') options.logDir = own[++i];
    else if (arg === '--help' || arg === '-h') usage();
    else usage(`unknown argument '${String(arg)}'`);
  }
  if (options.script === '') usage('give the server script after --');
  if (!Number.isInteger(options.instances ?? 3) || (options.instances ?? 3) < 1) usage('--instances must be a positive integer');
  // The handlers come before anything starts: a signal's default action would end this process at once, leaving
  // redis-server, the instances and nginx running (orphans) and the log folder behind. During start-up a signal
  // aborts it (startCluster stops what was started, a process still starting too, and removes its folder); after,
  // it stops the cluster. Either way the process then exits 0; a second signal while stopping is ignored.
  const startUp = new AbortController();
  /** @type {Cluster | undefined} */
  let cluster;
  let stopping = false;
  const onSignal = (/** @type {NodeJS.Signals} */ name) => {
    if (stopping) return;
    stopping = true;
    if (cluster === undefined) startUp.abort(new Error(`cluster: ${name} during start-up: stopped what was started`));
    else void cluster.stop().finally(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    cluster = await startCluster({ ...options, signal: startUp.signal });
  } catch (error) {
    if (!startUp.signal.aborted) throw error;
    console.error(/** @type {Error} */ (startUp.signal.reason).message);
    process.exit(0);
  }
  const pids = [cluster.redis, ...cluster.instances, cluster.nginx].filter((p) => p !== undefined).map((p) => `${p.name} ${p.pid} :${p.port}`);
  console.error(`cluster: ${pids.join(', ')}; logs in ${cluster.logDir}`);
  process.stdout.write(`${cluster.url}\n`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((/** @type {unknown} */ error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
