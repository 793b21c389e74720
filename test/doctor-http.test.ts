/**
 * The Streamable HTTP checks of the doctor against the http-* fixtures of test/fixtures/broken-servers/ (each
 * plants one fault: its finding is reported, and no other error) and against healthy servers (nothing above
 * info): the demo in each era, a server of 2026-07-28 alone, one that answers every request with a resumable
 * SSE stream, one with CORS.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { HTTP_CHECKS } from '../packages/cli/src/doctor/checks/http.js';
import { HTTP_REQUIREMENTS } from '../packages/cli/src/doctor/requirements/http.js';
import { startDemoHttp, type DemoHttp } from './helpers/demoServer.js';
import { runHttpChecks, startHttpFixture, type HttpFixture, type Reported } from './helpers/httpCheckHarness.js';

const CLEAN = 'lib/http-clean';

function severityOf(report: Reported): string {
  return report.severity ?? HTTP_REQUIREMENTS.find((r) => r.id === report.id)?.severity ?? 'unknown';
}

/** The reports above info, as `id: message` lines (so a failure shows what was seen). */
function aboveInfo(reports: readonly Reported[]): string[] {
  return reports.filter((r) => severityOf(r) !== 'info').map((r) => `${r.id} (${severityOf(r)}): ${r.message}`);
}

const started: HttpFixture[] = [];
afterAll(() => {
  for (const fixture of started) fixture.stop();
});

async function fixture(file: string, args: readonly string[] = []): Promise<HttpFixture> {
  const running = await startHttpFixture(file, args);
  started.push(running);
  return running;
}

describe('doctor http checks: the broken-servers gallery', () => {
  const planted = HTTP_REQUIREMENTS.filter((r) => r.fixture !== undefined);

  it.each(planted.map((r) => [r.fixture?.file ?? '', r.id] as const))('%s: reports %s and no other error', async (file, id) => {
    const running = await fixture(file);
    try {
      const { reports } = await runHttpChecks({ url: running.url, checks: HTTP_CHECKS, requestTimeoutMs: 2000 });
      expect(reports.map((r) => r.id)).toContain(id);
      const others = reports.filter((r) => r.id !== id && severityOf(r) === 'error').map((r) => `${r.id}: ${r.message}`);
      expect(others).toEqual([]);
      const found = reports.find((r) => r.id === id);
      expect(found?.evidence?.length ?? 0).toBeGreaterThan(0);
    } finally {
      running.stop();
    }
  });
});

describe('doctor http checks: healthy servers come out clean', () => {
  let demo: DemoHttp | undefined;
  afterAll(async () => {
    await demo?.stop();
  });

  it.each(['auto', 'session', 'stateless'] as const)('the demo server, --era %s', async (era) => {
    demo ??= await startDemoHttp();
    const { reports } = await runHttpChecks({ url: demo.url, checks: HTTP_CHECKS, era });
    expect(aboveInfo(reports)).toEqual([]);
  });

  it.each([
    ['a server of 2026-07-28 alone', 'modern'],
    ['a server answering every request with a resumable SSE stream', 'sse'],
    ['a server with CORS for every origin', 'cors'],
  ])('%s', async (_name, mode) => {
    const running = await fixture(CLEAN, [mode]);
    try {
      const { reports, notes } = await runHttpChecks({ url: running.url, checks: HTTP_CHECKS });
      expect(aboveInfo(reports)).toEqual([]);
      if (mode === 'modern') expect(notes).toContain('http.sessions: skipped: initialize opened no session (a server of 2026-07-28 alone has none)');
      if (mode === 'sse') expect(notes.some((n) => n.startsWith('http.resumption: GET with Last-Event-ID'))).toBe(true);
      if (mode === 'cors') expect(reports.map((r) => r.id)).not.toContain('http.no-cors');
    } finally {
      running.stop();
    }
  });
});
