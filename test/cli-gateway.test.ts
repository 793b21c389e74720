/**
 * `switchboard gateway --config FILE`: in-process (`run` with an abort signal for SIGINT) over stdio upstreams that
 * are real child processes. The URL and each upstream's health go to stderr (stdout stays empty), a bad file is
 * one line naming the field and exit code 2, editing the file adds and removes upstreams while the unchanged one
 * keeps its process, and stopping stops every upstream process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from './helpers/process.js';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FIXTURES = path.join(ROOT, 'test', 'fixtures');
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-gateway-cli-'));
const pidFile = path.join(dir, 'pids');

function pids(): number[] {
  try {
    return [...new Set(readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number))];
  } catch {
    return [];
  }
}

afterAll(() => {
  for (const pid of pids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A stdio upstream: the fixture server, its PID recorded. */
const upstream = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: ['--import', path.join(FIXTURES, 'record-pid.mjs'), path.join(FIXTURES, 'stdio-server.mjs')],
  env: { SWITCHBOARD_PID_FILE: pidFile },
  ...extra,
});

describe('switchboard gateway', () => {
  it('serves the upstreams on 127.0.0.1, shows health on stderr, reloads the file, stops its processes', async () => {
    const config = path.join(dir, 'gateway.json');
    writeFileSync(config, JSON.stringify({ upstreams: { one: upstream(), missing: { command: path.join(dir, 'no-such-program') } }, backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } }));
    const stop = new AbortController();
    const io = captureIo({ cwd: dir, signal: stop.signal });
    const done = run(['gateway', '--config', 'gateway.json', '--port', '0'], io);
    await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/serving 2 upstreams on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = /on (http:\/\/\S+) /.exec(io.err())?.[1] ?? '';
    await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/upstream "one" ready \(/);
    await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/upstream "missing" down: .*no-such-program/);
    const client = await McpClient.connect({ connector: streamableHttp({ url }), logger: silent });
    expect((await client.listAllTools()).map((t) => t.name)).toContain('one_echo');
    expect((await client.callTool({ name: 'one_echo', arguments: { text: 'through' } })).content).toEqual([{ type: 'text', text: 'through' }]);
    const [onePid] = pids();

    // Add "two", remove "missing", keep "one" (same settings: same process).
    writeFileSync(config, JSON.stringify({ upstreams: { one: upstream(), two: upstream({ prefix: 'b' }) }, backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } }));
    await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/reloaded gateway\.json: 1 added, 1 removed, 0 restarted, 1 kept/);
    await expect.poll(async () => (await client.listAllTools()).map((t) => t.name).filter((n) => n.endsWith('_echo')).sort(), { timeout: 15_000 }).toEqual(['b_echo', 'one_echo']);
    expect(pids()[0]).toBe(onePid);
    expect(isAlive(onePid ?? 0)).toBe(true);

    // A bad edit is reported and the running configuration kept.
    writeFileSync(config, JSON.stringify({ upstreams: { one: { url: 'ftp://nope' } } }));
    await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/Invalid gateway config at \/upstreams\/one\/url: expected a string matching \^https\?:\/\/ — keeping the running configuration/);
    expect((await client.listAllTools()).some((t) => t.name === 'b_echo')).toBe(true);

    await client.close();
    stop.abort();
    expect(await done).toBe(0);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/switchboard gateway: stopped\n$/);
    expect(pids()).toHaveLength(2);
    await expect.poll(() => pids().filter(isAlive), { timeout: 10_000 }).toEqual([]);
  }, 60_000);

  it('a bad config file is one line naming the field, and exit code 2', async () => {
    const config = path.join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ upstreams: { a: { command: 'x', url: 'http://127.0.0.1:1/mcp' } } }));
    const io = captureIo({ cwd: dir });
    expect(await run(['gateway', '--config', 'bad.json'], io)).toBe(2);
    expect(io.err()).toBe('switchboard: Invalid gateway config at /upstreams/a: expected exactly one of "command" or "url"\n');
    expect(io.out()).toBe('');
  });
});
