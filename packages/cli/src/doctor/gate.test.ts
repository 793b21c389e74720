import { describe, expect, it } from 'vitest';
import { fingerprintOf, normalizeEvidence } from './fingerprint.js';
import { applyGate, baselineOf, exitCodeOf, parseBaseline } from './gate.js';
import { assembleReport } from './report.js';
import type { CheckOutcome, Finding, Severity } from './types.js';

const finding = (id: string, severity: Severity, evidence: readonly string[] = []): Finding => ({
  id,
  severity,
  title: id,
  rule: 'r',
  message: 'seen',
  evidence,
  spec: null,
  source: 'https://example.org/rule',
  causes: [],
  fix: 'fix it',
  fingerprint: fingerprintOf(id, evidence),
});
const passed = (id: string): CheckOutcome => ({ id, title: id, status: 'passed', durationMs: 1 });
const facts = { connected: true, legacyRevisions: [], modernRevisions: [], measurements: {} };
const run = (findings: Finding[], checks: CheckOutcome[] = [passed('stdio.hygiene')]) =>
  assembleReport({ target: { transport: 'stdio', command: 'node', args: [] }, startedAt: 'x', durationMs: 1, version: '1', facts, findings, checks });

describe('the doctor as a CI gate', () => {
  it('--fail-on error: warnings do not fail the run, errors and crashed or timed-out checks still do; no connection is 2', () => {
    const warnings = run([finding('protocol.a', 'warning'), finding('eras.b', 'info')]);
    expect(warnings.summary.exitCode).toBe(1);
    expect(applyGate(warnings, { failOn: 'error' }).summary).toEqual({ errors: 0, warnings: 1, infos: 1, muted: 0, failOn: 'error', exitCode: 0 });
    expect(applyGate(run([finding('protocol.a', 'error')]), { failOn: 'error' }).summary.exitCode).toBe(1);
    expect(exitCodeOf({ connected: true, findings: [], checks: [{ ...passed('a.b'), status: 'timed-out' }], failOn: 'error' })).toBe(1);
    expect(exitCodeOf({ connected: false, findings: [], checks: [], failOn: 'error' })).toBe(2);
  });

  it('--ignore mutes a finding id: kept in the report, marked and counted as muted, not failing the run', () => {
    const report = applyGate(run([finding('protocol.a', 'warning'), finding('stdio.b', 'warning')]), { ignore: ['protocol.a'] });
    expect(report.findings.map((f) => [f.id, f.muted])).toEqual([['stdio.b', undefined], ['protocol.a', 'ignore']]);
    expect(report.summary).toMatchObject({ warnings: 1, muted: 1, exitCode: 1 });
    expect(applyGate(report, { ignore: ['protocol.a', 'stdio.b'] }).summary).toMatchObject({ warnings: 0, muted: 2, exitCode: 0 });
  });

  it('a baseline mutes by id and evidence fingerprint: the same evidence with other ports and session ids stays muted, other evidence does not', () => {
    const first = run([finding('http.ended-session-not-404', 'error', ['→ POST http://127.0.0.1:41234/mcp mcp-session-id: 6f1c3a7e-1111-4222-8333-944455556666', '← 400 Bad Request: No valid session ID provided'])]);
    const baseline = parseBaseline(JSON.stringify(baselineOf(first)));
    const second = run([finding('http.ended-session-not-404', 'error', ['→ POST http://127.0.0.1:50001/mcp mcp-session-id: 0a0b0c0d-aaaa-4bbb-8ccc-0d0e0f101112', '← 400 Bad Request: No valid session ID provided'])]);
    expect(applyGate(second, { baseline }).summary).toMatchObject({ errors: 0, muted: 1, exitCode: 0 });
    const changed = run([finding('http.ended-session-not-404', 'error', ['→ POST http://127.0.0.1:50001/mcp mcp-session-id: 0a0b0c0d-aaaa-4bbb-8ccc-0d0e0f101112', '← 500 Internal Server Error'])]);
    expect(applyGate(changed, { baseline }).summary).toMatchObject({ errors: 1, muted: 0, exitCode: 1 });
    expect(normalizeEvidence('took 1234 ms at 2026-12-01T21:00:00.000Z, code -32602')).toBe('took <n> ms at <time>, code -32602');
  });

  it('refuses a file that is not a baseline, saying what is wrong', () => {
    expect(() => parseBaseline('{')).toThrow(/not JSON/);
    expect(() => parseBaseline('{"findings":[]}')).toThrow(/baselineVersion/);
    expect(() => parseBaseline('{"baselineVersion":1,"findings":[{"id":"a.b"}]}')).toThrow(/findings\[0\]/);
  });
});
