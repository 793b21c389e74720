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
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalyticsRow, AnalyticsSnapshot } from '@switchboard/mcp/analytics';
import { InMemoryEraVerdictStore, McpClient, streamableHttp } from '@switchboard/mcp/client';
import { serveHttp } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';
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

/** One request over node:http to 127.0.0.1 (so `Host` can be anything). */
function request(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('switchboard dashboard: one Host/Origin rule set for /mcp and the page (in-process, an HTTP upstream)', () => {
  it('refuses a non-loopback --host without --allowed-host, in one line, before binding anything', async () => {
    const io = captureIo();
    expect(await run(['dashboard', '--host', '0.0.0.0', '--port', '0', 'http://127.0.0.1:9/mcp'], io)).toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toContain('--allowed-host');
    expect(io.err()).not.toContain('MCP endpoint');
  });

  it('gives the --allowed-host names to both the MCP endpoint and the dashboard', async () => {
    const server = new McpServer({ name: 'upstream', version: '1.0.0' });
    server.tool('ok', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const upstream = await serveHttp({ server, port: 0 });
    const stop = new AbortController();
    const io = captureIo({ signal: stop.signal });
    const done = run(['dashboard', '--port', '0', '--allowed-host', 'dash.test', '--token', TOKEN, upstream.url], io);
    try {
      for (let i = 0; i < 200 && !/MCP endpoint: http:\/\/127\.0\.0\.1:\d+\/mcp/.test(io.err()); i++) await sleep(25);
      const port = Number(/MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(io.err())?.[1]);
      expect(port, io.err()).toBeGreaterThan(0);
      const named = { host: `dash.test:${port}` };
      // A foreign Host: refused on /mcp as on the page.
      expect((await request(port, '/mcp', { method: 'POST', headers: { ...POST_HEADERS, host: 'evil.example', origin: 'http://evil.example' }, body: INITIALIZE })).status).toBe(403);
      expect((await request(port, '/', { headers: { host: 'evil.example' } })).status).toBe(403);
      // The allowed name: served on both.
      expect((await request(port, '/mcp', { method: 'POST', headers: { ...POST_HEADERS, ...named }, body: INITIALIZE })).status).toBe(200);
      const page = await request(port, '/', { headers: named });
      expect(page.status).toBe(200);
      expect(page.body).not.toContain(upstream.url); // the public page names no target (review-1 finding 5)
      const meta = await request(port, '/api/meta', { headers: { ...named, authorization: `Bearer ${TOKEN}` } });
      expect(JSON.parse(meta.body)).toEqual({ title: `Switchboard dashboard: ${upstream.url}` });
      expect((await request(port, '/api/analytics', { headers: { ...named, authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    } finally {
      stop.abort();
      await done;
      await upstream.close();
    }
  }, 30_000);
});
