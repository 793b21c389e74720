// @ts-check
/**
 * Child processes of the local cluster tooling (scripts/cluster.mjs, scripts/lib/nginx.mjs and the tests that start
 * redis-server or nginx): finding a daemon's executable, picking a free loopback port, starting a process and
 * waiting until it accepts TCP connections, and stopping it by its own PID.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

/** Default of {@link launchProcess}'s `readyTimeoutMs`: how long a process may take to accept connections (ms). */
export const READY_TIMEOUT_MS = 20_000;
/** Default of {@link stopProcess}'s `graceMs`: SIGTERM, then SIGKILL after this long (ms). */
export const STOP_GRACE_MS = 3_000;

/**
 * An executable found on PATH or in /usr/sbin, /usr/bin, /sbin (daemons live in /usr/sbin, off a non-root user's
 * PATH), that runs: `versionArgs` make it print its version and exit 0.
 * @param {string} name e.g. `nginx`
 * @param {string[]} versionArgs e.g. `['-v']`
 * @returns {string | undefined} its path, or `undefined` when not installed
 */
export function findExecutable(name, versionArgs) {
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
export function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Stops one process by its own PID: SIGTERM, then SIGKILL after `graceMs`; resolves once it exited (at once when it
 * already had).
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} [graceMs] default {@link STOP_GRACE_MS}
 * @returns {Promise<void>}
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

/**
 * The last lines of a log file, indented, for an error message.
 * @param {string} file
 * @param {number} lines
 * @returns {string} `  | (no log)` when the file cannot be read
 */
export function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).map((l) => `  | ${l}`).join('\n');
  } catch {
    return '  | (no log)';
  }
}

/**
 * A started process that accepts connections.
 * @typedef {object} LaunchedProcess
 * @property {string} name    e.g. `redis`, `nginx`, an instance's id
 * @property {number} pid
 * @property {number} port    where it accepts connections on 127.0.0.1
 * @property {import('node:child_process').ChildProcess} child
 * @property {string} logFile its stdout and stderr
 */

/**
 * What {@link launchProcess} starts.
 * @typedef {object} LaunchSpec
 * @property {string} name
 * @property {string} command
 * @property {string[]} args
 * @property {number} port                 where it will accept connections on 127.0.0.1
 * @property {string} logFile              its stdout and stderr are appended there
 * @property {NodeJS.ProcessEnv} [env]     default `process.env`
 * @property {string} [cwd]
 * @property {number} [readyTimeoutMs]     default {@link READY_TIMEOUT_MS}
 * @property {AbortSignal} [signal]        aborting it while the process is not ready yet stops it by its PID and
 *                                         rejects with the signal's reason
 */

/**
 * Spawns a command with its output in `logFile` and waits until it accepts connections on `port`. When it exits
 * first or does not accept within `readyTimeoutMs`, it is stopped by its PID and an Error carrying the log's tail is
 * thrown; when `signal` aborts first, it is stopped by its PID and the signal's reason is thrown.
 * @param {LaunchSpec} spec
 * @returns {Promise<LaunchedProcess>}
 */
export async function launchProcess(spec) {
  const timeoutMs = spec.readyTimeoutMs ?? READY_TIMEOUT_MS;
  spec.signal?.throwIfAborted();
  const log = fs.openSync(spec.logFile, 'a');
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env ?? process.env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(spec.port))) {
    if (spec.signal?.aborted === true) {
      await stopProcess(child, 500);
      throw spec.signal.reason;
    }
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await stopProcess(child, 500);
      throw new Error(`${spec.name} did not accept connections on 127.0.0.1:${spec.port} within ${timeoutMs} ms:\n${tail(spec.logFile, 20)}`);
    }
    await sleep(50);
  }
  return { name: spec.name, pid: /** @type {number} */ (child.pid), port: spec.port, child, logFile: spec.logFile };
}
