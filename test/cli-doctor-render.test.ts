/**
 * The human report of `switchboard doctor`: whole-text snapshots of a stdio run with a finding of each severity and
 * a clean dual-era HTTP run, and the properties every rendering keeps (width, colour only when asked, the verdict).
 */
import { stripVTControlCharacters } from 'node:util';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { renderReport, quoteEvidence } from '../packages/cli/src/doctor/render.js';
import { assembleReport } from '../packages/cli/src/doctor/report.js';
import { HTTP_RUN, NOT_FOUND_RUN, STDIO_RUN } from './helpers/doctorReports.js';

/** Columns a line takes (every character of these reports is one column wide). */
const stringWidth = (line: string): number => [...stripVTControlCharacters(line)].length;

describe('the doctor report for a terminal', () => {
  it('a stdio server with an error, a warning and an info finding, a check that timed out (80 columns)', () => {
    expect(renderReport(assembleReport(STDIO_RUN), { columns: 80 })).toMatchInlineSnapshot(`
      "switchboard doctor 0.1.0 · stdio · node server.js --stdio
      Server   notes 2.3.1
      Eras     legacy: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 · modern: none ·
               legacy era only
      Run      2026-12-01T21:00:00.000Z · 1,834 ms

      Errors (1)

      ✖ stdio.stdout-not-protocol  Only MCP messages on stdout
        The first stdout line is not JSON
        Evidence:
          "Notes server v2.3.1 listening on stdio"
        Spec: MCP 2025-11-25 basic/transports.mdx “stdio”
        Likely causes:
          1. A banner or log line printed with console.log
          2. A dependency that writes to stdout when it loads
        Fix: Write logs to stderr (console.error) and keep stdout for protocol
          messages only.

      Warnings (1)

      ⚠ primitives.schema-dialect  Tool schemas in the 2020-12 dialect
        Tool "search" declares the draft-07 dialect
        Evidence:
          "\\"$schema\\": \\"http://json-schema.org/draft-07/schema#\\""
        Source: B23
        Likely causes:
          1. A schema generator that emits draft-07 by default
        Fix: Emit 2020-12 schemas, or drop the $schema keyword.

      Info (1)

      ℹ eras.legacy-only  Speaks the legacy era only
        server/discover answered -32601 and initialize settled on 2025-11-25
        Spec: MCP 2026-07-28 basic/lifecycle.mdx “Version Negotiation”
        Likely causes:
          1. An SDK release from before 2026-07-28
        Fix: Nothing to fix; a 2026-07-28 client falls back to initialize.

      Measurements
        tools/list.tokens     1,840
        latencyMs.ping        3 ms
        latencyMs.tools/list  12 ms

      7 checks: 2 passed, 3 failed, 1 skipped (http.transport: a stdio target), 1
      timed out (protocol.codes: no answer to tools/call within 2000 ms)
      Verdict: 1 error, 1 warning, 1 info · exit code 1: a warning or an error was
      found, a check timed out
      "
    `);
  });

  it('a clean dual-era HTTP server', () => {
    expect(renderReport(assembleReport(HTTP_RUN))).toMatchInlineSnapshot(`
      "switchboard doctor 0.1.0 · http · http://127.0.0.1:3000/mcp
      Server   switchboard-demo 0.1.0 (Switchboard demo)
      Eras     legacy: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 · modern: 2026-07-28 · dual-era
               (both eras)
      Run      2026-12-01T21:05:00.000Z · 942 ms

      No findings

      Measurements
        tools/list.tokens     655
        latencyMs.ping        1.4 ms
        latencyMs.tools/list  2.2 ms

      5 checks: 5 passed
      Verdict: 0 errors, 0 warnings, 0 info · exit code 0: nothing above info
      "
    `);
  });

  it('a server that could not be started: exit code 2', () => {
    const text = renderReport(assembleReport(NOT_FOUND_RUN));
    expect(text).toContain('Server   not reached\n');
    expect(text).not.toContain('Eras');
    expect(renderReport(assembleReport(NOT_FOUND_RUN), { columns: 200 })).toContain('\n3 checks: 0 passed, 2 failed (connect: spawn no-such-server ENOENT), 1 skipped (stdio.hygiene: no connection)\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Verdict: 1 error, 0 warnings, 0 info · exit code 2: could not connect');
  });

  it('wraps every line to the width, colours only when asked, and shows invisible characters of the evidence', () => {
    const report = assembleReport(STDIO_RUN);
    for (const columns of [40, 60, 100]) {
      for (const line of renderReport(report, { columns }).split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    }
    expect(renderReport(report)).not.toContain('\u001b[');
    const colored = renderReport(report, { colors: pc.createColors(true), columns: 60 });
    expect(colored).toContain('\u001b[31m✖\u001b[39m');
    for (const line of colored.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(quoteEvidence('\ufeff{"id":1}\r')).toBe('"\\ufeff{\\"id\\":1}\\r"');
  });
});
