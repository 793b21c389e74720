/**
 * The client-mode report parser of the conformance runner (scripts/conformance-client.mjs), on text in the shape
 * 0.2.0-alpha.12 prints: a requirement set's summary with a baseline check, and one scenario's result.
 */
import { describe, expect, it } from 'vitest';
import { parseClientReport } from '../scripts/conformance-client.mjs';

const SET = `Running requirements 2025-11-25 (25 scenarios) in parallel...

Starting scenario: initialize

=== SUITE SUMMARY ===

✓ initialize: 2 passed, 0 failed
✗ sse-retry: 2 passed, 1 failed, 1 warnings
✗ auth/metadata-default: 0 passed, 7 failed
- tools_call: skipped

Total: 4 passed, 8 failed, 1 warnings, 1 skipped

Expected failures (in baseline):
  ~ auth/metadata-default

Stale baseline entries (now passing - remove from baseline):
  ✓ auth/basic-cimd

Unexpected failures (not in baseline):
  ✗ sse-retry

Baseline is stale: update your expected-failures file to remove passing entries.
`;

const ONE = `Starting scenario: sse-retry
Checks:
2026-12-01T18:26:30.000Z [client-sse-retry-timing] SUCCESS Client MUST respect the retry field

Test Results:
Passed: 3/3, 0 failed, 0 warnings

✅ OVERALL: PASSED

Baseline check passed: all failures are expected.
`;

describe('conformance runner: client report', () => {
  it('reads the summary lines, the totals and the three baseline lists of a requirement set', () => {
    const report = parseClientReport(SET);
    expect(report.scenarios).toEqual([
      { name: 'initialize', passed: 2, failed: 0, warnings: 0, skipped: false },
      { name: 'sse-retry', passed: 2, failed: 1, warnings: 1, skipped: false },
      { name: 'auth/metadata-default', passed: 0, failed: 7, warnings: 0, skipped: false },
      { name: 'tools_call', passed: 0, failed: 0, warnings: 0, skipped: true },
    ]);
    expect(report.total).toEqual({ passed: 4, failed: 8, warnings: 1 });
    expect(report.baseline).toEqual({ expected: ['auth/metadata-default'], stale: ['auth/basic-cimd'], unexpected: ['sse-retry'] });
    expect(report.notApplicable).toBe(false);
    expect(report.unknown).toBe(false);
  });

  it('reads the totals of a single scenario, and says when the scenario is not in the revision or unknown', () => {
    const report = parseClientReport(ONE);
    expect(report.scenarios).toEqual([]);
    expect(report.total).toEqual({ passed: 3, failed: 0, warnings: 0 });
    expect(report.baseline).toEqual({ expected: [], stale: [], unexpected: [] });
    const skipped = parseClientReport("SKIPPED: scenario 'request-metadata' is not applicable at spec version 2025-11-25 (introduced in 2026-07-28). Use --force to run it anyway.\n");
    expect(skipped.notApplicable).toBe(true);
    expect(skipped.total).toBeNull();
    expect(parseClientReport("Validation error:\n  scenario: Unknown scenario 'nope'\n").unknown).toBe(true);
  });
});
