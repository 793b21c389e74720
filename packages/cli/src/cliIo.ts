/**
 * What the CLI needs from its process, injected: output writers, the environment, where it runs, the terminal.
 * `main.ts` builds it from `process`; tests build their own, so every command runs in-process.
 */
import type { DoctorEnv } from './doctor/types.js';

/** The CLI's view of its process. */
export interface CliIo {
  /** Writes text to stdout (results, tables, JSON). */
  readonly stdout: (text: string) => void;
  /** Writes text to stderr (progress, logs, notes, errors). */
  readonly stderr: (text: string) => void;
  /** The environment: passed to stdio servers (with `--env` over it) and read for host configuration paths. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory: relative paths and project configuration files are found from it. */
  readonly cwd: string;
  /** The user's home folder (where user-level host configuration files are). */
  readonly home: string;
  /** The operating system, for the host configuration paths. */
  readonly platform: 'darwin' | 'win32' | 'linux' | (string & {});
  /** The width of the terminal in columns; `undefined` when stdout is not a terminal (tables use 100). */
  readonly columns?: number;
  /** Whether to colour the output. @default false */
  readonly color?: boolean;
  /**
   * Asks one question at the terminal and resolves with the line typed; `undefined` when stdin is not a terminal
   * (elicitations are then declined, and the CLI says so).
   */
  readonly ask?: (question: string) => Promise<string>;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM): a long-running command (`serve`, `doctor`) then ends. */
  readonly signal?: AbortSignal;
  /** Whether stderr is a terminal: `doctor` then shows a live progress display on {@link stderrStream}. @default false */
  readonly stderrIsTTY?: boolean;
  /** The stderr stream itself, for the live progress display (a spinner redraws its line); used only with {@link stderrIsTTY}. */
  readonly stderrStream?: NodeJS.WriteStream;
  /** What `doctor` does to the world (spawn, fetch, clock). @default `nodeDoctorEnv({ environment: env })` */
  readonly doctorEnv?: DoctorEnv;
}

/** An io that collects what is written (for tests and for callers that want the text). */
export interface CapturedIo extends CliIo {
  /** Everything written to stdout so far. */
  readonly out: () => string;
  /** Everything written to stderr so far. */
  readonly err: () => string;
}

/**
 * Makes an io that keeps its output in memory.
 * @param base what to use instead of the defaults (env `{}`, cwd and home `/`, platform `linux`, no terminal)
 */
export function captureIo(base: Partial<Omit<CliIo, 'stdout' | 'stderr'>> = {}): CapturedIo {
  let out = '';
  let err = '';
  return {
    env: {},
    cwd: '/',
    home: '/',
    platform: 'linux',
    ...base,
    stdout: (text) => { out += text; },
    stderr: (text) => { err += text; },
    out: () => out,
    err: () => err,
  };
}
