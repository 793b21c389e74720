/**
 * `switchboard install`: in a temporary home and project folder, the file each host reads gets the entry in the
 * format that host documents, the rest of the file kept, and `target.ts` then resolves the name to the command
 * that was checked. The formats, as documented (read 2026-12):
 * - Claude Desktop: https://modelcontextprotocol.io/docs/develop/connect-local-servers — `claude_desktop_config.json`
 *   (macOS `~/Library/Application Support/Claude/`, Windows `%APPDATA%\Claude\`), `mcpServers.<name>` =
 *   `{ command, args, env }`.
 * - Cursor: https://cursor.com/docs/context/mcp — `~/.cursor/mcp.json` (global) or `.cursor/mcp.json` (project),
 *   `mcpServers.<name>` = `{ command, args, env }`.
 * - VS Code: https://code.visualstudio.com/docs/copilot/reference/mcp-configuration — the user profile's `mcp.json`
 *   or `.vscode/mcp.json`, `servers.<name>` = `{ type: "stdio", command, args, env }` (`type` required), JSONC.
 * - Claude Code: https://code.claude.com/docs/en/mcp — `~/.claude.json` `mcpServers` (user scope),
 *   `projects.<folder>.mcpServers` (local scope), `.mcp.json` `mcpServers` (project scope); `claude mcp add` writes
 *   `{ type: "stdio", command, args, env }`.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo, type CliIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';
import { resolveTarget } from '../packages/cli/src/target.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODULE = path.join(ROOT, 'test', 'fixtures', 'cli-server-module.mjs');
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const SERVE = { command: process.execPath, args: [BIN, 'serve', MODULE] };
const TEST_MS = 30_000;

let root: string;
let home: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'switchboard-install-'));
  home = path.join(root, 'home');
  project = path.join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function io(extra: Partial<Omit<CliIo, 'stdout' | 'stderr'>> = {}) {
  return captureIo({ home, cwd: project, platform: 'linux', env: { PATH: process.env.PATH }, ...extra });
}

function json(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('switchboard install <module>', () => {
  it.each([
    ['claude-desktop', 'user', '.config/Claude/claude_desktop_config.json', { mcpServers: { 'cli-serve-fixture': SERVE } }],
    ['cursor', 'user', '.cursor/mcp.json', { mcpServers: { 'cli-serve-fixture': SERVE } }],
    ['cursor', 'project', '.cursor/mcp.json', { mcpServers: { 'cli-serve-fixture': SERVE } }],
    ['vscode', 'user', '.config/Code/User/mcp.json', { servers: { 'cli-serve-fixture': { type: 'stdio', ...SERVE } } }],
    ['vscode', 'project', '.vscode/mcp.json', { servers: { 'cli-serve-fixture': { type: 'stdio', ...SERVE } } }],
    ['claude-code', 'user', '.claude.json', { mcpServers: { 'cli-serve-fixture': { type: 'stdio', ...SERVE } } }],
    ['claude-code', 'project', '.mcp.json', { mcpServers: { 'cli-serve-fixture': { type: 'stdio', ...SERVE } } }],
  ] as const)('--host %s --scope %s: checks that it starts, writes %s, named after the serverInfo.name it gave, and the name resolves to that command', async (host, scope, file, expected) => {
    const cli = io();
    expect(await run(['install', MODULE, '--host', host, '--scope', scope], cli)).toBe(0);
    const written = path.join(scope === 'user' ? home : project, file);
    expect(json(written)).toEqual(expected);
    expect(readFileSync(written, 'utf8')).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    expect(cli.err()).toMatch(/started: cli-serve-fixture 1\.0\.0 · era .* · stdio\n/);
    expect(cli.err()).toContain(`switchboard: wrote "cli-serve-fixture" to ${written} (${host}, ${scope} scope)`);
    expect(cli.out()).toBe('');
    expect(resolveTarget({ target: 'cli-serve-fixture' }, io())).toMatchObject({ kind: 'stdio', ...SERVE, env: {}, from: { file: { host, path: written } } });
  }, TEST_MS);

  it('claude-code --scope local: under projects.<working directory> in ~/.claude.json, other keys kept; list then reaches it by name', async () => {
    const file = write(path.join(home, '.claude.json'), `${JSON.stringify({ numStartups: 7, projects: { '/elsewhere': { allowedTools: [] } }, mcpServers: { other: { command: 'x' } } }, null, 2)}\n`);
    expect(await run(['install', MODULE, '--host', 'claude-code', '--scope', 'local', '--name', 'mine', '--env', 'TOKEN=t=1'], io())).toBe(0);
    expect(json(file)).toEqual({
      numStartups: 7,
      projects: { '/elsewhere': { allowedTools: [] }, [project]: { mcpServers: { mine: { type: 'stdio', ...SERVE, env: { TOKEN: 't=1' } } } } },
      mcpServers: { other: { command: 'x' } },
    });
    const cli = io();
    expect(await run(['list', 'mine'], cli)).toBe(0);
    expect(cli.out()).toMatch(/^cli-serve-fixture 1\.0\.0 · /);
    expect(cli.out()).toMatch(/\necho\s+Echoes its text/);
  }, TEST_MS);

  it('VS Code JSONC: comments, trailing commas and the other servers stay; the name resolves', async () => {
    const text = '{\n  // my servers\n  "inputs": [],\n  "servers": {\n    "old": { "type": "http", "url": "http://127.0.0.1:1/mcp" }, // keep me\n  },\n}\n';
    const file = write(path.join(project, '.vscode', 'mcp.json'), text);
    expect(await run(['install', MODULE, '--host', 'vscode', '--scope', 'project', '--no-check'], io())).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(after).toContain('// my servers');
    expect(after).toContain('// keep me');
    expect(parseJsonc(after, [], { allowTrailingComma: true })).toEqual({ inputs: [], servers: { old: { type: 'http', url: 'http://127.0.0.1:1/mcp' }, 'cli-server-module': { type: 'stdio', ...SERVE } } });
    expect(resolveTarget({ target: 'cli-server-module' }, io())).toMatchObject({ kind: 'stdio', ...SERVE });
    expect(resolveTarget({ target: 'old' }, io())).toMatchObject({ kind: 'http', url: 'http://127.0.0.1:1/mcp' });
  });

  it('an entry of the same name is refused (exit 2, file untouched) unless --force, which replaces it in place', async () => {
    const before = `${JSON.stringify({ mcpServers: { a: { command: 'a' }, 'cli-serve-fixture': { command: 'old' }, z: { command: 'z' } } }, null, 2)}\n`;
    const file = write(path.join(home, '.cursor', 'mcp.json'), before);
    const cli = io();
    expect(await run(['install', MODULE, '--host', 'cursor'], cli)).toBe(2);
    expect(cli.err()).toContain(`switchboard: A server named "cli-serve-fixture" is already in ${file}: pass --force to replace it, or --name to choose another name\n`);
    expect(cli.err()).toMatch(/switchboard: nothing written\n$/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(await run(['install', MODULE, '--host', 'cursor', '--force'], io())).toBe(0);
    expect(Object.entries(json(file) as { mcpServers: object }).flatMap(([, v]) => Object.entries(v))).toEqual([['a', { command: 'a' }], ['cli-serve-fixture', SERVE], ['z', { command: 'z' }]]);
    // With --name, the name is known before the start check: refused at once.
    const named = io();
    expect(await run(['install', MODULE, '--host', 'cursor', '--name', 'a'], named)).toBe(2);
    expect(named.err()).toBe(`switchboard: A server named "a" is already in ${file}: pass --force to replace it, or --name to choose another name\n`);
  }, TEST_MS);

  it('the entry is named after serverInfo.name; --name overrides it; without the start check, after the file', async () => {
    const file = path.join(home, '.cursor', 'mcp.json');
    expect(await run(['install', MODULE, '--host', 'cursor'], io())).toBe(0);
    expect(await run(['install', MODULE, '--host', 'cursor', '--name', 'mine'], io())).toBe(0);
    expect(await run(['install', MODULE, '--host', 'cursor', '--no-check'], io())).toBe(0);
    expect(Object.keys((json(file) as { mcpServers: object }).mcpServers)).toEqual(['cli-serve-fixture', 'mine', 'cli-server-module']);
  }, TEST_MS);

  it('--print writes nothing and prints the entry as it reads in the file', async () => {
    const cli = io();
    expect(await run(['install', MODULE, '--host', 'vscode', '--print', '--name', 'x', '--env', 'A=1'], cli)).toBe(0);
    expect(JSON.parse(cli.out())).toEqual({ servers: { x: { type: 'stdio', ...SERVE, env: { A: '1' } } } });
    expect(cli.err()).toContain(`switchboard: add this to ${path.join(home, '.config', 'Code', 'User', 'mcp.json')} (vscode, user scope)`);
    expect(existsSync(path.join(home, '.config'))).toBe(false);
  }, TEST_MS);

  it('the file keeps its mode, and a symbolic link to it stays a link (the target is replaced)', async () => {
    const real = write(path.join(root, 'dotfiles', 'claude.json'), '{}\n');
    chmodSync(real, 0o600);
    symlinkSync(real, path.join(home, '.claude.json'));
    expect(await run(['install', MODULE, '--host', 'claude-code', '--no-check'], io())).toBe(0);
    expect(lstatSync(path.join(home, '.claude.json')).isSymbolicLink()).toBe(true);
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(json(real)).toEqual({ mcpServers: { 'cli-server-module': { type: 'stdio', ...SERVE } } });
  });
});

describe('switchboard install -- <command>', () => {
  it('the command found on PATH and the file arguments made absolute; the name from its serverInfo', async () => {
    const cli = io({ cwd: ROOT });
    expect(await run(['install', '--host', 'cursor', '--', 'node', 'examples/demo/main.js', '--stdio'], cli)).toBe(0);
    const node = process.env.PATH!.split(':').map((dir) => path.join(dir, 'node')).find((file) => existsSync(file))!;
    expect(json(path.join(home, '.cursor', 'mcp.json'))).toEqual({ mcpServers: { 'switchboard-demo': { command: node, args: [path.join(ROOT, 'examples', 'demo', 'main.js'), '--stdio'] } } });
    expect(cli.err()).toMatch(/started: switchboard-demo 1\.0\.0 · /);
  }, TEST_MS);

  it('a "#!/usr/bin/env node" package runner: run by node, PATH set so that it finds node (no start check here)', async () => {
    const bin = path.join(root, 'bin');
    const npx = write(path.join(bin, 'npx'), '#!/usr/bin/env node\nconsole.log("fake npx");\n');
    chmodSync(npx, 0o755);
    const cli = io({ env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(await run(['install', '--host', 'claude-desktop', '--no-check', '--', 'npx', '-y', '@acme/weather-server@1.2.0'], cli)).toBe(0);
    const node = process.env.PATH!.split(':').map((dir) => path.join(dir, 'node')).find((file) => existsSync(file))!;
    expect(json(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'))).toEqual({
      mcpServers: { 'weather-server': { command: node, args: [npx, '-y', '@acme/weather-server@1.2.0'], env: { PATH: `${path.dirname(node)}:/usr/local/bin:/usr/bin:/bin` } } },
    });
    expect(cli.err()).toContain('note: npx starts the package\'s own bin through "env node"');
  });

  it('a server that does not start: exit 2, its stderr shown, nothing written', async () => {
    const cli = io({ cwd: ROOT });
    expect(await run(['install', '--host', 'cursor', '--', 'node', 'test/fixtures/stdio-servers/exit-at-once.js', '3', '2'], cli)).toBe(2);
    expect(cli.err()).toContain('the process exited before answering: exit code 3; last stderr line: "startup error line 2"');
    expect(cli.err()).toContain('switchboard: the server did not start; nothing written');
    expect(existsSync(path.join(home, '.cursor'))).toBe(false);
  }, TEST_MS);

  it('usage errors are exit 2 and write nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['install', MODULE], /required option '--host <host>' not specified/],
      [['install', MODULE, '--host', 'zed'], /argument 'zed' is invalid/],
      [['install', MODULE, '--host', 'claude-desktop', '--scope', 'project'], /Invalid --scope "project" for --host claude-desktop: it reads a user file only/],
      [['install', MODULE, '--host', 'cursor', '--scope', 'local'], /only claude-code has a local scope/],
      [['install', 'nope.mjs', '--host', 'cursor'], /No file ".*nope\.mjs": give a server module, or a command after --/],
      [['install', '--host', 'cursor', '--', 'no-such-command-xyz'], /Command not found: "no-such-command-xyz"/],
      [['install', MODULE, '--host', 'cursor', '--name', 'has space'], /Invalid --name "has space"/],
      [['install', MODULE, '--host', 'cursor', '--', 'node'], /not both/],
    ];
    for (const [argv, message] of cases) {
      const cli = io();
      expect(await run(argv, cli), argv.join(' ')).toBe(2);
      expect(cli.err()).toMatch(message);
    }
    write(path.join(home, '.cursor', 'mcp.json'), '{ "mcpServers": { // no comments here\n } }');
    const cli = io();
    expect(await run(['install', MODULE, '--host', 'cursor', '--no-check'], cli)).toBe(2);
    expect(cli.err()).toMatch(/Invalid JSON in .*mcp\.json: .*; nothing written \(cursor reads strict JSON\)/);
    expect(readdirSync(home)).toEqual(['.cursor']);
  });
});

