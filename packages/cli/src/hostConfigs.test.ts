/**
 * Server names resolved from each host's configuration file, in a temporary home and project folder, in the
 * format each host documents (see the module comment of hostConfigs.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from './errors.js';
import { findServer, hostConfigFiles } from './hostConfigs.js';
import { captureIo, type CliIo } from './cliIo.js';
import { resolveTarget } from './target.js';

let root: string;
let home: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'switchboard-hosts-'));
  home = path.join(root, 'home');
  project = path.join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

function io(platform: CliIo['platform'] = 'linux', env: Record<string, string> = {}): CliIo {
  return captureIo({ home, cwd: project, platform, env });
}

describe('host configuration files', () => {
  it.each([
    ['linux', 'home/.config/Code/User/mcp.json', 'home/.config/Claude/claude_desktop_config.json'],
    ['darwin', 'home/Library/Application Support/Code/User/mcp.json', 'home/Library/Application Support/Claude/claude_desktop_config.json'],
  ] as const)('the files read on %s, project files first', (platform, vscodeUser, claudeDesktop) => {
    const rel = (file: string) => path.relative(root, file);
    expect(hostConfigFiles(io(platform)).map((f) => [f.host, f.scope, rel(f.path)])).toEqual([
      ['claude-code', 'project', 'project/.mcp.json'],
      ['cursor', 'project', 'project/.cursor/mcp.json'],
      ['vscode', 'project', 'project/.vscode/mcp.json'],
      ['claude-code', 'user', 'home/.claude.json'],
      ['cursor', 'user', 'home/.cursor/mcp.json'],
      ['vscode', 'user', vscodeUser],
      ['claude-desktop', 'user', claudeDesktop],
    ]);
  });

  it('Windows: VS Code and Claude Desktop under %APPDATA%', () => {
    const files = hostConfigFiles(captureIo({ home, cwd: project, platform: 'win32', env: { APPDATA: path.join(root, 'AppData') } }));
    expect(files.find((f) => f.host === 'claude-desktop')!.path).toBe(path.join(root, 'AppData', 'Claude', 'claude_desktop_config.json'));
    expect(files.find((f) => f.host === 'vscode' && f.scope === 'user')!.path).toBe(path.join(root, 'AppData', 'Code', 'User', 'mcp.json'));
  });

  it('Claude Desktop: mcpServers entries with command, args and env, no expansion', () => {
    write(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: { files: { command: 'npx', args: ['-y', 'server-files', '${HOME}'], env: { TOKEN: 't' } } } });
    expect(findServer('files', { io: io('linux', { HOME: '/h' }) })).toMatchObject({
      file: { host: 'claude-desktop', scope: 'user' },
      entry: { kind: 'stdio', command: 'npx', args: ['-y', 'server-files', '${HOME}'], env: { TOKEN: 't' } },
    });
  });

  it('Cursor: a URL entry with headers, ${env:…} expanded', () => {
    write(path.join(home, '.cursor', 'mcp.json'), { mcpServers: { remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${env:API_TOKEN}' } } } });
    expect(findServer('remote', { io: io('linux', { API_TOKEN: 'abc' }) }).entry).toEqual({ kind: 'http', transport: 'streamable-http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer abc' } });
  });

  it('VS Code: "servers" with type stdio (cwd against the file, ${workspaceFolder}) and type sse; ${input:…} refused', () => {
    write(path.join(project, '.vscode', 'mcp.json'), {
      inputs: [{ type: 'promptString', id: 'key' }],
      servers: {
        local: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/server.js'], cwd: '..', env: { DEBUG: '1' } },
        old: { type: 'sse', url: 'http://127.0.0.1:3001/sse' },
        secret: { type: 'stdio', command: 'node', env: { KEY: '${input:key}' } },
      },
    });
    expect(findServer('local', { io: io() }).entry).toEqual({ kind: 'stdio', command: 'node', args: [`${project}/server.js`], env: { DEBUG: '1' }, cwd: project });
    expect(findServer('old', { io: io() }).entry).toEqual({ kind: 'http', transport: 'sse', url: 'http://127.0.0.1:3001/sse', headers: {} });
    expect(() => findServer('secret', { io: io() })).toThrow(/^Cannot expand "\$\{input:key\}" in .*mcp\.json: it needs the editor/);
  });

  it('Claude Code: .mcp.json before ~/.claude.json, whose project entry wins over its user entry; ${VAR:-default}', () => {
    write(path.join(home, '.claude.json'), {
      mcpServers: { shared: { command: 'user-level' }, mine: { type: 'http', url: 'http://127.0.0.1:1/${PORT:-8080}' } },
      projects: { [project]: { mcpServers: { shared: { command: 'local-level' } } } },
    });
    expect(findServer('shared', { io: io() }).entry).toMatchObject({ command: 'local-level' });
    expect(findServer('mine', { io: io() }).entry).toMatchObject({ url: 'http://127.0.0.1:1/8080' });
    write(path.join(project, '.mcp.json'), { mcpServers: { shared: { type: 'stdio', command: 'project-level', args: ['${WHO}'] } } });
    expect(findServer('shared', { io: io('linux', { WHO: 'me' }) })).toMatchObject({ file: { host: 'claude-code', scope: 'project' }, entry: { command: 'project-level', args: ['me'] } });
  });

  it('--config reads one file only; a name not found lists the files read and the names they have', () => {
    const file = write(path.join(root, 'custom', 'claude_desktop_config.json'), { mcpServers: { a: { command: 'x' }, b: { url: 'http://127.0.0.1:2/mcp' } } });
    write(path.join(home, '.cursor', 'mcp.json'), { mcpServers: { c: { command: 'y' } } });
    expect(findServer('a', { io: io(), configFile: file }).entry).toMatchObject({ command: 'x' });
    expect(() => findServer('c', { io: io(), configFile: file })).toThrow(`No MCP server named "c": read ${file}; servers there: "a", "b"`);
    expect(() => findServer('z', { io: io() })).toThrow(`No MCP server named "z": read ${path.join(home, '.cursor', 'mcp.json')}; servers there: "c"`);
    expect(() => findServer('z', { io: io(), configFile: path.join(root, 'none.json') })).toThrow(CliError);
  });

  it('bad JSON and an entry with neither command nor url are config_invalid errors', () => {
    mkdirSync(path.join(project, '.cursor'));
    writeFileSync(path.join(project, '.cursor', 'mcp.json'), '{ "mcpServers": ');
    expect(() => findServer('x', { io: io() })).toThrow(expect.objectContaining({ code: 'config_invalid', message: expect.stringMatching(/^Invalid JSON in .*\.cursor\/mcp\.json: /) }));
    write(path.join(project, '.cursor', 'mcp.json'), { mcpServers: { x: { args: [] } } });
    expect(() => findServer('x', { io: io() })).toThrow(/^Invalid server "x" in .*: expected a "command" or a "url"$/);
  });
});

describe('resolveTarget', () => {
  it('a configuration name: the entry, with --env over its env and --cwd over its cwd', () => {
    write(path.join(project, '.mcp.json'), { mcpServers: { s: { command: 'node', args: ['s.js'], env: { A: '1', B: '2' } } } });
    expect(resolveTarget({ target: 's', env: ['B=3'], cwd: 'sub' }, io())).toMatchObject({
      kind: 'stdio', command: 'node', args: ['s.js'], env: { A: '1', B: '3' }, cwd: path.join(project, 'sub'), from: { name: 's', file: { host: 'claude-code' } },
    });
  });

  it('a URL is Streamable HTTP; a command after -- is stdio', () => {
    expect(resolveTarget({ target: 'http://127.0.0.1:3000/mcp' }, io())).toEqual({ kind: 'http', transport: 'streamable-http', url: 'http://127.0.0.1:3000/mcp', headers: {} });
    expect(resolveTarget({ command: ['node', 'a.js', '--stdio'], env: ['K=V=W'] }, io())).toEqual({ kind: 'stdio', command: 'node', args: ['a.js', '--stdio'], env: { K: 'V=W' }, inheritEnv: true });
    expect(() => resolveTarget({ target: 'x', command: ['node'] }, io())).toThrow('Give a target or a command after --, not both (got "x" and "node")');
  });
});
