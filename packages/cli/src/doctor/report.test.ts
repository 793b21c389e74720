import { describe, expect, it } from 'vitest';
import { exitCodeOf } from './gate.js';
import { fingerprintOf } from './fingerprint.js';
import { assembleReport, cutEvidence, EVIDENCE_LIMIT, findingOf, sortFindings } from './report.js';
import type { CheckOutcome, Finding, Severity } from './types.js';

const finding = (id: string, severity: Severity): Finding => ({ id, severity, title: id, rule: 'r', message: 'seen', evidence: [], spec: null, source: 'https://example.org/rule', causes: [], fix: 'fix it', fingerprint: `${id}@0000000000000000` });
const passed = (id: string): CheckOutcome => ({ id, title: id, status: 'passed', durationMs: 1 });
const facts = { connected: true, legacyRevisions: [], modernRevisions: [], measurements: {} };

describe('doctor report assembly', () => {
  it('sorts findings by severity, then area in run order, then id', () => {
    const ids = sortFindings([
      finding('primitives.a', 'info'),
      finding('stdio.b', 'warning'),
      finding('http.z', 'error'),
      finding('startup.y', 'error'),
      finding('eras.x', 'warning'),
      finding('http.a', 'error'),
      finding('eras.a', 'info'),
    ]).map((f) => `${f.severity} ${f.id}`);
    expect(ids).toEqual(['error startup.y', 'error http.a', 'error http.z', 'warning eras.x', 'warning stdio.b', 'info eras.a', 'info primitives.a']);
  });

  it('exit code: 2 without a connection whatever was found, 1 for a warning, an error, a crashed or timed-out check, else 0', () => {
    expect(exitCodeOf({ connected: false, findings: [], checks: [] })).toBe(2);
    expect(exitCodeOf({ connected: false, findings: [finding('stdio.a', 'error')], checks: [] })).toBe(2);
    expect(exitCodeOf({ connected: true, findings: [finding('eras.a', 'info')], checks: [passed('eras.a')] })).toBe(0);
    expect(exitCodeOf({ connected: true, findings: [finding('eras.a', 'warning')], checks: [] })).toBe(1);
    expect(exitCodeOf({ connected: true, findings: [finding('eras.a', 'error')], checks: [] })).toBe(1);
    expect(exitCodeOf({ connected: true, findings: [], checks: [{ ...passed('eras.a'), status: 'crashed', reason: 'TypeError: x is undefined' }] })).toBe(1);
    expect(exitCodeOf({ connected: true, findings: [], checks: [{ ...passed('eras.a'), status: 'timed-out' }] })).toBe(1);
    expect(exitCodeOf({ connected: true, findings: [finding('eras.a', 'info')], checks: [{ ...passed('eras.a'), status: 'skipped', reason: 'r' }, { ...passed('b.c'), status: 'failed' }] })).toBe(0);
  });

  it('builds a finding from its requirement: the observation may lower the severity; evidence is cut to 500 characters', () => {
    const requirement = {
      id: 'stdio.crlf',
      area: 'stdio',
      title: 'Lines end with CRLF',
      rule: 'Lines end with LF',
      behaviour: 'b',
      spec: { revision: '2025-11-25', page: 'basic/transports.mdx', section: 'stdio' },
      revisions: 'all',
      transports: ['stdio'],
      severity: 'error',
      causes: ['c1', 'c2'],
      fix: 'f',
    } as const;
    const long = 'x'.repeat(EVIDENCE_LIMIT + 10);
    expect(findingOf(requirement, { message: 'm', evidence: ['a\r', long], severity: 'warning' })).toEqual({
      id: 'stdio.crlf',
      severity: 'warning',
      title: 'Lines end with CRLF',
      rule: 'Lines end with LF',
      message: 'm',
      evidence: ['a\r', `${'x'.repeat(EVIDENCE_LIMIT - 1)}…`],
      spec: requirement.spec,
      causes: ['c1', 'c2'],
      fix: 'f',
      fingerprint: fingerprintOf('stdio.crlf', ['a\r', `${'x'.repeat(EVIDENCE_LIMIT - 1)}…`]),
    });
    expect(findingOf({ ...requirement, spec: null, source: 'https://example.org/rule' }, { message: 'm' })).toMatchObject({ severity: 'error', evidence: [], spec: null, source: 'https://example.org/rule' });
    // The revision observed, and the section at that revision when the observation gives one, are cited.
    const at2025 = { revision: '2025-11-25', page: 'server/resources.mdx', section: 'Error Handling' };
    expect(findingOf(requirement, { message: 'm', revision: '2025-11-25', spec: at2025 })).toMatchObject({ revision: '2025-11-25', spec: at2025 });
    expect(cutEvidence(long)).toHaveLength(EVIDENCE_LIMIT);
  });

  it('assembles the report: counts, eras, server, measurements; never the environment or header values of the target', () => {
    const report = assembleReport({
      target: { transport: 'stdio', command: 'node', args: ['s.js'], env: { TOKEN: 'hunter2' }, cwd: '/srv' },
      startedAt: '2026-12-01T21:00:00.000Z',
      durationMs: 12,
      version: '9.9.9',
      facts: { ...facts, serverInfo: { name: 's', version: '1' }, legacyRevisions: ['2025-11-25'], modernRevisions: ['2026-07-28'], measurements: { 'latencyMs.ping': 2, bad: Number.NaN } },
      findings: [finding('eras.a', 'info'), finding('stdio.b', 'warning'), { ...finding('stdio.c', 'error'), evidence: ['y'.repeat(600)] }],
      checks: [passed('stdio.hygiene')],
    });
    expect(report).toEqual({
      schemaVersion: 1,
      doctor: { name: 'switchboard', version: '9.9.9' },
      target: { transport: 'stdio', command: 'node', args: ['s.js'] },
      startedAt: '2026-12-01T21:00:00.000Z',
      durationMs: 12,
      connected: true,
      server: { name: 's', version: '1' },
      eras: { legacy: ['2025-11-25'], modern: ['2026-07-28'], dualEra: true },
      measurements: { 'latencyMs.ping': 2 },
      findings: [{ ...finding('stdio.c', 'error'), evidence: [`${'y'.repeat(499)}…`] }, finding('stdio.b', 'warning'), finding('eras.a', 'info')],
      checks: [passed('stdio.hygiene')],
      summary: { errors: 1, warnings: 1, infos: 1, muted: 0, failOn: 'warning', exitCode: 1 },
    });
    expect(JSON.stringify(report)).not.toContain('hunter2');
    const http = assembleReport({ target: { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { authorization: 'Bearer t0ken' } }, startedAt: 'x', durationMs: 0, version: '1', facts: { ...facts, connected: false }, findings: [], checks: [] });
    expect(http).toMatchObject({ target: { transport: 'http', url: 'http://127.0.0.1:1/mcp' }, connected: false, eras: { legacy: [], modern: [], dualEra: false }, summary: { errors: 0, warnings: 0, infos: 0, exitCode: 2 } });
    expect(http).not.toHaveProperty('server');
    expect(JSON.stringify(http)).not.toContain('t0ken');
  });
});
