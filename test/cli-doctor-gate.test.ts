/**
 * `switchboard doctor` as a CI gate on a server built on the official TypeScript SDK v1
 * (test/interop-servers/sdkV1.mjs, `@modelcontextprotocol/sdk` 1.32.2), in-process through `run(argv, io)`: what it
 * gets is the SDK's defaults, not its own code's (see test/doctor-interop.test.ts for the pinned findings). Each such
 * finding names the SDK; `--fail-on error` passes its warnings; a baseline written by `--write-baseline` makes the
 * next run exit 0 with every finding shown as muted; `--ignore` mutes one id; a file that is not a baseline is a
 * usage error; the `--call` check is skipped, with its reason, when no tool was called.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../packages/cli/src/doctor/types.js';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';
import { SDK_V1, V1_HTTP, V1_STDIO } from './helpers/doctorInterop.js';
import { missingPackage, ROOT, type HttpServerProcess } from './interop-servers/harness.js';

/** Findings that depend on the machine's load (a slow start, a slow list): muted in every run here, as the interop test leaves them out. */
const TIMING = ['--ignore', 'startup.slow-start', '--ignore', 'primitives.slow-list'];
const BUDGET = ['--timeout-ms', '30000', '--request-timeout-ms', '5000'];
const SDK = '@modelcontextprotocol/sdk';

async function doctor(argv: readonly string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ env: { PATH: process.env.PATH }, cwd, home: cwd });
  const code = await run(['doctor', ...BUDGET, ...TIMING, ...argv], io);
  return { code, out: io.out(), err: io.err() };
}

const reportOf = (out: string): DoctorReport => JSON.parse(out) as DoctorReport;
const idsOf = (entries: readonly string[]): string[] => entries.filter((e) => !e.startsWith('info ')).map((e) => e.split(' ')[1]!).sort();

const missing = missingPackage(...SDK_V1.packages);
const suite = missing === undefined ? describe : describe.skip;

suite(`the doctor as a CI gate on the official SDK v1${missing === undefined ? '' : ` (skipped: ${missing} is not installed)`}`, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'doctor-gate-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('over stdio', () => {
    const target = ['--', process.execPath, ...SDK_V1.stdio!];

    it('each warning is an SDK default that names the SDK; exit 1, and --fail-on error exits 0 on these warnings; the --call check is skipped', async () => {
      const first = await doctor(['--json', ...target], ROOT);
      expect(first.code, first.err).toBe(1);
      const report = reportOf(first.out);
      const failing = report.findings.filter((f) => f.severity !== 'info');
      expect(failing.map((f) => f.id).sort()).toEqual(idsOf(V1_STDIO));
      expect(failing.filter((f) => f.sdk?.package !== SDK).map((f) => f.id)).toEqual([]);
      for (const f of failing) expect(f.sdk!.remedy).toMatch(/--ignore|option|upgrad/);
      expect(report.summary).toMatchObject({ errors: 0, failOn: 'warning' });
      expect(report.checks.find((c) => c.id === 'primitives.call')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/no tool was called/) });
      // Seen at 2025-11-25 (where -32002 is the rule), the finding cites 2025-11-25, not the requirement's 2026-07-28 section.
      expect(report.findings.find((f) => f.id === 'protocol.unknown-resource-code')).toMatchObject({ revision: '2025-11-25', spec: { revision: '2025-11-25', page: 'server/resources.mdx' } });

      const lenient = await doctor(['--fail-on', 'error', ...target], ROOT);
      expect(lenient.code, lenient.out).toBe(0);
      expect(lenient.out).toContain(`the default of ${SDK}`);
      expect(lenient.out).toMatch(/exit code 0: no error \(--fail-on error/);
    }, 90_000);

    it('--write-baseline, then --baseline: the second run exits 0 with every finding muted and listed; --ignore mutes one id', async () => {
      const file = path.join(dir, 'stdio-baseline.json');
      const written = await doctor(['--write-baseline', file, ...target], ROOT);
      expect(written.err).toContain(`to ${file}`);
      const baseline = JSON.parse(readFileSync(file, 'utf8')) as { baselineVersion: number; findings: { id: string; fingerprint: string }[] };
      expect(baseline.baselineVersion).toBe(1);
      expect(baseline.findings.map((f) => f.id)).toEqual(expect.arrayContaining(idsOf(V1_STDIO)));

      const second = await doctor(['--json', '--baseline', file, ...target], ROOT);
      expect(second.code, second.out).toBe(0);
      const report = reportOf(second.out);
      expect(report.findings.filter((f) => f.severity !== 'info' && f.muted === undefined).map((f) => f.id)).toEqual([]);
      expect(report.findings.filter((f) => f.muted === 'baseline').map((f) => f.id).sort()).toEqual(expect.arrayContaining(idsOf(V1_STDIO)));
      expect(report.summary.muted).toBeGreaterThanOrEqual(V1_STDIO.length);

      const ignored = await doctor(['--json', '--ignore', 'stdio.parse-error-reply', ...target], ROOT);
      const one = reportOf(ignored.out);
      expect(one.findings.find((f) => f.id === 'stdio.parse-error-reply')?.muted).toBe('ignore');
      expect(ignored.code).toBe(1);
    }, 120_000);

    it('a file that is not a baseline is a usage error (exit 2), and so are one that cannot be read and an --ignore id no finding has', async () => {
      const bad = path.join(dir, 'not-a-baseline.json');
      writeFileSync(bad, '{"findings": []}');
      const wrong = await doctor(['--baseline', bad, ...target], ROOT);
      expect(wrong.code).toBe(2);
      expect(wrong.err).toContain('Invalid --baseline');
      const absent = await doctor(['--baseline', path.join(dir, 'absent.json'), ...target], ROOT);
      expect(absent.code).toBe(2);
      expect(absent.err).toMatch(/cannot read .*absent\.json/);
      // A typo in --ignore would silently mute nothing: it is refused.
      const typo = await doctor(['--ignore', 'stdio.parse-eror-reply', ...target], ROOT);
      expect(typo.code).toBe(2);
      expect(typo.err).toContain('Invalid --ignore: no finding has the id "stdio.parse-eror-reply"');
    });
  });

  describe('over Streamable HTTP', () => {
    let server: HttpServerProcess;
    beforeAll(async () => {
      server = await SDK_V1.http!();
    }, 30_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('its errors and warnings each name the SDK; a baseline written by --write-baseline makes the next run exit 0', async () => {
      const first = await doctor(['--json', server.url], ROOT);
      expect(first.code).toBe(1);
      const failing = reportOf(first.out).findings.filter((f) => f.severity !== 'info');
      expect(failing.map((f) => f.id).sort()).toEqual(idsOf(V1_HTTP));
      expect(failing.filter((f) => f.sdk?.package !== SDK).map((f) => f.id)).toEqual([]);

      const file = path.join(dir, 'http-baseline.json');
      await doctor(['--write-baseline', file, server.url], ROOT);
      const second = await doctor(['--json', '--baseline', file, server.url], ROOT);
      expect(second.code, second.out).toBe(0);
      expect(reportOf(second.out).summary).toMatchObject({ errors: 0, warnings: 0 });
    }, 120_000);
  });
});
