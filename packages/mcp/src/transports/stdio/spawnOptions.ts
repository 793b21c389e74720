/**
 * What {@link spawnStdio} is given: the command and its environment, stderr handling, the shutdown grace and the
 * stdout line cap; checked once, when the connector is made.
 */
import { checkCountOption, checkMsOption, shownValue } from '@switchboard/jsonrpc/internal';
import { DEFAULT_MAX_STDERR_LINES } from './stderrTail.js';

/** Default of {@link SpawnStdioOptions.shutdownGraceMs}: 2 s for each step of the shutdown. */
export const DEFAULT_SPAWN_SHUTDOWN_GRACE_MS = 2000;

/**
 * Default of {@link SpawnStdioOptions.maxLineBytes}: 32 MiB. Larger than the server's stdin cap (4 MiB), since a
 * client reads results (a tool returning a base64 image, a 5 MB `tools/list` as in B16); the spec sets no limit.
 */
export const DEFAULT_SPAWN_MAX_LINE_BYTES = 32 * 1024 * 1024;

/** {@link spawnStdio} options: what to run, and how the connection behaves. */
export interface SpawnStdioOptions {
  /** The program: a bare name is looked up on the child's `PATH`; a name with a `/` is a path (against `cwd`). */
  readonly command: string;
  /** Its arguments, passed as they are (no shell). @default [] */
  readonly args?: readonly string[];
  /**
   * Variables for the child, merged over this process's environment (`process.env`) unless `inheritEnv` is
   * `false`; a variable set to `undefined` is removed. The `PATH` here is the one a bare `command` is looked up on.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `false`: the child gets `env` only, not this process's environment. @default true */
  readonly inheritEnv?: boolean;
  /** The child's working directory. @default this process's */
  readonly cwd?: string;
  /**
   * The server's stderr: `'capture'` keeps its last `maxStderrLines` lines (for the error that reports the end of
   * the process) and passes each line to `onstderr` or `logger.debug`; `'inherit'` writes it to this process's
   * stderr (no tail); `'ignore'` discards it. Never treated as an error.
   * @default 'capture'
   */
  readonly stderr?: 'capture' | 'inherit' | 'ignore';
  /** With `stderr: 'capture'`: called with each stderr line instead of `logger.debug`. */
  readonly onstderr?: (line: string) => void;
  /** Lines of stderr kept (each at most 1,024 characters). A non-negative integer. @default 20 */
  readonly maxStderrLines?: number;
  /**
   * Each step of {@link StdioClientTransport.close}, in ms: after stdin is closed, the wait for the process group
   * to exit; after SIGTERM, the wait again; then SIGKILL. A whole number from 0 to 2^31 − 1. @default 2000
   */
  readonly shutdownGraceMs?: number;
  /**
   * A stdout line longer than this (bytes) is skipped with a warning, up to the next newline (B16). A positive
   * integer. @default 32 MiB ({@link DEFAULT_SPAWN_MAX_LINE_BYTES})
   */
  readonly maxLineBytes?: number;
}

/** The options once checked and defaulted. */
export interface Settings {
  readonly command: string;
  readonly args: readonly string[];
  /** `command` and `args` joined by spaces: how errors and logs name the server. */
  readonly commandLine: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly inheritEnv: boolean;
  readonly cwd: string | undefined;
  readonly stderr: 'capture' | 'inherit' | 'ignore';
  readonly onstderr: ((line: string) => void) | undefined;
  readonly maxStderrLines: number;
  readonly shutdownGraceMs: number;
  readonly maxLineBytes: number;
}

/**
 * @throws TypeError when `command` is not a non-empty string, `args` not an array of strings, or a number option not a number
 * @throws RangeError when a number option is out of range
 */
export function settle(options: SpawnStdioOptions): Settings {
  const { command } = options;
  if (typeof command !== 'string' || command === '') throw new TypeError(`Invalid option command: expected a non-empty string, got ${shownValue(command)}`);
  const args = options.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) throw new TypeError('Invalid option args: expected an array of strings');
  const stderr = options.stderr ?? 'capture';
  if (stderr !== 'capture' && stderr !== 'inherit' && stderr !== 'ignore') throw new TypeError(`Invalid option stderr: expected "capture", "inherit" or "ignore", got ${shownValue(stderr)}`);
  return {
    command,
    args: [...args],
    commandLine: [command, ...args].join(' '),
    env: options.env ?? {},
    inheritEnv: options.inheritEnv ?? true,
    cwd: options.cwd,
    stderr,
    onstderr: options.onstderr,
    maxStderrLines: checkCountOption('maxStderrLines', options.maxStderrLines ?? DEFAULT_MAX_STDERR_LINES, { min: 0 }),
    shutdownGraceMs: checkMsOption('shutdownGraceMs', options.shutdownGraceMs ?? DEFAULT_SPAWN_SHUTDOWN_GRACE_MS, { integer: true }),
    maxLineBytes: checkCountOption('maxLineBytes', options.maxLineBytes ?? DEFAULT_SPAWN_MAX_LINE_BYTES),
  };
}

/** The child's whole environment: this process's (unless not inherited), then `env` over it. */
export function childEnv(settings: Settings): Record<string, string> {
  const env: Record<string, string> = {};
  if (settings.inheritEnv) {
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(settings.env)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
