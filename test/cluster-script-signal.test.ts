/**
 * `node scripts/cluster.mjs -- SCRIPT` signalled (SIGINT, SIGTERM) during its start-up and once started, as a user
 * pressing Ctrl-C or a supervisor stopping it does: it exits 0, and no process it started (redis-server, the
 * instances, nginx and its worker) is left running, nor its log folder. The script's descendants are read from /proc
 * every 10 ms while it runs (by parent PID), and after its exit from a marker in their environment too (the script
 * passes its own on; redis-server and nginx overwrite theirs with their process titles, the instances keep it), so a
 * process orphaned by the exit is still found; its temporary folder is made under a TMPDIR of this test's own.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingClusterTools } from '../scripts/lib/install.mjs';
import { ROOT } from './interop-servers/harness.js';
import { descendants, processRunning } from './helpers/process.js';

const CLUSTER = path.join(ROOT, 'scripts', 'cluster.mjs');
const SERVER = path.join(ROOT, 'examples', 'conformance-server', 'main.js');
const MISSING = missingClusterTools();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The PIDs of the running processes whose environment holds `mark` (zombies have none to read). */
function marked(mark: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(mark) && processRunning(Number(entry))) pids.push(Number(entry));
    } catch {
      /* gone, or not ours */
    }
  }
  return pids;
}

describe.skipIf(MISSING !== undefined || !existsSync('/proc/self/environ'))('scripts/cluster.mjs stopped by a signal', () => {
  const leftovers: number[] = [];
  const dirs: string[] = [];
  afterAll(() => {
    // Whatever a failed run left behind, stopped by its own PID.
    for (const pid of leftovers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Starts the script, signals it after `when` ms, or as soon as its first child (redis-server) runs, or once its URL
   * is out; returns how it ended and what was left.
   */
  async function run(signal: NodeJS.Signals, when: number | 'first child' | 'started') {
    const mark = `SWITCHBOARD_CLUSTER_SIGNAL_TEST=${randomUUID()}`;
    const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-cluster-signal-'));
    dirs.push(dir);
    const [key, value] = mark.split('=') as [string, string];
    const child = spawn(process.execPath, [CLUSTER, '--', SERVER], { env: { ...process.env, TMPDIR: dir, [key]: value }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const exited = new Promise<{ code: number | null; by: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, by) => resolve({ code, by })));
    const seen = new Set<number>();
    const watch = setInterval(() => {
      if (child.exitCode === null && child.signalCode === null) for (const pid of descendants(child.pid!)) seen.add(pid);
    }, 10);
    if (when === 'started') {
      for (let i = 0; i < 300 && !stdout.includes('/mcp'); i++) await sleep(50);
      expect(stdout, stderr).toMatch(/^http:\/\/localhost:\d+\/mcp\n$/);
    } else if (when === 'first child') {
      // Its log folder first (made once its handlers are in place; the version probes of nginx and redis-server at
      // its start are children too), then the first child after it.
      for (let i = 0; i < 2000 && !(readdirSync(dir).length > 0 && descendants(child.pid!).length > 0); i++) await sleep(5);
      expect(readdirSync(dir).length, stderr).toBeGreaterThan(0);
    } else {
      await sleep(when);
    }
    const before = descendants(child.pid!);
    for (const pid of before) seen.add(pid);
    process.kill(child.pid!, signal);
    const { code, by } = await exited;
    clearInterval(watch);
    // The clean-up happens before the exit; a moment more for the kernel to tear down what was killed.
    const left = () => [...new Set([...seen, ...marked(mark)])].filter((pid) => processRunning(pid)).sort();
    let after = left();
    for (let i = 0; i < 20 && after.length > 0; i++) {
      await sleep(50);
      after = left();
    }
    leftovers.push(...after);
    return { code, by, started: seen.size, before, after, folder: readdirSync(dir), stderr };
  }

  const cases = [['SIGINT', 'first child'], ['SIGTERM', 400], ['SIGINT', 800], ['SIGTERM', 'started']] as const;
  for (const [signal, when] of cases) {
    it(`${signal} ${typeof when === 'number' ? `${when} ms into start-up` : `once ${when === 'started' ? 'started' : 'its first child runs'}`}: exits 0, no child left, no folder left`, async () => {
      const { code, by, started, before, after, folder, stderr } = await run(signal, when);
      if (when === 'started') expect(before.length, stderr).toBeGreaterThanOrEqual(6); // redis, 3 instances, nginx's master and worker
      // Signalled before its handlers were there (still loading its modules: a slow machine), it ends by the signal,
      // which is right only when it had started nothing yet.
      if (typeof when === 'number' && by === signal) expect(started, stderr).toBe(0);
      else expect(code, stderr).toBe(0);
      expect(after, `running after the exit (started before the signal: ${before.join(' ')})\n${stderr}`).toEqual([]);
      expect(folder, stderr).toEqual([]);
    }, 30_000);
  }
});

if (MISSING !== undefined) it.skip(MISSING, () => {});
