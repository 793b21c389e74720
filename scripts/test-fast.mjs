#!/usr/bin/env node
// @ts-check
/**
 * The fast tier (`npm run test:fast`): the in-process tests that vitest.fast.config.ts selects (no child process,
 * no worker thread, no listening socket; test/helpers/fastTierGuard.ts enforces it), for the edit-and-rerun loop.
 * `npm test` runs every file; `npm run test:stress` the reliability suite at full size.
 *
 *   node scripts/test-fast.mjs [vitest filters and options…]
 *
 * It first brings dist/ up to date (`tsc -b`, then scripts/bundle.mjs; about a second when nothing changed),
 * because tests import the other workspace packages by name, which resolves to their dist/. Then it runs vitest
 * and prints its own line: `test:fast: <files> files, <tests> tests in <s> s (CPU <s> s)`, the CPU time being the
 * user + system time of vitest and its workers (Linux only; on a loaded machine the wall time grows, the CPU
 * time barely does). Bounded: vitest is stopped by its PID (SIGTERM, then SIGKILL 10 s later) after 5 minutes,
 * and that counts as a failure. The exit code is vitest's (1 on the time bound or a failed build).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
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
 * Runs a Node script to completion with the terminal as its stdio; stops it by its PID at `deadline`.
 * @param {string[]} args @param {number} deadline (Date.now() value)
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, timedOut: boolean }>}
 */
function run(args, deadline) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
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
    child.once('exit', (code, signal) => {
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

const reportDir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-fast-'));
const report = path.join(reportDir, 'report.json');
const vitest = await run(
  [VITEST, 'run', '--config', 'vitest.fast.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  deadline,
);
const seconds = (Date.now() - built) / 1000;
const cpuAfter = childCpuSeconds();

/** @type {{ numTotalTestSuites?: number, numTotalTests?: number, testResults?: unknown[] }} */
let summary = {};
try {
  summary = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  // No report: vitest stopped early; the line below says so with "?".
}
rmSync(reportDir, { recursive: true, force: true });

const files = summary.testResults?.length ?? '?';
const tests = summary.numTotalTests ?? '?';
const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? `CPU ${(cpuAfter - cpuBefore).toFixed(1)} s; ` : '';
const outcome = vitest.timedOut ? 'stopped at the time bound' : `vitest exited ${vitest.signal ?? String(vitest.code)}`;
process.stdout.write(
  `test:fast: ${String(files)} files, ${String(tests)} tests in ${seconds.toFixed(1)} s (${cpu}the build before it ${((built - started) / 1000).toFixed(1)} s); ${outcome}\n`,
);
process.exit(vitest.timedOut ? 1 : (vitest.code ?? 1));
