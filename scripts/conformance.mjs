#!/usr/bin/env node
// @ts-check
/**
 * Runs the official MCP conformance suite against our example server and prints ONE verdict line.
 *
 *   node scripts/conformance.mjs                      # the five runs (what `npm test` runs)
 *   node scripts/conformance.mjs --scenario tools-call-error [--only 0.1.16|0.2|0.2-2026] [--verbose]
 *   node scripts/conformance.mjs --scenario sse-retry [--only client|client-2026]   # a client scenario
 *   node scripts/conformance.mjs --url http://localhost:3000/mcp   # use a server that is already running
 *   node scripts/conformance.mjs --no-cluster                 # leave out the cluster pass (step 3)
 *   node scripts/conformance.mjs --scenario tasks-mrtr-input --only 0.2-2026 --force   # an extension scenario
 *                                                             # (not on the spec timeline: the suite's own --force)
 *
 * What it does:
 *   1. picks a free port P on 127.0.0.1 and starts `node examples/conformance-server/main.js --port P`
 *      (its output goes to .conformance-results/<run>/server.log); it is stopped by its own PID at the end,
 *      also on failure and on SIGINT/SIGTERM;
 *   2. runs @modelcontextprotocol/conformance 0.1.16 `server --url http://localhost:P/mcp --suite all`
 *      (expected: 44 passed, 0 failed), then 0.2.0-alpha.12 `server --url ... --requirements 2025-11-25` and
 *      `--requirements 2026-07-28` (the same dual-era server: sessions, then stateless requests), the 0.2 runs
 *      scored by their exit code ("Not scored" scenarios do not count), each run bounded in time;
 *   3. the cluster pass (scripts/conformance-cluster.mjs): the same server suites against three instances of the
 *      example server on one redis-server behind nginx round-robin (scripts/cluster.mjs), which must score exactly
 *      what the single instance scored (skipped, with one line naming what to install, without nginx or
 *      redis-server; left out with `--url` and `--no-cluster`);
 *   4. runs 0.2.0-alpha.12 in client mode against examples/conformance-client/main.js, `--requirements 2025-11-25`
 *      and `--requirements 2026-07-28`, checked against scripts/conformance-client-baseline.yml (see
 *      scripts/conformance-client.mjs: loopback preload, `sse-retry` retried at most twice);
 *   5. prints the summary lines of failing scenarios with their failing checks (from checks.json), the
 *      not-scored scenarios of each requirement set (which pass, which fail and why, which skip and why), then
 *      one final line with each run's totals and wall time, and exits 1 on any scored failure or when a total
 *      cannot be parsed.
 *
 * Node 20 lacks fs.globSync, which the suite imports at top level: there the suite runs with the ESM
 * resolve hook in scripts/conformance-shim/ (hooks.mjs sends the suite's `fs` imports to a shim that adds it). The suite's
 * server mode opens no listening socket, so no loopback preload is needed there; its client mode starts mock servers,
 * kept on 127.0.0.1 by scripts/conformance-shim/loopback.cjs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLIENT_SUITES, clientReportLines, clientVerdictPart, isClientScenario, runClientSuite } from './conformance-client.mjs';
import { clusterDifferences, clusterVerdictPart, knownDifferencesGone, runClusterPass } from './conformance-cluster.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_MAIN = path.join(ROOT, 'examples', 'conformance-server', 'main.js');
const SHIM_REGISTER = path.join(ROOT, 'scripts', 'conformance-shim', 'register.mjs');
const RESULTS_ROOT = path.join(ROOT, '.conformance-results');

/** Per-suite wall-clock bound. */
const SUITE_TIMEOUT_MS = 5 * 60_000;
/**
 * Fewest passed checks of the 2026-07-28 run: its 37 scored scenarios hold 121 checks (counted in their
 * checks.json), so the floor holds with every not-scored scenario failing and catches scored scenarios that
 * silently ran fewer checks. (The official v2 SDK's fixture passes 164, with 30 failing, all not scored.)
 */
const EXPECTED_2026_PASSED = 121;
/** How long the example server may take to answer HTTP. */
const SERVER_READY_TIMEOUT_MS = 20_000;

/**
 * @typedef {object} SuiteSpec
 * @property {string} key         `0.1.16`, `0.2` or `0.2-2026` (what `--only` names)
 * @property {string} pkgDir      installed (aliased) package folder
 * @property {string} outputName  the run's output folder and log name under the run directory
 * @property {string[]} fullArgs  arguments of a full run (after `--url`)
 * @property {string[]} scenarioArgs extra arguments of a `--scenario` run (the revision it speaks)
 * @property {string} label       how the full run is named in the verdict line
 * @property {number} expectedPassed minimum passed checks of a full run (what the official SDK scores)
 * @property {boolean} scoredByExitCode whether failures in "Not scored" scenarios are tolerated (rc decides)
 */

/** @type {SuiteSpec[]} */
const SUITES = [
  {
    key: '0.1.16',
    pkgDir: path.join(ROOT, 'node_modules', 'conformance-0.1.16'),
    outputName: 'v0.1.16',
    fullArgs: ['--suite', 'all'],
    scenarioArgs: [],
    label: '--suite all',
    expectedPassed: 44,
    scoredByExitCode: false,
  },
  {
    key: '0.2',
    pkgDir: path.join(ROOT, 'node_modules', 'conformance-0.2'),
    outputName: 'v0.2-2025-11-25',
    fullArgs: ['--requirements', '2025-11-25'],
    scenarioArgs: [],
    label: '--requirements 2025-11-25',
    expectedPassed: 84,
    scoredByExitCode: true,
  },
  {
    key: '0.2-2026',
    pkgDir: path.join(ROOT, 'node_modules', 'conformance-0.2'),
    outputName: 'v0.2-2026-07-28',
    fullArgs: ['--requirements', '2026-07-28'],
    scenarioArgs: ['--spec-version', '2026-07-28'],
    label: '--requirements 2026-07-28',
    expectedPassed: EXPECTED_2026_PASSED,
    scoredByExitCode: true,
  },
];

// ------------------------------------------------------------------------------------------------
// Command line

/**
 * @param {string[]} argv
 * @returns {{ scenario?: string, only?: string, verbose: boolean, url?: string, timeoutMs: number, cluster: boolean, force: boolean }}
 */
function parseArgs(argv) {
  /** @type {{ scenario?: string, only?: string, verbose: boolean, url?: string, timeoutMs: number, cluster: boolean, force: boolean }} */
  const opts = { verbose: false, timeoutMs: SUITE_TIMEOUT_MS, cluster: true, force: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`missing value after ${a}`);
      return /** @type {string} */ (v);
    };
    if (a === '--scenario') opts.scenario = value();
    else if (a === '--only') opts.only = value();
    else if (a === '--url') opts.url = value();
    else if (a === '--timeout-ms') opts.timeoutMs = Number(value());
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--no-cluster') opts.cluster = false;
    else if (a === '--force') opts.force = true;
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument '${a}'`);
  }
  const keys = [...SUITES, ...CLIENT_SUITES].map((s) => s.key);
  if (opts.only !== undefined && !keys.includes(opts.only)) usage(`--only must be one of ${keys.join(', ')}`);
  if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) usage('--timeout-ms must be a positive number');
  return opts;
}

/** @param {string} [error] @returns {never} */
function usage(error) {
  if (error) console.error(`conformance: ${error}`);
  console.error('usage: node scripts/conformance.mjs [--scenario NAME] [--only 0.1.16|0.2|0.2-2026|client|client-2026] [--url URL] [--no-cluster] [--force] [--timeout-ms N] [--verbose]');
  process.exit(error ? 2 : 0);
}

// ------------------------------------------------------------------------------------------------
// Child processes: tracked so that every one we start is stopped by its own PID

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();

/**
 * @param {string[]} args arguments of `node`
 * @param {import('node:child_process').SpawnOptions} options
 */
function spawnNode(args, options) {
  const child = spawn(process.execPath, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Stops a child by its PID: SIGTERM, then SIGKILL after `graceMs`.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} [graceMs]
 */
async function stopChild(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try { process.kill(child.pid, 'SIGTERM'); } catch { return; }
  const timer = setTimeout(() => { try { if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ } }, graceMs);
  await exited;
  clearTimeout(timer);
}

function killAllChildrenNow() {
  for (const child of children) {
    try { if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

process.once('exit', killAllChildrenNow);
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.once(sig, () => {
    console.error(`conformance: interrupted by ${sig}; stopping child processes`);
    killAllChildrenNow();
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

// ------------------------------------------------------------------------------------------------
// The example server

/** @returns {Promise<number>} a port that was free on 127.0.0.1 a moment ago */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Resolves true once anything answers HTTP on the URL (any status counts).
 * @param {string} url
 */
function answersHttp(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream' }, timeout: 1000 }, (res) => {
      res.resume();
      res.destroy();
      resolve(true);
    });
    req.once('timeout', () => { req.destroy(); resolve(false); });
    req.once('error', () => resolve(false));
  });
}

/**
 * Starts main.js on a free port and waits until it answers.
 * @param {string} runDir
 * @returns {Promise<{ url: string, child: import('node:child_process').ChildProcess, logFile: string }>}
 */
async function startServer(runDir) {
  const logFile = path.join(runDir, 'server.log');
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const log = fs.openSync(logFile, 'a');
    const child = spawnNode([SERVER_MAIN, '--port', String(port)], { cwd: ROOT, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    let exited = false;
    child.once('exit', () => { exited = true; });
    const url = `http://localhost:${port}/mcp`;
    const probe = `http://127.0.0.1:${port}/mcp`;
    const deadline = Date.now() + SERVER_READY_TIMEOUT_MS;
    while (!exited && Date.now() < deadline) {
      if (await answersHttp(probe)) return { url, child, logFile };
      await sleep(100);
    }
    await stopChild(child);
    if (!exited) throw new Error(`the example server did not answer on ${probe} within ${SERVER_READY_TIMEOUT_MS} ms (see ${path.relative(ROOT, logFile)})`);
    console.error(`conformance: the example server exited early (attempt ${attempt}, code ${child.exitCode}); see ${path.relative(ROOT, logFile)}`);
  }
  throw new Error(`the example server could not be started (see ${path.relative(ROOT, logFile)}):\n${tail(logFile, 20)}`);
}

/** @param {string} file @param {number} lines */
function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).map((l) => `  | ${l}`).join('\n');
  } catch {
    return '  | (no log)';
  }
}

// ------------------------------------------------------------------------------------------------
// Running one suite

/**
 * @typedef {object} ScenarioLine
 * @property {string} name
 * @property {number} passed
 * @property {number} failed
 * @property {boolean} ok
 * @property {string} line  the summary line as printed
 */

/**
 * @typedef {object} SuiteResult
 * @property {SuiteSpec} spec
 * @property {string} version      the installed package version
 * @property {string} label        e.g. `--suite all` or `--scenario ping`
 * @property {number | null} exitCode
 * @property {boolean} timedOut
 * @property {{ passed: number, failed: number } | null} total
 * @property {ScenarioLine[]} scenarios
 * @property {Map<string, string>} notScored  scenario name → reason (pending, extension, added-after-release)
 * @property {string} outputDir
 * @property {string} logFile
 * @property {boolean} ok
 * @property {string[]} problems  why the suite did not pass (besides failing scenarios)
 * @property {boolean} skipped  `--scenario` named a scenario this version does not have
 * @property {number} elapsedMs  wall time of the run
 * @property {Map<string, string>} crashes  scenario name → the error that stopped it before it wrote its checks
 */

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * @param {SuiteSpec} spec
 * @param {{ url: string, scenario?: string, verbose: boolean, timeoutMs: number, runDir: string, force?: boolean }} opts
 * @returns {Promise<SuiteResult>}
 */
async function runSuite(spec, opts) {
  const pkg = JSON.parse(fs.readFileSync(path.join(spec.pkgDir, 'package.json'), 'utf8'));
  const entry = path.join(spec.pkgDir, pkg.bin?.conformance ?? 'dist/index.js');
  const outputDir = path.join(opts.runDir, spec.outputName);
  const logFile = path.join(opts.runDir, `${spec.outputName}.log`);
  const selection = opts.scenario ? ['--scenario', opts.scenario, ...spec.scenarioArgs, ...(opts.force ? ['--force'] : [])] : spec.fullArgs;
  const label = selection.join(' ');
  const startedAt = Date.now();
  const needsShim = typeof (/** @type {any} */ (fs)).globSync !== 'function';
  const args = [
    ...(needsShim ? ['--import', pathToFileURL(SHIM_REGISTER).href] : []),
    entry, 'server', '--url', opts.url, ...selection, '-o', outputDir,
  ];
  console.error(`conformance: running ${pkg.version} ${label} against ${opts.url}${needsShim ? ' (Node 20 fs.globSync shim)' : ''}`);

  const child = spawnNode(args, {
    cwd: opts.runDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const log = fs.createWriteStream(logFile);
  let text = '';
  /** @param {Buffer} chunk */
  const collect = (chunk) => {
    text += chunk.toString('utf8');
    log.write(chunk);
    if (opts.verbose) process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    console.error(`conformance: ${pkg.version} ${label} exceeded ${opts.timeoutMs} ms; stopping it (pid ${child.pid})`);
    void stopChild(child);
  }, opts.timeoutMs);
  /** @type {number | null} */
  const exitCode = await new Promise((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  const elapsedMs = Date.now() - startedAt;
  await new Promise((resolve) => log.end(resolve));

  const clean = text.replace(ANSI, '');
  const result = parseReport(clean);
  /** @type {Map<string, string>} */
  const crashes = new Map();
  for (const m of clean.matchAll(/^Failed to run scenario (\S+): (.*)$/gm)) crashes.set(/** @type {string} */ (m[1]), /** @type {string} */ (m[2]));
  const notApplicable = /^SKIPPED: scenario '.*' is not applicable/m.test(clean);
  if (opts.scenario && (/Unknown scenario/.test(clean) || notApplicable)) {
    console.error(`conformance: ${pkg.version} ${label}: ${notApplicable ? 'not applicable at that revision' : 'no such scenario'}; skipped`);
    return {
      spec, version: pkg.version, label, exitCode, timedOut, total: null, scenarios: [], notScored: result.notScored,
      outputDir, logFile, ok: true, problems: [], skipped: true, elapsedMs, crashes,
    };
  }
  /** @type {string[]} */
  const problems = [];
  if (timedOut) problems.push(`timed out after ${opts.timeoutMs} ms`);
  if (!result.total) problems.push(`could not parse a 'Total: N passed, M failed' line (exit code ${exitCode}; see ${path.relative(ROOT, logFile)})`);
  if (exitCode !== 0 && !timedOut) problems.push(`exit code ${exitCode}`);
  // Single-scenario runs print no per-scenario summary: synthesize it from the total.
  if (result.total && result.scenarios.length === 0 && opts.scenario) {
    const ok = result.total.failed === 0;
    result.scenarios.push({
      name: opts.scenario, passed: result.total.passed, failed: result.total.failed, ok,
      line: `${ok ? '✓' : '✗'} ${opts.scenario}: ${result.total.passed} passed, ${result.total.failed} failed`,
    });
  }
  const scoredFailures = result.scenarios.filter((s) => !s.ok && !(spec.scoredByExitCode && result.notScored.has(s.name)));
  if (result.total && !opts.scenario && result.total.passed < spec.expectedPassed) {
    problems.push(`expected at least ${spec.expectedPassed} passed checks (the official SDK's score), got ${result.total.passed}`);
  }
  if (result.total && result.total.failed > 0 && !spec.scoredByExitCode && scoredFailures.length === 0) {
    problems.push(`${result.total.failed} failed checks, but no failing scenario line was found`);
  }
  const ok = problems.length === 0 && scoredFailures.length === 0 && (spec.scoredByExitCode || (result.total?.failed ?? 1) === 0);
  return {
    spec, version: pkg.version, label, exitCode, timedOut, total: result.total, scenarios: result.scenarios,
    notScored: result.notScored, outputDir, logFile, ok, problems, skipped: false, elapsedMs, crashes,
  };
}

/**
 * Parses the console report of `conformance server`.
 * @param {string} text ANSI-free output
 */
function parseReport(text) {
  /** @type {ScenarioLine[]} */
  const scenarios = [];
  /** @type {Map<string, string>} */
  const notScored = new Map();
  const summaryAt = text.lastIndexOf('=== SUMMARY ===');
  if (summaryAt >= 0) {
    for (const line of text.slice(summaryAt).split('\n')) {
      const m = /^\s*([✓✗])\s+(\S+):\s+(\d+) passed, (\d+) failed/.exec(line);
      if (m) scenarios.push({ name: /** @type {string} */ (m[2]), passed: Number(m[3]), failed: Number(m[4]), ok: m[1] === '✓' && m[4] === '0', line: line.trim() });
    }
  }
  const notScoredAt = text.search(/^Not scored for /m);
  if (notScoredAt >= 0) {
    for (const line of text.slice(notScoredAt).split('\n').slice(1)) {
      const m = /^\s+[✓✗]\s+(\S+)\s+\(([^)]*)\)/.exec(line);
      if (m) notScored.set(/** @type {string} */ (m[1]), /** @type {string} */ (m[2]));
      else if (line.trim() !== '') break;
    }
  }
  /** @type {{ passed: number, failed: number } | null} */
  let total = null;
  const totals = [...text.matchAll(/^Total: (\d+) passed, (\d+) failed/gm)];
  const last = totals.at(-1);
  if (last) total = { passed: Number(last[1]), failed: Number(last[2]) };
  else {
    const single = [...text.matchAll(/^Passed: (\d+)\/(\d+), (\d+) failed/gm)].at(-1);
    if (single) total = { passed: Number(single[1]), failed: Number(single[3]) };
  }
  return { scenarios, notScored, total };
}

/**
 * The checks of one scenario, read from the newest `server-<scenario>-<ts>/checks.json`, or why they cannot be.
 * @param {string} outputDir
 * @param {string} scenario
 * @returns {{ checks: { id?: string, name?: string, status?: string, errorMessage?: string }[] } | { problem: string }}
 */
function readChecks(outputDir, scenario) {
  let dirs;
  try {
    dirs = fs.readdirSync(outputDir).filter((d) => d.startsWith(`server-${scenario}-`) && /\d{4}-\d\d-\d\dT/.test(d.slice(`server-${scenario}-`.length))).sort();
  } catch {
    return { problem: `(no results under ${path.relative(ROOT, outputDir)})` };
  }
  const dir = dirs.at(-1);
  if (!dir) return { problem: `(no checks.json for ${scenario} under ${path.relative(ROOT, outputDir)})` };
  const file = path.join(outputDir, dir, 'checks.json');
  if (!fs.existsSync(file)) return { problem: `(the scenario wrote no checks.json: it stopped early; see the run's log)` };
  try {
    return { checks: JSON.parse(fs.readFileSync(file, 'utf8')) };
  } catch (e) {
    return { problem: `(unreadable ${path.relative(ROOT, file)}: ${e instanceof Error ? e.message : String(e)})` };
  }
}

/**
 * The checks of one scenario with `status` (FAILURE by default), each as `id: message`; for a scenario that
 * stopped before writing its checks, the suite's own "Failed to run scenario" line.
 * @param {SuiteResult} r
 * @param {string} scenario
 * @param {string} [status]
 * @returns {string[]}
 */
function checkLines(r, scenario, status = 'FAILURE') {
  const read = readChecks(r.outputDir, scenario);
  if ('problem' in read) {
    if (status !== 'FAILURE') return [];
    const crash = r.crashes.get(scenario);
    return [crash === undefined ? read.problem : `the scenario stopped: ${oneLine(crash)}`];
  }
  return read.checks
    .filter((c) => c.status === status)
    .map((c) => `${c.id ?? c.name}: ${oneLine(c.errorMessage ?? '(no error message)')}`);
}

/** @param {string} s */
function oneLine(s) {
  const flat = s.replace(/\s*\n\s*/g, ' | ');
  return flat.length > 600 ? `${flat.slice(0, 600)}…` : flat;
}

// ------------------------------------------------------------------------------------------------
// Main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const runDir = path.join(RESULTS_ROOT, `run-${stamp}`);
  fs.mkdirSync(runDir, { recursive: true });

  /** @type {import('node:child_process').ChildProcess | undefined} */
  let server;
  /** @type {SuiteResult[]} */
  const results = [];
  /** @type {import('./conformance-client.mjs').ClientSuiteResult[]} */
  const clientResults = [];
  /** @type {string | undefined} */
  let fatal;
  /** @type {{ results: SuiteResult[], elapsedMs: number } | undefined} */
  let cluster;
  /** @type {string | undefined} */
  let clusterSkipped;
  /** @type {import('./conformance-client.mjs').ClientContext} */
  const clientCtx = {
    root: ROOT, pkgDir: path.join(ROOT, 'node_modules', 'conformance-0.2'), runDir, verbose: opts.verbose,
    timeoutMs: opts.timeoutMs, spawnNode, stopChild,
  };
  try {
    // A `--scenario` runs where it exists: the server suites for a server scenario, the client suites for a client one.
    const clientScenario = opts.scenario !== undefined && await isClientScenario(clientCtx, opts.scenario);
    const serverSpecs = SUITES.filter((s) => (!opts.only || opts.only === s.key) && !clientScenario);
    const clientSpecs = CLIENT_SUITES.filter((s) => (!opts.only || opts.only === s.key) && (opts.scenario === undefined || clientScenario));
    let url = opts.url;
    if (!url && serverSpecs.length > 0) {
      const started = await startServer(runDir);
      server = started.child;
      url = started.url;
      console.error(`conformance: example server pid ${server.pid} at ${url} (log: ${path.relative(ROOT, started.logFile)})`);
    }
    for (const spec of serverSpecs) {
      results.push(await runSuite(spec, { url: /** @type {string} */ (url), scenario: opts.scenario, verbose: opts.verbose, timeoutMs: opts.timeoutMs, runDir, force: opts.force }));
      if (server && server.exitCode !== null) {
        fatal = `the example server exited during the run (code ${server.exitCode}):\n${tail(path.join(runDir, 'server.log'), 20)}`;
        break;
      }
    }
    if (server) await stopChild(server);
    if (!fatal && opts.cluster && opts.url === undefined && results.length > 0) {
      const pass = await runClusterPass({ serverMain: SERVER_MAIN, runDir }, async (clusterUrl) => {
        /** @type {SuiteResult[]} */
        const out = [];
        for (const spec of serverSpecs) {
          const clusterSpec = { ...spec, outputName: `${spec.outputName}-cluster` };
          out.push(await runSuite(clusterSpec, { url: clusterUrl, scenario: opts.scenario, verbose: opts.verbose, timeoutMs: opts.timeoutMs, runDir, force: opts.force }));
        }
        return out;
      });
      if ('skipped' in pass) {
        clusterSkipped = pass.skipped;
        console.error(`conformance: skipping the cluster pass (3 instances on Redis behind nginx): ${pass.skipped}`);
      } else cluster = pass;
    }
    for (const spec of fatal ? [] : clientSpecs) clientResults.push(await runClientSuite(spec, clientCtx, { scenario: opts.scenario }));
  } catch (e) {
    fatal = e instanceof Error ? e.message : String(e);
  } finally {
    if (server) await stopChild(server);
  }

  // Report: failing scored scenarios (with their failing checks) first, then each requirement set's
  // not-scored scenarios, then one verdict line.
  for (const r of results) {
    const failing = r.scenarios.filter((s) => !s.ok && !(r.spec.scoredByExitCode && r.notScored.has(s.name)));
    if (failing.length === 0 && r.problems.length === 0) continue;
    console.log(`\n${r.version} ${r.label}:`);
    for (const s of failing) {
      console.log(`  ${s.line}`);
      for (const c of checkLines(r, s.name)) console.log(`      - ${c}`);
    }
    for (const p of r.problems) console.log(`  ! ${p}`);
  }
  for (const r of results) {
    if (!r.spec.scoredByExitCode || r.notScored.size === 0) continue;
    console.log(`\n${r.version} ${r.label}, not scored (reported, never counted):`);
    for (const [name, reason] of r.notScored) {
      const s = r.scenarios.find((x) => x.name === name);
      const skips = checkLines(r, name, 'SKIPPED');
      const counts = s ? `${s.passed} passed, ${s.failed} failed` : 'no summary line';
      console.log(`  ${s?.ok ? '✓' : '✗'} ${name} (${reason}): ${counts}${skips.length > 0 ? `, ${skips.length} skipped` : ''}`);
      if (s && !s.ok) for (const c of checkLines(r, name)) console.log(`      - ${c}`);
      for (const c of skips) console.log(`      ~ skipped ${c}`);
    }
  }
  const differences = cluster === undefined ? [] : clusterDifferences(results, cluster.results);
  const unexpected = differences.filter((d) => d.known === undefined);
  if (differences.length > 0) {
    console.log('\ncluster (3 instances on Redis behind nginx) scored differently from one instance:');
    for (const d of [...unexpected, ...differences.filter((x) => x.known !== undefined)]) {
      console.log(`  ${d.known === undefined ? '✗' : '~ known:'} ${d.line}`);
      if (d.known !== undefined) console.log(`      (${d.known})`);
      const r = cluster?.results[d.index];
      if (r !== undefined && d.scenario !== '') for (const c of checkLines(r, d.scenario)) console.log(`      - ${c}`);
    }
  }
  if (cluster !== undefined && opts.scenario === undefined) {
    for (const name of knownDifferencesGone(results, differences)) console.log(`\ncluster: '${name}' did not differ from one instance this time: once fixed, take it out of KNOWN_CLUSTER_DIFFERENCES (scripts/conformance-cluster.mjs)`);
  }
  for (const r of clientResults) for (const line of clientReportLines(r)) console.log(line);
  if (fatal) console.log(`\nconformance: ${fatal}`);
  console.log(`\nconformance: detailed results in ${path.relative(ROOT, runDir)}/`);

  const parts = results.map((r) => {
    if (r.skipped) return `${r.version} ${r.label} (skipped: not in this version or revision)`;
    const total = r.total ? `${r.total.passed} passed, ${r.total.failed} failed` : 'totals not parsed';
    const unscored = r.spec.scoredByExitCode ? r.scenarios.filter((s) => r.notScored.has(s.name)) : [];
    const scoredFailing = r.scenarios.filter((s) => !s.ok && !unscored.includes(s)).length;
    const extra = [
      ...(scoredFailing > 0 ? [`${scoredFailing} scored scenario(s) failing`] : []),
      ...(unscored.length > 0 ? [`not scored: ${unscored.filter((s) => s.ok).length}/${unscored.length} scenarios pass`] : []),
      ...(r.timedOut ? ['timed out'] : []),
      ...(r.exitCode !== 0 && !r.timedOut ? [`rc ${r.exitCode}`] : []),
    ];
    return `${r.version} ${r.label} ${total}${extra.length ? ` (${extra.join('; ')})` : ''} [${Math.round(r.elapsedMs / 1000)} s]`;
  });
  if (cluster !== undefined) parts.push(clusterVerdictPart(cluster.results, differences, cluster.elapsedMs));
  if (clusterSkipped !== undefined) parts.push(`cluster pass skipped (${clusterSkipped})`);
  parts.push(...clientResults.map(clientVerdictPart));
  const ran = results.some((r) => !r.skipped) || clientResults.some((r) => !r.skipped);
  const ok = !fatal && ran && results.every((r) => r.ok) && unexpected.length === 0 && clientResults.every((r) => r.ok);
  console.log(`conformance${ok ? '' : ' FAILED'}: ${parts.join('; ') || 'no suite ran'}`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  console.error(e);
  killAllChildrenNow();
  process.exit(1);
});
