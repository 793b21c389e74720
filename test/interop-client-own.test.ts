/**
 * Our client against our own server (test/interop-servers/switchboard.mjs, the same fixture as the third-party
 * servers) in both eras, over stdio and Streamable HTTP: a dual-era server, where the client picks the modern era
 * (and, asked for `era: 'legacy'`, holds a session); a legacy-only server (`revisions: LEGACY_REVISIONS`), where the
 * `server/discover` probe is refused and the client falls back to `initialize`; and a modern-only server
 * (`revisions: MODERN_REVISIONS`).
 */
import { describeInterop } from './interop-servers/scenarios.js';

const MODERN = { era: 'modern', revision: '2026-07-28', serverName: 'interop-switchboard', pages: true, inputs: true, cancelSeen: true } as const;
const LEGACY = { ...MODERN, era: 'legacy', revision: '2025-11-25' } as const;

for (const transport of ['stdio', 'http'] as const) {
  const over = transport === 'http' ? 'Streamable HTTP' : 'stdio';
  describeInterop({ title: `our dual-era server over ${over}`, script: 'switchboard.mjs', transport, expect: MODERN });
  describeInterop({ title: `our dual-era server over ${over}, client era legacy`, script: 'switchboard.mjs', transport, clientEra: 'legacy', expect: LEGACY });
  describeInterop({ title: `our legacy-only server over ${over}`, script: 'switchboard.mjs', args: ['--revisions', 'legacy'], transport, expect: LEGACY });
  describeInterop({ title: `our modern-only server over ${over}`, script: 'switchboard.mjs', args: ['--revisions', 'modern'], transport, expect: MODERN });
}
