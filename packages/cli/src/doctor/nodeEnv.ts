/**
 * {@link nodeDoctorEnv}: the doctor's {@link DoctorEnv} on Node, the one file of `doctor/` that may touch Node (and
 * the Node transports of `@switchboard/mcp`, for their `fetch`).
 * A stdio server runs in a process group of its own (`detached`), so the doctor can end it with everything it
 * started: stdin end and SIGTERM to the group at once, then SIGKILL after the grace (so a run's cleanup fits in its
 * reserve: every process is signalled at the same moment, none waits for another).
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { createNodeFetch } from '@switchboard/mcp/node';
import { groupGone, groupRunning, guardGroup, signalGroup, spawnGroup } from '@switchboard/mcp/stdio';
import type { DoctorEnv, ProbeProcess } from './types.js';

/** Default grace of {@link ProbeProcess.kill} between SIGTERM and SIGKILL, ms. */
export const DEFAULT_KILL_GRACE_MS = 1000;
/** How long a group may take to be gone after SIGKILL, ms. */
const AFTER_KILL_MS = 1000;

/** What {@link nodeDoctorEnv} may be given. */
export interface NodeDoctorEnvOptions {
  /** The doctor's own environment. @default `process.env` */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /**
   * The `fetch` of every HTTP probe and client. @default a `createNodeFetch()` of `@switchboard/mcp/node` (on `node:http`), not `globalThis.fetch`: undici's
   * fetch replaces a `Host` header with the URL's, and the DNS-rebinding check must send `Host: evil.example`
   */
  readonly fetch?: typeof globalThis.fetch;
}

function spawnProbe(options: Parameters<DoctorEnv['spawn']>[0]): ProbeProcess {
  // The library's process group (`@switchboard/mcp/stdio`): the same spawn, liveness and exit guard as spawnStdio.
  // stdin, stdout and stderr are all pipes here (stderr: 'pipe'), so none of them is null.
  const child = spawnGroup({ command: options.command, args: options.args, env: { ...options.env }, cwd: options.cwd, stderr: 'pipe' }) as ChildProcessWithoutNullStreams;
  const release = child.pid === undefined ? () => {} : guardGroup(child.pid);
  // A group that emptied by itself is forgotten, so the exit hook never signals a process group id reused since.
  child.once('exit', () => {
    const pid = child.pid;
    if (pid !== undefined) void groupRunning(pid).then((alive) => alive || release());
  });
  let exitedValue: Awaited<ProbeProcess['exited']> | undefined;
  const exited = new Promise<Awaited<ProbeProcess['exited']>>((resolve) => {
    child.once('exit', (code, signal) => resolve((exitedValue = { code, signal })));
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined && exitedValue === undefined && child.exitCode === null && child.signalCode === null) return; // a later error (EPIPE): the exit follows
      resolve((exitedValue = { code: null, signal: null, error: { code: error.code ?? 'UNKNOWN', message: error.message } }));
    });
  });
  child.stdin.on('error', () => {});
  child.stdout.on('error', () => {});
  child.stderr.on('error', () => {});
  let killing: Promise<void> | undefined;
  /** Whether the group is gone within `ms` (the library's wait, as spawnStdio's shutdown waits); then it is forgotten. */
  const gone = async (pid: number, ms: number): Promise<boolean> => {
    const isGone = await groupGone({ pid, exited: () => exitedValue !== undefined, exit: exited }, ms);
    if (isGone) release();
    return isGone;
  };
  const kill = async (graceMs: number): Promise<void> => {
    const pid = child.pid;
    if (!child.stdin.destroyed) child.stdin.end();
    if (pid === undefined) {
      await exited;
      return;
    }
    if (graceMs > 0) {
      signalGroup(child, 'SIGTERM');
      if (await gone(pid, graceMs)) return;
    }
    signalGroup(child, 'SIGKILL');
    await gone(pid, AFTER_KILL_MS);
  };
  /** `kill(0)` while a gentler kill is under way escalates it: SIGKILL to the group now. */
  const killNow = async (): Promise<void> => {
    signalGroup(child, 'SIGKILL');
    if (child.pid === undefined) await exited;
    else await gone(child.pid, AFTER_KILL_MS);
  };
  return {
    get pid() {
      return child.pid;
    },
    stdout: child.stdout,
    stderr: child.stderr,
    write: (bytes) =>
      new Promise<void>((resolve, reject) => {
        if (child.stdin.destroyed || child.stdin.writableEnded) {
          reject(new Error('Cannot write to the server: its stdin is closed'));
          return;
        }
        child.stdin.write(bytes, (error) => (error === null || error === undefined ? resolve() : reject(error)));
      }),
    endInput: () => {
      if (!child.stdin.destroyed) child.stdin.end();
    },
    exited,
    kill: (graceMs = DEFAULT_KILL_GRACE_MS) => {
      if (killing === undefined) killing = kill(graceMs);
      else if (graceMs === 0) return killNow();
      return killing;
    },
  };
}

/**
 * The doctor's environment on Node: `child_process.spawn` (detached: its own process group; stdin, stdout and
 * stderr piped; `kill(graceMs)` = stdin end and SIGTERM to the group at once, SIGKILL after the grace; `kill(0)`
 * is SIGKILL at once, also while a gentler kill is under way), a `fetch` on `node:http` that sends the headers as given (`Host` included), `performance.now()`, an abortable `setTimeout`, `process.env`,
 * `process.platform`, and `fs.access(X_OK)` on a regular file.
 */
export function nodeDoctorEnv(options: NodeDoctorEnvOptions = {}): DoctorEnv {
  return {
    spawn: spawnProbe,
    fetch: options.fetch ?? (createNodeFetch() as typeof globalThis.fetch),
    now: () => performance.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(signal.reason as Error);
          return;
        }
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal?.reason as Error);
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, Math.min(ms, 2 ** 31 - 1));
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    environment: options.environment ?? process.env,
    platform: process.platform,
    isExecutable: async (file) => {
      try {
        await access(file, constants.X_OK);
        return (await stat(file)).isFile();
      } catch {
        return false;
      }
    },
  };
}
