/**
 * The `switchboard` CLI's server commands, in-process through `run(argv, io)`, against our own demo server over
 * stdio (examples/demo/main.js --stdio, a child process) and over Streamable HTTP (`serveHttp` on 127.0.0.1:0),
 * in both eras: what is printed, on which stream, and the exit code.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoDatabase } from '../examples/demo/database.js';
import { createDemoServer } from '../examples/demo/server.js';
import { captureIo, type CliIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DEMO = ['--', process.execPath, path.join(ROOT, 'examples', 'demo', 'main.js'), '--stdio'];
const TEST_MS = 30_000;

function io(extra: Partial<Omit<CliIo, 'stdout' | 'stderr'>> = {}) {
  return captureIo({ env: { PATH: process.env.PATH }, cwd: ROOT, home: ROOT, ...extra });
}

let http: ServeHttpHandle;
let db: Awaited<ReturnType<typeof openDemoDatabase>>;
beforeAll(async () => {
  db = await openDemoDatabase();
  http = await serveHttp({ server: createDemoServer(db), host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await http.close({ drainMs: 0 });
  db.close();
});

describe('switchboard list', () => {
  it.each([
    ['auto', 'modern (stateless)', '2026-07-28'],
    ['legacy', 'legacy (session)', '2025-11-25'],
  ])('over stdio with --era %s: the era and revision, then the four tables', async (era, said, revision) => {
    const cli = io();
    expect(await run(['list', '--era', era, ...DEMO], cli)).toBe(0);
    const out = cli.out().split('\n');
    expect(out[0]).toBe(`switchboard-demo 1.0.0 · era ${said} · revision ${revision} · stdio`);
    expect(out).toContain('Tools (4)');
    expect(out.find((line) => line.startsWith('add_numbers'))).toMatch(/^add_numbers\s+Add two numbers\s+Adds a and b\.$/);
    expect(out).toContain('Resource templates (1)');
    expect(out.find((line) => line.startsWith('code_review'))).toMatch(/^code_review\s+language, focus\?\s+Asks for a review/);
    // Every line fits the default width of 100 columns (descriptions are cut with an ellipsis).
    for (const line of out) expect(line.length).toBeLessThanOrEqual(100);
    expect(out.some((line) => line.endsWith('…'))).toBe(true);
  }, TEST_MS);

  it('cuts descriptions to the terminal width it is given', async () => {
    const cli = io({ columns: 60 });
    expect(await run(['list', ...DEMO], cli)).toBe(0);
    for (const line of cli.out().split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  }, TEST_MS);

  it.each([
    ['modern', 'modern', '2026-07-28'],
    ['legacy', 'legacy', '2025-11-25'],
  ])('over HTTP with --era %s --json: the listing as JSON on stdout, nothing on stderr', async (era, said, revision) => {
    const cli = io();
    expect(await run(['list', http.url, '--era', era, '--json'], cli)).toBe(0);
    const report = JSON.parse(cli.out()) as Record<string, unknown>;
    expect(report).toMatchObject({ server: { name: 'switchboard-demo', version: '1.0.0' }, era: said, revision, transport: 'streamable-http' });
    expect((report.tools as { name: string }[]).map((tool) => tool.name)).toEqual(['execute_sql', 'convert', 'get_time', 'add_numbers']);
    expect((report.resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate)).toEqual(['sqlite://demo/{table}/{id}']);
    expect(cli.err()).toBe('');
  }, TEST_MS);
});

describe('switchboard call', () => {
  it.each(['auto', 'legacy'])('prints the text of the result over stdio (--era %s)', async (era) => {
    const cli = io();
    expect(await run(['call', 'add_numbers', '--args', '{"a":2,"b":3}', '--era', era, ...DEMO], cli)).toBe(0);
    expect(cli.out()).toBe('5\n');
  }, TEST_MS);

  it('--json prints the raw tool result (HTTP, modern)', async () => {
    const cli = io();
    expect(await run(['call', http.url, 'add_numbers', '--args', '{"a":2,"b":3}', '--json'], cli)).toBe(0);
    expect(JSON.parse(cli.out())).toMatchObject({ content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } });
  }, TEST_MS);

  it('a result with isError: its text on stdout, one line on stderr, exit code 1', async () => {
    const cli = io();
    expect(await run(['call', http.url, 'add_numbers', '--args', '{"a":"two"}', '--era', 'legacy'], cli)).toBe(1);
    expect(cli.out()).toMatch(/^Invalid arguments for tool "add_numbers"/);
    expect(cli.err()).toContain('switchboard: the tool "add_numbers" returned an error result (isError: true)');
    expect(cli.err()).toContain('\n  class: tool_error\n');
  }, TEST_MS);

  const SQL = JSON.stringify({ query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<800) SELECT x FROM c', limit: 800 });

  it('progress shown live on stderr; without a terminal the elicitation is declined, and the CLI says so', async () => {
    const cli = io();
    expect(await run(['call', 'execute_sql', '--args', SQL, '--era', 'legacy', ...DEMO], cli)).toBe(1);
    const err = cli.err().split('\n');
    expect(err.slice(0, 3)).toEqual(['progress 200/800 Read 200 rows', 'progress 400/800 Read 400 rows', 'progress 600/800 Read 600 rows']);
    expect(err).toContain('server asks: The query returned 800 rows. Send all 800 rows to the assistant?');
    expect(err).toContain("switchboard: declined the server's question: stdin is not a terminal, so no one can answer it");
    expect(cli.out()).toMatch(/did not confirm sending 800 rows \(decline\)/);
  }, TEST_MS);

  it('at a terminal the elicitation is asked field by field and the answer sent (legacy session over HTTP)', async () => {
    const questions: string[] = [];
    // "maybe" does not fit a boolean, so the field is asked again.
    const answers = ['', 'maybe', 'yes'];
    const cli = io({ ask: (question) => { questions.push(question); return Promise.resolve(answers.shift() ?? 'n'); } });
    expect(await run(['call', http.url, 'execute_sql', '--args', SQL, '--era', 'legacy', '--json'], cli)).toBe(0);
    const field = '  Send all rows — Send 800 rows (boolean, required, default true): ';
    expect(questions).toEqual(['  Answer? (y = answer, n = decline, c = cancel) [y] ', field, field]);
    expect(cli.err()).toContain('server asks: The query returned 800 rows. Send all 800 rows to the assistant?');
    const result = JSON.parse(cli.out()) as { isError?: boolean; structuredContent: { rows: unknown[] } };
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.rows).toHaveLength(800);
  }, TEST_MS);
});

describe('switchboard read', () => {
  it.each(['auto', 'legacy'])('prints a text resource as it is (stdio, --era %s)', async (era) => {
    const cli = io();
    expect(await run(['read', 'sqlite://demo/schema/orders', '--era', era, ...DEMO], cli)).toBe(0);
    expect(JSON.parse(cli.out())).toMatchObject({ table: 'orders', rowCount: 3000 });
  }, TEST_MS);

  it('--out writes the contents to a file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-cli-'));
    try {
      const cli = io({ cwd: dir });
      expect(await run(['read', http.url, 'sqlite://demo/customers/1', '--out', 'row.json'], cli)).toBe(0);
      expect(JSON.parse(readFileSync(path.join(dir, 'row.json'), 'utf8'))).toMatchObject({ id: 1 });
      expect(cli.err()).toMatch(/^wrote \d+ bytes of sqlite:\/\/demo\/customers\/1 to .*row\.json\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, TEST_MS);

  it.each([
    ['legacy', -32002],
    ['modern', -32602],
  ])('an unknown resource is the server error of the revision, exit code 1 (--era %s)', async (era, code) => {
    const cli = io();
    expect(await run(['read', http.url, 'sqlite://nope', '--era', era], cli)).toBe(1);
    expect(cli.err()).toContain(`switchboard: The server answered error ${code}: `);
    expect(cli.err()).toContain('\n  class: protocol_error\n');
    expect(cli.err()).toContain(`hint: switchboard explain ${code}`);
  }, TEST_MS);
});

describe('failures to connect are one line and exit code 2', () => {
  it('a command that is not found', async () => {
    const cli = io({ env: { PATH: '/nonexistent' } });
    expect(await run(['list', '--', 'switchboard-no-such-server'], cli)).toBe(2);
    expect(cli.err().split('\n')[0]).toBe('switchboard: Cannot start MCP server "switchboard-no-such-server": command not found: looked up on PATH "/nonexistent"');
    expect(cli.out()).toBe('');
  });

  it('a server that exits at once: its exit code and last stderr line', async () => {
    const cli = io();
    expect(await run(['list', '--', process.execPath, '-e', 'console.error("missing API_KEY"); process.exit(3)'], cli)).toBe(2);
    expect(cli.err()).toMatch(/the process exited before answering: exit code 3; last stderr line: "missing API_KEY"/);
  }, TEST_MS);

  it('--env reaches the stdio server', async () => {
    const cli = io();
    const script = 'if (process.env.SB_TEST !== "on") { console.error("SB_TEST is " + process.env.SB_TEST); process.exit(4); }';
    expect(await run(['list', '--env', 'SB_TEST=off', '--', process.execPath, '-e', script], cli)).toBe(2);
    expect(cli.err()).toContain('last stderr line: "SB_TEST is off"');
  }, TEST_MS);

  it('--no-inherit-env: the stdio server gets the --env variables only, none of the CLI\'s environment', async () => {
    const script = 'console.error("SB_SECRET=" + process.env.SB_SECRET + " SB_TEST=" + process.env.SB_TEST + " PATH=" + process.env.PATH); process.exit(4)';
    for (const [flags, line] of [
      [[], 'SB_SECRET=leak SB_TEST=on PATH=/usr/bin:/bin'],
      [['--no-inherit-env'], 'SB_SECRET=undefined SB_TEST=on PATH=undefined'],
    ] as const) {
      const cli = io({ env: { PATH: '/usr/bin:/bin', SB_SECRET: 'leak' } });
      expect(await run(['list', ...flags, '--env', 'SB_TEST=on', '--', process.execPath, '-e', script], cli)).toBe(2);
      expect(cli.err()).toContain(`last stderr line: "${line}"`);
    }
  }, TEST_MS);

  it('nothing listening at the URL', async () => {
    const cli = io();
    expect(await run(['list', 'http://127.0.0.1:9/mcp', '--timeout-ms', '5000'], cli)).toBe(2);
    expect(cli.err()).toMatch(/^switchboard: Connection closed/);
    expect(cli.err()).toContain('\n  class: transport\n');
  }, TEST_MS);

  it.each([
    [['list'], 'switchboard: Missing target: give a URL, a server name from a host configuration, or -- <command> [args…]'],
    [['list', 'ftp://example.com'], 'switchboard: Unsupported URL scheme: "ftp://example.com" (use http:// or https://, or -- <command> for stdio)'],
    [['call', 'x', 'tool', '--args', '[1]'], 'switchboard: Invalid --args: expected a JSON object, got "[1]"'],
    [['list', '--env', 'NOEQUALS', '--', 'node'], 'switchboard: Invalid --env value: expected K=V, got "NOEQUALS"'],
  ])('usage errors: %j', async (argv, line) => {
    const cli = io();
    expect(await run(argv, cli)).toBe(2);
    expect(cli.err().split('\n')[0]).toBe(line);
  });

  it('an unknown --era value is refused by the parser', async () => {
    const cli = io();
    expect(await run(['list', 'http://127.0.0.1:9/mcp', '--era', 'future'], cli)).toBe(2);
    expect(cli.err()).toContain("error: option '--era <era>' argument 'future' is invalid. Allowed choices are legacy, modern, auto.");
  });
});

describe('a target named in a host configuration file (temporary home)', () => {
  it('Claude Desktop (stdio) and Cursor (HTTP) entries are listed by name', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'switchboard-home-'));
    try {
      mkdirSync(path.join(home, '.config', 'Claude'), { recursive: true });
      writeFileSync(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [DEMO[2], '--stdio'] } } }));
      mkdirSync(path.join(home, '.cursor'));
      writeFileSync(path.join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { 'demo-http': { url: http.url } } }));
      for (const [name, transport] of [['demo', 'stdio'], ['demo-http', 'streamable-http']]) {
        const cli = io({ home, cwd: home });
        expect(await run(['list', name!, '--json', '--era', 'legacy'], cli)).toBe(0);
        expect(JSON.parse(cli.out())).toMatchObject({ server: { name: 'switchboard-demo' }, era: 'legacy', transport });
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, TEST_MS);
});
