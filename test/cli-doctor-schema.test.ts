/**
 * The JSON Schema the package ships for `switchboard doctor --json`: real reports validate, broken ones do not, and
 * the schema's `required` lists are the TypeScript types' required keys (checked at the type level too).
 */
import { readFileSync } from 'node:fs';
import { Validator, type Schema } from '@cfworker/json-schema';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { assembleReport } from '../packages/cli/src/doctor/report.js';
import { applyGate } from '../packages/cli/src/doctor/gate.js';
import type { SdkDefault } from '../packages/cli/src/doctor/gateTypes.js';
import type { CheckOutcome, DoctorReport, Finding, SpecRef } from '../packages/cli/src/doctor/types.js';
import { HTTP_RUN, NOT_FOUND_RUN, STDIO_RUN } from './helpers/doctorReports.js';

const schemaUrl = new URL('../packages/cli/schema/doctor-report.schema.json', import.meta.url);
const schema = JSON.parse(readFileSync(schemaUrl, 'utf8')) as Schema & { required: string[]; properties: Record<string, Schema & { required?: string[] }>; $defs: Record<string, Schema & { required?: string[] }> };
const validator = new Validator(schema, '2020-12', false);
const errorsOf = (value: unknown): string[] => validator.validate(value).errors.map((e) => `${e.instanceLocation} ${e.keyword}`);

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

const REPORT_REQUIRED = ['schemaVersion', 'doctor', 'target', 'startedAt', 'durationMs', 'connected', 'eras', 'measurements', 'findings', 'checks', 'summary'] as const;
const FINDING_REQUIRED = ['id', 'severity', 'title', 'rule', 'message', 'evidence', 'spec', 'causes', 'fix', 'fingerprint'] as const;
const FINDING_OPTIONAL = ['source', 'revision', 'sdk', 'muted'] as const;
const CHECK_REQUIRED = ['id', 'title', 'status', 'durationMs'] as const;
const SPEC_REQUIRED = ['revision', 'page', 'section'] as const;
const SUMMARY_REQUIRED = ['errors', 'warnings', 'infos', 'muted', 'failOn', 'exitCode'] as const;
const ERAS_REQUIRED = ['legacy', 'modern', 'dualEra'] as const;

describe('doctor-report.schema.json', () => {
  const reports = [STDIO_RUN, HTTP_RUN, NOT_FOUND_RUN].map(assembleReport);

  it('is a 2020-12 schema with an $id, shipped in the package', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toMatch(/^https:\/\/.+\/doctor-report\.schema\.json$/);
    const pkg = JSON.parse(readFileSync(new URL('../packages/cli/package.json', import.meta.url), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schema');
  });

  it('accepts the reports assembleReport builds (stdio with findings, clean HTTP, not connected)', () => {
    for (const report of reports) expect(errorsOf(JSON.parse(JSON.stringify(report)))).toEqual([]);
  });

  it('accepts a gated report (muted findings, --fail-on error) and one whose finding names an SDK; rejects another mute reason', () => {
    const [stdio] = reports as [DoctorReport];
    const gated = applyGate(stdio, { failOn: 'error', ignore: ['primitives.schema-dialect'], baseline: { baselineVersion: 1, findings: [{ id: stdio.findings[0]!.id, fingerprint: stdio.findings[0]!.fingerprint }] } });
    expect(gated.summary.muted).toBe(2);
    expect(errorsOf(JSON.parse(JSON.stringify(gated)))).toEqual([]);
    const withSdk = { ...stdio, findings: stdio.findings.map((f) => ({ ...f, revision: '2025-11-25', sdk: { package: '@modelcontextprotocol/sdk', versions: '1.x', behaviour: 'b', remedy: 'r' } })) };
    expect(errorsOf(JSON.parse(JSON.stringify(withSdk)))).toEqual([]);
    const bad = JSON.parse(JSON.stringify(gated)) as { findings: Record<string, unknown>[] };
    bad.findings[0]!.muted = true;
    expect(errorsOf(bad)).toContain('#/findings/0/muted enum');
  });

  it('rejects a report missing a field, with a bad severity, status, transport or exit code, or with an extra field', () => {
    const [stdio] = reports as [DoctorReport];
    const copy = (): Record<string, unknown> => JSON.parse(JSON.stringify(stdio)) as Record<string, unknown>;
    const missing = copy();
    delete missing.summary;
    expect(errorsOf(missing)).toContain('# required');
    const severity = copy();
    (severity.findings as Record<string, unknown>[])[0]!.severity = 'fatal';
    expect(errorsOf(severity)).toContain('#/findings/0/severity enum');
    const status = copy();
    (status.checks as Record<string, unknown>[])[0]!.status = 'ok';
    expect(errorsOf(status)).toContain('#/checks/0/status enum');
    const transport = copy();
    (transport.target as Record<string, unknown>).transport = 'sse';
    expect(errorsOf(transport)).toContain('#/target/transport enum');
    const exit = copy();
    (exit.summary as Record<string, unknown>).exitCode = 3;
    expect(errorsOf(exit)).toContain('#/summary/exitCode enum');
    const extra = copy();
    (extra.findings as Record<string, unknown>[])[0]!.env = { TOKEN: 'x' };
    expect(errorsOf(extra)).toContain('#/findings/0 additionalProperties');
    const noFinding = copy();
    delete (noFinding.findings as Record<string, unknown>[])[1]!.fix;
    expect(errorsOf(noFinding)).toContain('#/findings/1 required');
    const httpWithCommand = JSON.parse(JSON.stringify(reports[1])) as { target: Record<string, unknown> };
    httpWithCommand.target.command = 'node';
    expect(errorsOf(httpWithCommand)).not.toEqual([]);
  });

  it('asks for the keys the TypeScript types require, no more, no fewer', () => {
    expectTypeOf<RequiredKeys<DoctorReport>>().toEqualTypeOf<(typeof REPORT_REQUIRED)[number]>();
    expectTypeOf<RequiredKeys<Finding>>().toEqualTypeOf<(typeof FINDING_REQUIRED)[number]>();
    expectTypeOf<RequiredKeys<CheckOutcome>>().toEqualTypeOf<(typeof CHECK_REQUIRED)[number]>();
    expectTypeOf<RequiredKeys<SpecRef>>().toEqualTypeOf<(typeof SPEC_REQUIRED)[number]>();
    expectTypeOf<RequiredKeys<DoctorReport['summary']>>().toEqualTypeOf<(typeof SUMMARY_REQUIRED)[number]>();
    expectTypeOf<RequiredKeys<DoctorReport['eras']>>().toEqualTypeOf<(typeof ERAS_REQUIRED)[number]>();
    expectTypeOf<RequiredKeys<NonNullable<DoctorReport['server']>>>().toEqualTypeOf<'name' | 'version'>();
    expectTypeOf<keyof DoctorReport>().toEqualTypeOf<(typeof REPORT_REQUIRED)[number] | 'server'>();
    expectTypeOf<keyof Finding>().toEqualTypeOf<(typeof FINDING_REQUIRED)[number] | (typeof FINDING_OPTIONAL)[number]>();
    expectTypeOf<RequiredKeys<SdkDefault>>().toEqualTypeOf<'package' | 'versions' | 'behaviour' | 'remedy'>();
    expectTypeOf<keyof CheckOutcome>().toEqualTypeOf<(typeof CHECK_REQUIRED)[number] | 'reason'>();
    const sorted = (keys: readonly string[] | undefined): string[] => [...(keys ?? [])].sort();
    expect(sorted(schema.required)).toEqual(sorted(REPORT_REQUIRED));
    expect(Object.keys(schema.properties).sort()).toEqual(sorted([...REPORT_REQUIRED, 'server']));
    expect(sorted(schema.$defs.finding!.required)).toEqual(sorted(FINDING_REQUIRED));
    expect(Object.keys(schema.$defs.finding!.properties as object).sort()).toEqual(sorted([...FINDING_REQUIRED, ...FINDING_OPTIONAL]));
    const sdk = (schema.$defs.finding!.properties as Record<string, Schema & { required?: string[] }>).sdk!;
    expect(sorted(sdk.required)).toEqual(['behaviour', 'package', 'remedy', 'versions']);
    expect(sorted(schema.$defs.check!.required)).toEqual(sorted(CHECK_REQUIRED));
    expect(Object.keys(schema.$defs.check!.properties as object).sort()).toEqual(sorted([...CHECK_REQUIRED, 'reason']));
    expect(sorted(schema.$defs.specRef!.required)).toEqual(sorted(SPEC_REQUIRED));
    expect(sorted(schema.properties.summary!.required)).toEqual(sorted(SUMMARY_REQUIRED));
    expect(sorted(schema.properties.eras!.required)).toEqual(sorted(ERAS_REQUIRED));
    expect(sorted(schema.properties.server!.required)).toEqual(['name', 'version']);
  });

  it('lists the severities, statuses and transports of the types', () => {
    expect(schema.$defs.severity!.enum).toEqual(['error', 'warning', 'info'] satisfies Finding['severity'][]);
    expect(schema.$defs.status!.enum).toEqual(['passed', 'failed', 'skipped', 'timed-out', 'crashed'] satisfies CheckOutcome['status'][]);
    expect(schema.$defs.transport!.enum).toEqual(['stdio', 'http'] satisfies DoctorReport['target']['transport'][]);
  });
});
