#!/usr/bin/env node
// @ts-check
/**
 * A real Switchboard cluster on 127.0.0.1: one `redis-server` (a free port, no persistence), N instances of a server
 * script sharing it, and nginx doing plain round-robin in front (an `upstream` block: no `ip_hash`, no cookie;
 * HTTP/1.1 with upstream keep-alive, `proxy_buffering off`, 1 h read and send timeouts for SSE streams). Every
 * process is started here and stopped by its own PID.
 *
 *   node scripts/cluster.mjs [--instances 3] [--no-nginx] [--log-dir DIR] -- SCRIPT [ARGS...]
 *       starts the cluster, prints its URL on stdout, and stops it on SIGINT/SIGTERM
 *   node scripts/cluster.mjs -- examples/conformance-server/main.js
 *
 * The server script's contract: it takes `--port N` (appended to ARGS) and serves Streamable HTTP at
 * `http://127.0.0.1:N/mcp`; when `SWITCHBOARD_REDIS_URL` is set it takes its stores from
 * `redisStores({ url, instanceId: SWITCHBOARD_INSTANCE_ID })` of `@switchboard/redis`, and seals its 2026-07-28
 * `requestState` with the key `SWITCHBOARD_REQUEST_STATE_SECRET` (the same for every instance, so a retry sealed by
 * one is verified by another). `examples/conformance-server/main.js` and `bench/servers/switchboard.js` do.
 *
 * In code: `const cluster = await startCluster({ script, instances: 3 }); … await cluster.stop();`.
 * `missingClusterTools()` names the Debian packages to install when nginx or redis-server is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** How long a process of the cluster may take to accept connections. */
const READY_TIMEOUT_MS = 20_000;
/** SIGTERM, then SIGKILL after this long. */
const STOP_GRACE_MS = 3_000;

/**
 * An executable found on PATH or in the given folders (daemons live in /usr/sbin, off a non-root user's PATH).
 * @param {string} name
 * @param {string[]} versionArgs arguments that make it print its version and exit 0
 * @returns {string | undefined}
 */
function findExecutable(name, versionArgs) {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/bin', '/sbin']) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
    } catch {
      continue;
    }
    if (spawnSync(candidate, versionArgs, { encoding: 'utf8' }).status === 0) return candidate;
  }
  return undefined;
}

/** `nginx`, or `undefined` when not installed. */
export const NGINX = findExecutable('nginx', ['-v']);
/** `redis-server`, or `undefined` when not installed. */
export const REDIS_SERVER = findExecutable('redis-server', ['--version']);

/**
 * What to install for a cluster, or `undefined` when nginx and redis-server are both there.
 * @param {{ nginx?: boolean }} [options] `nginx: false`: only redis-server is needed
 * @returns {string | undefined} e.g. `install nginx (Debian: apt-get install nginx)`
 */
export function missingClusterTools({ nginx = true } = {}) {
  const missing = [...(nginx && NGINX === undefined ? ['nginx'] : []), ...(REDIS_SERVER === undefined ? ['redis-server'] : [])];
  return missing.length === 0 ? undefined : `install ${missing.join(' and ')} (Debian: apt-get install ${missing.join(' ')})`;
}

/** @returns {Promise<number>} a port that was free on 127.0.0.1 a moment ago */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** @param {number} port @returns {Promise<boolean>} whether something accepts a TCP connection on 127.0.0.1:port */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A started process of the cluster.
 * @typedef {object} ClusterProcess
 * @property {string} name    `redis`, `nginx`, or the instance's id (`i1`, `i2`, …)
 * @property {number} pid
 * @property {number} port    where it listens on 127.0.0.1
 * @property {import('node:child_process').ChildProcess} child
 * @property {string} logFile its stdout and stderr
 */

/**
 * Stops one process by its own PID: SIGTERM, then SIGKILL after `graceMs`; resolves once it exited.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} [graceMs]
 */
export async function stopProcess(child, graceMs = STOP_GRACE_MS) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** @param {string} file @param {number} lines */
function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).map((l) => `  | ${l}`).join('\n');
  } catch {
    return '  | (no log)';
  }
}

/**
 * Spawns a command with its output in `logFile` and waits until it accepts connections on `port`.
 * @param {{ name: string, command: string, args: string[], port: number, logFile: string, env?: NodeJS.ProcessEnv, cwd?: string }} spec
 * @returns {Promise<ClusterProcess>}
 */
async function launch(spec) {
  const log = fs.openSync(spec.logFile, 'a');
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env ?? process.env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await accepts(spec.port))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await stopProcess(child, 500);
      throw new Error(`${spec.name} did not accept connections on 127.0.0.1:${spec.port} within ${READY_TIMEOUT_MS} ms:\n${tail(spec.logFile, 20)}`);
    }
    await sleep(50);
  }
  return { name: spec.name, pid: /** @type {number} */ (child.pid), port: spec.port, child, logFile: spec.logFile };
}

/**
 * The nginx configuration of the cluster: plain round-robin over the instances (what README.md "Production
 * deployment" shows, with this folder's paths and ports).
 * @param {{ dir: string, port: number, upstreams: readonly number[] }} options
 * @returns {string}
 */
export function nginxConfig({ dir, port, upstreams }) {
  return [
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
    '  upstream switchboard {',
    ...upstreams.map((p) => `    server 127.0.0.1:${p};`),
    '    keepalive 64;',
    // Under the instances' keep-alive (serveHttp keepAliveTimeoutMs, 5 s): nginx never reuses a connection an
    // instance is closing (a POST is not retried on another upstream).
    '    keepalive_timeout 4s;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    client_max_body_size 8m;',
    '    location /mcp {',
    '      proxy_pass http://switchboard;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    // $http_host keeps the port: the instances check Host against Origin (DNS rebinding protection).
    '      proxy_set_header Host $http_host;',
    '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '      proxy_buffering off;',
    '      proxy_read_timeout 1h;',
    '      proxy_send_timeout 1h;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

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
 * Starts a cluster (see the file comment). On failure, what was started is stopped before the error is thrown.
 * @param {ClusterOptions} options
 * @returns {Promise<Cluster>}
 */
export async function startCluster(options) {
  const count = options.instances ?? 3;
  const withNginx = options.nginx ?? true;
  const withRedis = options.redis ?? true;
  const missing = missingClusterTools({ nginx: withNginx });
  if (withRedis && missing !== undefined) throw new Error(`cluster: ${missing}`);
  if (!withRedis && withNginx && NGINX === undefined) throw new Error('cluster: install nginx (Debian: apt-get install nginx)');
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
  try {
    /** @type {ClusterProcess | undefined} */
    let redis;
    if (withRedis) {
      const port = await freePort();
      const redisDir = path.join(logDir, 'redis');
      fs.mkdirSync(redisDir, { recursive: true });
      redis = track(await launch({
        name: 'redis', command: /** @type {string} */ (REDIS_SERVER), port, logFile: path.join(logDir, 'redis.log'),
        args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir, '--protected-mode', 'yes'],
      }));
    }
    const redisUrl = redis === undefined ? undefined : `redis://127.0.0.1:${redis.port}`;
    const secret = randomBytes(32).toString('base64url');
    /** @type {ClusterProcess[]} */
    const instances = [];
    for (let i = 1; i <= count; i++) {
      const port = await freePort();
      const env = {
        ...process.env,
        ...options.env,
        ...(redisUrl === undefined ? {} : { SWITCHBOARD_REDIS_URL: redisUrl, SWITCHBOARD_INSTANCE_ID: `i${i}`, SWITCHBOARD_REQUEST_STATE_SECRET: secret }),
      };
      instances.push(track(await launch({
        name: `i${i}`, command: process.execPath, port, env, logFile: path.join(logDir, `instance-i${i}.log`),
        args: [...(options.nodeFlags ?? []), options.script, ...(options.args ?? []), '--port', String(port)],
      })));
    }
    /** @type {ClusterProcess | undefined} */
    let nginx;
    if (withNginx) {
      const port = await freePort();
      const nginxDir = path.join(logDir, 'nginx');
      fs.mkdirSync(nginxDir, { recursive: true });
      const conf = path.join(nginxDir, 'nginx.conf');
      fs.writeFileSync(conf, nginxConfig({ dir: nginxDir, port, upstreams: instances.map((p) => p.port) }));
      // -e: nginx's start-up error log goes to our folder too (the default, /var/log/nginx, is root's).
      nginx = track(await launch({
        name: 'nginx', command: /** @type {string} */ (NGINX), port, logFile: path.join(logDir, 'nginx.log'),
        args: ['-p', nginxDir, '-c', conf, '-e', path.join(nginxDir, 'error.log')],
      }));
    }
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
  const cluster = await startCluster(options);
  const pids = [cluster.redis, ...cluster.instances, cluster.nginx].filter((p) => p !== undefined).map((p) => `${p.name} ${p.pid} :${p.port}`);
  console.error(`cluster: ${pids.join(', ')}; logs in ${cluster.logDir}`);
  process.stdout.write(`${cluster.url}\n`);
  const onSignal = () => void cluster.stop().finally(() => process.exit(0));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((/** @type {unknown} */ error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
