/**
 * docs/guide.md is real code. Every code block in it is a file under docs/guide/ or one `#region` of such a file
 * (marked `<!-- include: path#region -->` above the block), and this test checks that they are identical. It then
 * does what the guide tells the reader to do: lays out their project (the .ts files and tsconfig.json), runs the
 * guide's own shell commands (`npm run build`, the stdio one-liner, `node build/http.js`), and drives the result with
 * the official SDK client (@modelcontextprotocol/sdk 1.32.2) over stdio (launched as the host configurations say),
 * Streamable HTTP and the Web `fetch` handler. The outputs the guide shows (docs/guide/output/) are compared with
 * what the server really sends.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { z } from 'zod';
import { connectRawClient, type RawClient } from '@switchboard/mcp/testing';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { excerpt, guideBlocks } from '../scripts/guide-blocks.mjs';
import { createServer } from '../docs/guide/server.js';
import worker from '../docs/guide/worker.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GUIDE = path.join(ROOT, 'docs', 'guide.md');
const FILES = path.join(ROOT, 'docs', 'guide');
/**
 * The reader's project folder, rebuilt from docs/guide/ outside the repository (so no repository configuration
 * applies to it, vitest's included), with `node_modules` linked to the workspace's: `@switchboard/*` resolve to
 * `packages/`, as the installed tarballs would.
 */
let PROJECT = ''; // made in the project suite's beforeAll, removed in its afterAll

// ---------------------------------------------------------------------------------------------------------
// Blocks and regions

const blocksOfGuide = () => guideBlocks(readFileSync(GUIDE, 'utf8'));

/** Every `#region` name of every file under docs/guide/. */
function allRegions(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else for (const m of readFileSync(full, 'utf8').matchAll(/#region (\S+)/g)) found.push(`${path.relative(ROOT, full)}#${m[1]!}`);
    }
  };
  walk(FILES);
  return found;
}

const outputJson = (name: string): unknown => JSON.parse(readFileSync(path.join(FILES, 'output', name), 'utf8'));
const outputLines = (name: string): unknown[] =>
  readFileSync(path.join(FILES, 'output', name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);

describe('docs/guide.md and docs/guide/', () => {
  it('every code block is a file under docs/guide/ or one of its regions, verbatim', () => {
    const blocks = blocksOfGuide();
    expect(blocks.length).toBeGreaterThan(20);
    for (const block of blocks) {
      expect(block.include, `guide.md line ${block.line}: code block without an include marker`).toMatch(/^docs\/guide\//);
      const [file, name] = block.include!.split('#') as [string, string | undefined];
      expect(block.body, `guide.md line ${block.line} differs from ${block.include!} (node scripts/guide-blocks.mjs --write updates it)`).toBe(excerpt(file, name));
    }
  });

  it('every region of docs/guide/ is shown in the guide', () => {
    const shown = new Set(blocksOfGuide().map((b) => b.include));
    expect(allRegions().filter((r) => !shown.has(r))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The reader's project, built and run as the guide says

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function stopByPid(child: ChildProcess | undefined): void {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null && isAlive(child.pid)) {
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

function exitCode(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${ms} ms`)), ms);
    child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
}

/** Runs `node build/<file>` in the project (PORT=0 by default); resolves with the child and its first stderr line. */
function startNode(file: string, port = 0): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [`build/${file}`], { cwd: PROJECT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`build/${file} printed no line within 10 s: ${stderr}`)), 10_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const nl = stderr.indexOf('\n');
      if (nl !== -1) { clearTimeout(timer); resolve({ child, line: stderr.slice(0, nl) }); }
    });
    child.once('exit', (code) => reject(new Error(`build/${file} exited with ${code}: ${stderr}`)));
  });
}

/** A plain HTTP POST of an initialize request with the given headers; resolves with the status. */
function postInitialize(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => { res.resume(); resolve(res.statusCode!); });
    req.once('error', reject);
    req.end(body);
  });
}

/** An SDK client plus what its handlers saw. */
interface Host {
  readonly client: Client;
  readonly elicitations: ElicitRequest['params'][];
  readonly samplings: CreateMessageRequest['params'][];
  readonly logs: LoggingMessageNotification['params'][];
}

function newHost(capabilities: { elicitation?: Record<string, never>; sampling?: Record<string, never> }): Host {
  const client = new Client({ name: 'guide-test-host', version: '1.0.0' }, { capabilities });
  const host: Host = { client, elicitations: [], samplings: [], logs: [] };
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      host.elicitations.push(request.params);
      return { action: 'accept', content: { city: 'Oslo' } };
    });
  }
  if (capabilities.sampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      host.samplings.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'A warm coat and boots.' }, model: 'test-model' };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { host.logs.push(n.params); });
  return host;
}

const text = (t: string, isError?: true): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError } : {}) });

describe('the reader\'s project', () => {
  beforeAll(() => {
    PROJECT = mkdtempSync(path.join(os.tmpdir(), 'switchboard-guide-'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(PROJECT, 'node_modules'), 'dir');
    for (const name of readdirSync(FILES)) if (name.endsWith('.ts') || name === 'tsconfig.json') copyFileSync(path.join(FILES, name), path.join(PROJECT, name));
    // What `npm init -y` + the guide's `npm pkg set` leave behind (the dependencies resolve from the workspace).
    writeFileSync(path.join(PROJECT, 'package.json'), JSON.stringify({ name: 'weather', version: '1.0.0', type: 'module', scripts: { build: 'tsc', test: 'vitest run' } }, null, 2));
    const build = spawnSync('sh', ['-c', excerpt('docs/guide/commands.sh', 'build')], { cwd: PROJECT, encoding: 'utf8', timeout: 120_000 });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  }, 150_000);

  afterAll(() => { if (PROJECT !== '') rmSync(PROJECT, { recursive: true, force: true }); });

  it('the stdio one-liner prints the initialize result, then the answer the guide shows', () => {
    const run = spawnSync('sh', ['-c', excerpt('docs/guide/commands.sh', 'try-stdio')], { cwd: PROJECT, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id?: unknown; result?: { serverInfo?: unknown } });
    expect(lines).toHaveLength(2);
    expect(lines[0]!.id).toBe(1);
    expect(lines[0]!.result!.serverInfo).toEqual({ name: 'weather', version: '1.0.0' });
    expect(lines.slice(1)).toEqual(outputLines('try-stdio.jsonl'));
    expect(run.stderr).toContain('weather: serving MCP on stdio');
  });

  it('npm test runs the reader\'s server.test.ts: 2 passed', () => {
    const run = spawnSync('sh', ['-c', excerpt('docs/guide/commands.sh', 'test')], { cwd: PROJECT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', CI: '1' } });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Tests\s+2 passed \(2\)/);
    expect(run.stdout).toContain('server.test.ts');
  }, 150_000);

  it('under serveStdio, a stray console.log in a handler goes to stderr, and stdout stays MCP only', () => {
    writeFileSync(path.join(PROJECT, 'chatty.mjs'), [
      "import { serveStdio } from '@switchboard/mcp/stdio';",
      "import { createServer } from './build/server.js';",
      'const server = createServer();',
      "server.tool('chatty', {}, () => { console.log('a stray debug print'); return { content: [{ type: 'text', text: 'ok' }] }; });",
      'await serveStdio(server);',
    ].join('\n'));
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatty', arguments: {} } },
    ].map((m) => JSON.stringify(m) + '\n').join('');
    const run = spawnSync(process.execPath, ['chatty.mjs'], { cwd: PROJECT, input, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: text('ok') });
    expect(lines).toHaveLength(2);
    expect(run.stderr).toContain('a stray debug print');
  });

  describe('over stdio, launched as the Claude Desktop configuration says, with a host that can elicit and sample', () => {
    let host: Host;
    let transport: StdioClientTransport;
    let stderr = '';

    beforeAll(async () => {
      const config = JSON.parse(readFileSync(path.join(FILES, 'claude_desktop_config.json'), 'utf8')) as { mcpServers: { weather: { command: string; args: string[] } } };
      const { command, args } = config.mcpServers.weather;
      transport = new StdioClientTransport({ command, args: args.map((a) => a.replace('/absolute/path/to/weather', PROJECT)), stderr: 'pipe' });
      transport.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
      host = newHost({ elicitation: {}, sampling: {} });
      await host.client.connect(transport);
    });

    afterAll(async () => {
      const pid = transport.pid;
      await host.client.close();
      if (pid !== null && isAlive(pid)) process.kill(pid, 'SIGKILL');
    });

    it('lists the tools of the guide', async () => {
      const { tools } = await host.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['forecast', 'to_fahrenheit', 'current', 'week', 'set_home', 'advice', 'station']);
      expect(tools[0]).toEqual(outputJson('forecast-descriptor.json'));
    });

    it('set_home asks the user through elicitation', async () => {
      expect(await host.client.callTool({ name: 'set_home', arguments: {} })).toEqual(text('Home city set to Oslo'));
      expect(host.elicitations).toEqual([{
        message: 'Which city do you live in?',
        requestedSchema: { type: 'object', properties: { city: { type: 'string', enum: ['Lisbon', 'London', 'Oslo'] } }, required: ['city'] },
      }]);
    });

    it('advice asks the host\'s model through sampling', async () => {
      expect(await host.client.callTool({ name: 'advice', arguments: { city: 'Oslo' } })).toEqual(text('A warm coat and boots.'));
      expect(host.samplings).toEqual([{
        messages: [{ role: 'user', content: { type: 'text', text: 'Oslo: snow, -3 °C. In one sentence, what should I wear?' } }],
        maxTokens: 60,
      }]);
    });

    it('week reports progress 1..7 of 7 and logs each day; the level set with logging/setLevel filters the logs', async () => {
      const progress: Progress[] = [];
      const result = await host.client.callTool({ name: 'week', arguments: { city: 'Oslo' } }, undefined, { onprogress: (p) => { progress.push(p); } });
      expect(result).toEqual(text(Array.from({ length: 7 }, (_, i) => `day ${i + 1}: snow`).join('\n')));
      // SDK 1.32.2 drops a progress notification that arrives in the same stdout chunk as the response (it removes
      // the progress handler first), so the last one may be missing here; the wire test below sees all seven.
      expect(progress.length).toBeGreaterThanOrEqual(6);
      expect(progress).toEqual(Array.from({ length: 7 }, (_, i) => ({ progress: i + 1, total: 7, message: `Oslo: day ${i + 1} of 7` })).slice(0, progress.length));
      // The SDK runs notification handlers asynchronously: the last log can land just after the result.
      await expect.poll(() => host.logs).toEqual(Array.from({ length: 7 }, (_, i) => ({ level: 'debug', data: { city: 'Oslo', day: i + 1 } })));
      await host.client.setLoggingLevel('info');
      await host.client.callTool({ name: 'week', arguments: { city: 'Lisbon' } });
      await host.client.ping(); // one more round trip, so a log sent in spite of the level would have arrived
      expect(host.logs).toHaveLength(7);
    });

    it('station hides the unexpected exception from the client and logs it on the server\'s stderr', async () => {
      expect(await host.client.callTool({ name: 'station', arguments: { id: 'OSLO' } })).toEqual(text('Tool "station" failed: internal error', true));
      await expect.poll(() => stderr).toContain('weather error: Tool "station" failed');
      expect(stderr).toContain('connect ECONNREFUSED 10.0.0.7:5432 (station OSLO)');
    });
  });

  describe('over stdio, launched as the VS Code configuration says, with a host that can neither elicit nor sample', () => {
    let host: Host;
    let transport: StdioClientTransport;

    beforeAll(async () => {
      const config = JSON.parse(readFileSync(path.join(FILES, '.vscode', 'mcp.json'), 'utf8')) as { servers: { weather: { type: string; command: string; args: string[] } } };
      const { type, command, args } = config.servers.weather;
      expect(type).toBe('stdio');
      transport = new StdioClientTransport({ command, args: args.map((a) => a.replace('${workspaceFolder}', PROJECT)), stderr: 'pipe' });
      host = newHost({});
      await host.client.connect(transport);
    });

    afterAll(async () => {
      const pid = transport.pid;
      await host.client.close();
      if (pid !== null && isAlive(pid)) process.kill(pid, 'SIGKILL');
    });

    it('set_home answers with a tool error instead of eliciting', async () => {
      expect(await host.client.callTool({ name: 'set_home', arguments: {} })).toEqual(
        text('This client cannot ask the user; call "forecast" with a city instead', true),
      );
    });

    it('advice falls back to plain text instead of sampling', async () => {
      expect(await host.client.callTool({ name: 'advice', arguments: { city: 'Oslo' } })).toEqual(text('Oslo: snow, -3 °C. Dress for it.'));
    });
  });

  describe('over Streamable HTTP: node build/http.js', () => {
    let child: ChildProcess | undefined;
    afterAll(() => stopByPid(child));

    it('prints its URL on stderr, serves the SDK client, and exits with 0 on SIGTERM', async () => {
      expect(excerpt('docs/guide/commands.sh', 'http')).toBe('node build/http.js');
      const started = await startNode('http.js');
      child = started.child;
      const url = /(http:\/\/\S+)/.exec(started.line)![1]!;
      expect(started.line.replace(/:\d+\/mcp/, ':3000/mcp')).toBe(readFileSync(path.join(FILES, 'output', 'http.txt'), 'utf8').trim());
      const host = newHost({});
      await host.client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(await host.client.callTool({ name: 'current', arguments: { city: 'Lisbon' } })).toEqual(outputJson('current.json'));
      await host.client.close();
      // Origin: the server's own origin passes, another gets 403 (Host is 127.0.0.1:<port> here).
      const port = new URL(url).port;
      expect(await postInitialize(url, { origin: `http://127.0.0.1:${port}` })).toBe(200);
      expect(await postInitialize(url, { origin: 'http://evil.example' })).toBe(403);
      expect(await postInitialize(url, { host: 'evil.example' })).toBe(403);
      // A second server on the same port: AddressInUseError, uncaught, so Node prints it and exits with 1.
      const second = spawnSync(process.execPath, ['build/http.js'], { cwd: PROJECT, env: { ...process.env, PORT: port }, encoding: 'utf8', timeout: 10_000 });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`AddressInUseError: Port ${port} on 127.0.0.1 is in use`);
      process.kill(child.pid!, 'SIGTERM');
      expect(await exitCode(child, 10_000)).toBe(0);
    });

    it('the VS Code HTTP entry points at the URL http.js prints with its default port', () => {
      const config = JSON.parse(readFileSync(path.join(FILES, '.vscode', 'mcp.json'), 'utf8')) as { servers: Record<string, { type: string; url?: string }> };
      expect(config.servers['weather-http']).toEqual({ type: 'http', url: /(http:\/\/\S+)/.exec(readFileSync(path.join(FILES, 'output', 'http.txt'), 'utf8'))![1] });
    });
  });

  describe('behind a proxy: node build/proxy.js', () => {
    let child: ChildProcess | undefined;
    afterAll(() => stopByPid(child));

    it('answers the public Host name and the allowed Origin, and refuses others with 403', async () => {
      const started = await startNode('proxy.js');
      child = started.child;
      const url = /(http:\/\/\S+)/.exec(started.line)![1]!.replace(/,$/, '');
      expect(await postInitialize(url, { host: 'weather.example.com' })).toBe(200);
      expect(await postInitialize(url, { host: 'weather.example.com', origin: 'https://app.example.com' })).toBe(200);
      expect(await postInitialize(url, { host: 'evil.example' })).toBe(403);
      expect(await postInitialize(url, { host: 'weather.example.com', origin: 'https://evil.example' })).toBe(403);
      expect(await postInitialize(url, { host: 'weather.example.com', origin: 'null' })).toBe(403);
      // trustProxy: the public page itself is same-origin when the proxy says the client used https.
      expect(await postInitialize(url, { host: 'weather.example.com', origin: 'https://weather.example.com', 'x-forwarded-proto': 'https' })).toBe(200);
      expect(await postInitialize(url, { host: 'weather.example.com', origin: 'https://weather.example.com' })).toBe(403);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// The install recipe: one, shared by the README and the guide

describe('the install recipe', () => {
  it('the README gives the guide\'s pack step verbatim, and both install the five tarballs npm pack makes (the CLI needs the gateway and the dashboard)', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(excerpt('docs/guide/commands.sh', 'pack'));
    const tarballs = ['jsonrpc', 'mcp', 'gateway', 'dashboard', 'cli'].map((dir) => {
      const pkg = JSON.parse(readFileSync(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { name: string; version: string };
      return `/tmp/switchboard/${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`; // npm pack's file name
    });
    const named = (text: string): string[] => [...text.matchAll(/\/tmp\/switchboard\/\S+\.tgz/g)].map((m) => m[0]).sort();
    expect(named(excerpt('docs/guide/commands.sh', 'project'))).toEqual([...tarballs].sort());
    const readmeInstall = /```sh\n(npm install \/tmp\/switchboard\/[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(named(readmeInstall)).toEqual([...tarballs].sort());
    expect(excerpt('docs/guide/commands.sh', 'pack')).toMatch(/-w packages\/jsonrpc -w packages\/mcp -w packages\/gateway -w packages\/dashboard -w packages\/cli \\\n {2}--pack-destination \/tmp\/switchboard$/);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The command line and McpClient on the reader's own server (the guide's last sections)

/** Runs a guide command in `cwd` with `sh`, detached in its own process group (so that `npx`'s children stop with it). */
function startShell(command: string, cwd: string, env: Record<string, string> = {}): { child: ChildProcess; stderr: () => string; stdout: () => string } {
  const child = spawn('sh', ['-c', command], { cwd, detached: true, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { err += chunk; });
  return { child, stderr: () => err, stdout: () => out };
}

function stopGroup(child: ChildProcess | undefined): void {
  if (child?.pid === undefined) return;
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
}

/** A guide command run to its end in `cwd`. */
function runShell(command: string, cwd: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1', ...env } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the reader\'s project with the switchboard command line and McpClient', () => {
  let project = '';
  const started: ChildProcess[] = [];

  beforeAll(() => {
    project = mkdtempSync(path.join(os.tmpdir(), 'switchboard-guide-cli-'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    for (const name of readdirSync(FILES)) if (name.endsWith('.ts') || name === 'tsconfig.json') copyFileSync(path.join(FILES, name), path.join(project, name));
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'weather', version: '1.0.0', type: 'module', scripts: { build: 'tsc', test: 'vitest run' } }, null, 2));
    const build = runShell(excerpt('docs/guide/commands.sh', 'build'), project);
    expect(build.status, build.stdout + build.stderr).toBe(0);
  }, 150_000);

  afterAll(() => {
    for (const child of started) stopGroup(child);
    if (project !== '') rmSync(project, { recursive: true, force: true });
  });

  it('server.ts has a default export that serve, dev and install accept (a function returning the server)', async () => {
    const loaded = (await import('../docs/guide/server.js')).default;
    expect(loaded).toBe(createServer);
  });

  it('doctor on the stdio entry point finds nothing above info: exit 0', () => {
    const run = runShell(excerpt('docs/guide/commands.sh', 'doctor'), project);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('weather 1.0.0');
  }, 90_000);

  it('tsc --watch and dev: list and call reach the server, an edit of server.ts is served without a restart, and a stopped server is "Nothing listens at"', async () => {
    const watch = startShell(excerpt('docs/guide/commands.sh', 'watch'), project);
    started.push(watch.child);
    const dev = startShell(excerpt('docs/guide/commands.sh', 'dev').replace('--port 3000', '--port 0'), project);
    started.push(dev.child);
    await expect.poll(() => dev.stderr(), { timeout: 30_000 }).toMatch(/http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(dev.stderr())![1]!;
    const onUrl = (region: string): string => excerpt('docs/guide/commands.sh', region).replace('http://127.0.0.1:3000/mcp', url);

    const list = runShell(onUrl('list'), project);
    expect(list.status, list.stderr).toBe(0);
    for (const tool of ['forecast', 'to_fahrenheit', 'current', 'week', 'set_home', 'advice', 'station']) expect(list.stdout).toContain(tool);
    const call = runShell(onUrl('call'), project);
    expect({ status: call.status, stdout: call.stdout }, call.stderr).toEqual({ status: 0, stdout: readFileSync(path.join(FILES, 'output', 'call.txt'), 'utf8') });

    // The edit-reload loop: save server.ts, tsc --watch compiles it into build/, dev serves the new code.
    const source = path.join(project, 'server.ts');
    writeFileSync(source, readFileSync(source, 'utf8').replace("Oslo: { tempC: -3, sky: 'snow' }", "Oslo: { tempC: -1, sky: 'sleet' }"));
    await expect.poll(() => runShell(onUrl('call'), project).stdout, { timeout: 60_000, interval: 1000 }).toBe('Oslo, next 1 day(s): sleet, -1 °C\n');

    stopGroup(dev.child);
    stopGroup(watch.child);
    await expect.poll(() => runShell(onUrl('call'), project).stderr, { timeout: 10_000, interval: 500 }).toContain(`Nothing listens at ${url} (connection refused)`);
    writeFileSync(source, readFileSync(path.join(FILES, 'server.ts'), 'utf8'));
    expect(runShell(excerpt('docs/guide/commands.sh', 'build'), project).status).toBe(0);
  }, 150_000);

  it('install --host claude-desktop checks that it starts and writes "weather" (its serverInfo.name); the entry serves the module', async () => {
    const home = path.join(project, 'home');
    const run = runShell(excerpt('docs/guide/commands.sh', 'install'), project, { HOME: home });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('started: weather 1.0.0');
    const config = JSON.parse(readFileSync(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(Object.keys(config.mcpServers)).toEqual(['weather']);
    const { command, args } = config.mcpServers.weather!;
    expect(args.slice(1)).toEqual(['serve', path.join(project, 'build', 'server.js')]);
    // What the host does with the entry, from another folder.
    const host = newHost({});
    await host.client.connect(new StdioClientTransport({ command, args, cwd: os.tmpdir(), stderr: 'pipe' }));
    expect(await host.client.callTool({ name: 'to_fahrenheit', arguments: { celsius: 20 } })).toEqual(text('68 °F'));
    await host.client.close();
  }, 60_000);

  it('client.ts: McpClient starts the server, lists and calls it, as output/client.txt shows', () => {
    const run = runShell(excerpt('docs/guide/commands.sh', 'client'), project);
    expect({ status: run.status, stdout: run.stdout }, run.stderr).toEqual({ status: 0, stdout: readFileSync(path.join(FILES, 'output', 'client.txt'), 'utf8') });
  }, 30_000);
});

// ---------------------------------------------------------------------------------------------------------
// The Web fetch handler, in this process

describe('docs/guide/worker.ts: export default { fetch }', () => {
  it('serves the SDK client at its public host name', async () => {
    const host = newHost({});
    const fetchLike = (input: string | URL, init?: RequestInit) => worker.fetch(new Request(input, init));
    await host.client.connect(new StreamableHTTPClientTransport(new URL('https://weather.example.com/mcp'), { fetch: fetchLike }));
    expect(await host.client.callTool({ name: 'to_fahrenheit', arguments: { celsius: 20 } })).toEqual(text('68 °F'));
    await host.client.close();
  });

  it('refuses another Host with 403', async () => {
    const response = await worker.fetch(new Request('https://weather.other.example/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    }));
    expect(response.status).toBe(403);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The wire messages the guide shows, from a raw in-memory client

describe('the wire messages shown in the guide', () => {
  let client: RawClient;
  beforeAll(async () => {
    client = await connectRawClient(createServer());
    await client.initialize();
  });
  afterAll(() => client.close());

  it('output/forecast-descriptor.json is the forecast entry of tools/list', async () => {
    const response = await client.request(1, 'tools/list');
    expect((response as { result: { tools: unknown[] } }).result.tools[0]).toEqual(outputJson('forecast-descriptor.json'));
  });

  it('output/current.json is the result of current for Lisbon', async () => {
    expect(await client.request(2, 'tools/call', { name: 'current', arguments: { city: 'Lisbon' } })).toEqual({ jsonrpc: '2.0', id: 2, result: outputJson('current.json') });
  });

  it('output/errors.jsonl: tool error, hidden exception, invalid arguments, unknown tool', async () => {
    expect([
      await client.request(3, 'tools/call', { name: 'station', arguments: { id: 'x' } }),
      await client.request(4, 'tools/call', { name: 'station', arguments: { id: 'OSLO' } }),
      await client.request(5, 'tools/call', { name: 'forecast', arguments: { city: 'Oslo', days: 9 } }),
      await client.request(6, 'tools/call', { name: 'forcast', arguments: { city: 'Oslo' } }),
    ]).toEqual(outputLines('errors.jsonl'));
  });

  it('output/resources.jsonl: a template read, and a city the template does not know', async () => {
    expect([
      await client.request(7, 'resources/read', { uri: 'weather://forecast/Oslo' }),
      await client.request(8, 'resources/read', { uri: 'weather://forecast/Paris' }),
    ]).toEqual(outputLines('resources.jsonl'));
  });

  it('the static resource lists the cities', async () => {
    expect(await client.request('cities', 'resources/read', { uri: 'weather://cities' })).toEqual({
      jsonrpc: '2.0', id: 'cities', result: { contents: [{ uri: 'weather://cities', mimeType: 'application/json', text: '["Lisbon","London","Oslo"]' }] },
    });
  });

  it('output/complete.jsonl: completing the city argument of packing_list', async () => {
    const [request, response] = outputLines('complete.jsonl') as [{ id: number; method: string; params: unknown }, unknown];
    expect(await client.request(request.id, request.method, request.params)).toEqual(response);
  });

  it('packing_list builds its message; a missing required argument is a protocol error', async () => {
    expect(await client.request('p1', 'prompts/get', { name: 'packing_list', arguments: { city: 'Oslo', nights: '3' } })).toEqual({
      jsonrpc: '2.0', id: 'p1', result: { messages: [{ role: 'user', content: { type: 'text', text: 'I am going to Oslo for 3 nights. What should I pack?' } }] },
    });
    expect(await client.request('p2', 'prompts/get', { name: 'packing_list', arguments: {} })).toEqual({
      jsonrpc: '2.0', id: 'p2', error: { code: -32602, message: 'Invalid params: missing required argument "city" of prompt "packing_list"' },
    });
  });

  it('output/progress.jsonl: the first notifications of week with a progress token', async () => {
    const response = await client.request(10, 'tools/call', { name: 'week', arguments: { city: 'Oslo' }, _meta: { progressToken: 'week-1' } });
    expect((response as { result: unknown }).result).toEqual(text(Array.from({ length: 7 }, (_, i) => `day ${i + 1}: snow`).join('\n')));
    const notifications = client.received.filter((m) => 'method' in m && !('id' in m));
    expect(notifications.slice(0, 2)).toEqual(outputLines('progress.jsonl'));
    expect(notifications).toEqual(Array.from({ length: 7 }, (_, i) => [
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'week-1', progress: i + 1, total: 7, message: `Oslo: day ${i + 1} of 7` } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: { city: 'Oslo', day: i + 1 } } },
    ]).flat());
  });

  it('a URI no resource or template matches gets -32002 too', async () => {
    expect(await client.request('r1', 'resources/read', { uri: 'weather://nowhere' })).toEqual({
      jsonrpc: '2.0', id: 'r1', error: { code: -32002, message: 'Resource not found: "weather://nowhere"', data: { uri: 'weather://nowhere' } },
    });
  });

});

// ---------------------------------------------------------------------------------------------------------
// Claims the guide makes in prose, checked on the guide's server (or a bare one) with one extra definition each

describe('what the guide says in prose', () => {
  const silent = { error() {}, warn() {}, info() {}, debug() {} };

  it('ctx.sample and ctx.elicit without the client capability reject with a local MissingClientCapabilityError, send nothing, and the escaping one is a tool error naming the capability', async () => {
    const server = createServer();
    const seen: unknown[] = [];
    server.tool('unchecked', {}, async (_args, ctx) => {
      await ctx.elicit({ message: 'x' }).catch((error: unknown) => { seen.push(error); });
      await ctx.sample({ messages: [], maxTokens: 1 });
      return text('unreachable');
    });
    const raw = await connectRawClient(server);
    await raw.initialize();
    const response = await raw.request(1, 'tools/call', { name: 'unchecked', arguments: {} });
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'Tool "unchecked" failed: the client did not declare the "sampling" capability' }], isError: true },
    });
    expect(seen).toEqual([expect.objectContaining({ name: 'MissingClientCapabilityError', code: -32021, requiredCapabilities: { elicitation: {} } })]);
    expect(raw.received.filter((m) => 'method' in m)).toEqual([]);
    await raw.close();
  });

  it('a structuredContent that does not match the outputSchema is a -32603 Internal error, logged', async () => {
    const errors: string[] = [];
    const logged = new McpServer({ name: 'w', version: '1' }, { logger: { ...silent, error: (m: string) => { errors.push(m); } } });
    logged.tool('bad', { outputSchema: { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] } as const }, () => ({
      content: [], structuredContent: { tempC: 'warm' },
    }) as never);
    const bad = await connectRawClient(logged);
    await bad.initialize();
    expect(await bad.request(1, 'tools/call', { name: 'bad', arguments: {} })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(errors).toEqual([expect.stringContaining('Tool "bad" returned structuredContent that does not match its outputSchema')]);
    await bad.close();
  });

  it('an exception in a resource or prompt handler is -32603 Internal error without its text', async () => {
    const server = new McpServer({ name: 'w', version: '1' }, { logger: silent });
    server.resource('weather://broken', { name: 'broken' }, () => { throw new Error('secret detail'); });
    server.prompt('broken', {}, () => { throw new Error('secret detail'); });
    const raw = await connectRawClient(server);
    await raw.initialize();
    expect(await raw.request(1, 'resources/read', { uri: 'weather://broken' })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(await raw.request(2, 'prompts/get', { name: 'broken' })).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } });
    await raw.close();
  });

  it('handler arguments and results are typed from the schemas (checked by tsc -p tsconfig.check.json)', () => {
    const server = createServer();
    server.tool('typed_args', { inputSchema: z.object({ city: z.string() }) }, ({ city }) => {
      // @ts-expect-error city is a string, inferred from the zod schema
      const wrong: number = city;
      return text(String(wrong));
    });
    server.tool('typed_json_args', { inputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] } as const }, ({ celsius }) => {
      // @ts-expect-error celsius is a number, inferred from the as-const JSON Schema
      const wrong: string = celsius;
      return text(wrong);
    });
    // Inline in the call, a JSON Schema is typed literally without `as const`; from a plain variable it widens.
    server.tool('inline_json_args', { inputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] } }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ celsius: number; [key: string]: unknown }>();
      return text('');
    });
    const widened = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] };
    server.tool('widened_json_args', { inputSchema: widened }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      return text('');
    });
    // @ts-expect-error structuredContent must match the outputSchema: tempC is a number
    server.tool('typed_result', { outputSchema: z.object({ tempC: z.number() }) }, () => ({ content: [], structuredContent: { tempC: 'warm' } }));
    server.resourceTemplate('weather://typed/{city}', { name: 'typed' }, (uri, { city }) => {
      const name: string = city; // a string, from the template text
      return { contents: [{ uri, text: name }] };
    });
    expect(true).toBe(true);
  });

  it('server.tool throws a TypeError for an input schema whose root is not type "object"', () => {
    expect(() => createServer().tool('bad', { inputSchema: { type: 'string' } }, () => text(''))).toThrow(TypeError);
  });
});
