/**
 * The fast tier (`npm run test:fast`, vitest.fast.config.ts) is enforced, not guessed: its guard
 * (test/helpers/fastTierGuard.ts) makes a test that starts a child process, a worker thread or a listening socket
 * fail, with a message naming the rule, even when the code under test catches the error. Checked by running the
 * fast tier's own configuration on the planted files of test/fixtures/fast-tier/ in a vitest child process (so
 * this file is full-tier itself). And the tier's two lists name files that exist, each where its rule needs it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAST_TIER_RULE } from './helpers/fastTierRule.js';
import { exitWithin, stopByPid } from './helpers/process.js';
import fast, { FULL_TIER, IN_PROCESS } from '../vitest.fast.config.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

interface Report {
  testResults: { name: string; assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

/** Runs the planted files under the fast tier's configuration; resolves with vitest's exit code and JSON report. */
async function runPlanted(): Promise<{ code: number | null; report: Report }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-fast-tier-'));
  const out = path.join(dir, 'report.json');
  // Without the VITEST* variables of this worker, so that the child is a vitest of its own.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const child = spawn(process.execPath, [VITEST, 'run', '--config', 'test/fixtures/fast-tier/vitest.config.ts', '--reporter=json', `--outputFile=${out}`], {
    cwd: ROOT,
    env,
    stdio: 'ignore',
  });
  try {
    const code = await exitWithin(child, 90_000);
    return { code, report: JSON.parse(readFileSync(out, 'utf8')) as Report };
  } finally {
    stopByPid(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the fast tier', () => {
  it('fails every planted test that spawns, forks, execs, listens, binds or starts a worker, with the rule; passes the in-process ones', async () => {
    const { code, report } = await runPlanted();
    const outcomes = Object.fromEntries(
      report.testResults.flatMap((file) =>
        file.assertionResults.map((test) => [
          `${path.basename(file.name)} ${test.title}`,
          test.status === 'failed' && test.failureMessages.some((message) => message.includes(FAST_TIER_RULE)) ? 'refused' : test.status,
        ]),
      ),
    );
    expect(outcomes).toEqual({
      'spawn.planted.ts spawn': 'refused',
      'spawn.planted.ts spawnSync': 'refused',
      'spawn.planted.ts execFileSync': 'refused',
      'spawn.planted.ts execFile': 'refused',
      'spawn.planted.ts exec': 'refused',
      'spawn.planted.ts fork': 'refused',
      'spawn.planted.ts ChildProcess.prototype.spawn': 'refused',
      'spawn.planted.ts a spawn whose error the code under test catches': 'refused',
      'listen.planted.ts http server listen': 'refused',
      'listen.planted.ts net server listen': 'refused',
      'listen.planted.ts dgram bind': 'refused',
      'listen.planted.ts worker thread': 'refused',
      'inProcess.planted.ts computes in memory': 'passed',
      'inProcess.planted.ts opens a client connection': 'passed',
    });
    expect(code).toBe(1);
  }, 120_000);

  it('uses the guard, and its lists name existing files that its rule would otherwise place in the other tier', () => {
    expect(fast.test?.setupFiles).toEqual(['test/helpers/fastTierGuard.ts']);
    for (const [file, reason] of Object.entries(FULL_TIER)) {
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
      expect(file, 'FULL_TIER lists unit tests beside their module').toMatch(/^(packages\/[^/]+\/src|docs)\/.+\.test\.ts$/);
      expect(reason.length, file).toBeGreaterThan(10);
    }
    for (const [file, reason] of Object.entries(IN_PROCESS)) {
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
      expect(file, 'IN_PROCESS lists files of test/').toMatch(/^test\/.+\.test\.ts$/);
      expect(reason.length, file).toBeGreaterThan(10);
    }
  });
});
