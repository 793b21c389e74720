/**
 * Child-process helpers shared by the tests that start real servers: every process a test starts is stopped by its
 * own PID, and waits are bounded.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Whether a process with this PID still exists (signal 0 probes without killing). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the process runs: it answers signal 0 and is not a zombie (exited, not yet reaped by whoever inherited it,
 * which no init may do here); on Linux `/proc` tells them apart, elsewhere a process that answers counts as running.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return process.platform !== 'linux';
  }
}

/** The PIDs of `root`'s descendants (zombies too), by the parent PID in /proc/<pid>/stat; empty off Linux. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone */
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const pid of children.get(queue.shift()!) ?? []) {
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

/** Resolves with the exit code, or rejects after `ms`. */
export function exitWithin(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${ms} ms`)), ms);
    child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
}

/** Kills `child` by its PID with SIGKILL unless it has already exited. */
export function stopByPid(child: ChildProcess | undefined): void {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

/**
 * Ends a stdio server the MCP way (closes its stdin, MCP 2025-11-25 basic/lifecycle.mdx "Shutdown") and resolves with
 * its exit code; kills it by its PID if it has not exited after `killAfterMs`.
 */
export async function endStdin(proc: ChildProcess, killAfterMs = 5000): Promise<number | null> {
  if (proc.exitCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.stdin?.end();
  const timer = setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** What {@link runCli} saw. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const CLI_BIN = new URL('../../packages/cli/bin/switchboard.js', import.meta.url);

/**
 * Runs the built `switchboard` bin with `args` (colour off) and resolves with its exit code and output; the process
 * is killed by its PID after `killAfterMs`.
 */
export function runCli(args: readonly string[], options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>>; readonly killAfterMs?: number } = {}): Promise<CliRun> {
  const cwd = options.cwd ?? new URL('../../', import.meta.url).pathname;
  const child = spawn(process.execPath, [CLI_BIN.pathname, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const timer = setTimeout(() => stopByPid(child), options.killAfterMs ?? 20_000);
  return new Promise((resolve) => child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); }));
}
