/**
 * A real `redis-server` for the Redis store tests: started on 127.0.0.1 on a port the test picks, with no
 * persistence (`--save '' --appendonly no`), in a temporary folder, stopped by its own PID. `REDIS_SERVER` is
 * `undefined` when the Debian package is not installed (the tests then skip with one line naming it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REDIS_SERVER, redisServerArgs } from '../../scripts/lib/redis.mjs';
import { freePort, stopProcess } from '../../scripts/lib/processes.mjs';

// The Redis tests import these from here, with startRedisServer (their home is scripts/lib/).
export { INSTALL_REDIS, REDIS_SERVER } from '../../scripts/lib/redis.mjs';
export { freePort } from '../../scripts/lib/processes.mjs';

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.on('error', () => resolve(false));
  });
}

/** One running `redis-server`. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The running process (a new one after {@link restart}). */
  readonly child: ChildProcess;
  /** Kills the server (SIGKILL: a crash, nothing saved) and waits for its exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  restart(): Promise<void>;
  /** Stops it (SIGTERM, SIGKILL after `STOP_GRACE_MS` of scripts/lib/processes.mjs, 3 s) and removes its folder. */
  stop(): Promise<void>;
}

/** How long a redis-server may take to answer PING by default, in ms. */
const READY_TIMEOUT_MS = 10_000;

async function launch(port: number, dir: string, readyTimeoutMs: number): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER as string, redisServerArgs(port, dir), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + readyTimeoutMs;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return child;
}

async function end(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  if (signal !== 'SIGKILL') return stopProcess(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, signal);
  await exited;
}

/**
 * Starts a `redis-server` on a free loopback port.
 * @param options `readyTimeoutMs`: how long it may take to answer PING (default 10 000 ms; a restart gets the same),
 *   else it is killed, its folder removed, and an Error thrown
 */
export async function startRedisServer(options: { readonly readyTimeoutMs?: number } = {}): Promise<RedisServer> {
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-redis-'));
  let child: ChildProcess;
  let port: number;
  try {
    port = await freePort();
    child = await launch(port, dir, readyTimeoutMs);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get child() {
      return child;
    },
    kill: () => end(child, 'SIGKILL'),
    async restart() {
      child = await launch(port, dir, readyTimeoutMs);
    },
    async stop() {
      await end(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
