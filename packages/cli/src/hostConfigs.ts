/**
 * MCP server entries in the configuration files of the hosts: where each host keeps them per operating system,
 * the key they sit under, and the variables each host expands in them. Reading only; a name resolves to the first
 * file (project files before user files) that has it.
 *
 * Formats, as each host documents them:
 * - Claude Desktop `claude_desktop_config.json`: `mcpServers.<name>` = `{ command, args, env }` (no expansion).
 * - Cursor `.cursor/mcp.json` (project) and `~/.cursor/mcp.json`: `mcpServers.<name>` = `{ command, args, env }` or
 *   `{ url, headers }`; `${env:NAME}`, `${userHome}`, `${workspaceFolder}` expanded.
 * - VS Code `.vscode/mcp.json` (workspace) and the user `mcp.json`, JSONC (comments, trailing commas):
 *   `servers.<name>` = `{ type: 'stdio', command, args, env, cwd }` or `{ type: 'http' | 'sse', url, headers }`;
 *   `${env:NAME}`, `${userHome}`, `${workspaceFolder}` expanded, `${input:…}` needs the editor (refused here).
 * - Claude Code `.mcp.json` (project) and `~/.claude.json` (`mcpServers`, and `projects.<folder>.mcpServers`):
 *   `{ type?: 'stdio', command, args, env }` or `{ type: 'http' | 'sse', url, headers }`; `${VAR}` and
 *   `${VAR:-default}` expanded.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { CliError } from './errors.js';
import type { CliIo } from './cliIo.js';

/** The hosts whose configuration files are read. */
export type HostName = 'claude-desktop' | 'cursor' | 'vscode' | 'claude-code';

/** One configuration file a host reads. */
export interface HostConfigFile {
  readonly host: HostName;
  /** `project` files are found from the working directory, `user` files from the home folder. */
  readonly scope: 'project' | 'user';
  readonly path: string;
}

/** One server entry, variables expanded. */
export type ServerEntry =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly cwd?: string }
  | { readonly kind: 'http'; readonly transport: 'streamable-http' | 'sse'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

/** Where a name was found. */
export interface FoundServer {
  readonly name: string;
  readonly file: HostConfigFile;
  readonly entry: ServerEntry;
}

/** The user's configuration folder of desktop apps (`~/Library/Application Support`, `%APPDATA%`, `~/.config`). */
function appConfigDir(io: CliIo): string {
  if (io.platform === 'darwin') return path.join(io.home, 'Library', 'Application Support');
  if (io.platform === 'win32') return io.env.APPDATA ?? path.join(io.home, 'AppData', 'Roaming');
  return io.env.XDG_CONFIG_HOME ?? path.join(io.home, '.config');
}

/** The files read, in the order a name is looked for: project files first, then user files. */
export function hostConfigFiles(io: CliIo): HostConfigFile[] {
  const app = appConfigDir(io);
  return [
    { host: 'claude-code', scope: 'project', path: path.join(io.cwd, '.mcp.json') },
    { host: 'cursor', scope: 'project', path: path.join(io.cwd, '.cursor', 'mcp.json') },
    { host: 'vscode', scope: 'project', path: path.join(io.cwd, '.vscode', 'mcp.json') },
    { host: 'claude-code', scope: 'user', path: path.join(io.home, '.claude.json') },
    { host: 'cursor', scope: 'user', path: path.join(io.home, '.cursor', 'mcp.json') },
    { host: 'vscode', scope: 'user', path: path.join(app, 'Code', 'User', 'mcp.json') },
    { host: 'claude-desktop', scope: 'user', path: path.join(app, 'Claude', 'claude_desktop_config.json') },
  ];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Expands the variables `host` expands in a string of an entry. */
function expander(host: HostName | undefined, io: CliIo, file: string): (text: string) => string {
  const bad = (variable: string): never => {
    throw new CliError('config_invalid', `Cannot expand "${variable}" in ${file}: it needs the editor; put the value in the file or pass it with --env`);
  };
  if (host === 'claude-desktop') return (text) => text;
  if (host === 'claude-code') {
    return (text) => text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => io.env[name] ?? fallback ?? '');
  }
  return (text) =>
    text.replace(/\$\{([^}]+)\}/g, (whole, inner: string) => {
      if (inner.startsWith('env:')) return io.env[inner.slice(4)] ?? '';
      if (inner === 'userHome') return io.home;
      if (inner === 'workspaceFolder') return io.cwd;
      if (inner.startsWith('input:')) return bad(whole);
      return whole;
    });
}

function stringRecord(value: unknown, expand: (text: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(value)) for (const [key, item] of Object.entries(value)) if (typeof item === 'string') out[key] = expand(item);
  return out;
}

/**
 * Reads one entry of a configuration file.
 * @throws CliError `config_invalid` when it has neither a `command` nor a `url`
 */
export function parseServerEntry(raw: unknown, context: { readonly name: string; readonly file: string; readonly host?: HostName; readonly io: CliIo }): ServerEntry {
  const { name, file, io } = context;
  const expand = expander(context.host, io, file);
  if (!isRecord(raw)) throw new CliError('config_invalid', `Invalid server "${name}" in ${file}: expected an object`);
  const type = typeof raw.type === 'string' ? raw.type : undefined;
  if (typeof raw.url === 'string' && type !== 'stdio') {
    return { kind: 'http', transport: type === 'sse' ? 'sse' : 'streamable-http', url: expand(raw.url), headers: stringRecord(raw.headers, expand) };
  }
  if (typeof raw.command === 'string' && raw.command !== '') {
    const args = Array.isArray(raw.args) ? raw.args.filter((arg): arg is string => typeof arg === 'string').map(expand) : [];
    const cwd = typeof raw.cwd === 'string' ? path.resolve(path.dirname(file), expand(raw.cwd)) : undefined;
    return { kind: 'stdio', command: expand(raw.command), args, env: stringRecord(raw.env, expand), ...(cwd === undefined ? {} : { cwd }) };
  }
  throw new CliError('config_invalid', `Invalid server "${name}" in ${file}: expected a "command" or a "url"`);
}

/** The `name → raw entry` tables of one parsed file (VS Code `servers`, others `mcpServers`; Claude Code's projects). */
function serverTables(json: Record<string, unknown>, io: CliIo): Record<string, unknown>[] {
  const tables: Record<string, unknown>[] = [];
  const projects = json.projects;
  if (isRecord(projects)) {
    const here = projects[io.cwd];
    if (isRecord(here) && isRecord(here.mcpServers)) tables.push(here.mcpServers);
  }
  if (isRecord(json.mcpServers)) tables.push(json.mcpServers);
  if (isRecord(json.servers)) tables.push(json.servers);
  return tables;
}

/**
 * Reads a file's JSON (`jsonc`: comments and trailing commas allowed, as VS Code reads its `mcp.json`), `undefined`
 * when it does not exist. @throws CliError `config_invalid` on bad JSON
 */
function readJson(file: string, jsonc: boolean): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError('config_invalid', `Cannot read ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  if (jsonc) {
    const errors: ParseError[] = [];
    json = parseJsonc(text.replace(/^\uFEFF/, ''), errors, { allowTrailingComma: true });
    if (errors.length > 0) throw new CliError('config_invalid', `Invalid JSON in ${file}: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`);
  } else {
    try {
      json = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (error) {
      throw new CliError('config_invalid', `Invalid JSON in ${file}: ${(error as Error).message}`);
    }
  }
  if (!isRecord(json)) throw new CliError('config_invalid', `Invalid configuration in ${file}: expected an object`);
  return json;
}

/** The host a file belongs to, from its name (for `--config`), or `undefined`. */
function hostOfFile(file: string): HostName | undefined {
  const base = path.basename(file);
  if (base === 'claude_desktop_config.json') return 'claude-desktop';
  if (base === '.claude.json' || base === '.mcp.json') return 'claude-code';
  const parent = path.basename(path.dirname(file));
  if (parent === '.cursor') return 'cursor';
  if (parent === '.vscode' || parent === 'User') return 'vscode';
  return undefined;
}

/**
 * Finds a server by name in the hosts' configuration files (or in `configFile` only).
 * @throws CliError `target_not_found` (with the files read and the names they have), `config_invalid`
 */
export function findServer(name: string, options: { readonly io: CliIo; readonly configFile?: string }): FoundServer {
  const { io } = options;
  const files: HostConfigFile[] =
    options.configFile === undefined
      ? hostConfigFiles(io)
      : [{ host: hostOfFile(options.configFile) ?? 'claude-code', scope: 'project', path: path.resolve(io.cwd, options.configFile) }];
  const known: string[] = [];
  const read: string[] = [];
  for (const file of files) {
    const json = readJson(file.path, file.host === 'vscode');
    if (json === undefined) {
      if (options.configFile !== undefined) throw new CliError('target_not_found', `Configuration file not found: "${file.path}"`);
      continue;
    }
    read.push(file.path);
    for (const table of serverTables(json, io)) {
      if (Object.hasOwn(table, name)) {
        const host = options.configFile === undefined ? file.host : hostOfFile(options.configFile);
        return { name, file, entry: parseServerEntry(table[name], { name, file: file.path, io, ...(host === undefined ? {} : { host }) }) };
      }
      known.push(...Object.keys(table));
    }
  }
  const where = read.length === 0 ? 'no host configuration file was found' : `read ${read.join(', ')}`;
  const names = known.length === 0 ? '' : `; servers there: ${[...new Set(known)].map((n) => `"${n}"`).join(', ')}`;
  throw new CliError('target_not_found', `No MCP server named "${name}": ${where}${names}`);
}
