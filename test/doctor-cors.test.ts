/**
 * The doctor's CORS check against Switchboard's own HTTP server (issue 22 item 1): without `allowedOrigins` it
 * reports `http.no-cors` (info) naming everything a browser client misses; with an origin listed the server
 * answers the preflight (the doctor sends it from the target's own origin, which CORS covers too) and exposes
 * `Mcp-Session-Id`, so the check finds nothing.
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { CORS_CHECK } from '../packages/cli/src/doctor/checks/http/cors.js';
import { HTTP_CHECKS } from '../packages/cli/src/doctor/checks/http.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { serveHttp } from '../packages/mcp/src/transports/node/index.js';

async function corsFindings(allowedOrigins: string[] | undefined): Promise<{ id: string; message: string }[]> {
  const server = new McpServer({ name: 'doctor-cors', version: '1.0.0' }, { logger: silentLogger });
  server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  const handle = await serveHttp({ server, ...(allowedOrigins === undefined ? {} : { allowedOrigins }) });
  try {
    const report = await runDoctor({ target: { transport: 'http', url: handle.url }, env: nodeDoctorEnv(), checks: HTTP_CHECKS, timeoutMs: 20_000, requestTimeoutMs: 3_000 });
    expect(report.checks.find((c) => c.id === CORS_CHECK.id)?.status).not.toBe('skipped');
    return report.findings.filter((f) => CORS_CHECK.requirements.includes(f.id)).map((f) => ({ id: f.id, message: f.message }));
  } finally {
    await handle.close();
    await server.close();
  }
}

describe('doctor http.cors on a Switchboard server', () => {
  // The server serves 2026-07-28, so the doctor asks for the headers of a stateless client (no session id to expose).
  it('without allowedOrigins: http.no-cors lists what a browser client misses', async () => {
    const findings = await corsFindings(undefined);
    expect(findings.map((f) => f.id)).toEqual(['http.no-cors']);
    expect(findings[0]!.message).toMatch(/^The server answers no CORS preflight \(OPTIONS 405, no Access-Control-Allow-Origin\): browser pages on other origins cannot call it\. Missing for a browser client: a 2xx status \(got 405\); Access-Control-Allow-Origin; POST in Access-Control-Allow-Methods; content-type, mcp-protocol-version, mcp-method, mcp-name in Access-Control-Allow-Headers$/);
  }, 30_000);

  it('with an origin in allowedOrigins: the preflight is answered, the session id exposed, nothing to report', async () => {
    expect(await corsFindings(['https://app.example.com'])).toEqual([]);
  }, 30_000);
});
