/**
 * `switchboard install <module> --host <host>` and `switchboard install --host <host> -- <command> [args…]`: checks
 * that the server starts (spawned as the host will spawn it, `server/discover` or `initialize` through `McpClient`,
 * then closed), then writes the host's configuration entry with absolute paths (or prints it with `--print`).
 * A server that does not start is exit code 2 and nothing is written; an entry of the same name is replaced only
 * with `--force`.
 */
import { CliError, ExitCode } from '../errors.js';
import type { HostName } from '../hostConfigs.js';
import type { CliIo } from '../cliIo.js';
import { openClient } from '../connect.js';
import type { Output } from '../output.js';
import { destinationFor, hostEntry, readConfig, serversTable, withEntry, writeAtomic, type InstallDestination, type InstallScope } from '../install/configFile.js';
import { planCommand, planModule, type Launch, type PlannedLaunch } from '../install/hostLaunch.js';
import { parseEnvPairs } from '../target.js';
import type { Target } from '../target.js';
import { connectionLine, reportFailure } from './serverCommand.js';

/** The hosts `install` writes for, in the order the help lists them. */
export const INSTALL_HOSTS: readonly HostName[] = ['claude-desktop', 'cursor', 'vscode', 'claude-code'];

/** The scopes `--scope` takes. */
export const INSTALL_SCOPES: readonly InstallScope[] = ['user', 'project', 'local'];

/** How long the start check may take by default, in ms. */
export const INSTALL_CHECK_TIMEOUT_MS = 20_000;

/** The text `switchboard install --help` ends with. */
export const INSTALL_HELP = `
The entry uses absolute paths (a host starts servers from its own folder, with a minimal PATH): a module runs as
<node> <switchboard bin> serve <module>; a command is looked up on PATH, its file arguments made absolute, and a
"#!/usr/bin/env node" script run by node (npx, npm, pnpm, yarn also get PATH=<node's folder>:/usr/local/bin:…).
Before writing, the server is started as the host will start it (exit code 2 and nothing written if it does not).
Files: claude-desktop claude_desktop_config.json · cursor ~/.cursor/mcp.json, .cursor/mcp.json · vscode the user
mcp.json, .vscode/mcp.json (JSONC, comments kept) · claude-code ~/.claude.json (user, local), .mcp.json (project).
The rest of the file is kept; it is written atomically (a temporary file, then a rename).

Examples:
  switchboard install server.js --host claude-desktop
  switchboard install --host vscode --scope project -- node build/index.js --stdio
  switchboard install --host cursor --name weather --env API_KEY=… -- npx -y @acme/weather-mcp
  switchboard install server.js --host claude-code --print
`;

/** What `install` is told. */
export interface InstallOptions {
  readonly io: CliIo;
  readonly output: Output;
  readonly host: HostName;
  /** A server module (its default export an `McpServer`); absent when `command` is given. */
  readonly module?: string;
  /** The words after `--`: a command and its arguments. */
  readonly command: readonly string[];
  /** @default 'user' */
  readonly scope?: InstallScope;
  /**
   * The server's name in the host. @default the `serverInfo.name` the server gave in the start check (characters
   * other than letters, digits, `_`, `-`, `.` made `-`); without the check, the module's file name or the
   * command's (or its package's) name
   */
  readonly name?: string;
  /** `--env K=V`, repeated. */
  readonly env?: readonly string[];
  /** Print the entry on stdout instead of writing it. @default false */
  readonly print?: boolean;
  /** Replace an entry of the same name. @default false */
  readonly force?: boolean;
  /** Check that the server starts before writing. @default true */
  readonly check?: boolean;
  /** Budget of the start check, in ms. @default {@link INSTALL_CHECK_TIMEOUT_MS} */
  readonly timeoutMs?: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function plan(options: InstallOptions): PlannedLaunch {
  const env = parseEnvPairs(options.env ?? []);
  if (options.module !== undefined && options.command.length > 0) {
    throw new CliError('usage', `Give a server module or a command after --, not both (got "${options.module}" and "${options.command.join(' ')}")`);
  }
  if (options.module !== undefined) return planModule(options.module, { io: options.io, env });
  return planCommand(options.command, { io: options.io, env });
}

/** Starts the server as the host will and closes it; resolves with its description line and its `serverInfo.name`. */
async function checkStarts(launch: Launch, options: InstallOptions): Promise<{ readonly line: string; readonly serverName: string | undefined }> {
  const target: Target = { kind: 'stdio', command: launch.command, args: launch.args, env: launch.env, inheritEnv: true };
  const client = await openClient({ target, io: options.io, output: options.output, timeoutMs: options.timeoutMs ?? INSTALL_CHECK_TIMEOUT_MS });
  const line = connectionLine(client);
  const serverName = client.serverInfo?.name;
  await client.close().catch(() => undefined);
  return { line, serverName };
}

/** A name for the host entry from the server's `serverInfo.name`: characters hosts accept, or undefined if none is left. */
function entryNameOf(serverName: string | undefined): string | undefined {
  if (serverName === undefined) return undefined;
  const clean = serverName.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 64);
  return NAME.test(clean) ? clean : undefined;
}

/** The entry wrapped in its table, as it reads in the file (for `--print`). */
function snippet(destination: InstallDestination, name: string, entry: Record<string, unknown>): unknown {
  let value: unknown = { [name]: entry };
  for (const key of [...destination.table].reverse()) value = { [key]: value };
  return value;
}

/** @throws CliError `usage` when `name` is already an entry of the file (unless `--force` or `--print`) */
function taken(file: { readonly config: ReturnType<typeof readConfig>; readonly destination: InstallDestination }, name: string, options: InstallOptions): void {
  const { config, destination } = file;
  const existing = serversTable(config.json, destination.table);
  if (existing !== undefined && Object.hasOwn(existing, name) && options.force !== true && options.print !== true) {
    throw new CliError('usage', `A server named "${name}" is already in ${destination.path}: pass --force to replace it, or --name to choose another name`);
  }
}

/** Runs the command; resolves with its exit code. */
export async function installCommand(options: InstallOptions): Promise<number> {
  const { output } = options;
  let planned: PlannedLaunch;
  let destination: InstallDestination;
  let config: ReturnType<typeof readConfig>;
  try {
    planned = plan(options);
    if (options.name !== undefined && !NAME.test(options.name)) throw new CliError('usage', `Invalid --name "${options.name}": expected letters, digits, "_", "-" or ".", at most 64, starting with a letter or digit`);
    destination = destinationFor({ host: options.host, scope: options.scope ?? 'user', io: options.io });
    config = readConfig(destination);
    // The same name is refused before the start check when it is known already (--name, or no check to learn it).
    if (options.name !== undefined || options.check === false) taken({ config, destination }, options.name ?? planned.defaultName, options);
  } catch (error) {
    return reportFailure(output, error, true);
  }
  for (const note of planned.notes) output.note(output.colors.dim(`note: ${note}`));
  const entry = hostEntry(options.host, planned.launch);
  // The entry is named as the user named it (--name), else as the server names itself (serverInfo.name, which the
  // start check reads), else after the file or command.
  let name = options.name ?? planned.defaultName;
  if (options.check !== false) {
    try {
      output.note(`switchboard: checking that it starts: ${[planned.launch.command, ...planned.launch.args].join(' ')}`);
      const started = await checkStarts(planned.launch, options);
      output.note(`switchboard: started: ${started.line}`);
      if (options.name === undefined) {
        name = entryNameOf(started.serverName) ?? name;
        taken({ config, destination }, name, options);
      }
    } catch (error) {
      const code = reportFailure(output, error, true);
      output.note(error instanceof CliError ? 'switchboard: nothing written' : 'switchboard: the server did not start; nothing written');
      return code === ExitCode.Ok ? ExitCode.Usage : code;
    }
  }
  if (options.print === true) {
    output.json(snippet(destination, name, entry));
    output.note(`switchboard: add this to ${destination.path} (${destination.host}, ${destination.scope} scope)`);
    return ExitCode.Ok;
  }
  try {
    writeAtomic(destination.path, withEntry(config, { destination, name, entry }));
  } catch (error) {
    return reportFailure(output, error, false);
  }
  output.note(`switchboard: wrote "${name}" to ${destination.path} (${destination.host}, ${destination.scope} scope); restart or reload ${destination.host} to start it`);
  return ExitCode.Ok;
}
