/**
 * `switchboard serve <module>`: a server module served on Streamable HTTP in-process (`run` with an abort signal
 * for SIGINT), and on stdio through the built bin as a child process (stdout is the wire).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { exitWithin, stopByPid } from './helpers/process.js';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODULE = path.join('test', 'fixtures', 'cli-server-module.mjs');
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const BUSY = path.join('test', 'fixtures', 'cli-server-module-busy.mjs');

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) stopByPid(child);
});

/** Starts the built bin with `args` in the repository; resolves once `ready` matches its stderr. */
async function start(args: string[], ready: RegExp): Promise<{ child: ReturnType<typeof spawn>; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text; });
  child.stdout.resume();
  await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(ready);
  return { child, stderr: () => stderr };
}

describe('switchboard serve', () => {
  it('--port 0 serves the module on 127.0.0.1 until the signal aborts, then drains and ends with 0', async () => {
    const stop = new AbortController();
    const io = captureIo({ cwd: ROOT, signal: stop.signal });
    const done = run(['serve', MODULE, '--port', '0'], io);
    await expect.poll(() => io.err(), { timeout: 10_000 }).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = /on (http:\/\/\S+) /.exec(io.err())![1]!;
    for (const era of ['legacy', 'modern'] as const) {
      const client = await McpClient.connect({ connector: streamableHttp({ url }), era, logger: silent });
      expect([client.era, (await client.callTool({ name: 'echo', arguments: { text: `hi ${era}` } })).content]).toEqual([era, [{ type: 'text', text: `hi ${era}` }]]);
      await client.close();
    }
    stop.abort();
    expect(await done).toBe(0);
    expect(io.err()).toMatch(/switchboard: stopped\n$/);
    expect(io.out()).toBe('');
  }, 30_000);

  it('on stdio by default (the built bin as a child process)', async () => {
    const client = await McpClient.connect({ connector: spawnStdio({ command: process.execPath, args: [path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js'), 'serve', MODULE], cwd: ROOT }), logger: silent });
    expect(client.serverInfo).toMatchObject({ name: 'cli-serve-fixture' });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } })).content).toEqual([{ type: 'text', text: 'over stdio' }]);
    await client.close();
  }, 30_000);

  it('a module without a server is one line and exit code 2', async () => {
    const io = captureIo({ cwd: ROOT });
    expect(await run(['serve', 'package.json.mjs'], io)).toBe(2);
    expect(io.err()).toMatch(/^switchboard: Cannot import ".*package\.json\.mjs": /);
    const io2 = captureIo({ cwd: ROOT });
    expect(await run(['serve', 'test/fixtures/cli-server-module.mjs', '--port', '70000'], io2)).toBe(2);
    expect(io2.err()).toContain('expected a port number 0…65535, got "70000"');
  });

  // The module holds a timer of its own: before, `serve` printed "stopped" and kept running until killed.
  it('the first SIGTERM ends the process after its drain although the module holds a handle (HTTP and stdio)', async () => {
    const http = await start(['serve', BUSY, '--port', '0'], /serving .* on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    http.child.kill('SIGTERM');
    expect(await exitWithin(http.child, 10_000)).toBe(0);
    expect(http.stderr()).toMatch(/switchboard: stopped\n$/);
    // stdio: the host's stdin still open.
    const stdio = spawn(process.execPath, [BIN, 'serve', BUSY], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(stdio);
    let out = '';
    stdio.stdout.setEncoding('utf8').on('data', (text: string) => { out += text; });
    stdio.stderr.resume();
    stdio.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await expect.poll(() => out, { timeout: 15_000 }).toContain('"id":1');
    stdio.kill('SIGTERM');
    expect(await exitWithin(stdio, 10_000)).toBe(0);
  }, 40_000);

  it('a second SIGINT exits at once, without waiting for the drain', async () => {
    const { child, stderr } = await start(['serve', BUSY, '--port', '0'], /serving .* on http:/);
    const client = await McpClient.connect({ connector: streamableHttp({ url: /on (http:\/\/\S+) /.exec(stderr())![1]! }), era: 'modern', logger: silent, reconnect: false });
    // A call in flight holds the first signal's drain (10 s): the second signal does not wait for it.
    const waiting = client.callTool({ name: 'wait', arguments: {} }).catch(() => 'failed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(child.exitCode).toBe(null);
    child.kill('SIGINT');
    expect(await exitWithin(child, 5000)).toBe(130);
    expect(await waiting).toBe('failed');
    await client.close();
  }, 30_000);
});
