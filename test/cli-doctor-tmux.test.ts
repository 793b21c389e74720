/**
 * `switchboard doctor` in a real terminal: the built CLI runs inside a detached tmux session (300×40, a socket of
 * its own in a temporary folder, removed with its server at the end), and the pane shows the live progress display (a spinner on the running check) and then the report.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const HAS_TMUX = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const SOCKET_DIR = HAS_TMUX ? mkdtempSync(path.join(os.tmpdir(), 'switchboard-tmux-')) : '';
const SOCKET = path.join(SOCKET_DIR, 'socket');
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] MCP connection/;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-S', SOCKET, ...args], { encoding: 'utf8', env: { ...process.env, TMUX: '' } });
}

/** Polls `read` until `done` accepts what it returned. */
async function poll(read: () => string, done: (text: string) => boolean, timeoutMs: number): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (let text = read(); ; text = read()) {
    if (done(text) || Date.now() > until) return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

afterAll(() => {
  if (!HAS_TMUX) return;
  spawnSync('tmux', ['-S', SOCKET, 'kill-server']);
  rmSync(SOCKET_DIR, { recursive: true, force: true });
});

describe.skipIf(!HAS_TMUX)('switchboard doctor in a terminal (tmux)', () => {
  it('shows a spinner on the running check, then each check with its mark, then the report', async () => {
    const bin = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
    // Relative to the pane's folder, and a wide pane, so the report's header line never wraps (it names the command).
    const server = path.join('test', 'fixtures', 'doctor-slow-start-server.mjs');
    const command = ['env', '-u', 'CI', '-u', 'NO_COLOR', process.execPath, bin, 'doctor', '--', process.execPath, server, '1500'].map((w) => `'${w}'`).join(' ');
    // The shell keeps the pane open after the CLI exits, and says its exit code.
    tmux('new-session', '-d', '-s', 'doctor', '-x', '300', '-y', '40', '-c', ROOT, `${command}; echo "[exit $?]"; exec sleep 120`);
    const pane = (): string => tmux('capture-pane', '-p', '-t', 'doctor');
    const live = await poll(pane, (text) => SPINNER.test(text), 15_000);
    expect(live).toMatch(SPINNER);
    const end = await poll(pane, (text) => /\[exit \d\]/.test(text), 30_000);
    const all = tmux('capture-pane', '-p', '-S', '-', '-t', 'doctor');
    expect(end).toMatch(/\[exit [01]\]/);
    expect(all).toMatch(/✔ MCP connection ok \(\d+ ms\)/);
    expect(all).toMatch(/^switchboard doctor \S+ · stdio · .*doctor-slow-start-server\.mjs 1500$/m);
    expect(all).toMatch(/^Server {3}slow-start 1\.0\.0$/m);
    expect(all).toMatch(/^Verdict: \d+ errors?, \d+ warnings?, \d+ info · exit code [01]: /m);
    expect(all).not.toMatch(SPINNER);
  }, 60_000);
});

// Without tmux the test above is skipped, and this line says why.
if (!HAS_TMUX) it.skip('install tmux (Debian: apt-get install tmux)', () => {});
