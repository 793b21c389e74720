// The eras and protocol checks alone, against the broken-servers fixtures of their area and our demo server (both
// transports): each fixture yields the finding it plants, and nothing else of severity error.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERAS_CHECKS } from '../packages/cli/src/doctor/checks/eras.js';
import { PROTOCOL_CHECKS } from '../packages/cli/src/doctor/checks/protocol.js';
import { ERAS_REQUIREMENTS } from '../packages/cli/src/doctor/requirements/eras.js';
import { PROTOCOL_REQUIREMENTS } from '../packages/cli/src/doctor/requirements/protocol.js';
import type { DoctorTarget } from '../packages/cli/src/doctor/types.js';
import { DEMO_MAIN, ROOT, startDemoHttp, type DemoHttp } from './helpers/demoServer.js';
import { runChecks, type Reported } from './helpers/erasHarness.js';
import { exitWithin, stopByPid } from './helpers/process.js';

const CHECKS = [...ERAS_CHECKS, ...PROTOCOL_CHECKS];
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'broken-servers');
const SEVERITY = new Map([...ERAS_REQUIREMENTS, ...PROTOCOL_REQUIREMENTS].map((r) => [r.id, r.severity]));

function severityOf(r: Reported): string {
  return r.severity ?? SEVERITY.get(r.id) ?? 'unknown';
}

function summary(reported: readonly Reported[]): string[] {
  return reported.map((r) => `${severityOf(r)} ${r.id}`).sort();
}

async function startHttpFixture(file: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(FIXTURES, `${file}.mjs`)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)}`)));
  });
  return {
    url,
    stop: async () => {
      const gone = exitWithin(child, 5000).catch(() => stopByPid(child));
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
      await gone;
    },
  };
}

describe('eras and protocol checks on the fixtures', () => {
  for (const requirement of [...ERAS_REQUIREMENTS, ...PROTOCOL_REQUIREMENTS]) {
    const fixture = requirement.fixture;
    if (fixture === undefined) continue;
    it(`${fixture.file} yields ${requirement.id} and no other error`, async () => {
      let target: DoctorTarget;
      let stop = (): Promise<void> => Promise.resolve();
      if (fixture.transport === 'stdio') target = { transport: 'stdio', command: process.execPath, args: [path.join(FIXTURES, `${fixture.file}.mjs`)] };
      else {
        const started = await startHttpFixture(fixture.file);
        target = { transport: 'http', url: started.url };
        stop = started.stop;
      }
      try {
        const { reported } = await runChecks({ target, checks: CHECKS, ...(fixture.call === undefined ? {} : { call: fixture.call }), ...(fixture.era === undefined ? {} : { era: fixture.era }) });
        const ids = reported.map((r) => r.id);
        expect(ids, JSON.stringify(reported, null, 1)).toContain(requirement.id);
        const otherErrors = reported.filter((r) => r.id !== requirement.id && severityOf(r) === 'error');
        expect(otherErrors, JSON.stringify(otherErrors, null, 1)).toEqual([]);
      } finally {
        await stop();
      }
    });
  }
});

describe('eras and protocol checks on our demo server', () => {
  let demo: DemoHttp;
  beforeAll(async () => {
    demo = await startDemoHttp();
  });
  afterAll(async () => {
    await demo.stop();
  });

  it('stdio: both eras, dual-era info only', async () => {
    const { reported, facts } = await runChecks({ target: { transport: 'stdio', command: process.execPath, args: [DEMO_MAIN, '--stdio'] }, checks: CHECKS, requestTimeoutMs: 10_000 });
    expect(summary(reported), JSON.stringify(reported, null, 1)).toEqual(['info eras.dual-era']);
    expect(facts.legacyRevisions).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    expect(facts.modernRevisions).toEqual(['2026-07-28']);
  });

  it('HTTP: both eras, dual-era info only', async () => {
    const { reported, facts } = await runChecks({ target: { transport: 'http', url: demo.url }, checks: CHECKS, requestTimeoutMs: 10_000 });
    expect(summary(reported), JSON.stringify(reported, null, 1)).toEqual(['info eras.dual-era']);
    expect(facts.legacyRevisions).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    expect(facts.modernRevisions).toEqual(['2026-07-28']);
  });
});
