// @ts-check
/**
 * The client-mode runs of the official conformance suite (0.2.0-alpha.12), used by scripts/conformance.mjs:
 * `client --command "<node> examples/conformance-client/main.js" --requirements 2025-11-25` and `2026-07-28`,
 * each checked against scripts/conformance-client-baseline.yml (`--expected-failures`: the suite fails the run
 * on a failure not listed there AND on a listed scenario that now passes, so both are noticed).
 *
 * - The suite runs with the loopback preload (conformance-shim/loopback.cjs: its mock servers bind 127.0.0.1)
 *   and, on Node 20, the fs.globSync shim (conformance-shim/register.mjs).
 * - A requirement set runs all its scenarios at once, each client bounded by the suite's `--timeout`; the run
 *   as a whole is bounded by the caller's timeout.
 * - `sse-retry` measures reconnection timing: when it fails it is run again alone, at most twice, and the
 *   report says so. No other scenario is retried.
 * - Floors: every scored scenario outside the baseline must pass at least one check (a scenario whose checks
 *   are only emitted when the client does something "passes" 0/0 against a client that does nothing), and the
 *   scored scenarios outside the baseline must pass at least `expectedPassed` checks together (their count on
 *   the run that set it), so a scenario that silently runs fewer checks is noticed.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

/**
 * @typedef {object} ClientSuiteSpec
 * @property {string} key          what `--only` names
 * @property {string} revision     the requirement set (`--requirements`), also the `--spec-version` of a `--scenario` run
 * @property {string} outputName   the run's output folder and log name under the run directory
 * @property {number} expectedPassed fewest passed checks of a full run, counted over the scored scenarios outside the baseline
 */

/** Scenarios that may be run again (alone, at most `MAX_RETRIES` times) when they fail: timing-sensitive. */
const RETRYABLE = new Set(['sse-retry']);
const MAX_RETRIES = 2;
/** Per-scenario client timeout handed to the suite (its `--timeout`): above main.js's own 40 s deadline. */
const SCENARIO_TIMEOUT_MS = 45_000;

/** @type {ClientSuiteSpec[]} */
export const CLIENT_SUITES = [
  // initialize 1, tools_call 2, elicitation-sep1034-client-defaults 5, sse-retry 3, and the 14 scored auth/*
  // scenarios 228 (metadata-default/var1/var2/var3 18 each, basic-cimd 13, scope-from-www-authenticate,
  // scope-from-scopes-supported and scope-omitted-when-undefined 14 each, scope-step-up 21, scope-retry-limit 10,
  // token-endpoint-auth-basic/post/none 19 each, pre-registration 13): 239, counted on 2026-12-02 (same in two runs).
  // The floor leaves out the 51 `valid-bearer-token` checks among them: the auth scenarios emit one per request the
  // client makes once signed in, and on a loaded machine a call after the sign-in can time out (the scenario passes).
  { key: 'client', revision: '2025-11-25', outputName: 'client-2025-11-25', expectedPassed: 188 },
  // tools_call 2, request-metadata 5 (its 3 capability checks are SKIPPED: no roots/sampling/elicitation declared),
  // sep-2322-client-request-state 5, http-standard-headers 9, http-custom-headers 18, http-invalid-tool-headers 12,
  // json-schema-ref-no-deref 1, and the 25 scored auth/* scenarios 348: 400; the floor leaves out the (at most 68)
  // `valid-bearer-token` checks, as above.
  { key: 'client-2026', revision: '2026-07-28', outputName: 'client-2026-07-28', expectedPassed: 332 },
];

/**
 * @typedef {object} ClientContext
 * @property {string} root            the repository root
 * @property {string} pkgDir          the installed 0.2 suite
 * @property {string} runDir
 * @property {boolean} verbose
 * @property {number} timeoutMs       bound of one suite invocation
 * @property {(args: string[], options: import('node:child_process').SpawnOptions) => import('node:child_process').ChildProcess} spawnNode
 * @property {(child: import('node:child_process').ChildProcess) => Promise<void>} stopChild
 */

/**
 * @typedef {object} ClientScenarioLine
 * @property {string} name
 * @property {number} passed
 * @property {number} failed
 * @property {number} warnings
 * @property {boolean} skipped
 */

/**
 * @typedef {object} ClientRun  one invocation of the suite
 * @property {number | null} exitCode
 * @property {boolean} timedOut
 * @property {ClientScenarioLine[]} scenarios
 * @property {{ passed: number, failed: number, warnings: number } | null} total
 * @property {{ expected: string[], stale: string[], unexpected: string[] }} baseline
 * @property {boolean} notApplicable   `--scenario` named a scenario outside this revision
 * @property {boolean} unknown         `--scenario` named no client scenario
 * @property {string} outputDir
 * @property {string} logFile
 * @property {number} elapsedMs
 */

/**
 * @typedef {object} ClientSuiteResult
 * @property {ClientSuiteSpec} spec
 * @property {string} label
 * @property {string} version
 * @property {ClientRun} run
 * @property {{ scored: string[], notScored: Map<string, string> }} sets
 * @property {{ scenario: string, attempts: { run: ClientRun, passed: boolean }[] }[]} retries
 * @property {string[]} problems
 * @property {boolean} ok
 * @property {boolean} skipped
 */

export const CLIENT_BASELINE = 'scripts/conformance-client-baseline.yml';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Runs the suite once and parses what it printed.
 * @param {ClientContext} ctx
 * @param {{ args: string[], outputDir: string, logFile: string, label: string }} call
 * @returns {Promise<ClientRun & { text: string }>}
 */
async function invoke(ctx, call) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ctx.pkgDir, 'package.json'), 'utf8'));
  const entry = path.join(ctx.pkgDir, pkg.bin?.conformance ?? 'dist/index.js');
  const needsShim = typeof (/** @type {any} */ (fs)).globSync !== 'function';
  const preload = [
    '--require', path.join(ctx.root, 'scripts', 'conformance-shim', 'loopback.cjs'),
    ...(needsShim ? ['--import', pathToFileURL(path.join(ctx.root, 'scripts', 'conformance-shim', 'register.mjs')).href] : []),
  ];
  const startedAt = Date.now();
  const child = ctx.spawnNode([...preload, entry, ...call.args], {
    cwd: ctx.root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const log = fs.createWriteStream(call.logFile, { flags: 'a' });
  let text = '';
  /** @param {Buffer} chunk */
  const collect = (chunk) => {
    text += chunk.toString('utf8');
    log.write(chunk);
    if (ctx.verbose) process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    console.error(`conformance: ${call.label} exceeded ${ctx.timeoutMs} ms; stopping it (pid ${child.pid})`);
    void ctx.stopChild(child);
  }, ctx.timeoutMs);
  /** @type {number | null} */
  const exitCode = await new Promise((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  await new Promise((resolve) => log.end(resolve));
  const clean = text.replace(ANSI, '');
  return { ...parseClientReport(clean), exitCode, timedOut, outputDir: call.outputDir, logFile: call.logFile, elapsedMs: Date.now() - startedAt, text: clean };
}

/**
 * Parses the console report of `conformance client` (a requirement set or one scenario, with a baseline).
 * @param {string} text ANSI-free output
 */
export function parseClientReport(text) {
  /** @type {ClientScenarioLine[]} */
  const scenarios = [];
  const summaryAt = text.lastIndexOf('=== SUITE SUMMARY ===');
  if (summaryAt >= 0) {
    for (const line of text.slice(summaryAt).split('\n')) {
      const m = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?/.exec(line);
      if (m) scenarios.push({ name: /** @type {string} */ (m[2]), passed: Number(m[3]), failed: Number(m[4]), warnings: Number(m[5] ?? 0), skipped: false });
      const s = /^- (\S+): skipped$/.exec(line);
      if (s) scenarios.push({ name: /** @type {string} */ (s[1]), passed: 0, failed: 0, warnings: 0, skipped: true });
    }
  }
  /** @type {{ passed: number, failed: number, warnings: number } | null} */
  let total = null;
  const t = [...text.matchAll(/^Total: (\d+) passed, (\d+) failed, (\d+) warnings/gm)].at(-1);
  if (t) total = { passed: Number(t[1]), failed: Number(t[2]), warnings: Number(t[3]) };
  else {
    const single = [...text.matchAll(/^Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/gm)].at(-1);
    if (single) total = { passed: Number(single[1]), failed: Number(single[3]), warnings: Number(single[4]) };
  }
  /** @param {string} heading @param {string} mark */
  const section = (heading, mark) => {
    const at = text.indexOf(heading);
    if (at < 0) return [];
    /** @type {string[]} */
    const items = [];
    for (const line of text.slice(at + heading.length).split('\n').slice(1)) {
      const m = new RegExp(`^  ${mark} (\\S+)$`).exec(line);
      if (!m) break;
      items.push(/** @type {string} */ (m[1]));
    }
    return items;
  };
  return {
    scenarios,
    total,
    baseline: {
      expected: section('Expected failures (in baseline):', '~'),
      stale: section('Stale baseline entries (now passing - remove from baseline):', '✓'),
      unexpected: section('Unexpected failures (not in baseline):', '✗'),
    },
    notApplicable: /^SKIPPED: scenario '.*' is not applicable/m.test(text),
    unknown: /Unknown scenario/.test(text),
  };
}

/**
 * The scored and the not-scored client scenarios of a requirement set, from `conformance list`.
 * @param {ClientContext} ctx
 * @param {string} revision
 */
async function requirementSet(ctx, revision) {
  const logFile = path.join(ctx.runDir, `client-list-${revision}.log`);
  const { text } = await invoke(ctx, { args: ['list', '--client', '--requirements', revision], outputDir: ctx.runDir, logFile, label: `list --client --requirements ${revision}` });
  /** @type {string[]} */
  const scored = [];
  /** @type {Map<string, string>} */
  const notScored = new Map();
  let inClient = false;
  let reason = '';
  for (const line of text.split('\n')) {
    if (/^Client scenarios/.test(line)) { inClient = true; continue; }
    if (/^\S/.test(line)) inClient = false;
    const m = /^ {2}- (\S+)$/.exec(line);
    if (inClient && m) scored.push(/** @type {string} */ (m[1]));
    const r = /^ {2}(\S[^(]*) \(\d+\):$/.exec(line);
    if (r) reason = /** @type {string} */ (r[1]).trim();
    const n = /^ {4}- (\S+) \[client\]$/.exec(line);
    if (n) notScored.set(/** @type {string} */ (n[1]), reason);
  }
  return { scored, notScored };
}

/**
 * Whether the suite has a client scenario of that name (any revision, extensions included).
 * @param {ClientContext} ctx
 * @param {string} name
 */
export async function isClientScenario(ctx, name) {
  const logFile = path.join(ctx.runDir, 'client-list.log');
  const { text } = await invoke(ctx, { args: ['list', '--client'], outputDir: ctx.runDir, logFile, label: 'list --client' });
  return text.split('\n').some((line) => line.startsWith(`  - ${name} [`) || line === `  - ${name}`);
}

/** @param {string} root */
function clientCommand(root) {
  const node = /\s/.test(process.execPath) ? 'node' : process.execPath;
  const main = path.join(root, 'examples', 'conformance-client', 'main.js');
  if (/\s/.test(main)) throw new Error(`the suite splits --command on spaces, and the path has one: '${main}'`);
  return `${node} ${main}`;
}

/**
 * One client suite: the requirement set (or one scenario of it), the baseline, retries of `sse-retry`.
 * @param {ClientSuiteSpec} spec
 * @param {ClientContext} ctx
 * @param {{ scenario?: string }} opts
 * @returns {Promise<ClientSuiteResult>}
 */
export async function runClientSuite(spec, ctx, opts) {
  const version = JSON.parse(fs.readFileSync(path.join(ctx.pkgDir, 'package.json'), 'utf8')).version;
  const sets = await requirementSet(ctx, spec.revision);
  const outputDir = path.join(ctx.runDir, spec.outputName);
  const logFile = path.join(ctx.runDir, `${spec.outputName}.log`);
  const common = ['client', '--command', clientCommand(ctx.root), '--timeout', String(SCENARIO_TIMEOUT_MS),
    '--expected-failures', path.join(ctx.root, CLIENT_BASELINE)];
  const selection = opts.scenario ? ['--scenario', opts.scenario, '--spec-version', spec.revision] : ['--requirements', spec.revision];
  const label = `client ${selection.join(' ')}`;
  console.error(`conformance: running ${version} ${label} (examples/conformance-client/main.js, loopback preload)`);
  const run = await invoke(ctx, { args: [...common, ...selection, '-o', outputDir], outputDir, logFile, label });
  if (opts.scenario && (run.notApplicable || run.unknown)) {
    return { spec, label, version, run, sets, retries: [], problems: [], ok: true, skipped: true };
  }
  if (opts.scenario && run.total) {
    const failing = run.total.failed > 0 || run.total.warnings > 0;
    run.scenarios.push({ name: opts.scenario, passed: run.total.passed, failed: run.total.failed, warnings: run.total.warnings, skipped: false });
    if (failing && run.baseline.unexpected.length === 0 && run.baseline.expected.length === 0) run.baseline.unexpected.push(opts.scenario);
  }

  // sse-retry and only it: run again alone when it failed.
  /** @type {ClientSuiteResult['retries']} */
  const retries = [];
  for (const name of RETRYABLE) {
    if (!run.baseline.unexpected.some((u) => u === name || u.startsWith(`${name}:`))) continue;
    /** @type {{ run: ClientRun, passed: boolean }[]} */
    const attempts = [];
    for (let k = 1; k <= MAX_RETRIES; k++) {
      const dir = path.join(outputDir, `retry-${name}-${k}`);
      const again = await invoke(ctx, {
        args: [...common, '--scenario', name, '--spec-version', spec.revision, '-o', dir],
        outputDir: dir, logFile, label: `client --scenario ${name} (retry ${k} of ${MAX_RETRIES})`,
      });
      const passed = again.exitCode === 0 && !again.timedOut && (again.total?.passed ?? 0) > 0 && again.total?.failed === 0 && again.total.warnings === 0;
      attempts.push({ run: again, passed });
      console.error(`conformance: ${name} failed in ${label}; retry ${k} of ${MAX_RETRIES} ${passed ? 'passed' : 'failed'}`);
      if (passed) break;
    }
    retries.push({ scenario: name, attempts });
  }
  const retriedOk = new Set(retries.filter((r) => r.attempts.some((a) => a.passed)).map((r) => r.scenario));
  const unexpected = run.baseline.unexpected.filter((u) => !retriedOk.has(u.split(':')[0] ?? u));

  /** @type {string[]} */
  const problems = [];
  if (run.timedOut) problems.push(`timed out after ${ctx.timeoutMs} ms`);
  if (!run.total) problems.push(`could not parse the suite's totals (exit code ${run.exitCode}; see ${path.relative(ctx.root, logFile)})`);
  if (run.baseline.stale.length > 0) problems.push(`baseline entries that now pass (remove them from ${CLIENT_BASELINE}): ${run.baseline.stale.join(', ')}`);
  if (run.exitCode !== 0 && unexpected.length === 0 && run.baseline.stale.length === 0 && retriedOk.size === 0 && !run.timedOut) problems.push(`exit code ${run.exitCode}`);
  const inBaseline = new Set(run.baseline.expected.map((e) => e.split(':')[0]));
  for (const s of run.scenarios) {
    const scored = sets.scored.includes(s.name);
    if (scored && !inBaseline.has(s.name) && !s.skipped && s.passed === 0 && !unexpected.includes(s.name) && !retriedOk.has(s.name)) {
      problems.push(`${s.name} passed no check (0/0 is what a client that does nothing scores)`);
    }
  }
  // A scenario that passed on a retry counts with the passing attempt's checks.
  /** @param {ClientScenarioLine} s */
  const passedOf = (s) => retries.find((r) => r.scenario === s.name)?.attempts.find((a) => a.passed)?.run.total?.passed ?? s.passed;
  const scoredPassed = run.scenarios.filter((s) => sets.scored.includes(s.name) && !inBaseline.has(s.name)).reduce((n, s) => n + passedOf(s), 0);
  if (!opts.scenario && run.total && scoredPassed < spec.expectedPassed) {
    problems.push(`expected at least ${spec.expectedPassed} passed checks in the scored scenarios outside the baseline, got ${scoredPassed}`);
  }
  return { spec, label, version, run, sets, retries, problems, ok: problems.length === 0 && unexpected.length === 0, skipped: false };
}

/**
 * The checks of one scenario with `status`, each as `id: message`, from `<outputDir>/<scenario>-<ts>/checks.json`.
 * @param {string} outputDir
 * @param {string} scenario
 * @param {string[]} statuses
 * @returns {string[]}
 */
function checkLines(outputDir, scenario, statuses) {
  const dir = path.join(outputDir, path.dirname(scenario));
  const base = `${path.basename(scenario)}-`;
  let found;
  try {
    found = fs.readdirSync(dir).filter((d) => d.startsWith(base) && /^\d{4}-\d\d-\d\dT/.test(d.slice(base.length))).sort().at(-1);
  } catch {
    return ['(no results folder)'];
  }
  if (!found) return ['(no checks.json: the scenario did not run)'];
  try {
    /** @type {{ id?: string, name?: string, status?: string, errorMessage?: string, description?: string, details?: { message?: unknown } }[]} */
    const checks = JSON.parse(fs.readFileSync(path.join(dir, found, 'checks.json'), 'utf8'));
    return checks.filter((c) => statuses.includes(c.status ?? '')).map((c) => `${c.status === 'WARNING' ? '(warning) ' : ''}${c.id ?? c.name}: ${oneLine(c.errorMessage ?? (typeof c.details?.message === 'string' ? c.details.message : `${c.description ?? '(no error message)'}`))}`);
  } catch (e) {
    return [`(unreadable checks.json: ${e instanceof Error ? e.message : String(e)})`];
  }
}

/** @param {string} s */
function oneLine(s) {
  const flat = s.replace(/\s*\n\s*/g, ' | ');
  return flat.length > 400 ? `${flat.slice(0, 400)}…` : flat;
}

/**
 * What a client suite prints: unexpected failures with their failing checks, retries, problems, and the
 * not-scored scenarios of the set (reported, never counted).
 * @param {ClientSuiteResult} r
 * @returns {string[]}
 */
export function clientReportLines(r) {
  if (r.skipped) return [];
  /** @type {string[]} */
  const out = [];
  const header = `\n${r.version} ${r.label}:`;
  const failing = r.run.baseline.unexpected;
  if (failing.length > 0 || r.problems.length > 0 || r.retries.length > 0) {
    out.push(header);
    for (const u of failing) {
      const name = u.split(':')[0] ?? u;
      const s = r.run.scenarios.find((x) => x.name === name);
      const retried = r.retries.find((x) => x.scenario === name);
      const recovered = retried?.attempts.some((a) => a.passed);
      out.push(`  ✗ ${u}${s ? `: ${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings` : ''}${recovered ? ' (passed on retry)' : ''}`);
      for (const c of checkLines(r.run.outputDir, name, ['FAILURE', 'WARNING'])) out.push(`      - ${c}`);
    }
    for (const t of r.retries) {
      t.attempts.forEach((a, i) => {
        out.push(`  ↻ ${t.scenario} retry ${i + 1} of ${MAX_RETRIES}: ${a.passed ? 'passed' : 'failed'}`);
        if (!a.passed) for (const c of checkLines(a.run.outputDir, t.scenario, ['FAILURE', 'WARNING'])) out.push(`      - ${c}`);
      });
    }
    for (const p of r.problems) out.push(`  ! ${p}`);
  }
  const notScored = r.run.scenarios.filter((s) => r.sets.notScored.has(s.name));
  if (notScored.length > 0) {
    out.push(`\n${r.version} ${r.label}, not scored (reported, never counted):`);
    for (const s of notScored) {
      const ok = s.failed === 0 && s.warnings === 0;
      out.push(`  ${ok ? '✓' : '✗'} ${s.name} (${r.sets.notScored.get(s.name)}): ${s.passed} passed, ${s.failed} failed`);
      if (!ok && !s.name.startsWith('auth/')) for (const c of checkLines(r.run.outputDir, s.name, ['FAILURE', 'WARNING'])) out.push(`      - ${c}`);
    }
  }
  return out;
}

/**
 * The client suite's part of the verdict line.
 * @param {ClientSuiteResult} r
 */
export function clientVerdictPart(r) {
  if (r.skipped) return `${r.version} ${r.label} (${r.run.unknown ? 'no such client scenario' : 'not in this revision'})`;
  const t = r.run.total;
  const total = t ? `${t.passed} passed, ${t.failed} failed${t.warnings ? `, ${t.warnings} warnings` : ''}` : 'totals not parsed';
  const scored = r.run.scenarios.filter((s) => r.sets.scored.includes(s.name));
  const expected = new Set(r.run.baseline.expected.map((e) => e.split(':')[0]));
  const passing = scored.filter((s) => !expected.has(s.name) && s.passed > 0 && s.failed === 0 && s.warnings === 0 && !s.skipped).length;
  const extra = [
    ...(r.sets.scored.length > 0 && !r.label.includes('--scenario') ? [`scored: ${passing} pass, ${expected.size} expected failures (baseline)`] : []),
    ...(r.label.includes('--scenario') && r.run.baseline.expected.length > 0 ? [`expected failure (baseline): ${r.run.baseline.expected.join(', ')}`] : []),
    ...(r.run.baseline.unexpected.length > 0 ? [`unexpected: ${r.run.baseline.unexpected.join(', ')}`] : []),
    ...r.retries.map((x) => `${x.scenario} retried ${x.attempts.length}×${x.attempts.some((a) => a.passed) ? ', passed' : ', still failing'}`),
    ...(r.run.timedOut ? ['timed out'] : []),
  ];
  return `${r.version} ${r.label} ${total}${extra.length ? ` (${extra.join('; ')})` : ''} [${Math.round(r.run.elapsedMs / 1000)} s]`;
}
