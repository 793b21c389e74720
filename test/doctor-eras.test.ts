// The eras and protocol checks on the real runner against our demo server (stdio and Streamable HTTP): what it
// learns about the revisions served (report.eras), what `--era` narrows, and that nothing but the dual-era fact is
// said about a server that does everything right — also with `--call`, which adds the invalid-arguments probe.
// (The planted faults are the gallery's: test/doctor-gallery.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERAS_CHECKS } from '../packages/cli/src/doctor/checks/eras.js';
import { PROTOCOL_CHECKS } from '../packages/cli/src/doctor/checks/protocol.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import type { DoctorOptions, DoctorReport, DoctorTarget } from '../packages/cli/src/doctor/types.js';
import { DEMO_MAIN, ROOT, startDemoHttp, type DemoHttp } from './helpers/demoServer.js';

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

function diagnose(target: DoctorTarget, options: Partial<DoctorOptions> = {}): Promise<DoctorReport> {
  return runDoctor({ target, env: nodeDoctorEnv(), timeoutMs: 40_000, requestTimeoutMs: 10_000, checks: [...ERAS_CHECKS, ...PROTOCOL_CHECKS], ...options });
}

function said(report: DoctorReport): string[] {
  return report.findings.map((f) => `${f.severity} ${f.id}`);
}

function unfinished(report: DoctorReport): string[] {
  // `failed` is a check that reported something (the dual-era info): what it said is asserted on its own.
  // `skipped` is a check that does not apply (no --call, no 2026-07-28 under --era legacy).
  return report.checks.filter((c) => c.status !== 'passed' && c.status !== 'failed' && c.status !== 'skipped').map((c) => `${c.id}: ${c.status} ${c.reason ?? ''}`);
}

const STDIO: DoctorTarget = { transport: 'stdio', command: process.execPath, args: [DEMO_MAIN, '--stdio'], cwd: ROOT };

describe('the eras and protocol checks on our demo server', () => {
  let demo: DemoHttp;
  let http: DoctorTarget;
  beforeAll(async () => {
    demo = await startDemoHttp();
    http = { transport: 'http', url: demo.url };
  });
  afterAll(async () => {
    await demo.stop();
  });

  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: every legacy revision and 2026-07-28, dual-era, nothing else (with --call add_numbers)`, async () => {
      const report = await diagnose(transport === 'stdio' ? STDIO : http, { call: { name: 'add_numbers', args: { a: 1, b: 2 } } });
      expect(report.eras).toEqual({ legacy: LEGACY, modern: ['2026-07-28'], dualEra: true });
      expect(said(report), JSON.stringify(report.findings, null, 1)).toEqual(['info eras.dual-era']);
      expect(report.findings[0]!.evidence[0]).toMatch(/^sent: .*"method":"server\/discover"/);
      expect(unfinished(report)).toEqual([]);
    });
  }

  it('HTTP+SSE (the demo\'s /sse): reached through the client, one revision, legacy-only, nothing else', async () => {
    const report = await diagnose({ transport: 'http', url: demo.url.replace(/\/mcp$/, '/sse') });
    expect(report.eras).toEqual({ legacy: ['2025-11-25'], modern: [], dualEra: false });
    expect(said(report), JSON.stringify(report.findings, null, 1)).toEqual(['info eras.legacy-only']);
    expect(unfinished(report)).toEqual([]);
  });

  it('--era legacy probes initialize only; --era modern probes server/discover only', async () => {
    const session = await diagnose(STDIO, { era: 'legacy' });
    expect(session.eras).toEqual({ legacy: LEGACY, modern: [], dualEra: false });
    expect(said(session)).toEqual([]);
    const stateless = await diagnose(http, { era: 'modern' });
    expect(stateless.eras).toEqual({ legacy: [], modern: ['2026-07-28'], dualEra: false });
    expect(said(stateless)).toEqual([]);
    expect([...unfinished(session), ...unfinished(stateless)]).toEqual([]);
  });
});
