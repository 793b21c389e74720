/**
 * `switchboard dashboard -- <an official SDK v1 stdio server>` as a user runs it (issue 24): the bin as a child
 * process in front of test/interop-servers/sdkV1.mjs (@modelcontextprotocol/sdk 1.x, its PID recorded by a
 * preload). Calls through `/mcp` from two clients of both eras — a success, an `isError` result (arguments the SDK's
 * schema refuses), an unknown tool, and a call whose upstream process is killed mid-call — then `/api/analytics`
 * shows each in its class: ok, tool_error, protocol_error (-32602), transport. The page is at `/`; the data needs
 * the token; stdout stays empty; SIGTERM stops the command and the upstream.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalyticsRow, AnalyticsSnapshot } from '@switchboard/mcp/analytics';
import { InMemoryEraVerdictStore, McpClient, streamableHttp } from '@switchboard/mcp/client';
import { isAlive } from './helpers/process.js';
import { ROOT } from './interop-servers/harness.js';

const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const SDK_V1 = path.join(ROOT, 'test', 'interop-servers', 'sdkV1.mjs');
const RECORD_PID = path.join(ROOT, 'test', 'fixtures', 'record-pid.mjs');
const TOKEN = 'cli-dashboard-test-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const row = (rows: readonly AnalyticsRow[], key: string): AnalyticsRow | undefined => rows.find((r) => r.key === key);

describe('switchboard dashboard -- <SDK v1 stdio server>', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-dashboard-'));
  const pidFile = path.join(dir, 'pids');
  let command: ChildProcess | undefined;

  afterAll(() => {
    if (command?.pid !== undefined && command.exitCode === null) process.kill(command.pid, 'SIGKILL');
    for (const pid of readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean).map(Number)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('classifies every call through /mcp, serves the page at / and the analytics at /api/analytics behind the token', async () => {
    const child = spawn(process.execPath, [BIN, 'dashboard', '--port', '0', '--era', 'legacy', '--token', TOKEN, '--', process.execPath, '--import', RECORD_PID, SDK_V1, '--stdio'], {
      env: { ...process.env, SWITCHBOARD_PID_FILE: pidFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    command = child;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 300 && !/MCP endpoint: http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr); i++) await sleep(50);
    const mcp = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr)?.[0];
    expect(mcp, stderr).toBeDefined();
    expect(stderr).not.toContain(TOKEN); // a token the user gave is not printed
    const origin = new URL(mcp!).origin;

    const legacy = await McpClient.connect({ connector: streamableHttp({ url: mcp! }), era: 'legacy', clientInfo: { name: 'host-a', version: '1.0' }, verdictStore: new InMemoryEraVerdictStore() });
    const modern = await McpClient.connect({ connector: streamableHttp({ url: mcp! }), era: 'modern', clientInfo: { name: 'host-b', version: '2.0' }, verdictStore: new InMemoryEraVerdictStore() });
    try {
      expect((await legacy.callTool({ name: 'echo', arguments: { text: 'hello' } })).content).toEqual([{ type: 'text', text: 'hello' }]); // ok
      expect((await modern.callTool({ name: 'echo', arguments: { text: 'again' } })).isError).not.toBe(true); // ok
      expect((await legacy.callTool({ name: 'echo', arguments: { text: 42 } })).isError).toBe(true); // tool_error: the SDK refuses the arguments
      await expect(modern.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 }); // protocol_error
      // The upstream process dies while a call waits: transport.
      const slow = legacy.callTool({ name: 'slow', arguments: { ms: 30_000 } });
      await sleep(300);
      const [upstreamPid] = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
      process.kill(upstreamPid!, 'SIGKILL');
      expect((await slow).isError).toBe(true);
    } finally {
      await legacy.close();
      await modern.close();
    }

    const page = await fetch(`${origin}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('assets/chart.umd.min.js');
    expect((await fetch(`${origin}/api/analytics`)).status).toBe(401);
    expect((await fetch(`${origin}/api/analytics`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    const answer = await fetch(`${origin}/api/analytics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    const snap = (await answer.json()) as AnalyticsSnapshot;
    expect(row(snap.byTool, 'echo')).toMatchObject({ count: 3, classes: { ok: 2, tool_error: 1 } });
    expect(row(snap.byTool, 'echo')?.failingClients).toEqual([{ key: 'host-a/1.0', failures: 1 }]);
    expect(row(snap.byTool, 'no_such_tool')).toMatchObject({ count: 1, classes: { protocol_error: 1 }, codes: { '-32602': 1 } });
    expect(row(snap.byTool, 'slow')).toMatchObject({ count: 1, classes: { transport: 1 } });
    expect(row(snap.byClient, 'host-b/2.0')?.classes).toMatchObject({ protocol_error: 1, tool_error: 0, transport: 0 });
    expect(row(snap.byRevision, '2026-07-28')?.count).toBeGreaterThanOrEqual(2); // its two calls (and server/discover, when probed)
    expect(snap.total.classes).toMatchObject({ tool_error: 1, protocol_error: 1, transport: 1, timeout: 0 });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Every upstream process it started (the first, killed above, and the one that replaced it) is gone.
    const pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 100 && pids.some(isAlive); i++) await sleep(50);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(stdout).toBe('');
    expect(stderr).toContain('switchboard: stopped');
  }, 60_000);
});
