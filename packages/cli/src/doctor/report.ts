/**
 * The report's assembly: a finding built from its requirement and one observation, the findings in their reading
 * order, the counts and the exit code, and the {@link DoctorReport} itself. Pure (no clock, no I/O): the runner
 * hands over what it measured.
 */
import type { CheckOutcome, DoctorArea, DoctorFacts, DoctorReport, DoctorTarget, Finding, Observation, Requirement, Severity } from './types.js';

/** The longest evidence string a finding keeps, characters (longer ones are cut and end with `…`). */
export const EVIDENCE_LIMIT = 500;

/** Severities, worst first: the order findings are read in. */
export const SEVERITY_ORDER: readonly Severity[] = ['error', 'warning', 'info'];

/** Areas in the order the doctor runs their checks: the order findings of one severity are read in. */
export const AREA_ORDER: readonly DoctorArea[] = ['startup', 'eras', 'stdio', 'http', 'protocol', 'primitives'];

/** Cuts one evidence string to {@link EVIDENCE_LIMIT} characters. */
export function cutEvidence(text: string): string {
  return text.length <= EVIDENCE_LIMIT ? text : `${text.slice(0, EVIDENCE_LIMIT - 1)}…`;
}

/**
 * The finding of one observation: title, spec, source, causes and fix from the requirement; the severity of the
 * observation when it overrides the requirement's; evidence cut to {@link EVIDENCE_LIMIT}.
 */
export function findingOf(requirement: Requirement, observation: Observation): Finding {
  return {
    id: requirement.id,
    severity: observation.severity ?? requirement.severity,
    title: requirement.title,
    message: observation.message,
    evidence: (observation.evidence ?? []).map(cutEvidence),
    spec: requirement.spec,
    ...(requirement.source === undefined ? {} : { source: requirement.source }),
    causes: requirement.causes,
    fix: requirement.fix,
  };
}

function rank<T>(order: readonly T[], value: T): number {
  const at = order.indexOf(value);
  return at < 0 ? order.length : at;
}

/** The area of a finding id: its first word (`stdio.stdout-not-protocol` → `stdio`). */
function areaOf(id: string): DoctorArea {
  return id.slice(0, id.indexOf('.')) as DoctorArea;
}

/** Findings in reading order: severity (error first), then area (run order), then id. A new array. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      rank(SEVERITY_ORDER, a.severity) - rank(SEVERITY_ORDER, b.severity) ||
      rank(AREA_ORDER, areaOf(a.id)) - rank(AREA_ORDER, areaOf(b.id)) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * The exit code of a run: 2 when no MCP connection was made; else 1 when a finding is a warning or an error, or a
 * check crashed (the doctor's own failure) or timed out (it could not show the server clean); else 0.
 */
export function exitCodeOf(run: { readonly connected: boolean; readonly findings: readonly Finding[]; readonly checks: readonly CheckOutcome[] }): 0 | 1 | 2 {
  if (!run.connected) return 2;
  if (run.findings.some((f) => f.severity !== 'info') || run.checks.some((c) => c.status === 'crashed' || c.status === 'timed-out')) return 1;
  return 0;
}

/** What {@link assembleReport} is given: what one run saw. */
export interface ReportInput {
  /** The target as reached; its `env` and `headers` values are never copied into the report (they may hold secrets). */
  readonly target: DoctorTarget;
  /** When the run started, ISO 8601. */
  readonly startedAt: string;
  /** The run's wall time, milliseconds. */
  readonly durationMs: number;
  /** What the checks learnt: `connected`, `serverInfo`, the revisions, `measurements`. */
  readonly facts: DoctorFacts;
  /** Every finding, in any order. */
  readonly findings: readonly Finding[];
  /** Every check's outcome, in run order (kept as given). */
  readonly checks: readonly CheckOutcome[];
  /** The doctor's version (the CLI package's). */
  readonly version: string;
}

/** The report of one run (see {@link ReportInput}): findings sorted ({@link sortFindings}), counted, and the exit code. */
export function assembleReport(input: ReportInput): DoctorReport {
  const { target, facts } = input;
  const findings = sortFindings(input.findings).map((f) => (f.evidence.every((e) => e.length <= EVIDENCE_LIMIT) ? f : { ...f, evidence: f.evidence.map(cutEvidence) }));
  const count = (severity: Severity): number => findings.filter((f) => f.severity === severity).length;
  const info = facts.serverInfo;
  const measurements: Record<string, number> = {};
  for (const [key, value] of Object.entries(facts.measurements)) if (Number.isFinite(value)) measurements[key] = value;
  return {
    schemaVersion: 1,
    doctor: { name: 'switchboard', version: input.version },
    target: target.transport === 'http' ? { transport: 'http', url: target.url } : { transport: 'stdio', command: target.command, args: [...target.args] },
    startedAt: input.startedAt,
    durationMs: input.durationMs,
    connected: facts.connected,
    ...(info === undefined ? {} : { server: { name: info.name, version: info.version, ...(info.title === undefined ? {} : { title: info.title }) } }),
    eras: {
      legacy: [...facts.legacyRevisions],
      modern: [...facts.modernRevisions],
      dualEra: facts.legacyRevisions.length > 0 && facts.modernRevisions.length > 0,
    },
    measurements,
    findings,
    checks: [...input.checks],
    summary: { errors: count('error'), warnings: count('warning'), infos: count('info'), exitCode: exitCodeOf({ connected: facts.connected, findings, checks: input.checks }) },
  };
}
