/**
 * Interop: the MCP Inspector CLI (@modelcontextprotocol/inspector 2.12.0, `--cli`) against the demo server in the
 * modern era (`--protocol-era modern`: 2026-07-28, no `initialize`) and with era negotiation (`--protocol-era auto`:
 * a `server/discover` probe first, which a dual-era server answers, so the modern era is chosen), over stdio (the
 * inspector spawns `main.js --stdio`) and Streamable HTTP (`main.js --port 0`). `--protocol-era legacy` is the
 * control: the same calls on a session, whose results carry no `_meta` server identity.
 *
 * The inspector writes state under `~/.mcp-inspector/`, so each run gets a temporary `HOME`. Every process is
 * stopped by its own PID: the inspector's, and each server process it spawned (their PIDs are recorded by a
 * preload, `fixtures/record-pid.mjs`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MAIN, DEMO_SERVER_INFO, ROOT, startDemoHttp, type DemoHttp } from './helpers/demoServer.js';
import { isAlive } from './helpers/process.js';

const LAUNCHER = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const PRELOAD = path.join(ROOT, 'test', 'fixtures', 'record-pid.mjs');
const INSPECTOR_MISSING = !existsSync(LAUNCHER);
/** Bound (ms) on one inspector run: it starts (or connects to) the server, makes one call and exits. */
const RUN_MS = 30_000;
const TEST_MS = 60_000;

const TOOL_NAMES = ['execute_sql', 'convert', 'get_time', 'add_numbers'];
/** `add_numbers` as the inspector prints it in the modern era: the result's `_meta` names the server. */
const MODERN_SUM = {
  result: {
    _meta: { 'io.modelcontextprotocol/serverInfo': DEMO_SERVER_INFO },
    content: [{ type: 'text', text: '5' }],
    structuredContent: { sum: 5 },
  },
};

interface InspectorRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let home = '';
let pidFile = '';
let config = '';

/** Runs the inspector CLI with `args` after `--cli`; kills it by its PID if it has not exited within {@link RUN_MS}. */
function inspector(args: readonly string[]): Promise<InspectorRun> {
  const child = spawn(process.execPath, [LAUNCHER, '--cli', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // No OS keychain here: keep its secrets in memory instead of warning about the fallback on every run.
    env: { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: 'memory' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try { process.kill(child.pid!, 'SIGKILL'); } catch { /* gone */ }
      reject(new Error(`the inspector (pid ${child.pid}) did not exit within ${RUN_MS} ms: ${stderr}`));
    }, RUN_MS);
    child.once('error', (error) => { clearTimeout(timer); reject(error); });
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** The one JSON object `--format json` prints on stdout. */
function printed(run: InspectorRun): unknown {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** The PIDs of the server processes the inspector spawned since the last call (deduplicated, in start order). */
function spawnedServers(): number[] {
  const pids = existsSync(pidFile) ? [...new Set(readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number))] : [];
  rmSync(pidFile, { force: true });
  return pids;
}

/** Waits up to `ms` for each PID to exit; kills the ones still alive by their PID and returns them. */
async function survivors(pids: readonly number[], ms = 5000): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const alive = pids.filter(isAlive);
  for (const pid of alive) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  return alive;
}

describe.skipIf(INSPECTOR_MISSING)('MCP Inspector 2.12.0 CLI against the demo server', () => {
  beforeAll(() => {
    home = mkdtempSync(path.join(tmpdir(), 'switchboard-inspector-'));
    pidFile = path.join(home, 'server-pids');
    config = path.join(home, 'servers.json');
    writeFileSync(config, JSON.stringify({
      // The inspector hands a stdio server only a few variables of its own environment, so the PID file is named here.
      mcpServers: { demo: { command: process.execPath, args: ['--import', PRELOAD, DEMO_MAIN, '--stdio'], env: { SWITCHBOARD_PID_FILE: pidFile } } },
    }));
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  describe('over stdio (the inspector spawns main.js --stdio)', () => {
    const stdio = ['--config', () => config, '--server', 'demo'] as const;
    const args = (...rest: string[]) => [...stdio.map((a) => (typeof a === 'function' ? a() : a)), ...rest, '--format', 'json'];

    for (const era of ['modern', 'auto'] as const) {
      it(`--protocol-era ${era} lists the four tools and calls add_numbers on 2026-07-28; the server exits with the inspector`, async () => {
        const listed = printed(await inspector(args('--protocol-era', era, '--method', 'tools/list'))) as { result: { tools: { name: string }[] } };
        expect(Object.keys(listed)).toEqual(['result']);
        expect(listed.result.tools.map((t) => t.name)).toEqual(TOOL_NAMES);
        expect(listed.result.tools[3]).toEqual({
          name: 'add_numbers',
          title: 'Add two numbers',
          description: 'Adds a and b.',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { a: { type: 'number', description: 'First addend' }, b: { type: 'number', description: 'Second addend' } },
            required: ['a', 'b'],
          },
          outputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
          annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        });
        const called = await inspector(args('--protocol-era', era, '--method', 'tools/call', '--tool-name', 'add_numbers', '--tool-args-json', '{"a":2,"b":3}'));
        expect(printed(called)).toEqual(MODERN_SUM);
        const servers = spawnedServers();
        // modern: one server per run; auto may probe on a short-lived sibling process first.
        console.error('SERVERS', era, servers);
        expect(servers.length).toBeGreaterThanOrEqual(2);
        expect(await survivors(servers)).toEqual([]);
      }, TEST_MS);
    }

    it('--protocol-era modern: a tool error (isError) is exit code 5 with the inspector\'s error envelope on stderr', async () => {
      const run = await inspector(args('--protocol-era', 'modern', '--method', 'tools/call', '--tool-name', 'convert', '--tool-args-json', '{"value":1,"from":"km","to":"kg"}'));
      expect(run.code).toBe(5);
      expect(JSON.parse(run.stdout)).toEqual({
        result: {
          _meta: { 'io.modelcontextprotocol/serverInfo': DEMO_SERVER_INFO },
          content: [{ type: 'text', text: 'Cannot convert "km" (length) to "kg" (mass)' }],
          isError: true,
        },
      });
      expect(run.stderr.split('\n')).toContain(JSON.stringify({ error: { code: 'tool_is_error', message: "Tool 'convert' returned isError:true." } }));
      expect(await survivors(spawnedServers())).toEqual([]);
    }, TEST_MS);

    it('--protocol-era legacy (the control): the same call on a session has no _meta server identity', async () => {
      const run = await inspector(args('--protocol-era', 'legacy', '--method', 'tools/call', '--tool-name', 'add_numbers', '--tool-args-json', '{"a":2,"b":3}'));
      expect(printed(run)).toEqual({ result: { content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } } });
      expect(await survivors(spawnedServers())).toEqual([]);
    }, TEST_MS);
  });

  describe('over Streamable HTTP (main.js --port 0 on 127.0.0.1)', () => {
    let demo: DemoHttp | undefined;

    beforeAll(async () => {
      demo = await startDemoHttp();
    });

    afterAll(async () => {
      expect(await demo?.stop()).toBe(0);
    });

    for (const era of ['modern', 'auto'] as const) {
      it(`--protocol-era ${era} lists the four tools and calls add_numbers on 2026-07-28`, async () => {
        const target = [demo!.url, '--transport', 'http', '--protocol-era', era, '--format', 'json'];
        const listed = printed(await inspector([...target, '--method', 'tools/list'])) as { result: { tools: { name: string }[] } };
        expect(listed.result.tools.map((t) => t.name)).toEqual(TOOL_NAMES);
        expect(printed(await inspector([...target, '--method', 'tools/call', '--tool-name', 'add_numbers', '--tool-args-json', '{"a":2,"b":3}'])))
          .toEqual(MODERN_SUM);
        expect(printed(await inspector([...target, '--method', 'tools/call', '--tool-name', 'convert', '--tool-arg', 'value=100', 'from=C', 'to=F'])))
          .toEqual({ result: { _meta: { 'io.modelcontextprotocol/serverInfo': DEMO_SERVER_INFO }, content: [{ type: 'text', text: '100 C = 212 F' }] } });
      }, TEST_MS);
    }

    it('--protocol-era legacy (the control) still gets a session on the same endpoint', async () => {
      const run = await inspector([demo!.url, '--transport', 'http', '--protocol-era', 'legacy', '--format', 'json',
        '--method', 'tools/call', '--tool-name', 'add_numbers', '--tool-args-json', '{"a":2,"b":3}']);
      expect(printed(run)).toEqual({ result: { content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } } });
    }, TEST_MS);
  });
});

describe.runIf(INSPECTOR_MISSING)('MCP Inspector 2.12.0 CLI', () => {
  it.skip('skipped: @modelcontextprotocol/inspector is not installed', () => {});
});
