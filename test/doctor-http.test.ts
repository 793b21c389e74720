/**
 * The doctor's Streamable HTTP checks find nothing above info on healthy servers that exercise what the demo does
 * not: a server of 2026-07-28 alone (no sessions: GET and DELETE 405), one that answers every request with a
 * resumable SSE stream (the Last-Event-ID replay is followed to the response), one with CORS for every origin
 * (preflights allow the MCP headers, Mcp-Session-Id exposed). The broken fixtures are the gallery's
 * (test/doctor-gallery.test.ts); the demo and the servers no one here wrote are test/doctor-interop.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { HTTP_CHECKS } from '../packages/cli/src/doctor/checks/http.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import type { DoctorProgress } from '../packages/cli/src/doctor/types.js';
import { startHttpFixture } from './helpers/httpFixture.js';

describe('doctor http checks on healthy servers', () => {
  it.each([
    ['a server of 2026-07-28 alone', 'modern', 'http.methods', 'GET, DELETE and a stale Mcp-Session-Id on a server of 2026-07-28 alone'],
    ['a server answering every request with a resumable SSE stream', 'sse', 'http.resumption', 'GET with Last-Event-ID: '],
    ['a server with CORS for every origin', 'cors', 'http.cors', 'a preflight from http://127.0.0.1:'],
  ])('%s: no finding above info, and the probe that matters ran', async (_name, mode, checkId, note) => {
    const server = await startHttpFixture('lib/http-clean', [mode]);
    try {
      const notes: string[] = [];
      const report = await runDoctor({
        target: { transport: 'http', url: server.url },
        env: nodeDoctorEnv(),
        checks: HTTP_CHECKS,
        timeoutMs: 20_000,
        requestTimeoutMs: 3_000,
        onProgress: (event: DoctorProgress) => {
          if (event.type === 'check-note') notes.push(`${event.id}: ${event.text}`);
        },
      });
      expect(report.findings.filter((f) => f.severity !== 'info').map((f) => `${f.id}: ${f.message}`)).toEqual([]);
      expect(report.checks.filter((c) => c.status === 'crashed' || c.status === 'timed-out' || c.status === 'skipped').map((c) => c.id)).toEqual([]);
      expect(notes.some((n) => n.startsWith(`${checkId}: ${note}`)), notes.join('\n')).toBe(true);
      if (mode === 'cors') expect(report.findings.map((f) => f.id)).toEqual([]);
    } finally {
      server.stop();
    }
  });
});
