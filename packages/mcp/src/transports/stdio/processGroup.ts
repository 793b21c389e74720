/**
 * The server process of a stdio client, as a process group: spawned as the leader of its own group, so a wrapper
 * (`npx`, `uvx`, `sh -c`) and everything it starts are signalled together, and nothing of it outlives the client.
 *
 * MCP 2025-11-25 basic/lifecycle.mdx "Shutdown" (stdio): the client closes the server's stdin, waits for it to
 * exit, then sends SIGTERM, then SIGKILL. A signal to the child alone leaves the grandchild a wrapper started
 * running (it keeps the pipes, and whatever it holds); here each signal goes to the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, resolve as resolvePath } from 'node:path';

/** What {@link spawnGroup} starts. */
export interface GroupSpawn {
  readonly command: string;
  readonly args: readonly string[];
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /** What the child's stderr is: a pipe to read, this process's stderr, or nothing. */
  readonly stderr: 'pipe' | 'inherit' | 'ignore';
}

/**
 * Starts the process as the leader of a new process group (`detached`; its group id is its PID), stdin and stdout
 * piped. Errors (ENOENT, EACCES) come as the child's `'error'` event, as with `spawn`.
 */
export function spawnGroup(what: GroupSpawn): ChildProcess {
  return spawn(what.command, [...what.args], {
    cwd: what.cwd,
    env: what.env,
    detached: true,
    stdio: ['pipe', 'pipe', what.stderr],
    windowsHide: true,
  });
}

/** Whether signals can reach a process group (POSIX); on Windows only the child itself is signalled. */
const GROUPS = process.platform !== 'win32';

/**
 * Sends `signal` to the group led by `child` (to `child` alone on Windows). `false` when nothing received it (the
 * group is empty).
 */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  try {
    if (GROUPS) process.kill(-pid, signal);
    else return child.kill(signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process of the group led by `pid` is still running. Once the leader is gone a group can hold only
 * zombies (a grandchild whose parent died, that no init reaps, still answers signal 0): on Linux `/proc` tells
 * them apart, elsewhere a zombie counts as running (the waits that use this are bounded).
 */
export async function groupRunning(pid: number): Promise<boolean> {
  if (!GROUPS) return false;
  try {
    process.kill(-pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    let text: string;
    try {
      text = await readFile(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/** The first wait before looking at a group that outlives its leader again, in ms. */
const GROUP_POLL_MS = 25;
/** The longest wait between two looks at such a group, in ms. */
const MAX_GROUP_POLL_MS = 200;

/** What {@link groupGone} watches: a group's leader. */
export interface GroupLeader {
  /** The leader's PID, the group's id. */
  readonly pid: number;
  /** Whether the leader has exited (its `'exit'` event came). */
  readonly exited: () => boolean;
  /** Settles once the leader exits. */
  readonly exit: Promise<unknown>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits up to `timeoutMs` for the leader to exit and its group to be empty; whether it happened. Until the leader
 * exits its `exit` is awaited (looking again every 25 ms); after, while the group outlives it (a grandchild that
 * ignores SIGTERM), the group is looked at after 25 ms, then twice as long each time up to 200 ms: the look reads
 * `/proc` ({@link groupRunning}), and looking again at once spun a core for the whole wait.
 */
export async function groupGone(leader: GroupLeader, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let wait = GROUP_POLL_MS;
  for (;;) {
    if (leader.exited() && !(await groupRunning(leader.pid))) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    if (!leader.exited()) {
      await Promise.race([leader.exit, sleep(Math.min(GROUP_POLL_MS, left))]);
    } else {
      await sleep(Math.min(wait, left));
      wait = Math.min(wait * 2, MAX_GROUP_POLL_MS);
    }
  }
}

/** The groups of the transports still open, SIGKILLed if this process exits first. */
const openGroups = new Set<number>();

/** Runs inside `process.on('exit')`: only synchronous work is possible, and a signal is synchronous. */
function killOpenGroups(): void {
  for (const pid of openGroups) {
    try {
      process.kill(GROUPS ? -pid : pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * Keeps the group led by `pid` on the list that one `process.on('exit')` hook SIGKILLs: a child in its own group
 * is not signalled by a terminal or by the death of this process, so without this an exit that skipped `close()`
 * would leave the server running. The hook is added with the first group and removed with the last; the list holds
 * the open transports only. It cannot help when this process is killed by a signal (no `'exit'` event then); the
 * server still sees its stdin end. Returns the function that takes the group off the list (idempotent).
 */
export function guardGroup(pid: number): () => void {
  if (openGroups.size === 0) process.on('exit', killOpenGroups);
  openGroups.add(pid);
  return () => {
    if (!openGroups.delete(pid)) return;
    if (openGroups.size === 0) process.off('exit', killOpenGroups);
  };
}

/** How many groups are guarded now (for tests). @internal */
export function guardedGroupCount(): number {
  return openGroups.size;
}

/**
 * Why `spawn` answered ENOENT, for the error: a bare command is looked up on the child's PATH (the `PATH` of `env`,
 * or the platform default when `env` has none); a command with a path separator is not, it is resolved against
 * the working directory; and a working directory that does not exist gives ENOENT too.
 */
export async function notFoundDetail(what: Pick<GroupSpawn, 'command' | 'env' | 'cwd'>): Promise<string> {
  if (what.cwd !== undefined) {
    const found = await stat(what.cwd).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
    if (!found) return `the working directory "${what.cwd}" does not exist`;
  }
  const cwd = what.cwd ?? process.cwd();
  if (what.command.includes('/') || (process.platform === 'win32' && what.command.includes('\\'))) {
    const path = isAbsolute(what.command) ? what.command : resolvePath(cwd, what.command);
    return `a path, not looked up on PATH: no file "${path}"`;
  }
  const pathValue = what.env.PATH ?? what.env.Path ?? (process.platform === 'win32' ? '' : '/usr/bin:/bin');
  const dirs = pathValue.split(delimiter).filter((dir) => dir !== '');
  return dirs.length === 0 ? 'looked up on PATH, which is empty' : `looked up on PATH "${pathValue}"`;
}
