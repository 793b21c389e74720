#!/usr/bin/env node
// @ts-check
/**
 * The era bridge under the official conformance suite: our conformance server narrowed to one era, behind
 * `switchboard bridge`, scored with the requirement sets of the OTHER era, beside the same sets run directly against
 * the dual-era server. Prints one line per set (direct vs bridged totals) and the failing scenarios of each
 * bridged run.
 *
 *   node scripts/conformance-bridge.mjs                 # every run (about 3 × the time of scripts/conformance.mjs's server runs)
 *   node scripts/conformance-bridge.mjs --skip-direct   # the bridged runs only
 *   node scripts/conformance-bridge.mjs --upstream http # the narrowed server on Streamable HTTP instead of stdio
 *   node scripts/conformance-bridge.mjs --only 0.2-2026 # one set (0.2-2026, 0.2 or 0.1.16)
 *
 * The runs:
 *   - `--revisions legacy` (2024-11-05 … 2025-11-25, sessions only) behind the bridge, scored with 0.2.0-alpha.12
 *     `--requirements 2026-07-28`: a 2026-07-28 client reaching a session-based server;
 *   - `--revisions modern` (2026-07-28 only) behind the bridge, scored with `--requirements 2025-11-25` and with
 *     0.1.16 `--suite all`: 2025 clients reaching a 2026-only server.
 * Each bridged run starts `switchboard bridge --port P -- node examples/conformance-server/main.js --stdio
 * --revisions …` (or the server on HTTP and `bridge <url>`), runs `scripts/conformance.mjs --url … --only …` against
 * it, and stops both by their PIDs (also on failure and on SIGINT/SIGTERM). Exit code 1 when a bridged run has a
 * scored failure.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const SERVER = path.join(ROOT, 'examples', 'conformance-server', 'main.js');
const CONFORMANCE = path.join(ROOT, 'scripts', 'conformance.mjs');
const RESULTS = path.join(ROOT, '.conformance-results', 'bridge');
const READY_TIMEOUT_MS = 30_000;

/** @typedef {{ key: string, label: string, upstream: 'legacy' | 'modern' }} BridgeRun */
/** @type {BridgeRun[]} */
const RUNS = [
  { key: '0.2-2026', label: '0.2.0-alpha.12 --requirements 2026-07-28', upstream: 'legacy' },
  { key: '0.2', label: '0.2.0-alpha.12 --requirements 2025-11-25', upstream: 'modern' },
  { key: '0.1.16', label: '0.1.16 --suite all', upstream: 'modern' },
];

const args = process.argv.slice(2);
/** @param {string} name */
const flag = (name) => args.includes(name);
/** @param {string} name */
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const upstreamTransport = option('--upstream') ?? 'stdio';
const only = option('--only');
if (!['stdio', 'http'].includes(upstreamTransport) || (only !== undefined && !RUNS.some((r) => r.key === only))) {
  console.error('usage: node scripts/conformance-bridge.mjs [--skip-direct] [--upstream stdio|http] [--only 0.2-2026|0.2|0.1.16]');
  process.exit(2);
}

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
function killAll() {
  for (const child of children) {
    try { if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ }
  }
}
process.once('exit', killAll);
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(sig, () => {
    killAll();
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

/** @param {string[]} argv @param {import('node:child_process').SpawnOptions} options */
function node(argv, options) {
  const child = spawn(process.execPath, argv, { cwd: ROOT, ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Stops a child by its PID: SIGTERM, then SIGKILL after 5 s. @param {import('node:child_process').ChildProcess} child */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try { process.kill(child.pid, 'SIGTERM'); } catch { return; }
  const timer = setTimeout(() => { try { if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
  await exited;
  clearTimeout(timer);
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * Waits for `pattern` on a child's stderr (copied to `log`).
 * @param {import('node:child_process').ChildProcess} child @param {RegExp} pattern @param {fs.WriteStream} log
 * @returns {Promise<RegExpExecArray>}
 */
function waitFor(child, pattern, log) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${READY_TIMEOUT_MS} ms:\n${text}`)), READY_TIMEOUT_MS);
    child.stderr?.on('data', (chunk) => {
      log.write(chunk);
      text += String(chunk);
      const match = pattern.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before ${pattern}:\n${text}`)));
  });
}

/**
 * Runs scripts/conformance.mjs for one set and returns its totals, its wall time and its failure lines.
 * @param {string[]} extra @param {string} logName
 */
async function conformance(extra, logName) {
  const started = Date.now();
  const child = node([CONFORMANCE, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const log = fs.createWriteStream(path.join(RESULTS, `${logName}.log`));
  child.stdout?.on('data', (chunk) => { out += String(chunk); log.write(chunk); });
  child.stderr?.on('data', (chunk) => log.write(chunk));
  const code = await new Promise((resolve) => child.once('close', resolve));
  await new Promise((resolve) => log.end(resolve));
  const verdict = out.trimEnd().split('\n').at(-1) ?? '';
  const total = /(\d+) passed, (\d+) failed/.exec(verdict);
  const failures = out.split('\n').filter((line) => /^\s+(✗|- |!)/.test(line));
  return { code, passed: total ? Number(total[1]) : undefined, failed: total ? Number(total[2]) : undefined, seconds: Math.round((Date.now() - started) / 1000), failures, verdict };
}

/** Starts the narrowed server (stdio child of the bridge, or HTTP) and the bridge; returns the bridge URL. @param {'legacy' | 'modern'} revisions @param {fs.WriteStream} log */
async function startBridge(revisions, log) {
  const port = await freePort();
  /** @type {import('node:child_process').ChildProcess[]} */
  const started = [];
  let upstream;
  if (upstreamTransport === 'http') {
    const server = node([SERVER, '--port', String(await freePort()), '--revisions', revisions], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.push(server);
    upstream = [/** @type {string} */ ((await waitFor(server, /listening on (http:\/\/\S+)/, log))[1])];
  } else {
    upstream = ['--', process.execPath, SERVER, '--stdio', '--revisions', revisions];
  }
  // Every POST answered as SSE, as the conformance server itself does (two checks score only SSE answers).
  const bridge = node([CLI, 'bridge', '--port', String(port), '--response-mode', 'sse', ...upstream], { stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(bridge);
  const match = await waitFor(bridge, /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, log);
  return { url: /** @type {string} */ (match[1]).replace('127.0.0.1', 'localhost'), started };
}

fs.mkdirSync(RESULTS, { recursive: true });
/** @type {string[]} */
const lines = [];
let failed = false;
for (const run of RUNS.filter((r) => only === undefined || r.key === only)) {
  const direct = flag('--skip-direct') ? undefined : await conformance(['--only', run.key], `direct-${run.key}`);
  const log = fs.createWriteStream(path.join(RESULTS, `bridge-${run.key}.stderr.log`));
  const { url, started } = await startBridge(run.upstream, log);
  let bridged;
  try {
    bridged = await conformance(['--url', url, '--only', run.key], `bridged-${run.key}`);
  } finally {
    for (const child of started.reverse()) await stop(child);
    log.end();
  }
  if (bridged.code !== 0) failed = true;
  /** @param {Awaited<ReturnType<typeof conformance>> | undefined} r */
  const totals = (r) => (r === undefined ? 'not run' : r.passed === undefined ? `no totals (exit ${r.code})` : `${r.passed} passed, ${r.failed} failed (${r.seconds} s)`);
  const era = run.upstream === 'legacy' ? 'session-based revisions only' : '2026-07-28 only';
  lines.push(`${run.label}: direct ${totals(direct)} | bridged (server: ${era}, ${upstreamTransport}) ${totals(bridged)}`);
  for (const failure of bridged.failures) lines.push(`    ${failure.trim()}`);
}
console.log(`\n${lines.join('\n')}`);
console.log(`conformance-bridge${failed ? ' FAILED' : ''}: logs in ${path.relative(ROOT, RESULTS)}/`);
process.exit(failed ? 1 : 0);
