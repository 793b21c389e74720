/**
 * The human report of `switchboard doctor`: whole-text snapshots of two real runs on gallery fixtures (a stdio
 * banner, an HTTP server without Host validation) and of a hand-built report with every kind of line, and the
 * properties every rendering keeps (width, colour only when asked, the verdict, evidence made visible).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../packages/cli/src/doctor/checks/index.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import { renderReport, visibleEvidence } from '../packages/cli/src/doctor/render.js';
import { applyGate } from '../packages/cli/src/doctor/gate.js';
import { assembleReport } from '../packages/cli/src/doctor/report.js';
import type { DoctorArea, DoctorReport } from '../packages/cli/src/doctor/types.js';
import { startBrokenServer } from './helpers/brokenServer.js';
import { NOT_FOUND_RUN, STDIO_RUN } from './helpers/doctorReports.js';

/** Columns a line takes (every character of these reports is one column wide). */
const stringWidth = (line: string): number => [...stripVTControlCharacters(line)].length;

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * A real run of the doctor (start-up checks, the connect step, then `area`'s checks) on a fixture of the gallery,
 * rendered; what changes from run to run (the clock, durations, latencies, the HTTP port) is set to fixed values.
 */
async function renderRun(fixture: { readonly file: string; readonly transport: 'stdio' | 'http' }, area: DoctorArea): Promise<string> {
  const server = await startBrokenServer(fixture);
  try {
    const report = await runDoctor({ target: server.target, env: nodeDoctorEnv(), timeoutMs: 20_000, requestTimeoutMs: 3_000, checks: CHECKS.filter((c) => c.area === 'startup' || c.area === area) });
    const fixed: DoctorReport = {
      ...report,
      startedAt: '2026-12-01T21:00:00.000Z',
      durationMs: 1234,
      measurements: Object.fromEntries(Object.entries(report.measurements).map(([key, value]) => [key, /Ms(\.|$)/.test(key) ? 5 : value])),
      checks: report.checks.map((c) => ({ ...c, durationMs: 10 })),
    };
    const text = renderReport(fixed, { columns: 100 }).replaceAll(path.join(ROOT, 'test', 'fixtures', 'broken-servers'), '<fixtures>').replaceAll(process.execPath, 'node');
    return server.target.transport === 'http' ? text.replaceAll(`:${new URL(server.target.url).port}`, ':<port>') : text;
  } finally {
    await server.stop();
  }
}

describe('the doctor report for a terminal', () => {
  it('a real run on a stdio server that prints a banner on stdout', async () => {
    expect(await renderRun({ file: 'stdio-banner', transport: 'stdio' }, 'stdio')).toMatchInlineSnapshot(`
      "switchboard doctor 0.1.0 · stdio · node
      <fixtures>/stdio-banner.mjs
      Server   stdio-banner 1.0.0
      Eras     legacy: none · modern: none · no revision confirmed
      Run      2026-12-01T21:00:00.000Z · 1,234 ms

      Errors (1)

      ✖ stdio.stdout-not-protocol  Stdout carries lines that are not MCP messages
        stdout line 1, before the first answer, is not a JSON-RPC message: "Weather MCP server v1.2.0
        ready on stdio"
        Evidence:
          stdout line 1: Weather MCP server v1.2.0 ready on stdio
        Rule: Only MCP messages on stdout
        Spec: MCP 2025-11-25 basic/transports.mdx “stdio”
        Source: https://github.com/modelcontextprotocol/inspector/issues/343 (a start-up banner on
          stdout broke the client)
        Likely causes:
          1. A start-up banner or a log line printed to stdout (in Node the console's \`log\`, \`info\` and
             \`debug\`; in Python \`print()\`)
          2. A logging library configured with its default stdout handler
          3. A dependency that prints a warning or a progress bar on stdout, or a wrapper script that
             echoes
        Fix: Send every log to stderr (in Node the console's \`error\`, in Python \`print(...,
          file=sys.stderr)\`, or a logging handler on stderr); keep stdout for the MCP transport alone.

      Measurements
        startupMs  5 ms

      4 checks: 3 passed, 1 with findings
      Verdict: 1 error, 0 warnings, 0 info · exit code 1: a warning or an error was found
      "
    `);
  });

  it('a real run on an HTTP server that accepts any Host header', async () => {
    expect(await renderRun({ file: 'http-no-host-validation', transport: 'http' }, 'http')).toMatchInlineSnapshot(`
      "switchboard doctor 0.1.0 · http · http://127.0.0.1:<port>/mcp
      Server   http-fixture 1.0.0
      Eras     legacy: none · modern: none · no revision confirmed
      Run      2026-12-01T21:00:00.000Z · 1,234 ms

      Errors (1)

      ✖ http.host-not-validated  A local server served a foreign \`Host\` (DNS rebinding)
        A POST to this local server with Host: evil.example was served (200): a web page whose domain
        rebinds to 127.0.0.1 can call the server
        Evidence:
          → POST accept: application/json, text/event-stream; content-type: application/json;
            mcp-protocol-version: 2026-07-28; mcp-method: server/discover; host: evil.example
            {"jsonrpc":"2.0","id":"doctor-host","method":"server/discover","params":{"_meta":{"io.modelcon
            textprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io
            .modelcontextprotocol/clientInfo":{"name":"switchboard-doctor","version":"1"}}}}
          ← 200 content-type: application/json
            {"jsonrpc":"2.0","id":"doctor-host","result":{"supportedVersions":["2026-07-28","2025-11-25","
            2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"tools":{"listChanged":tru
            e},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"completio
            ns":{}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"http-fi
            xture","version":"1.0.0"}},"ttlMs":0,"cacheScope":"private"}}
        Seen at: 2026-07-28
        Rule: A local server refuses a foreign \`Host\` (DNS rebinding)
        Spec: MCP 2025-11-25 basic/transports.mdx “Security Warning”
        Likely causes:
          1. DNS-rebinding protection is off (several SDKs ship it off by default)
          2. the allowed hosts list holds a wildcard
        Fix: Check \`Host\` against the loopback names (\`localhost\`, \`127.0.0.1\`, \`[::1]\`, any port) and
          answer 403 otherwise; turn on the SDK's DNS-rebinding protection.

      Info (1)

      ℹ http.no-cors  Browser clients on another origin cannot call the server
        The server answers no CORS preflight (OPTIONS 405, no Access-Control-Allow-Origin): browser pages
        on other origins cannot call it. Missing for a browser client: a 2xx status (got 405);
        Access-Control-Allow-Origin; POST in Access-Control-Allow-Methods; content-type,
        mcp-protocol-version, mcp-method, mcp-name in Access-Control-Allow-Headers
        Evidence:
          → OPTIONS origin: http://127.0.0.1:<port>; access-control-request-method: POST;
            access-control-request-headers: content-type, mcp-protocol-version, mcp-method, mcp-name
          ← 405 content-type: application/json; allow: GET, POST, DELETE
            {"jsonrpc":"2.0","error":{"code":-32000,"message":"Method Not Allowed: 'OPTIONS'"}}
        Rule: Browser clients on another origin
        Source: https://fetch.spec.whatwg.org/#http-cors-protocol

      12 checks: 8 passed, 1 with findings, 3 skipped (http.auth: the server asks for no credentials (a
      request without any was not answered 401); http.auth-audience: the server asks for no credentials (a
      request without any was not answered 401); http.auth-server: the server asks for no credentials (a
      request without any was not answered 401))
      Verdict: 1 error, 0 warnings, 1 info · exit code 1: a warning or an error was found
      "
    `);
  });

  it('a gated run: --fail-on error, a finding muted by --ignore, one caused by an SDK default naming the SDK', () => {
    const report = assembleReport(STDIO_RUN);
    const sdk = { package: '@modelcontextprotocol/sdk', versions: '1.x (measured on 1.32.2)', behaviour: 'McpServer turns zod input schemas into JSON Schema draft-07', remedy: 'upgrading to @modelcontextprotocol/server 2.x, or mute it: --ignore primitives.schema-dialect' };
    const gated = applyGate({ ...report, checks: report.checks.filter((c) => c.status !== 'timed-out'), findings: report.findings.map((f) => (f.id === 'primitives.schema-dialect' ? { ...f, sdk, revision: '2025-11-25' } : f)) }, { failOn: 'error', ignore: ['stdio.stdout-not-protocol'] });
    expect(gated.summary).toMatchObject({ errors: 0, warnings: 1, muted: 1, exitCode: 0 });
    expect(renderReport(gated, { columns: 80 })).toMatchInlineSnapshot(`
      "switchboard doctor 0.1.0 · stdio · node server.js --stdio
      Server   notes 2.3.1
      Eras     legacy: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 · modern: none ·
               legacy era only
      Run      2026-12-01T21:00:00.000Z · 1,834 ms

      Warnings (1)

      ⚠ primitives.schema-dialect  A tool schema declares draft-07
        Tool "search" declares the draft-07 dialect
        Evidence:
          "$schema": "http://json-schema.org/draft-07/schema#"
        Seen at: 2025-11-25
        Rule: Tool schemas in the 2020-12 dialect
        Source: https://json-schema.org/draft/2020-12/release-notes
        Cause: the default of @modelcontextprotocol/sdk 1.x (measured on 1.32.2):
          McpServer turns zod input schemas into JSON Schema draft-07. The server's
          own handlers cannot change it; what can: upgrading to
          @modelcontextprotocol/server 2.x, or mute it: --ignore
          primitives.schema-dialect.
        Likely causes:
          1. A schema generator that emits draft-07 by default
        Fix: Emit 2020-12 schemas, or drop the $schema keyword.

      Info (1)

      ℹ eras.legacy-only  The server speaks the legacy era only
        server/discover answered -32601 and initialize settled on 2025-11-25
        Rule: Speaks the legacy era only
        Spec: MCP 2026-07-28 basic/lifecycle.mdx “Version Negotiation”

      Muted (1)
        ✖ stdio.stdout-not-protocol  Stdout carries lines that are not MCP messages
          (error, muted by --ignore stdio.stdout-not-protocol)

      Measurements
        tools/list.tokens            1,840 (estimated with gpt-tokenizer, o200k_base)
        tools/list.tokensWithSearch  228 (as tool search, o200k_base)
        latencyMs.ping               3 ms
        latencyMs.tools/list         12 ms

      6 checks: 2 passed, 3 with findings, 1 skipped (http.transport: a stdio target)
      Verdict: 0 errors, 1 warning, 1 info, 1 muted · exit code 0: no error (--fail-on
      error: warnings do not fail the run)
      "
    `);
  });

  it('every kind of line: an error, a warning with a source, an info, a skipped and a timed-out check (80 columns)', () => {
    expect(renderReport(assembleReport(STDIO_RUN), { columns: 80 })).toMatchInlineSnapshot(`
      "switchboard doctor 0.1.0 · stdio · node server.js --stdio
      Server   notes 2.3.1
      Eras     legacy: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 · modern: none ·
               legacy era only
      Run      2026-12-01T21:00:00.000Z · 1,834 ms

      Errors (1)

      ✖ stdio.stdout-not-protocol  Stdout carries lines that are not MCP messages
        The first stdout line is not JSON
        Evidence:
          Notes server v2.3.1 listening on stdio
        Rule: Only MCP messages on stdout
        Spec: MCP 2025-11-25 basic/transports.mdx “stdio”
        Likely causes:
          1. A banner or log line printed with console.log
          2. A dependency that writes to stdout when it loads
        Fix: Write logs to stderr (console.error) and keep stdout for protocol
          messages only.

      Warnings (1)

      ⚠ primitives.schema-dialect  A tool schema declares draft-07
        Tool "search" declares the draft-07 dialect
        Evidence:
          "$schema": "http://json-schema.org/draft-07/schema#"
        Rule: Tool schemas in the 2020-12 dialect
        Source: https://json-schema.org/draft/2020-12/release-notes
        Likely causes:
          1. A schema generator that emits draft-07 by default
        Fix: Emit 2020-12 schemas, or drop the $schema keyword.

      Info (1)

      ℹ eras.legacy-only  The server speaks the legacy era only
        server/discover answered -32601 and initialize settled on 2025-11-25
        Rule: Speaks the legacy era only
        Spec: MCP 2026-07-28 basic/lifecycle.mdx “Version Negotiation”

      Measurements
        tools/list.tokens            1,840 (estimated with gpt-tokenizer, o200k_base)
        tools/list.tokensWithSearch  228 (as tool search, o200k_base)
        latencyMs.ping               3 ms
        latencyMs.tools/list         12 ms

      7 checks: 2 passed, 3 with findings, 1 skipped (http.transport: a stdio target),
      1 timed out (protocol.codes: no answer to tools/call within 2000 ms)
      Verdict: 1 error, 1 warning, 1 info · exit code 1: a warning or an error was
      found, a check timed out
      "
    `);
  });

  it('a server that could not be started: exit code 2', () => {
    const text = renderReport(assembleReport(NOT_FOUND_RUN));
    expect(text).toContain('Server   not reached\n');
    expect(text).not.toContain('Eras');
    expect(renderReport(assembleReport(NOT_FOUND_RUN), { columns: 200 })).toContain('\n3 checks: 0 passed, 1 with findings, 1 failed (connect: spawn no-such-server ENOENT), 1 skipped (stdio.hygiene: no connection)\n');
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
    expect(visibleEvidence('\ufeff{"id":1}\r\n\tnext\u0007 \u200b"q"\\')).toBe('\\ufeff{"id":1}\\r\n\\tnext\\x07 \\u200b"q"\\');
  });
});
