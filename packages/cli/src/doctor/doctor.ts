/**
 * {@link runDoctor}: runs the checks in order against one target and returns the report, by the run's deadline
 * whatever the server (or a check) does.
 *
 * The order is `CHECKS`': the start-up checks, then the connect step (an `McpClient` in the `--era` choice; it sets
 * `facts.connected`, `serverInfo` and `era`), then the rest; a check that needs a connection is skipped without one.
 * Each check runs with its own context (see `checkContext.ts`) and is raced against the deadline: one still running then
 * is `timed-out`, and the report is assembled without waiting for it. At the end every client is closed and every
 * process killed by its group.
 */
import { VERSION } from '../version.js';
import { createBudget, DoctorStoppedError, raceSignal, type Budget } from './budget.js';
import { CHECKS } from './checks/index.js';
import { CLIENT_ERA, createCheckContext, RunResources } from './checkContext.js';
import { assembleReport, SEVERITY_ORDER } from './report.js';
import type { Check, CheckOutcome, CheckStatus, DoctorFacts, DoctorOptions, DoctorReport, Finding, RunDoctor } from './types.js';

/** The id and title of the connect step's line in `checks`. */
export const CONNECT_STEP = { id: 'connect', title: 'MCP connection' } as const;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Run {
  readonly options: DoctorOptions;
  readonly budget: Budget;
  readonly facts: DoctorFacts;
  readonly resources: RunResources;
  readonly findings: Finding[];
  readonly outcomes: CheckOutcome[];
}

function progressEnd(run: Run, outcome: CheckOutcome, findings: readonly Finding[]): void {
  run.outcomes.push(outcome);
  const worst = SEVERITY_ORDER.find((severity) => findings.some((f) => f.severity === severity));
  run.options.onProgress?.({
    type: 'check-end',
    id: outcome.id,
    title: outcome.title,
    status: outcome.status,
    findings: findings.length,
    durationMs: outcome.durationMs,
    ...(worst === undefined ? {} : { worst }),
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
  });
}

/** How a check that threw ends: `crashed` (the doctor's bug) for a check, `failed` for the connect step. */
type ThrowStatus = 'crashed' | 'failed';

/** Why a check was cut short: the user stopped the run, or its time budget was spent. */
function stoppedReason(budget: Budget, when?: string): string {
  const what = budget.signal.reason instanceof DoctorStoppedError ? 'the doctor was stopped' : "the doctor's time budget was spent";
  return when === undefined ? what : `${what} ${when}`;
}

/** One check: skipped, or raced against the deadline; its outcome goes into the run. */
async function runCheck(run: Run, check: Check, thrown: ThrowStatus = 'crashed'): Promise<void> {
  const { options, budget } = run;
  const skip = (reason: string): void => progressEnd(run, { id: check.id, title: check.title, status: 'skipped', durationMs: 0, reason }, []);
  if (budget.signal.aborted) return skip(stoppedReason(budget, 'before it started'));
  if (check.needsConnection !== false && !run.facts.connected) return skip('no MCP connection was made');
  options.onProgress?.({ type: 'check-start', id: check.id, title: check.title });
  const abort = new AbortController();
  const mine: Finding[] = [];
  const handle = createCheckContext({
    check,
    target: options.target,
    env: options.env,
    budget,
    abort: abort.signal,
    era: options.era ?? 'auto',
    ...(options.call === undefined ? {} : { call: options.call }),
    ...(options.foreignToken === undefined ? {} : { foreignToken: options.foreignToken }),
    facts: run.facts,
    resources: run.resources,
    onFinding: (finding) => {
      run.findings.push(finding);
      mine.push(finding);
    },
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  const started = options.env.now();
  let result: Awaited<ReturnType<typeof raceSignal>>;
  try {
    result = await raceSignal(Promise.resolve().then(() => check.run(handle.ctx)), budget.signal);
  } finally {
    abort.abort(new Error(`The check "${check.id}" is over`));
    handle.retire();
  }
  const durationMs = options.env.now() - started;
  const misuse = handle.misuse();
  let status: CheckStatus;
  let reason: string | undefined;
  if (misuse !== undefined) [status, reason] = ['crashed', misuse.message];
  else if ('aborted' in result || ('error' in result && budget.signal.aborted)) [status, reason] = ['timed-out', stoppedReason(budget)];
  else if ('error' in result) [status, reason] = [thrown, errorText(result.error)];
  else if (mine.some((f) => f.severity !== 'info')) status = 'failed';
  else if (handle.skipped() !== undefined) [status, reason] = ['skipped', handle.skipped()];
  else status = 'passed';
  progressEnd(run, { id: check.id, title: check.title, status, durationMs, ...(reason === undefined ? {} : { reason }) }, mine);
}

/** The connect step: a client in the `--era` choice; its outcome is the `connect` line of `checks`. */
async function connect(run: Run): Promise<void> {
  const step: Check = {
    ...CONNECT_STEP,
    area: 'startup',
    transports: ['stdio', 'http'],
    requirements: [],
    needsConnection: false,
    run: async (ctx) => {
      const client = await ctx.client({ era: CLIENT_ERA[ctx.era] });
      run.facts.connected = true;
      run.facts.era = client.era;
      const info = client.serverInfo;
      if (info !== undefined) run.facts.serverInfo = { name: info.name, version: info.version, ...(info.title === undefined ? {} : { title: info.title }) };
    },
  };
  await runCheck(run, step, 'failed');
}

/**
 * Runs the doctor: see the module comment.
 * @throws TypeError when `timeoutMs` or `requestTimeoutMs` is not a number, RangeError when it is negative or `NaN`
 *   (nothing is started then)
 */
export const runDoctor: RunDoctor = async (options: DoctorOptions): Promise<DoctorReport> => {
  const { env, target } = options;
  const startedAt = new Date().toISOString();
  const startedMs = env.now();
  const budget = createBudget({ env, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }), ...(options.signal === undefined ? {} : { signal: options.signal }) });
  const run: Run = { options, budget, facts: { connected: false, legacyRevisions: [], modernRevisions: [], measurements: {} }, resources: new RunResources(), findings: [], outcomes: [] };
  const checks = (options.checks ?? CHECKS).filter((check) => check.transports.includes(target.transport));
  let connected = false;
  try {
    for (const check of checks) {
      if (!connected && check.area !== 'startup') {
        connected = true;
        await connect(run);
      }
      await runCheck(run, check);
    }
    if (!connected) await connect(run);
  } finally {
    budget.dispose();
    await run.resources.closeAll({ env, waitMs: budget.cleanupMs });
  }
  return assembleReport({ target, startedAt, durationMs: env.now() - startedMs, facts: run.facts, findings: run.findings, checks: run.outcomes, version: VERSION, ...(options.gate === undefined ? {} : { gate: options.gate }) });
};
