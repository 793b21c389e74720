/**
 * Headless Chromium for the browser tests: Debian's `/usr/bin/chromium` (never a downloaded browser) driven over the
 * DevTools protocol by playwright-core, started in its own process group with a fresh profile folder and DevTools on
 * 127.0.0.1 only, and stopped by its PID. Every browser test launches it here (cors-browser, dashboard-browser).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { isAlive } from './process.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Whether Debian's chromium is installed (`npm test` installs it when run as root: scripts/system-packages.mjs). */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** A running browser: its process (own group), its DevTools connection, its profile folder. */
export interface RunningBrowser {
  readonly child: ChildProcess;
  readonly browser: Browser;
  readonly profile: string;
}

/** Starts headless Chromium with a fresh profile and connects to its DevTools endpoint (127.0.0.1, a free port). */
export async function startBrowser(): Promise<RunningBrowser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'switchboard-chromium-'));
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--hide-scrollbars', `--user-data-dir=${profile}`,
    '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', 'about:blank',
  ];
  const child = spawn(CHROMIUM, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`chromium printed no DevTools endpoint within 30 s:\n${seen.slice(-2000)}`)), 30_000);
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        seen += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
        if (match !== null) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`chromium exited (${String(code)}) before DevTools listened:\n${seen.slice(-2000)}`));
      });
    });
    child.stderr?.resume();
    return { child, browser: await chromium.connectOverCDP(endpoint), profile };
  } catch (error) {
    signalGroup(child, 'SIGKILL');
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/** Signals the browser's process group (its renderers, GPU and zygote processes) by the PID of its leader. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Disconnects, asks the browser's group to end (SIGTERM), kills it after 3 s, then removes the profile folder.
 * @returns whether the browser's process is gone
 */
export async function stopBrowser(running: RunningBrowser | undefined): Promise<boolean> {
  if (running === undefined) return true;
  const { child } = running;
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await running.browser.close().catch(() => undefined);
  signalGroup(child, 'SIGTERM');
  const killed = setTimeout(() => signalGroup(child, 'SIGKILL'), 3000);
  await exited;
  clearTimeout(killed);
  // Whatever of the group outlived its leader goes too.
  signalGroup(child, 'SIGKILL');
  rmSync(running.profile, { recursive: true, force: true });
  return !isAlive(child.pid as number);
}
