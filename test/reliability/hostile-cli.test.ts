/**
 * The built `switchboard` CLI (packages/cli/bin/switchboard.js → dist/main.js) as a child process against hostile
 * servers (test/reliability/fixtures/hostile-cli-server.mjs on stdio, hostile-cli-sse-server.mjs on HTTP):
 *
 * - terminal escapes: every string a server controls (server info, tool, resource, template and prompt names and
 *   descriptions, results, errors, logs, progress, elicitation messages, stderr lines) carries ESC/CSI/OSC
 *   sequences, BEL, CR, DEL, backspace, C1 controls (U+0080–U+009F) and bidi overrides; no such character may reach
 *   the CLI's stdout or stderr raw, in tables, text or `--json` (packages/cli/src/terminalText.ts);
 * - exit: a server that leaves a daemonized grandchild holding its stdio pipes; the CLI still exits once its work is
 *   done (main.ts), the grandchild is killed by its PID afterwards;
 * - the whole-command budget: `call --timeout-ms 3000` against a server that sends progress for ever ends by then
 *   with a clear error (commands/context.ts `withClient`);
 * - the doctor's budget holds against an HTTP server whose SSE answers are one unfinished line dribbled in small
 *   chunks (httpProbe.ts reads by the clock; commands/doctor.ts gives up on a report that does not come);
 * - a large catalog: `list` renders 50,000 tools (200,000 with STRESS=1) within its budget (output.ts `table`).
 *
 * Every process is stopped by its own PID.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../helpers/process.js';
import { EVIL } from './fixtures/hostile-cli-evil.mjs';

const STRESS = process.env['STRESS'] === '1';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const SERVER = fileURLToPath(new URL('./fixtures/hostile-cli-server.mjs', import.meta.url));
const SSE_SERVER = fileURLToPath(new URL('./fixtures/hostile-cli-sse-server.mjs', import.meta.url));

/** A character a terminal acts on: C0 but the line feed and tab (the layout of a text result), DEL, C1, bidi overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** The fixture's hostile string as the CLI shows it (terminalText): the start of its escaped form. */
const SHOWN = 'A\\x1b[31mred\\x1b[0m\\x1b]8;;https://evil.example/\\x07link';
/** …and its end: C1 controls, DEL, backspace and bidi overrides escaped. */
const SHOWN_TAIL = '\\u009b2J\\u009d0;c1 title\\u009c\\u0085\\x7fdel\\x08bs\\u202erlo\\u202c\\u2066iso\\u2069Z';

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
  /** Whether the test had to kill it at `killAfterMs`. */
  readonly killed: boolean;
}

/** Runs the built CLI; kills it by its PID after `killAfterMs`. Resolves once it exited (and its pipes drained). */
function cli(args: readonly string[], options: { readonly killAfterMs: number; readonly env?: Record<string, string> }): Promise<Ran> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }, options.killAfterMs);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      const elapsedMs = performance.now() - started;
      clearTimeout(timer);
      // Its own pipes close with it; a short wait lets the last chunks in.
      const done = (): void => resolve({ code, stdout, stderr, elapsedMs, killed });
      const late = setTimeout(done, 1000);
      child.once('close', () => {
        clearTimeout(late);
        done();
      });
    });
  });
}

const stdio = (mode: string, ...extra: string[]): string[] => ['--', process.execPath, SERVER, mode, ...extra];

function expectNoRawControls(ran: Ran): void {
  for (const [name, text] of [['stdout', ran.stdout], ['stderr', ran.stderr]] as const) {
    const at = text.search(RAW_CONTROL);
    expect(at, `${name} has a raw control character near ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`).toBe(-1);
  }
}

describe('terminal escapes from a hostile server never reach the terminal raw', () => {
  it.each([
    ['list', ['list'], { stdout: [`server ${SHOWN}`, `evil${SHOWN.slice(0, 20)}`, 'title A\\x1b', 'description A\\x1b', 'file:///evilA\\x1b', 'rdesc A\\x1b', 'tpl A\\x1b', 'prompt A\\x1b', 'arg A\\x1b'] }],
    [
      'call (results, logs, progress, elicitation, stderr lines)',
      ['call', 'EVIL_TOOL'],
      {
        stdout: [`result ${SHOWN}`, SHOWN_TAIL, 'line two\tcolumn', `[image image/${SHOWN}`, `[resource link file:///link${SHOWN}`, `(link ${SHOWN}`, `embedded ${SHOWN}`, `[kind${SHOWN}`],
        stderr: [`server stderr: stderr ${SHOWN}`, `progress 1/2 progress ${SHOWN}`, `log info [logger ${SHOWN}`, `] log ${SHOWN}`, 'log object A\\u001b[31m', `server asks: elicit ${SHOWN}`],
      },
    ],
    ['call (an error answer)', ['call', 'fail'], { stderr: [`The server answered error -32000: "error ${SHOWN}`] }],
    ['read', ['read', 'file:///x'], { stdout: [`read text ${SHOWN}`, 'line two', `[blob file:///blob${SHOWN}`, `image/${SHOWN}`] }],
    ['list --json', ['list', '--json'], { stdout: ['A\\u001b[31mred', '\\u009b2J\\u009d0;c1 title\\u009c\\u0085\\u007fdel\\bbs\\u202erlo'] }],
    ['call --json', ['call', 'fail', '--json'], { stderr: [`error ${SHOWN}`] }],
    ['read --json', ['read', 'file:///x', '--json'], { stdout: ['read text A\\u001b[31mred', '\\u009b2J'] }],
  ] as const)('%s', async (_name, args: readonly string[], expected: { readonly stdout?: readonly string[]; readonly stderr?: readonly string[] }) => {
    // EVIL_TOOL: the fixture's tool whose name carries the hostile characters.
    const argv = args.map((word) => (word === 'EVIL_TOOL' ? `evil${EVIL}` : word));
    const ran = await cli([...argv, '--era', 'legacy', '--timeout-ms', '20000', ...stdio('escape')], { killAfterMs: 30_000 });
    expectNoRawControls(ran);
    for (const text of expected.stdout ?? []) expect(ran.stdout).toContain(text);
    for (const text of expected.stderr ?? []) expect(ran.stderr).toContain(text);
    if (args[0] === 'list' && !args.includes('--json')) expect(ran.code).toBe(0);
    // --json output stays JSON (an error answer prints nothing on stdout).
    if (args.includes('--json') && ran.stdout !== '') expect(() => JSON.parse(ran.stdout) as unknown).not.toThrow();
  }, 40_000);

  it.each([
    ['doctor', []],
    ['doctor --json', ['--json']],
  ] as const)('%s (server info, findings, evidence, the --call result)', async (_name, extra) => {
    const ran = await cli(['doctor', ...extra, '--call', `evil${EVIL}`, '--timeout-ms', '30000', '--request-timeout-ms', '3000', ...stdio('escape')], { killAfterMs: 45_000 });
    expectNoRawControls(ran);
    if (extra.length === 0) expect(ran.stdout).toContain(`server ${SHOWN}`);
    else expect((JSON.parse(ran.stdout) as { server: { name: string } }).server.name).toBe(`server ${EVIL}`);
  }, 60_000);
});

describe('the CLI exits once its work is done, whatever the server leaves behind', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hostile-cli-'));
  const pidFile = path.join(dir, 'grandchildren');
  afterAll(() => {
    // Every daemonized grandchild the fixture started, by its PID.
    let pids: number[] = [];
    try {
      pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      // none started
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['doctor', ['doctor', '--timeout-ms', '20000', '--request-timeout-ms', '3000']],
    ['list', ['list', '--era', 'legacy', '--timeout-ms', '20000']],
    ['call', ['call', 'fail', '--era', 'legacy', '--timeout-ms', '20000']],
  ])('%s with a daemonized grandchild holding the server\'s stdio pipes', async (_name, args) => {
    const ran = await cli([...args, ...stdio('daemon')], { killAfterMs: 30_000, env: { HOSTILE_PID_FILE: pidFile } });
    expect(ran.killed, `still running after 30 s; stderr: ${ran.stderr.slice(-500)}`).toBe(false);
    expect(ran.code).not.toBeNull();
    const pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(pids.length).toBeGreaterThan(0);
    // The grandchild is still there (the CLI does not hunt a server's descendants): it is this test's to kill.
    expect(pids.some(isAlive)).toBe(true);
  }, 80_000);
});

describe('--timeout-ms bounds the whole command', () => {
  it('call --timeout-ms 3000 against a server that sends progress for ever ends by then with a clear error', async () => {
    const ran = await cli(['call', 'evil', '--era', 'legacy', '--timeout-ms', '3000', ...stdio('progress')], { killAfterMs: 20_000 });
    expect(ran.killed, 'still running after 20 s').toBe(false);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('switchboard: The command did not finish within its budget of 3000 ms (--timeout-ms)');
    expect(ran.stderr).toContain('progress 2 tick');
    // Closing the server is inside the budget (a quarter of it kept back); the CLI's own start and the exit after the
    // flush (200 ms) come on top: room for a loaded machine, far from "for ever".
    expect(ran.elapsedMs).toBeLessThan(3000 + 2000);
    console.log(`reliability hostile-cli call with endless progress, --timeout-ms 3000: exited after ${Math.round(ran.elapsedMs)} ms`);
  }, 30_000);

  it(`list renders a catalog of ${STRESS ? '200,000' : '50,000'} tools within its budget`, async () => {
    const size = STRESS ? 200_000 : 50_000;
    const budgetMs = STRESS ? 60_000 : 15_000;
    const ran = await cli(['list', '--era', 'legacy', '--timeout-ms', String(budgetMs), ...stdio('catalog', String(size))], { killAfterMs: budgetMs + 15_000 });
    expect(ran.killed).toBe(false);
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\n');
    expect(lines).toContain(`Tools (${size})`);
    expect(lines.filter((line) => line.startsWith('tool_')).length).toBe(size);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(ran.elapsedMs).toBeLessThan(budgetMs);
    console.log(`reliability hostile-cli list of ${size} tools: ${Math.round(ran.elapsedMs)} ms (budget ${budgetMs} ms)`);
  }, 120_000);

  it('doctor --timeout-ms 20000 against a server whose SSE answers are one unfinished line, dribbled: the report comes by then', async () => {
    // 64-byte chunks, one every turn of the fixture's event loop: faster than a client decodes them.
    const server = spawn(process.execPath, [SSE_SERVER, '64', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          const match = /listening (\S+)/.exec(text);
          if (match !== null) resolve(match[1]!);
        });
        server.once('exit', () => reject(new Error('the SSE fixture exited')));
      });
      // 20 s: the endless line must grow for a while before decoding it falls behind (an unpaced doctor took 32–60 s).
      const budgetMs = 20_000;
      const ran = await cli(['doctor', '--timeout-ms', String(budgetMs), url], { killAfterMs: budgetMs * 3 });
      expect(ran.killed).toBe(false);
      expect(ran.stdout).toContain('Verdict:');
      // The budget, the command's report grace (1 s), start-up and exit: generous room, far from "by half".
      expect(ran.elapsedMs).toBeLessThan(budgetMs + 3000);
      console.log(`reliability hostile-cli doctor on a dribbled SSE line, --timeout-ms ${budgetMs}: exited after ${Math.round(ran.elapsedMs)} ms`);
    } finally {
      if (server.pid !== undefined && server.exitCode === null) process.kill(server.pid, 'SIGKILL');
    }
  }, 80_000);

  it('list --timeout-ms 8000 over HTTP against the same dribbled SSE line ends by then with a clear error', async () => {
    const server = spawn(process.execPath, [SSE_SERVER, '64', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          const match = /listening (\S+)/.exec(text);
          if (match !== null) resolve(match[1]!);
        });
        server.once('exit', () => reject(new Error('the SSE fixture exited')));
      });
      const budgetMs = 8000;
      const ran = await cli(['list', '--era', 'legacy', '--timeout-ms', String(budgetMs), url], { killAfterMs: budgetMs * 4 });
      expect(ran.killed).toBe(false);
      expect(ran.code).toBe(1);
      // Either the budget ends it, or the line reaches the client's SSE event cap first (the decoder is linear now, so
      // on a fast machine 16 MiB arrive within the budget): a clear error by the deadline either way.
      expect(ran.stderr).toMatch(new RegExp(`switchboard: (The command did not finish within its budget of ${budgetMs} ms \\(--timeout-ms\\)|Connection closed \\(the response stream ended\\): an SSE event exceeded)`));
      // Unpaced, the client read the endless line ~1.8 s past the budget; paced, it stops by the clock.
      expect(ran.elapsedMs).toBeLessThan(budgetMs + 1500);
      console.log(`reliability hostile-cli list over a dribbled SSE line, --timeout-ms ${budgetMs}: exited after ${Math.round(ran.elapsedMs)} ms`);
    } finally {
      if (server.pid !== undefined && server.exitCode === null) process.kill(server.pid, 'SIGKILL');
    }
  }, 60_000);
});
