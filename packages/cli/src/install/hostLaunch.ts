/**
 * What a host runs to start a server, with absolute paths: a host starts its servers from its own working
 * directory (often `/`) with a minimal `PATH` (a desktop app does not read the shell's profile), so a bare `node`,
 * `npx` or `./server.js` that works in a terminal fails there with "command not found" or a missing file.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { CliError } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import { cliBinPath, inNpxCache } from './cliPaths.js';

/** A command line a host runs, every path in it absolute. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  /** Variables the host sets over its own environment (`--env K=V`, and `PATH` for a package runner). */
  readonly env: Readonly<Record<string, string>>;
}

/** A launch, the name it is installed under unless `--name` says otherwise, and notes for the user. */
export interface PlannedLaunch {
  readonly launch: Launch;
  readonly defaultName: string;
  /** What was changed or should be known (one line each, shown on stderr). */
  readonly notes: readonly string[];
}

/** Package runners that start a package's bin through `#!/usr/bin/env node`, so `node` must be on the host's `PATH`. */
const NODE_RUNNERS: ReadonlySet<string> = new Set(['npx', 'npm', 'pnpm', 'pnpx', 'yarn']);

/** Interpreters and runners whose first operand names the server better than they do. */
const WRAPPERS: ReadonlySet<string> = new Set(['node', 'npx', 'pnpx', 'bunx', 'uvx', 'bun', 'deno', 'python', 'python3', 'uv', 'tsx', 'pnpm', 'yarn', 'npm']);

/** The words of wrappers that are not the operand (`deno run`, `uv run`, `pnpm dlx`, `npm exec`). */
const SUBCOMMANDS: ReadonlySet<string> = new Set(['run', 'dlx', 'exec', 'x', 'tool']);

/** The `PATH` a desktop host usually starts servers with on macOS and Linux. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** A server name from a file or package name: no scope, version or extension; characters hosts accept. */
export function nameFrom(word: string): string {
  let base = word.replace(/[\\/]+$/, '');
  base = base.startsWith('@') && base.includes('/') ? base.slice(base.indexOf('/') + 1) : base;
  base = path.basename(base.replace(/\\/g, '/'));
  base = base.replace(/@[^@]*$/, '').replace(/\.(m?[jt]s|cjs|cts|py|exe|cmd)$/i, '');
  const clean = base.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return clean === '' ? 'server' : clean;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Finds `command` as the shell would: a path (against `cwd`) or the first match on `PATH` (with `PATHEXT` on Windows). */
export function findCommand(command: string, io: CliIo): string | undefined {
  if (command.includes('/') || (io.platform === 'win32' && command.includes('\\'))) {
    const file = path.resolve(io.cwd, command);
    return isFile(file) ? file : undefined;
  }
  const exts = io.platform === 'win32' ? ['', ...(io.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((ext) => ext !== '')] : [''];
  for (const dir of (io.env.PATH ?? '').split(io.platform === 'win32' ? ';' : ':')) {
    if (dir === '') continue;
    for (const ext of exts) {
      const file = path.resolve(io.cwd, dir, command + ext);
      if (isFile(file)) return file;
    }
  }
  return undefined;
}

/** Whether a file starts with `#!/usr/bin/env node` (a script that needs `node` on `PATH`). */
function needsNodeOnPath(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(64);
    const read = readSync(fd, head, 0, head.length, 0);
    return /^#!\s*\/usr\/bin\/env\s+(-S\s+)?node(\s|$)/.test(head.subarray(0, read).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The launch of a server module: this CLI's `serve` under the `node` running it, both absolute.
 * @throws CliError `usage` when the module is not a file
 */
export function planModule(module: string, options: { readonly io: CliIo; readonly env: Readonly<Record<string, string>> }): PlannedLaunch {
  const file = path.resolve(options.io.cwd, module);
  if (!isFile(file)) throw new CliError('usage', `No file "${file}": give a server module, or a command after -- (switchboard install --host <host> -- <command> [args…])`);
  const bin = cliBinPath();
  const notes = inNpxCache(bin)
    ? [`the entry runs switchboard from npx's cache (${bin}), which npm may clear: install switchboard in the project (npm i -D switchboard) or globally, then install again`]
    : [];
  const parent = path.basename(path.dirname(file));
  const stem = nameFrom(file);
  return { launch: { command: process.execPath, args: [bin, 'serve', file], env: options.env }, defaultName: stem === 'index' || stem === 'main' ? nameFrom(parent) : stem, notes };
}

/**
 * The launch of a command line: the command found on `PATH` (absolute), arguments that name files made absolute, a
 * `#!/usr/bin/env node` script run by the `node` found on `PATH`, and `PATH` set for package runners.
 * @throws CliError `usage` when the command is not found
 */
export function planCommand(words: readonly string[], options: { readonly io: CliIo; readonly env: Readonly<Record<string, string>> }): PlannedLaunch {
  const { io } = options;
  const [command, ...rest] = words;
  if (command === undefined || command === '') throw new CliError('usage', 'Missing server: give a server module, or a command after -- (switchboard install --host <host> -- <command> [args…])');
  const found = findCommand(command, io);
  if (found === undefined) throw new CliError('usage', `Command not found: "${command}" (PATH ${io.env.PATH ?? '(unset)'})`);
  const args = rest.map((arg) => (!arg.startsWith('-') && !path.isAbsolute(arg) && isFile(path.resolve(io.cwd, arg)) ? path.resolve(io.cwd, arg) : arg));
  const notes: string[] = [];
  const env: Record<string, string> = { ...options.env };
  let launch: Launch = { command: found, args, env };
  const base = nameFrom(command).toLowerCase();
  if (io.platform !== 'win32' && needsNodeOnPath(found)) {
    const node = findCommand('node', io) ?? process.execPath;
    launch = { command: node, args: [found, ...args], env };
    notes.push(`"${command}" is a script for "#!/usr/bin/env node": the entry runs it with ${node}`);
    if (NODE_RUNNERS.has(base) && env.PATH === undefined) {
      env.PATH = `${path.dirname(node)}:${SYSTEM_PATH}`;
      notes.push(`${base} starts the package's own bin through "env node": the entry sets PATH=${env.PATH} (pass --env PATH=… to choose)`);
    }
  }
  let operand = command;
  if (WRAPPERS.has(base)) {
    const first = rest.find((arg) => !arg.startsWith('-') && !SUBCOMMANDS.has(arg));
    if (first !== undefined) operand = first;
  }
  const name = nameFrom(operand);
  return { launch, defaultName: name === 'index' || name === 'main' ? nameFrom(path.dirname(path.resolve(io.cwd, operand))) : name, notes };
}

