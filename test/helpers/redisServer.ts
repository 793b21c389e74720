/**
 * A real `redis-server` for the Redis store tests: started on 127.0.0.1 on a port the test picks, with no
 * persistence (`--save '' --appendonly no`), in a temporary folder, stopped by its own PID. `REDIS_SERVER` is
 * `undefined` when the Debian package is not installed (the tests then skip with one line naming it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** `redis-server`: on PATH, or in /usr/bin or /usr/sbin; `undefined` when not installed. */
function findRedisServer(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/sbin']) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (spawnSync(candidate, ['--version'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  return undefined;
}

export const REDIS_SERVER = findRedisServer();

/** The skip line when `redis-server` is missing. */
export const INSTALL_REDIS = 'install redis-server (Debian: apt-get install redis-server)';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

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
  /** Stops it (SIGTERM) and removes its folder. */
  stop(): Promise<void>;
}

async function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER as string, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
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
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, signal);
  await exited;
}

/** Starts a `redis-server` on a free loopback port. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-redis-'));
  const port = await freePort();
  let child = await launch(port, dir);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get child() {
      return child;
    },
    kill: () => end(child, 'SIGKILL'),
    async restart() {
      child = await launch(port, dir);
    },
    async stop() {
      await end(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
