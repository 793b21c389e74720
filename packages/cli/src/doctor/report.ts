/**
 * The report's assembly: a finding built from its requirement and one observation, the findings in their reading
 * order, those a known SDK's default causes marked (`sdkDefaults.ts`), the gate applied (`gate.ts`: what is muted,
 * the counts and the exit code), and the {@link DoctorReport} itself. Pure (no clock, no I/O): the runner hands over
 * what it measured.
 */
import { fingerprintOf } from './fingerprint.js';
import { applyGate } from './gate.js';
import { markSdkDefaults } from './sdkDefaults.js';
import type { GateOptions } from './gateTypes.js';
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
 * The finding of one observation: title, rule, spec, source, causes and fix from the requirement; the severity, the
 * revision and the spec section of the observation when it gives them; evidence cut to {@link EVIDENCE_LIMIT}; the
 * fingerprint of the id and that evidence.
 */
export function findingOf(requirement: Requirement, observation: Observation): Finding {
  const evidence = (observation.evidence ?? []).map(cutEvidence);
  return {
    id: requirement.id,
    severity: observation.severity ?? requirement.severity,
    title: requirement.title,
    rule: requirement.rule,
    message: observation.message,
    evidence,
    spec: observation.spec ?? requirement.spec,
    ...(requirement.source === undefined ? {} : { source: requirement.source }),
    ...(observation.revision === undefined ? {} : { revision: observation.revision }),
    causes: requirement.causes,
    fix: requirement.fix,
    fingerprint: fingerprintOf(requirement.id, evidence),
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
  /** What fails the run and what is muted. @default fail on warnings, nothing muted */
  readonly gate?: GateOptions;
}

/**
 * The report of one run (see {@link ReportInput}): findings sorted ({@link sortFindings}), SDK defaults marked, the
 * gate applied (muted findings, counts, exit code).
 */
export function assembleReport(input: ReportInput): DoctorReport {
  const { target, facts } = input;
  const cut = sortFindings(input.findings).map((f) => (f.evidence.every((e) => e.length <= EVIDENCE_LIMIT) ? f : { ...f, evidence: f.evidence.map(cutEvidence) }));
  const info = facts.serverInfo;
  const findings = markSdkDefaults(cut, info);
  const measurements: Record<string, number> = {};
  for (const [key, value] of Object.entries(facts.measurements)) if (Number.isFinite(value)) measurements[key] = value;
  const report: DoctorReport = {
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
    summary: { errors: 0, warnings: 0, infos: 0, muted: 0, failOn: 'warning', exitCode: 0 },
  };
  return applyGate(report, input.gate);
}
