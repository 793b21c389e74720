/**
 * The doctor as a CI gate: which findings fail a run (`--fail-on error|warning`) and which are muted (`--ignore
 * <finding-id>`, or a baseline file that `--write-baseline FILE` writes and `--baseline FILE` reads). A muted
 * finding stays in the report, marked `muted` and counted apart; it never fails the run. A baseline mutes by id and
 * fingerprint (see `fingerprint.ts`): when the evidence of a finding changes, it is no longer muted.
 *
 * Exit codes: 0 no unmuted finding at or above `failOn` and every check finished; 1 such a finding, or a check that
 * crashed (the doctor's own failure) or timed out (it could not show the server clean); 2 no MCP connection was made
 * (the command also exits 2 on a usage error, an unreadable baseline included).
 */
import type { Baseline, FailOn, GateOptions } from './gateTypes.js';
import type { CheckOutcome, DoctorReport, Finding, Severity } from './types.js';

/** The default `--fail-on`: warnings and errors fail the run. */
export const DEFAULT_FAIL_ON: FailOn = 'warning';

/** Whether a finding of this severity fails a run at this `--fail-on` level. */
export function fails(severity: Severity, failOn: FailOn): boolean {
  return severity === 'error' || (severity === 'warning' && failOn === 'warning');
}

/** The exit code of a run (see the module comment); muted findings never count. */
export function exitCodeOf(run: { readonly connected: boolean; readonly findings: readonly Finding[]; readonly checks: readonly CheckOutcome[]; readonly failOn?: FailOn }): 0 | 1 | 2 {
  if (!run.connected) return 2;
  const failOn = run.failOn ?? DEFAULT_FAIL_ON;
  if (run.findings.some((f) => f.muted === undefined && fails(f.severity, failOn))) return 1;
  if (run.checks.some((c) => c.status === 'crashed' || c.status === 'timed-out')) return 1;
  return 0;
}

/** Why a finding is muted, if it is: `--ignore` by id first, then the baseline by id and fingerprint. */
export function muteOf(finding: Finding, gate: GateOptions): Finding['muted'] {
  if (gate.ignore?.includes(finding.id) === true) return 'ignore';
  if (gate.baseline?.findings.some((known) => known.id === finding.id && known.fingerprint === finding.fingerprint) === true) return 'baseline';
  return undefined;
}

/**
 * A report under a gate: each finding muted or not (a mute from an earlier gate is dropped first), the counts of the
 * findings not muted and of the muted ones, `failOn`, and the exit code. A new report.
 */
export function applyGate(report: DoctorReport, gate: GateOptions = {}): DoctorReport {
  const failOn = gate.failOn ?? DEFAULT_FAIL_ON;
  const findings: Finding[] = report.findings.map((f) => {
    const { muted: _was, ...rest } = f;
    const muted = muteOf(rest, gate);
    return muted === undefined ? rest : { ...rest, muted };
  });
  const live = findings.filter((f) => f.muted === undefined);
  const count = (severity: Severity): number => live.filter((f) => f.severity === severity).length;
  return {
    ...report,
    findings,
    summary: {
      errors: count('error'),
      warnings: count('warning'),
      infos: count('info'),
      muted: findings.length - live.length,
      failOn,
      exitCode: exitCodeOf({ connected: report.connected, findings, checks: report.checks, failOn }),
    },
  };
}

/** The baseline of a report: every finding (muted or not), by id and fingerprint, with its title and severity for the reader. */
export function baselineOf(report: DoctorReport): Baseline {
  const seen = new Set<string>();
  const findings: Baseline['findings'][number][] = [];
  for (const f of report.findings) {
    if (seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    findings.push({ id: f.id, fingerprint: f.fingerprint, severity: f.severity, title: f.title });
  }
  return { baselineVersion: 1, findings };
}

/**
 * Reads a baseline file's text.
 * @throws TypeError naming what is wrong, when it is not JSON or not a baseline (`baselineVersion` 1, `findings` of `{ id, fingerprint }`)
 */
export function parseBaseline(text: string): Baseline {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`not JSON (${(error as Error).message})`, { cause: error });
  }
  const record = value as { baselineVersion?: unknown; findings?: unknown };
  if (typeof value !== 'object' || value === null || record.baselineVersion !== 1) throw new TypeError('not a doctor baseline: "baselineVersion": 1 is missing');
  if (!Array.isArray(record.findings)) throw new TypeError('not a doctor baseline: "findings" is not an array');
  const findings = record.findings.map((entry: unknown, i) => {
    const e = entry as { id?: unknown; fingerprint?: unknown };
    if (typeof entry !== 'object' || entry === null || typeof e.id !== 'string' || typeof e.fingerprint !== 'string') throw new TypeError(`not a doctor baseline: findings[${i}] has no string "id" and "fingerprint"`);
    return { id: e.id, fingerprint: e.fingerprint };
  });
  return { baselineVersion: 1, findings };
}
