/**
 * One generation of `switchboard dev`: a child process (`switchboard dev-generation`, `dev/child.ts`), its
 * readiness (the IPC `ready` message, or `failed` with the reason), and its end (stdin closed for stdio, `stop` for
 * HTTP; SIGKILL by its PID after a grace period). A child process per generation, not a fresh `import()` with a
 * cache-busting query: ESM keeps every module it ever loaded, so a query reloads the entry file but none of the
 * files it imports, and the old generation's timers, sockets and database handles would live on in the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { CliIo } from '../cliIo.js';
import { cliBinPath } from '../install/cliPaths.js';
import type { ChildMessage, ParentMessage } from './generationMessages.js';

/** How long a generation may take to load its module and serve, in ms. */
export const GENERATION_START_TIMEOUT_MS = 30_000;

/** How long a generation that reported a load failure may take to print it and exit, in ms. */
const FAILED_EXIT_MS = 2000;

/** A generation that failed to start: its module did not load, it exited, or it was not ready in time. */
export class GenerationFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenerationFailedError';
  }
}

/** A running generation. */
export interface Generation {
  /** 1 for the first, then one more per reload. */
  readonly number: number;
  readonly pid: number;
  /** Its Streamable HTTP endpoint (HTTP mode). */
  readonly url?: string;
  /** Its stdin and stdout (stdio mode: the wire the parent relays). */
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves when the process has exited, with its code (or the signal that ended it). */
  readonly exited: Promise<string>;
  /** Whether the process has exited. */
  readonly alive: () => boolean;
  /** Whether {@link Generation.stop} was called (an exit without it is a crash, or the module's own `process.exit`). */
  readonly stopRequested: () => boolean;
  /** Ends it: stdio closes its stdin, HTTP asks it to drain; after `graceMs` it is killed by its PID. */
  stop(graceMs: number): Promise<void>;
}

/** Node flags of this process that a generation gets too (`--import tsx`, `--conditions`), less the debugger's. */
function nodeFlags(): string[] {
  return process.execArgv.filter((flag) => !/^--(inspect|debug)/.test(flag));
}

/**
 * Starts a generation and resolves once it serves.
 * @throws GenerationFailedError (as a rejection) when its module fails to load, it exits or is not ready within
 *   {@link GENERATION_START_TIMEOUT_MS}; the child is then gone
 */
export function startGeneration(options: { readonly mode: 'stdio' | 'http'; readonly file: string; readonly number: number; readonly io: CliIo; readonly protect?: boolean }): Promise<Generation> {
  const { io, mode } = options;
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags(), cliBinPath(), 'dev-generation', mode, options.file, options.protect === false ? '0' : '1'], {
    cwd: io.cwd,
    env: io.env,
    stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => io.stderr(text));
  if (mode === 'http') {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => io.stdout(text));
  }
  let exitText: string | undefined;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      exitText = signal === null ? `exit code ${code}` : `signal ${signal}`;
      resolve(exitText);
    });
    child.once('error', (error) => {
      exitText = error.message;
      resolve(exitText);
    });
  });
  const kill = (): void => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  let stopping: Promise<void> | undefined;
  const generation = (url: string | undefined): Generation => ({
    number: options.number,
    pid: child.pid ?? -1,
    ...(url === undefined ? {} : { url }),
    stdin: child.stdin!,
    stdout: child.stdout!,
    exited,
    alive: () => exitText === undefined,
    stopRequested: () => stopping !== undefined,
    stop(graceMs: number): Promise<void> {
      stopping ??= (async () => {
        if (exitText !== undefined) return;
        if (mode === 'stdio') child.stdin!.end();
        else if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([exited, new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); })]);
        clearTimeout(timer);
        kill();
        await exited;
      })();
      return stopping;
    },
  });
  return new Promise<Generation>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => settle(`Generation ${options.number} was not ready within ${GENERATION_START_TIMEOUT_MS} ms`), GENERATION_START_TIMEOUT_MS);
    function settle(reason: string | undefined, url?: string): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('message', onMessage);
      if (reason === undefined) return resolve(generation(url));
      kill();
      void exited.then(() => reject(new GenerationFailedError(reason)));
    }
    let failure: string | undefined;
    function onMessage(message: ChildMessage): void {
      if (message.type === 'ready') return settle(undefined, message.url);
      // It exits next, once Node has printed the error with its source location on stderr (shown as it comes).
      failure = message.message;
      setTimeout(() => settle(failure), FAILED_EXIT_MS).unref();
    }
    child.on('message', onMessage);
    void exited.then((how) => settle(failure ?? `Generation ${options.number} ended (${how}) before it was ready`));
  });
}
