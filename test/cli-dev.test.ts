/**
 * `switchboard dev <module>`: a server module in a temporary folder, served on Streamable HTTP in-process (`run`
 * with an abort signal for SIGINT) and on stdio through the built bin (stdout is the wire). A change to a file the
 * module imports reloads it (a new generation: a child process, so the imported file is read again); the HTTP port
 * stays, a legacy session goes on in the new generation (more in cli-dev-hosts.test.ts), modern requests reach the
 * new generation; the stdio host keeps its connection. A module that fails to load leaves the old generation serving.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitWithin, stopByPid } from './helpers/process.js';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const SERVER_JS = pathToFileURL(path.join(ROOT, 'packages', 'mcp', 'dist', 'server.js')).href;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const TEST_MS = 60_000;

let dir: string;
let module: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-dev-'));
  module = path.join(dir, 'server.mjs');
  writeFileSync(
    module,
    [
      `import { McpServer } from ${JSON.stringify(SERVER_JS)};`,
      `import { greeting } from './greeting.mjs';`,
      `const server = new McpServer({ name: 'dev-fixture', version: '1.0.0' });`,
      `server.tool('greet', { description: 'Greets', inputSchema: { type: 'object', properties: {} } }, () => ({ content: [{ type: 'text', text: greeting }] }));`,
      `server.tool('crash', { description: 'Exits the process', inputSchema: { type: 'object', properties: {} } }, () => process.exit(7));`,
      'export default server;',
      '',
    ].join('\n'),
  );
  greet('one');
});
/** Stops what a test started, also when it failed half-way. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  // No generation of this test's module may outlive it.
  if (process.platform === 'linux') expect(generationsOf(module)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

function greet(text: string): void {
  writeFileSync(path.join(dir, 'greeting.mjs'), `export const greeting = ${JSON.stringify(text)};\n`);
}

/** The PIDs of running generations (`switchboard dev-generation`) serving `file` (Linux /proc). */
function generationsOf(file: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('dev-generation') && argv.includes(file)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

async function text(client: McpClient): Promise<unknown> {
  return ((await client.callTool({ name: 'greet', arguments: {} })).content[0] as { text: string }).text;
}

/** POSTs one JSON-RPC message as a legacy client would; the status and the session id. */
async function post(url: string, body: unknown, session?: string): Promise<{ status: number; session: string | null; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, session: response.headers.get('mcp-session-id'), text: await response.text() };
}

/** Runs `switchboard dev <args> --port 0` in-process until `stop()` (the SIGINT of main.ts); the URL it serves. */
async function devHttp(args: string[]): Promise<{ io: ReturnType<typeof captureIo>; url: string; stop: () => Promise<number> }> {
  const abort = new AbortController();
  const io = captureIo({ cwd: dir, env: process.env, signal: abort.signal });
  const done = run(['dev', ...args, '--port', '0'], io);
  const stop = (): Promise<number> => {
    abort.abort();
    return done;
  };
  cleanups.push(stop);
  await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/dev serving .* on http:\/\/127\.0\.0\.1:\d+\/mcp /);
  return { io, url: /on (http:\/\/\S+) /.exec(io.err())![1]!, stop };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('switchboard dev --port', () => {
  it('reloads on a change of an imported file: same port, the legacy session goes on, modern requests reach the new generation; a failed reload keeps the old one', async () => {
    const { io, url, stop } = await devHttp(['server.mjs']);
    expect(io.err()).toMatch(/^switchboard: dev serving server\.mjs on http:\/\/127\.0\.0\.1:\d+\/mcp \(reloads when a file in .* changes; Ctrl-C stops\)\n$/);
    const modern = await McpClient.connect({ connector: streamableHttp({ url }), era: 'modern', logger: silent });
    const opened = await post(url, INITIALIZE);
    expect([opened.status, opened.session]).toEqual([200, expect.any(String)]);
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, opened.session!);
    expect((await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, opened.session!)).status).toBe(200);
    expect(await text(modern)).toBe('one');

    greet('two');
    await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/reloaded after greeting\.mjs \(generation 2, \d+ ms\); generation 1 stops: hosts stay connected/);
    expect(await text(modern)).toBe('two');
    // The session opened with generation 1 goes on with generation 2 under the same id; one never opened is 404.
    const kept = await post(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, opened.session!);
    expect([kept.status, kept.session]).toEqual([200, opened.session]);
    expect((await post(url, { jsonrpc: '2.0', id: 4, method: 'ping' }, 'never-opened')).status).toBe(404);
    const legacy = await McpClient.connect({ connector: streamableHttp({ url }), era: 'legacy', logger: silent });
    expect([legacy.era, await text(legacy)]).toEqual(['legacy', 'two']);
    await legacy.close();

    writeFileSync(path.join(dir, 'greeting.mjs'), 'export const greeting = ;\n');
    await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/switchboard: reload after greeting\.mjs failed; generation 2 keeps serving: Cannot import ".*server\.mjs": Unexpected token ';'\n/);
    // Node's own report of the syntax error, with the file and line, came on stderr too.
    expect(io.err()).toContain(`${pathToFileURL(path.join(dir, 'greeting.mjs')).href}:1`);
    expect(await text(modern)).toBe('two');

    greet('three');
    await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/generation 4, \d+ ms/);
    expect(await text(modern)).toBe('three');
    await modern.close();
    expect(await stop()).toBe(0);
    expect(io.err()).toMatch(/switchboard: stopped\n$/);
    await expect(fetch(url)).rejects.toThrow();
  }, TEST_MS);

  it('a generation that exits by itself: 503 until a change starts the next one', async () => {
    const { io, url, stop } = await devHttp([module]);
    const client = await McpClient.connect({ connector: streamableHttp({ url }), era: 'modern', logger: silent, reconnect: false });
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow();
    await expect.poll(() => io.err(), { timeout: 10_000 }).toContain('switchboard: the server (generation 1) ended by itself (exit code 7); save a file to start it again');
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect([refused.status, await refused.text()]).toEqual([503, 'switchboard dev: the server is not running (it exited or failed to load); save a file to start it again\n']);
    greet('back');
    await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/reloaded after greeting\.mjs \(generation 2, \d+ ms\)\n/);
    expect(await text(client)).toBe('back');
    await client.close();
    expect(await stop()).toBe(0);
  }, TEST_MS);

  it('a module that does not load at the start: one line and exit code 2', async () => {
    writeFileSync(path.join(dir, 'greeting.mjs'), 'export const greeting = ;\n');
    const io = captureIo({ cwd: dir, env: process.env });
    expect(await run(['dev', 'server.mjs', '--port', '0'], io)).toBe(2);
    expect(io.err()).toMatch(/switchboard: Cannot import ".*server\.mjs": Unexpected token ';'\n$/);
    greet('one');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = captureIo({ cwd: dir, env: process.env });
    expect(await run(['dev', 'server.mjs', '--port', String((taken.address() as AddressInfo).port)], busy)).toBe(2);
    await new Promise((resolve) => taken.close(resolve));
    expect(busy.err()).toMatch(/^switchboard: Port \d+ on "127\.0\.0\.1" is in use: pass another --port \(0 picks a free one\)\n$/);
    const missing = captureIo({ cwd: dir, env: process.env });
    expect(await run(['dev', 'nope.mjs'], missing)).toBe(2);
    expect(missing.err()).toMatch(/^switchboard: Cannot import ".*nope\.mjs": no such file\n$/);
  }, TEST_MS);
});

describe('switchboard dev on stdio', () => {
  it.each(['legacy', 'modern'] as const)('%s: the host keeps its connection across a reload and reaches the new generation', async (era) => {
    let stderr = '';
    let listChanged = 0;
    const client = await McpClient.connect({
      connector: spawnStdio({ command: process.execPath, args: [BIN, 'dev', module], cwd: dir, onstderr: (line) => { stderr += `${line}\n`; } }),
      era,
      logger: silent,
      reconnect: false,
      notifications: { toolsListChanged: () => listChanged++ },
    });
    cleanups.push(() => client.close());
    await expect.poll(() => stderr, { timeout: 20_000 }).toContain('dev serving');
    expect(await text(client)).toBe('one');
    greet('two');
    await expect.poll(() => stderr, { timeout: 20_000 }).toMatch(/reloaded after greeting\.mjs \(generation 2, \d+ ms\); generation 1 stops: the host keeps its connection\n/);
    expect(await text(client)).toBe('two');
    // The legacy host was told that the tool list may have changed (the server declared tools.listChanged).
    if (era === 'legacy') await expect.poll(() => listChanged).toBe(1);
    else expect(listChanged).toBe(0);
    await client.close();
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain('switchboard: stopped');
  }, TEST_MS);

  it('a request the generation never answered (it exited) gets an error from dev; a change starts the next one on the same connection', async () => {
    let stderr = '';
    const client = await McpClient.connect({
      connector: spawnStdio({ command: process.execPath, args: [BIN, 'dev', module], cwd: dir, onstderr: (line) => { stderr += `${line}\n`; } }),
      era: 'legacy',
      logger: silent,
      reconnect: false,
    });
    cleanups.push(() => client.close());
    await expect.poll(() => stderr, { timeout: 20_000 }).toContain('dev serving');
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toMatchObject({ code: -32603, message: 'switchboard dev: generation 1 ended (exit code 7) before it answered; send the request again' });
    await expect(client.callTool({ name: 'greet', arguments: {} })).rejects.toMatchObject({ code: -32603, message: 'switchboard dev: the server is not running (it exited or failed to load): save a file to start it again' });
    greet('again');
    await expect.poll(() => stderr, { timeout: 20_000 }).toMatch(/reloaded after greeting\.mjs \(generation 2, \d+ ms\)\n/);
    expect(await text(client)).toBe('again');
  }, TEST_MS);

  it('SIGTERM ends it (exit code 0) with its generation, the host\'s stdin still open', async () => {
    const child = spawn(process.execPath, [BIN, 'dev', module], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    cleanups.push(() => Promise.resolve(stopByPid(child)));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text; });
    await expect.poll(() => stderr, { timeout: 20_000 }).toContain('dev serving');
    expect(generationsOf(module)).toHaveLength(process.platform === 'linux' ? 1 : 0);
    child.kill('SIGTERM');
    expect(await exitWithin(child, 10_000)).toBe(0);
    expect(stderr).toMatch(/switchboard: stopped\n$/);
  }, TEST_MS);
});

