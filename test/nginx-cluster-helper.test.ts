/**
 * The nginx cluster helper's own bounds (test/helpers/nginxCluster.ts): `stop` kills (SIGKILL) a process that
 * ignores its signal once the grace is over, and a start that fails or is aborted midway leaves no process of it
 * running (each is stopped by its PID, ready or not), so a `beforeAll` that times out leaks nothing.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { CLUSTER_START_HOOK_TIMEOUT_MS, CLUSTER_STEP_TIMEOUT_MS, NGINX_CLUSTER_MISSING, STOP_GRACE_MS, startNginxCluster, stop } from './helpers/nginxCluster.js';
import { descendants, processRunning, stopByPid } from './helpers/process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** This worker's children still running (zombies not counted). */
const runningChildren = () => descendants(process.pid).filter((pid) => processRunning(pid));

describe('stop', () => {
  const stubborn = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
  afterAll(() => stopByPid(stubborn));

  it('kills a process that ignores SIGTERM once the grace is over', async () => {
    await new Promise((resolve) => stubborn.stdout.once('data', resolve));
    const started = Date.now();
    await stop(stubborn, 'SIGTERM', 200);
    expect(stubborn.signalCode).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('the start-up budget', () => {
  it('stays under the hook timeout with every stop\'s grace after a failure', () => {
    expect(3 * CLUSTER_STEP_TIMEOUT_MS + 3 * STOP_GRACE_MS).toBeLessThan(CLUSTER_START_HOOK_TIMEOUT_MS);
  });
});

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('startNginxCluster cut short', () => {
  const before = runningChildren();

  it('aborted while the instances start: rejects with the reason, and nothing it started runs', async () => {
    const ending = new AbortController();
    const reason = new Error('the hook ended');
    const starting = startNginxCluster(['A', 'B'], { signal: ending.signal });
    // Abort once an instance process is there (redis-server is up by then).
    for (let i = 0; i < 400 && runningChildren().filter((pid) => !before.includes(pid)).length < 2; i++) await sleep(10);
    ending.abort(reason);
    await expect(starting).rejects.toBe(reason);
    expect(runningChildren().filter((pid) => !before.includes(pid))).toEqual([]);
  }, 20_000);

  it('an instance that does not come up within its step: rejects, and nothing it started runs', async () => {
    // 1 ms is too short for any instance to print its port (redis-server gets the same budget: a failure either way).
    await expect(startNginxCluster(['A'], { stepTimeoutMs: 1 })).rejects.toThrow(/within 1 ms|did not start/);
    expect(runningChildren().filter((pid) => !before.includes(pid))).toEqual([]);
  }, 20_000);
});

if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
