#!/usr/bin/env node
// @ts-check
/**
 * Runs the reliability suite at full size (`npm run test:stress`): every file in test/reliability/ with
 * `STRESS=1` (1,000 HTTP clients × 10 calls in flight, 10,000 in flight on stdio, 200,000 calls and 20,000
 * sessions for the memory slopes, and what the other reliability files scale with it).
 *
 *   node scripts/stress.mjs [vitest filters…]
 *
 * The files run one after another (`--no-file-parallelism`) so that one file's load does not skew another's
 * figures. Bounded: vitest is stopped by its PID (SIGTERM, then SIGKILL 10 s later) after 20 minutes, and that counts as a
 * failure. At the end it prints the figures the tests reported (lines starting with `reliability `, the source of
 * the README "Reliability" section) and the wall-clock duration; the exit code is vitest's (1 on the time bound).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BOUND_MS = 20 * 60_000;
// vitest's bin (its package exports do not list it): started with this Node so that the PID is vitest's own.
const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

const started = Date.now();
const child = spawn(process.execPath, [VITEST, 'run', 'test/reliability', '--no-file-parallelism', ...process.argv.slice(2)], {
  cwd: ROOT,
  env: { ...process.env, STRESS: '1' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
/** @type {string[]} */
const figures = [];
/** @param {NodeJS.WriteStream} sink */
const relay = (sink) => {
  let pending = '';
  return (/** @type {Buffer} */ chunk) => {
    sink.write(chunk);
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('reliability ')) figures.push(line);
  };
};
child.stdout?.on('data', relay(process.stdout));
child.stderr?.on('data', relay(process.stderr));

let timedOut = false;
const bound = setTimeout(() => {
  timedOut = true;
  process.stderr.write(`stress: still running after ${BOUND_MS / 60_000} min; stopping vitest (pid ${String(child.pid)})\n`);
  if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }, 10_000).unref();
}, BOUND_MS);
const forward = (/** @type {NodeJS.Signals} */ signal) => {
  if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, signal);
};
process.once('SIGINT', () => forward('SIGINT'));
process.once('SIGTERM', () => forward('SIGTERM'));

child.once('exit', (code, signal) => {
  clearTimeout(bound);
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\nstress: figures\n${figures.map((line) => `  ${line}`).join('\n')}\n`);
  process.stdout.write(`stress: ${timedOut ? 'stopped at the time bound' : `vitest exited ${signal ?? String(code)}`} after ${Math.floor(seconds / 60)} min ${seconds % 60} s\n`);
  process.exit(timedOut ? 1 : (code ?? 1));
});
