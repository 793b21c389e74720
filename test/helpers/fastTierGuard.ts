/**
 * The setup file of `npm run test:fast` (vitest.fast.config.ts): the fast tier runs in-process tests only, and
 * this file ENFORCES it. Before each test file it replaces the ways a test leaves the process or opens a port:
 *
 * - every `node:child_process` entry point (`spawn`, `exec`, `execFile`, `fork` and the sync forms
 *   `spawnSync`, `execSync`, `execFileSync`), plus `ChildProcess.prototype.spawn`, which the async forms all go
 *   through (so a reference taken before this file ran is caught too);
 * - `new Worker(…)` from `node:worker_threads`: a worker is a thread of this process, but its own copies of
 *   `node:child_process` and `node:net` are out of this guard's reach, so it is full-tier like a child process;
 * - `net.Server.prototype.listen` (which `http`, `https`, `http2` and `net` servers all use, on a port or a pipe)
 *   and `dgram.Socket.prototype.bind`.
 *
 * Each throws an Error that names the rule. A test could catch that error (code that reports a failed spawn as a
 * result, say), so every attempt is also recorded and the test during which it happened fails in `afterEach`
 * (an attempt outside any test fails the file in `afterAll`). Outgoing connections are allowed: they open no
 * port, and a refused connection to a closed port is a legitimate in-process test.
 *
 * test/fastTier.test.ts runs the fast tier's guard over planted files that spawn, listen, bind, start a worker or
 * swallow the error, and checks that each one fails with this message.
 */
import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';
import { afterAll, afterEach } from 'vitest';
import { FAST_TIER_RULE } from './fastTierRule.js';

const INSTALLED = Symbol.for('switchboard.fastTierGuard');
type Guarded = typeof globalThis & { [INSTALLED]?: string[] };

/** What was attempted since the last check (shared by every install in this process). */
function attempts(): string[] {
  const g = globalThis as Guarded;
  return (g[INSTALLED] ??= []);
}

function refuse(what: string): never {
  const message = `${FAST_TIER_RULE} (vitest.fast.config.ts lists the full-tier files); it called ${what}`;
  attempts().push(what);
  throw new Error(message);
}

function install(): void {
  const g = globalThis as Guarded;
  if (g[INSTALLED] !== undefined) return;
  g[INSTALLED] = [];

  const cp = childProcess as unknown as Record<string, unknown>;
  for (const name of ['spawn', 'exec', 'execFile', 'fork', 'spawnSync', 'execSync', 'execFileSync']) {
    cp[name] = () => refuse(`child_process.${name}()`);
  }
  // Undocumented (not in @types/node), but every async form goes through it.
  (childProcess.ChildProcess.prototype as unknown as { spawn: () => never }).spawn = () => refuse('ChildProcess.prototype.spawn()');

  const wt = workerThreads as unknown as Record<string, unknown>;
  wt.Worker = function Worker() {
    refuse('new worker_threads.Worker()');
  };

  net.Server.prototype.listen = function listen() {
    return refuse('net.Server.prototype.listen() (http/https/net servers)');
  };
  dgram.Socket.prototype.bind = function bind() {
    return refuse('dgram.Socket.prototype.bind()');
  };
  // The named ESM exports (`import { spawn } from 'node:child_process'`) follow the patched CommonJS exports.
  syncBuiltinESMExports();
}

/** Fails the current test (or file) if an attempt was made since the last check, even if the error was caught. */
function check(where: string): void {
  const made = attempts().splice(0);
  if (made.length > 0) throw new Error(`${FAST_TIER_RULE}; ${where} it called ${made.join(', ')}`);
}

install();
afterEach(() => check('during this test'));
afterAll(() => check('outside any test'));
