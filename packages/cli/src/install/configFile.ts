/**
 * Writing one server entry into a host's configuration file: which file (per host and scope, the paths
 * `hostConfigs.ts` reads), the entry in the host's documented shape, the rest of the file kept (other servers,
 * other keys), and an atomic write (a temporary file beside it, then a rename), so a host reading the file at that
 * moment sees the old or the new file, never half of one.
 *
 * Claude Desktop, Cursor and Claude Code read strict JSON: the file is parsed and written back as JSON with 2
 * spaces. VS Code's `mcp.json` is JSONC (comments, trailing commas): it is edited in place with `jsonc-parser`
 * (the parser VS Code itself uses), so its comments stay.
 */
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { CliError } from '../errors.js';
import { hostConfigFiles, type HostName } from '../hostConfigs.js';
import type { CliIo } from '../cliIo.js';
import type { Launch } from './hostLaunch.js';

/** Where an entry goes: `user` (the home folder), `project` (the working directory), `local` (Claude Code only). */
export type InstallScope = 'user' | 'project' | 'local';

/** The file an entry is written to, and the key path of its servers table in it. */
export interface InstallDestination {
  readonly host: HostName;
  readonly scope: InstallScope;
  readonly path: string;
  /** The keys from the root to the table of servers (`["mcpServers"]`, VS Code `["servers"]`). */
  readonly table: readonly string[];
  /** The file is JSONC (VS Code): comments are kept. */
  readonly jsonc: boolean;
}

/**
 * The file and table for a host and scope.
 * @throws CliError `usage` for a scope the host does not have (Claude Desktop: `user` only; `local`: Claude Code only)
 */
export function destinationFor(options: { readonly host: HostName; readonly scope: InstallScope; readonly io: CliIo }): InstallDestination {
  const { host, scope, io } = options;
  if (scope === 'local' && host !== 'claude-code') throw new CliError('usage', `Invalid --scope "local" for --host ${host}: only claude-code has a local scope (use user or project)`);
  const fileScope = scope === 'local' ? 'user' : scope;
  const file = hostConfigFiles(io).find((f) => f.host === host && f.scope === fileScope);
  if (file === undefined) throw new CliError('usage', `Invalid --scope "${scope}" for --host ${host}: it reads a user file only`);
  const table = host === 'vscode' ? ['servers'] : scope === 'local' ? ['projects', io.cwd, 'mcpServers'] : ['mcpServers'];
  return { host, scope, path: file.path, table, jsonc: host === 'vscode' };
}

/**
 * The entry in the host's documented shape: `{ command, args, env }`, with `type: "stdio"` for VS Code (required)
 * and Claude Code (what `claude mcp add` writes). `env` only when it has variables.
 */
export function hostEntry(host: HostName, launch: Launch): Record<string, unknown> {
  const env = Object.keys(launch.env).length === 0 ? {} : { env: { ...launch.env } };
  const type = host === 'vscode' || host === 'claude-code' ? { type: 'stdio' } : {};
  return { ...type, command: launch.command, args: [...launch.args], ...env };
}

/** A configuration file as read: its text (absent when the file does not exist) and its value. */
export interface ConfigText {
  readonly text: string | undefined;
  readonly json: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the destination file.
 * @throws CliError `config_invalid` when it cannot be read or parsed (the host could not read it either)
 */
export function readConfig(destination: InstallDestination): ConfigText {
  let text: string;
  try {
    text = readFileSync(destination.path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: undefined, json: {} };
    throw new CliError('config_invalid', `Cannot read ${destination.path}: ${(error as Error).message}`);
  }
  if (text.trim() === '') return { text, json: {} };
  let json: unknown;
  if (destination.jsonc) {
    const errors: ParseError[] = [];
    json = parse(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) throw new CliError('config_invalid', `Invalid JSONC in ${destination.path}: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}; nothing written`);
  } else {
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new CliError('config_invalid', `Invalid JSON in ${destination.path}: ${(error as Error).message}; nothing written (${destination.host} reads strict JSON)`);
    }
  }
  if (!isRecord(json)) throw new CliError('config_invalid', `Invalid configuration in ${destination.path}: expected an object; nothing written`);
  return { text, json };
}

/** The table of servers in a parsed file, or `undefined`. */
export function serversTable(json: Record<string, unknown>, table: readonly string[]): Record<string, unknown> | undefined {
  let node: unknown = json;
  for (const key of table) node = isRecord(node) ? node[key] : undefined;
  return isRecord(node) ? node : undefined;
}

/**
 * The file's new text with `entry` under `name` (replacing an entry of that name).
 * @throws CliError `config_invalid` when a key on the way to the table is not an object
 */
export function withEntry(config: ConfigText, options: { readonly destination: InstallDestination; readonly name: string; readonly entry: Record<string, unknown> }): string {
  const { destination, name, entry } = options;
  let node: unknown = config.json;
  for (const [i, key] of destination.table.entries()) {
    node = isRecord(node) ? node[key] : undefined;
    if (node !== undefined && !isRecord(node)) {
      throw new CliError('config_invalid', `Invalid configuration in ${destination.path}: "${destination.table.slice(0, i + 1).join('.')}" is not an object; nothing written`);
    }
  }
  if (destination.jsonc && config.text !== undefined && config.text.trim() !== '') {
    const edits = modify(config.text, [...destination.table, name], entry, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
    const text = applyEdits(config.text, edits);
    return text.endsWith('\n') ? text : `${text}\n`;
  }
  const json = structuredClone(config.json);
  let table: Record<string, unknown> = json;
  for (const key of destination.table) {
    if (!isRecord(table[key])) table[key] = {};
    table = table[key] as Record<string, unknown>;
  }
  table[name] = entry;
  return `${JSON.stringify(json, null, 2)}\n`;
}

/**
 * Writes `text` to `file` atomically: a temporary file in the same folder (same file system), with the mode of
 * the file it replaces, then a rename over it. A symbolic link is followed (its target is replaced, the link kept).
 * @throws CliError `write_failed`
 */
export function writeAtomic(file: string, text: string): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // A new file.
  }
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
  try {
    mkdirSync(path.dirname(target), { recursive: true });
    let mode: number | undefined;
    try {
      mode = statSync(target).mode & 0o777;
    } catch {
      mode = undefined;
    }
    writeFileSync(temp, text, { encoding: 'utf8', flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new CliError('write_failed', `Cannot write ${target}: ${(error as Error).message}`);
  }
}
