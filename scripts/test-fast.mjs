#!/usr/bin/env node
// @ts-check
/**
 * The fast tier (`npm run test:fast`): the in-process tests that vitest.fast.config.ts selects (no child process,
 * no worker thread, no listening socket; test/helpers/fastTierGuard.ts enforces it), for the edit-and-rerun loop.
 * `npm test` runs every file; `npm run test:stress` the reliability suite at full size.
 *
 *   node scripts/test-fast.mjs [vitest filters and options…]   (npm run test:fast -- packages/jsonrpc)
 *
 * To rerun on every save instead: `npx vitest --config vitest.fast.config.ts` (no build: run `npm run build`
 * when you change a package that another one's tests import by name).
 *
 * It first brings dist/ up to date (`tsc -b`, then scripts/bundle.mjs; about a second when nothing changed),
 * because tests import the other workspace packages by name, which resolves to their dist/. Then it runs vitest
 * and prints its own line: `test:fast: <files> files, <tests> tests in <s> s (CPU <s> s)`, the CPU time being the
 * user + system time of vitest and its workers (Linux only; on a loaded machine the wall time grows, the CPU
 * time barely does). Bounded: vitest is stopped by its PID (SIGTERM, then SIGKILL 10 s later) after 5 minutes,
 * and that counts as a failure. The exit code is vitest's (1 on the time bound or a failed build).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BOUND_MS = 5 * 60_000;
const require = createRequire(import.meta.url);
// The bins, started with this Node so that a PID is the tool's own (vitest's package exports do not list its bin).
const TSC = require.resolve('typescript/bin/tsc');
const VITEST = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');

/**
 * User + system seconds of the children this process has waited for, and theirs (Linux `/proc/self/stat`,
 * fields cutime and cstime, in clock ticks of 1/100 s); undefined elsewhere.
 * @returns {number | undefined}
 */
function childCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Runs a Node script to completion; stops it by its PID at `deadline`. Its output goes to ours, and what it wrote
 * on stdout is also handed to `onStdout` (colours kept when our stdout is a terminal).
 * @param {string[]} args @param {number} deadline (Date.now() value) @param {(text: string) => void} [onStdout]
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, timedOut: boolean }>}
 */
function run(args, deadline, onStdout) {
  return new Promise((resolve) => {
    const env = process.stdout.isTTY && process.env.FORCE_COLOR === undefined ? { ...process.env, FORCE_COLOR: '1' } : process.env;
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['inherit', onStdout ? 'pipe' : 'inherit', 'inherit'] });
    child.stdout?.on('data', (/** @type {Buffer} */ chunk) => {
      process.stdout.write(chunk);
      onStdout?.(chunk.toString('utf8'));
    });
    let timedOut = false;
    const stop = (/** @type {NodeJS.Signals} */ signal) => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, signal);
    };
    const bound = setTimeout(() => {
      timedOut = true;
      process.stderr.write(`test:fast: still running after ${BOUND_MS / 60_000} min; stopping pid ${String(child.pid)}\n`);
      stop('SIGTERM');
      setTimeout(() => stop('SIGKILL'), 10_000).unref();
    }, Math.max(0, deadline - Date.now()));
    const forward = (/** @type {NodeJS.Signals} */ signal) => stop(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.once('close', (code, signal) => {
      clearTimeout(bound);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code, signal, timedOut });
    });
  });
}

const started = Date.now();
const deadline = started + BOUND_MS;
for (const step of [[TSC, '-b'], [path.join(ROOT, 'scripts', 'bundle.mjs')]]) {
  const { code } = await run(step, deadline);
  if (code !== 0) {
    process.stderr.write(`test:fast: the build failed (${path.basename(step[0] ?? '')} exited ${String(code)})\n`);
    process.exit(1);
  }
}
const built = Date.now();
const cpuBefore = childCpuSeconds();

// The last summary vitest printed: `Test Files  1 failed | 90 passed (91)`, `Tests  1070 passed (1070)`.
let printed = '';
const vitest = await run([VITEST, 'run', '--config', 'vitest.fast.config.ts', ...process.argv.slice(2)], deadline, (text) => {
  printed = (printed + text).slice(-4096);
});
const seconds = (Date.now() - built) / 1000;
const cpuAfter = childCpuSeconds();

// eslint-disable-next-line no-control-regex -- the colour codes vitest writes to a terminal
const plain = printed.replace(/\u001b\[[0-9;]*m/g, '');
const total = (/** @type {string} */ label) => [...plain.matchAll(new RegExp(`^\\s*${label}\\s.*\\((\\d+)\\)\\s*$`, 'gm'))].at(-1)?.[1] ?? '?';
const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? `CPU ${(cpuAfter - cpuBefore).toFixed(1)} s; ` : '';
const outcome = vitest.timedOut ? 'stopped at the time bound' : `vitest exited ${vitest.signal ?? String(vitest.code)}`;
process.stdout.write(
  `test:fast: ${total('Test Files')} files, ${total('Tests')} tests in ${seconds.toFixed(1)} s (${cpu}the build before it ${((built - started) / 1000).toFixed(1)} s); ${outcome}\n`,
);
process.exit(vitest.timedOut ? 1 : (vitest.code ?? 1));
