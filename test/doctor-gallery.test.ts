/**
 * The broken-servers gallery, driven by the requirements manifest: every requirement that names a `fixture` is
 * diagnosed on that fixture, and the doctor must report exactly the planted fault (that finding id) and no other
 * finding of severity `error`. Also: the manifest and the checks agree (every requirement is reportable by some
 * check, every id a check may report is in the manifest) and every fixture file exists.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../packages/cli/src/doctor/checks/index.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import { REQUIREMENTS } from '../packages/cli/src/doctor/requirements/index.js';
import type { Requirement } from '../packages/cli/src/doctor/types.js';
import { fixturePath, startBrokenServer } from './helpers/brokenServer.js';

const WITH_FIXTURE = REQUIREMENTS.filter((r): r is Requirement & { fixture: NonNullable<Requirement['fixture']> } => r.fixture !== undefined);

describe('the requirements manifest and the checks', () => {
  it('ids are unique, well formed and in their area', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(REQUIREMENTS.filter((r) => !/^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/.test(r.id) || !r.id.startsWith(`${r.area}.`)).map((r) => r.id)).toEqual([]);
    const checkIds = CHECKS.map((c) => c.id);
    expect(checkIds.filter((id, i) => checkIds.indexOf(id) !== i)).toEqual([]);
    expect(CHECKS.filter((c) => !c.id.startsWith(`${c.area}.`)).map((c) => c.id)).toEqual([]);
  });

  it('every id a check may report is in the manifest, and every requirement is reportable by some check', () => {
    const known = new Set(REQUIREMENTS.map((r) => r.id));
    const reportable = new Set(CHECKS.flatMap((c) => c.requirements));
    expect(CHECKS.flatMap((c) => c.requirements.filter((id) => !known.has(id)).map((id) => `${c.id} -> ${id}`))).toEqual([]);
    expect(REQUIREMENTS.filter((r) => !reportable.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it('every fixture named exists, on a transport its requirement applies to', () => {
    expect(WITH_FIXTURE.filter((r) => r.fixture.command === undefined && !existsSync(fixturePath(r.fixture.file))).map((r) => `${r.id}: ${r.fixture.file}.mjs`)).toEqual([]);
    expect(WITH_FIXTURE.filter((r) => r.fixture.command !== undefined && (r.fixture.transport !== 'stdio' || r.fixture.command.length === 0)).map((r) => r.id)).toEqual([]);
    expect(WITH_FIXTURE.filter((r) => !r.transports.includes(r.fixture.transport)).map((r) => r.id)).toEqual([]);
  });
});

describe('the broken-servers gallery', () => {
  if (WITH_FIXTURE.length === 0) it.skip('no requirement names a fixture yet: nothing to diagnose', () => {});

  for (const rule of WITH_FIXTURE) {
    const { fixture } = rule;
    it(`${fixture.file} (${fixture.transport}${fixture.era === undefined ? '' : `, --era ${fixture.era}`}): reports ${rule.id} and no other error`, async () => {
      const server = await startBrokenServer(fixture);
      try {
        const report = await runDoctor({
          target: server.target,
          env: nodeDoctorEnv(),
          timeoutMs: 20_000,
          requestTimeoutMs: 3_000,
          ...(fixture.era === undefined ? {} : { era: fixture.era }),
          ...(fixture.call === undefined ? {} : { call: fixture.call }),
        });
        const ids = report.findings.map((f) => `${f.severity} ${f.id}`);
        expect(report.findings.map((f) => f.id), `findings: ${ids.join(', ')}`).toContain(rule.id);
        expect(report.findings.filter((f) => f.severity === 'error' && f.id !== rule.id).map((f) => f.id)).toEqual([]);
        expect(report.checks.filter((c) => c.status === 'crashed' || c.status === 'timed-out').map((c) => `${c.id}: ${c.status} ${c.reason ?? ''}`)).toEqual([]);
      } finally {
        await server.stop();
      }
    });
  }
});
