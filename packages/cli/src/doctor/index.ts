/**
 * The `switchboard/doctor` entry: the doctor as a library. {@link runDoctor} runs the checks ({@link CHECKS})
 * against one target and returns a {@link DoctorReport}; every effect (spawn, fetch, the clock) comes through the
 * {@link DoctorEnv} given ({@link nodeDoctorEnv} on Node). The requirements manifest ({@link REQUIREMENTS}) is the
 * list of rules the checks report against; {@link renderReport} writes a report for people, {@link assembleReport}
 * builds one from a run's outcomes.
 */
export { DEFAULT_DOCTOR_TIMEOUT_MS, DEFAULT_DOCTOR_REQUEST_TIMEOUT_MS } from './budget.js';
export { CHECKS } from './checks/index.js';
export { CONNECT_STEP, runDoctor } from './doctor.js';
export { DEFAULT_KILL_GRACE_MS, nodeDoctorEnv } from './nodeEnv.js';
export type { NodeDoctorEnvOptions } from './nodeEnv.js';
export type { Baseline, FailOn, GateOptions, SdkDefault } from './gateTypes.js';
export { applyGate, baselineOf, DEFAULT_FAIL_ON, exitCodeOf, fails, parseBaseline } from './gate.js';
export { fingerprintOf, normalizeEvidence } from './fingerprint.js';
export { assembleReport, cutEvidence, EVIDENCE_LIMIT, findingOf, sortFindings } from './report.js';
export type { ReportInput } from './report.js';
export { renderReport } from './render.js';
export type { RenderColors, RenderOptions } from './render.js';
export { REQUIREMENTS, requirement } from './requirements/index.js';
export { markSdkDefaults } from './sdkDefaults.js';
export type {
  Check,
  CheckContext,
  CheckOutcome,
  CheckStatus,
  DoctorArea,
  DoctorEnv,
  DoctorFacts,
  DoctorOptions,
  DoctorProgress,
  DoctorReport,
  DoctorTarget,
  DoctorTransport,
  Finding,
  HttpProbeRequest,
  HttpProbeResponse,
  Observation,
  ProbeProcess,
  Requirement,
  RunDoctor,
  Severity,
  SpecRef,
  StdioLine,
  StdioWire,
} from './types.js';
