/**
 * Hand-built doctor runs for the report's tests (schema, rendering): the inputs of `assembleReport` as a runner would
 * hand them over, for a stdio server with findings of each severity, a clean HTTP server, and a command that never
 * connected.
 */
import { findingOf, type ReportInput } from '../../packages/cli/src/doctor/report.js';
import type { DoctorFacts, Requirement } from '../../packages/cli/src/doctor/types.js';

const facts = (over: Partial<DoctorFacts>): DoctorFacts => ({ connected: true, legacyRevisions: [], modernRevisions: [], measurements: {}, ...over });

export const BANNER: Requirement = {
  id: 'stdio.stdout-not-protocol',
  area: 'stdio',
  title: 'Stdout carries lines that are not MCP messages',
  rule: 'Only MCP messages on stdout',
  behaviour: 'A stdio server writes nothing to stdout but newline-delimited JSON-RPC messages.',
  spec: { revision: '2025-11-25', page: 'basic/transports.mdx', section: 'stdio' },
  revisions: 'all',
  transports: ['stdio'],
  severity: 'error',
  causes: ['A banner or log line printed with console.log', 'A dependency that writes to stdout when it loads'],
  fix: 'Write logs to stderr (console.error) and keep stdout for protocol messages only.',
};

export const DRAFT07: Requirement = {
  id: 'primitives.schema-dialect',
  area: 'primitives',
  title: 'A tool schema declares draft-07',
  rule: 'Tool schemas in the 2020-12 dialect',
  behaviour: 'Each inputSchema is a JSON Schema 2020-12 object schema.',
  spec: null,
  source: 'https://json-schema.org/draft/2020-12/release-notes',
  revisions: 'all',
  transports: ['stdio', 'http'],
  severity: 'warning',
  causes: ['A schema generator that emits draft-07 by default'],
  fix: 'Emit 2020-12 schemas, or drop the $schema keyword.',
};

export const LEGACY_ONLY: Requirement = {
  id: 'eras.legacy-only',
  area: 'eras',
  title: 'The server speaks the legacy era only',
  rule: 'Speaks the legacy era only',
  behaviour: 'A server may speak only the session-based revisions.',
  spec: { revision: '2026-07-28', page: 'basic/lifecycle.mdx', section: 'Version Negotiation' },
  revisions: 'all',
  transports: ['stdio', 'http'],
  severity: 'info',
  causes: ['An SDK release from before 2026-07-28'],
  fix: 'Nothing to fix; a 2026-07-28 client falls back to initialize.',
};

/** A stdio server that prints a banner, lists a draft-07 schema and speaks the legacy era only. */
export const STDIO_RUN: ReportInput = {
  target: { transport: 'stdio', command: 'node', args: ['server.js', '--stdio'], env: { API_KEY: 'secret-value' }, cwd: '/srv' },
  startedAt: '2026-12-01T21:00:00.000Z',
  durationMs: 1834,
  version: '0.1.0',
  facts: facts({
    serverInfo: { name: 'notes', version: '2.3.1' },
    legacyRevisions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'],
    startupMs: 212,
    measurements: { 'tools/list.tokens': 1840, 'tools/list.tokensWithSearch': 228, 'latencyMs.ping': 3, 'latencyMs.tools/list': 12 },
  }),
  findings: [
    findingOf(LEGACY_ONLY, { message: 'server/discover answered -32601 and initialize settled on 2025-11-25' }),
    findingOf(DRAFT07, { message: 'Tool "search" declares the draft-07 dialect', evidence: ['"$schema": "http://json-schema.org/draft-07/schema#"'] }),
    findingOf(BANNER, { message: 'The first stdout line is not JSON', evidence: ['Notes server v2.3.1 listening on stdio'] }),
  ],
  checks: [
    { id: 'startup.process', title: 'start-up', status: 'passed', durationMs: 230 },
    { id: 'connect', title: 'MCP connection', status: 'passed', durationMs: 140 },
    { id: 'eras.revisions', title: 'eras and revisions', status: 'failed', durationMs: 402 },
    { id: 'stdio.hygiene', title: 'stdio hygiene', status: 'failed', durationMs: 611 },
    { id: 'http.transport', title: 'HTTP transport', status: 'skipped', durationMs: 0, reason: 'a stdio target' },
    { id: 'protocol.codes', title: 'error codes', status: 'timed-out', durationMs: 2000, reason: 'no answer to tools/call within 2000 ms' },
    { id: 'primitives.tools', title: 'tools, resources, prompts', status: 'failed', durationMs: 310 },
  ],
};

/** A dual-era HTTP server with nothing to report. */
export const HTTP_RUN: ReportInput = {
  target: { transport: 'http', url: 'http://127.0.0.1:3000/mcp', headers: { authorization: 'Bearer secret-token' } },
  startedAt: '2026-12-01T21:05:00.000Z',
  durationMs: 942,
  version: '0.1.0',
  facts: facts({
    serverInfo: { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo' },
    legacyRevisions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'],
    modernRevisions: ['2026-07-28'],
    measurements: { 'tools/list.tokens': 655, 'latencyMs.ping': 1.4, 'latencyMs.tools/list': 2.2 },
  }),
  findings: [],
  checks: [
    { id: 'connect', title: 'MCP connection', status: 'passed', durationMs: 35 },
    { id: 'eras.revisions', title: 'eras and revisions', status: 'passed', durationMs: 120 },
    { id: 'http.transport', title: 'HTTP transport', status: 'passed', durationMs: 380 },
    { id: 'protocol.codes', title: 'error codes', status: 'passed', durationMs: 41 },
    { id: 'primitives.tools', title: 'tools, resources, prompts', status: 'passed', durationMs: 300 },
  ],
};

/** A command that does not exist: no connection. */
export const NOT_FOUND_RUN: ReportInput = {
  target: { transport: 'stdio', command: 'no-such-server', args: [] },
  startedAt: '2026-12-01T21:10:00.000Z',
  durationMs: 25,
  version: '0.1.0',
  facts: facts({ connected: false }),
  findings: [
    findingOf(
      {
        id: 'startup.command-not-found',
        area: 'startup',
        severity: 'error',
        title: 'The command was not found',
        rule: 'The command is found',
        behaviour: 'The command names a program on the PATH.',
        spec: null,
        source: 'https://modelcontextprotocol.io/docs/develop/connect-local-servers',
        revisions: 'all',
        transports: ['stdio'],
        causes: ['A typo in the command', 'A program installed where a host PATH does not reach'],
        fix: 'Give the command by its absolute path.',
      },
      { message: 'spawn no-such-server ENOENT', evidence: ['PATH=/usr/bin:/bin'] },
    ),
  ],
  checks: [
    { id: 'startup.process', title: 'start-up', status: 'failed', durationMs: 20 },
    { id: 'connect', title: 'MCP connection', status: 'failed', durationMs: 4, reason: 'spawn no-such-server ENOENT' },
    { id: 'stdio.hygiene', title: 'stdio hygiene', status: 'skipped', durationMs: 0, reason: 'no connection' },
  ],
};
