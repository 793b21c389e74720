/**
 * The broken-servers gallery as tests, one file per group of areas (`test/doctor-gallery-*.test.ts`) so vitest
 * spreads the runs over its workers: every requirement of those areas that names a `fixture` is diagnosed on that
 * fixture, and the doctor must report exactly the planted fault (that finding id), no other finding of severity
 * `error`, no check that crashed or timed out, and a rendered report with no internal id ({@link INTERNAL_ID}).
 */
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../../packages/cli/src/doctor/nodeEnv.js';
import { renderReport } from '../../packages/cli/src/doctor/render.js';
import { REQUIREMENTS } from '../../packages/cli/src/doctor/requirements/index.js';
import type { DoctorArea, DoctorReport, Requirement } from '../../packages/cli/src/doctor/types.js';
import { startBrokenServer } from './brokenServer.js';

/** A requirement with its fixture. */
export type FixtureRequirement = Requirement & { readonly fixture: NonNullable<Requirement['fixture']> };

/** Every requirement that names a fixture. */
export const WITH_FIXTURE: readonly FixtureRequirement[] = REQUIREMENTS.filter((r): r is FixtureRequirement => r.fixture !== undefined);

/** The gallery files and the areas each runs; together they cover every area (doctor-gallery.test.ts checks it). */
export const GALLERY_GROUPS = {
  'startup-stdio': ['startup', 'stdio'],
  http: ['http'],
  'eras-protocol': ['eras', 'protocol'],
  primitives: ['primitives'],
} as const satisfies Record<string, readonly DoctorArea[]>;

/**
 * An internal id: a field-bug id of docs/field-bugs.md (`B45`), which a user cannot look up. A rendered report
 * cites public sources only (a spec section with its revision, an RFC, an issue URL).
 */
export const INTERNAL_ID = /\bB\d{1,3}\b/;

/** The lines of a rendered report that hold an internal id (its evidence, the server's own bytes, left out). */
export function internalIdsIn(report: DoctorReport): string[] {
  const text = renderReport({ ...report, findings: report.findings.map((f) => ({ ...f, evidence: [] })) }, { columns: 200 });
  return text.split('\n').filter((line) => INTERNAL_ID.test(line));
}

/**
 * The doctor's budgets in the gallery: a fixture that hangs costs a few seconds per wait, a 2.3 s slow list still
 * answers; a fixture whose fault shows only past that wait names its own `requestTimeoutMs`.
 */
const TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 3_000;

/** Declares the gallery tests of one group. */
export function describeGallery(group: keyof typeof GALLERY_GROUPS): void {
  const areas: readonly DoctorArea[] = GALLERY_GROUPS[group];
  const rows = WITH_FIXTURE.filter((r) => areas.includes(r.area));
  describe(`the broken-servers gallery: ${areas.join(', ')}`, () => {
    if (rows.length === 0) it.skip(`no ${areas.join(' or ')} requirement names a fixture yet: nothing to diagnose`, () => {});
    for (const rule of rows) {
      const { fixture } = rule;
      it(`${fixture.file} (${fixture.transport}${fixture.era === undefined ? '' : `, --era ${fixture.era}`}): reports ${rule.id} and no other error`, async () => {
        const server = await startBrokenServer(fixture);
        try {
          const report = await runDoctor({
            target: server.target,
            env: nodeDoctorEnv(),
            timeoutMs: TIMEOUT_MS,
            requestTimeoutMs: fixture.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
            ...(fixture.era === undefined ? {} : { era: fixture.era }),
            ...(fixture.call === undefined ? {} : { call: fixture.call }),
          });
          const seen = report.findings.map((f) => `${f.severity} ${f.id}: ${f.message}`).join('\n');
          expect(report.findings.map((f) => f.id), `findings:\n${seen}`).toContain(rule.id);
          expect(report.findings.filter((f) => f.severity === 'error' && f.id !== rule.id).map((f) => `${f.id}: ${f.message}`)).toEqual([]);
          expect(report.checks.filter((c) => c.status === 'crashed' || c.status === 'timed-out').map((c) => `${c.id}: ${c.status} ${c.reason ?? ''}`)).toEqual([]);
          // What a user reads cites public sources only: no internal id in the rendered report.
          expect(internalIdsIn(report)).toEqual([]);
        } finally {
          await server.stop();
        }
      });
    }
  });
}
