/**
 * `switchboard bridge -- <command>` as a user runs it: the bin as a child process in front of a stdio echo server
 * (bench/servers/switchboard.js, its PID recorded by a preload), spoken to in the session era (`--era legacy`).
 * The URL is printed on stderr and stdout stays empty; a 2026-07-28 client and a 2025-11-25 client are both served;
 * SIGTERM stops the bridge (exit 0) and the upstream process with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryEraVerdictStore, McpClient, streamableHttp } from '@switchboard/mcp/client';
import { isAlive } from './helpers/process.js';
import { ROOT } from './interop-servers/harness.js';

const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const ECHO = path.join(ROOT, 'bench', 'servers', 'switchboard.js');
const RECORD_PID = path.join(ROOT, 'test', 'fixtures', 'record-pid.mjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('switchboard bridge -- <stdio command>', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-bridge-'));
  const pidFile = path.join(dir, 'pids');
  let bridge: ChildProcess | undefined;

  afterAll(() => {
    if (bridge?.pid !== undefined && bridge.exitCode === null) process.kill(bridge.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its URL on stderr only, serves both eras, and stops with the upstream on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'bridge', '--port', '0', '--era', 'legacy', '--', process.execPath, '--import', RECORD_PID, ECHO, '--stdio'], {
      env: { ...process.env, SWITCHBOARD_PID_FILE: pidFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    bridge = child;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 200 && !/http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr); i++) await sleep(50);
    const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr)?.[0];
    expect(url, stderr).toBeDefined();
    expect(stderr).toContain('legacy era');

    for (const era of ['modern', 'legacy'] as const) {
      const client = await McpClient.connect({ connector: streamableHttp({ url: url! }), era, verdictStore: new InMemoryEraVerdictStore() });
      try {
        expect(client.era).toBe(era);
        expect((await client.callTool({ name: 'echo', arguments: { text: `via ${era}` } })).content).toEqual([{ type: 'text', text: `via ${era}` }]);
      } finally {
        await client.close();
      }
    }

    const [upstreamPid] = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(isAlive(upstreamPid!)).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (let i = 0; i < 100 && isAlive(upstreamPid!); i++) await sleep(50);
    expect(isAlive(upstreamPid!)).toBe(false);
    expect(stdout).toBe('');
    expect(stderr).toContain('switchboard: stopped');
  }, 30_000);

  it('names its own --request-timeout-ms in the hint when the upstream never answers initialize (exit 2)', async () => {
    const child = spawn(process.execPath, [BIN, 'bridge', '--port', '0', '--era', 'legacy', '--request-timeout-ms', '300', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('"initialize" got no response within 300 ms');
    expect(stderr).toContain('hint: raise --request-timeout-ms, or see switchboard explain "Request timed out"');
    expect(stderr).not.toMatch(/raise --timeout-ms/);
  }, 30_000);
});
