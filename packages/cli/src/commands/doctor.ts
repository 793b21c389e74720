/**
 * `switchboard doctor <target>`: a thin shell over the doctor library. It resolves the target (`target.ts`), reads
 * the gate (`--fail-on`, `--ignore`, `--baseline`; see `doctor/gate.ts`), runs `runDoctor` with the io's
 * `DoctorEnv` and a progress display on stderr, writes `--write-baseline` when asked, and prints the report: the
 * human one, or `--json` (the only thing on stdout). The exit code is the report's: 0 no unmuted finding at or
 * above `--fail-on` (default `warning`) and every check finished; 1 such a finding, or a check that crashed or timed
 * out; 2 could not connect, or a usage error (an unreadable or invalid baseline, a baseline that cannot be written).
 */
import { clampTimerMs } from '@switchboard/jsonrpc/internal';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DOCTOR_TIMEOUT_MS } from '../doctor/budget.js';
import { nodeDoctorEnv, runDoctor } from '../doctor/index.js';
import { applyGate, baselineOf, parseBaseline } from '../doctor/gate.js';
import { renderReport } from '../doctor/render.js';
import { requirement } from '../doctor/requirements/index.js';
import type { FailOn, GateOptions } from '../doctor/gateTypes.js';
import type { DoctorOptions, DoctorTarget } from '../doctor/types.js';
import type { EraChoice } from '../connect.js';
import { storedAuth } from '../credentials.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import type { Output } from '../output.js';
import { progressDisplay } from '../progress.js';
import { describeTarget, resolveTarget, type Target, type TargetSpec } from '../target.js';
import { reportFailure } from './serverCommand.js';

/** `--foreign-token`, else `SWITCHBOARD_DOCTOR_FOREIGN_TOKEN` (an empty value is none). */
function foreignTokenOf(options: Pick<DoctorCommandOptions, 'foreignToken' | 'io'>): { foreignToken?: string } {
  const token = options.foreignToken ?? options.io.env.SWITCHBOARD_DOCTOR_FOREIGN_TOKEN;
  return token === undefined || token === '' ? {} : { foreignToken: token };
}

/** What the command line gave `doctor`. */
export interface DoctorCommandOptions {
  readonly io: CliIo;
  readonly output: Output;
  readonly spec: TargetSpec;
  /** `--era`. */
  readonly era: EraChoice;
  /** `--timeout-ms`: the whole run, milliseconds. @default the doctor's (60_000) */
  readonly timeoutMs?: number;
  /** `--request-timeout-ms`: each request or wait, milliseconds. @default the doctor's (10_000) */
  readonly requestTimeoutMs?: number;
  /** `--call NAME`: the one tool the doctor may call. */
  readonly call?: string;
  /** `--args JSON`: its arguments, a JSON object (only with `--call`). */
  readonly args?: string;
  /** `--foreign-token`: a token issued for another resource, which the server must refuse. @default `SWITCHBOARD_DOCTOR_FOREIGN_TOKEN`, else none (that check is skipped) */
  readonly foreignToken?: string;
  /** `--json`: the report as JSON on stdout. */
  readonly json: boolean;
  /** `--fail-on`: the lowest severity that fails the run (exit code 1). @default 'warning' */
  readonly failOn?: FailOn;
  /** `--ignore ID` (repeatable): finding ids muted wherever they occur. @default [] */
  readonly ignore?: readonly string[];
  /** `--baseline FILE`: mutes the findings it lists, by id and fingerprint. */
  readonly baseline?: string;
  /** `--write-baseline FILE`: writes every finding of this run to FILE (then they are muted in this run's report too). */
  readonly writeBaseline?: string;
}

/**
 * The gate of the command line: `--fail-on`, `--ignore`, and the baseline file read.
 * @throws CliError `usage` when an `--ignore` id is no finding's, or the baseline cannot be read or is not one
 */
export function readGate(options: Pick<DoctorCommandOptions, 'failOn' | 'ignore' | 'baseline' | 'io'>): GateOptions {
  let baseline: GateOptions['baseline'];
  if (options.baseline !== undefined) {
    const file = path.resolve(options.io.cwd, options.baseline);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError('usage', `Invalid --baseline: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); write one with --write-baseline ${options.baseline}`);
    }
    try {
      baseline = parseBaseline(text);
    } catch (error) {
      throw new CliError('usage', `Invalid --baseline: ${file} is ${(error as Error).message}`);
    }
  }
  const unknown = (options.ignore ?? []).filter((id) => requirement(id) === undefined);
  if (unknown.length > 0) throw new CliError('usage', `Invalid --ignore: no finding has the id "${unknown[0]}" (the ids are those of the report, e.g. stdio.parse-error-reply)`);
  return { ...(options.failOn === undefined ? {} : { failOn: options.failOn }), ...(options.ignore === undefined || options.ignore.length === 0 ? {} : { ignore: options.ignore }), ...(baseline === undefined ? {} : { baseline }) };
}

/**
 * How long past `--timeout-ms` the command waits for the doctor's report before it gives up on it, in ms. The doctor
 * keeps its own budget (cleanup included); this is the command's guard should it not, so that `switchboard doctor`
 * ends by then whatever the server does.
 */
export const DOCTOR_REPORT_GRACE_MS = 1000;

/** The doctor's view of a resolved target (a 2024-11-05 HTTP+SSE entry is reached at its URL like any other). */
export function doctorTarget(target: Target): DoctorTarget {
  if (target.kind === 'http') return { transport: 'http', url: target.url, ...(Object.keys(target.headers).length === 0 ? {} : { headers: target.headers }) };
  return {
    transport: 'stdio',
    command: target.command,
    args: target.args,
    ...(Object.keys(target.env).length === 0 ? {} : { env: target.env }),
    ...(target.inheritEnv ? {} : { inheritEnv: false }),
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
  };
}

/**
 * The doctor's target with the user's stored OAuth credentials for its URL (`switchboard login`), unless the target
 * sets `Authorization` itself: the doctor's client connection gets them (refreshed as needed), and its raw HTTP probes
 * the current bearer token (refreshed first when it is about to expire), so a protected server is probed as its users
 * reach it. A DPoP-bound token cannot be replayed by the probes: they go without it.
 */
export async function doctorTargetWithCredentials(target: Target, io: CliIo): Promise<DoctorTarget> {
  const plain = doctorTarget(target);
  if (plain.transport !== 'http' || Object.keys(plain.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) return plain;
  const auth = storedAuth(io);
  const fresh: Readonly<Record<string, string>> = await auth.headers({ url: new URL(plain.url), method: 'POST', resent: 0 }).catch(() => ({}));
  const bearer = fresh.Authorization?.startsWith('Bearer ') === true ? fresh.Authorization : undefined;
  return { ...plain, auth, ...(bearer === undefined ? {} : { headers: { ...plain.headers, Authorization: bearer } }) };
}

/**
 * Reads `--call` and `--args`.
 * @throws CliError `usage` when `--args` is not a JSON object, or is given without `--call`
 */
export function parseCall(call: string | undefined, args: string | undefined): DoctorOptions['call'] {
  if (call === undefined) {
    if (args !== undefined) throw new CliError('usage', 'Invalid --args: it goes with --call NAME (the doctor calls no tool unless asked)');
    return undefined;
  }
  if (args === undefined) return { name: call, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch (error) {
    throw new CliError('usage', `Invalid --args: expected a JSON object, got "${args}" (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError('usage', `Invalid --args: expected a JSON object, got "${args}"`);
  return { name: call, args: value as Record<string, unknown> };
}

/** Runs the command; see the module comment. */
export async function doctorCommand(options: DoctorCommandOptions): Promise<number> {
  const { io, output } = options;
  let target: Target;
  let call: DoctorOptions['call'];
  let gate: GateOptions;
  try {
    target = resolveTarget(options.spec, io);
    call = parseCall(options.call, options.args);
    gate = readGate(options);
  } catch (error) {
    return reportFailure(output, error, true);
  }
  if (target.kind === 'http' && target.transport === 'sse') output.note(output.colors.yellow(`note: ${describeTarget(target)} is a 2024-11-05 HTTP+SSE entry; the doctor probes it as Streamable HTTP, then lets the client fall back`));
  const progress = progressDisplay({ io, colors: output.colors });
  const budgetMs = options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CliError('command_timeout', `The doctor did not report within its budget of ${budgetMs} ms (--timeout-ms)`)), clampTimerMs(budgetMs + DOCTOR_REPORT_GRACE_MS));
  });
  overdue.catch(() => undefined);
  let report;
  try {
    const running = runDoctor({
      target: await doctorTargetWithCredentials(target, io),
      env: io.doctorEnv ?? nodeDoctorEnv({ environment: io.env }),
      era: options.era,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
      ...(call === undefined ? {} : { call }),
      ...foreignTokenOf(options),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      onProgress: progress.onProgress,
      gate,
    });
    running.catch(() => undefined);
    report = await Promise.race([running, overdue]);
  } catch (error) {
    return reportFailure(output, error, false);
  } finally {
    clearTimeout(timer);
    progress.close();
  }
  if (options.writeBaseline !== undefined) {
    const file = path.resolve(io.cwd, options.writeBaseline);
    const baseline = baselineOf(report);
    try {
      writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
    } catch (error) {
      return reportFailure(output, new CliError('usage', `Invalid --write-baseline: cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`), true);
    }
    output.note(`wrote ${baseline.findings.length} finding${baseline.findings.length === 1 ? '' : 's'} to ${file}: --baseline ${options.writeBaseline} mutes them`);
    report = applyGate(report, { ...gate, baseline });
  }
  if (options.json) output.json(report);
  else output.raw(renderReport(report, { colors: output.colors, columns: output.columns }));
  return report.summary.exitCode;
}
