/**
 * `switchboard dev <module>`: `serve`, reloaded when a source file in the module's folder changes. Each generation
 * is a child process (`dev/generation.ts`: every import reloads), started before the old one is stopped, so a
 * module that fails to load leaves the old generation serving and prints why.
 *
 * HTTP (`--port`): this process keeps the listener for the whole run and forwards each request to the current
 * generation (`dev/httpForward.ts`); a host's legacy session outlives its generation (its `initialize` is replayed
 * to the new one and its standalone stream is held here: `dev/httpSessions.ts`), modern requests go to the new one.
 * stdio (the default): the host keeps its connection and the parent hands its session over to the new generation
 * (`dev/stdioRelay.ts`). Either way the host is told its lists may have changed. Stops on the io's signal (the first
 * SIGINT or SIGTERM: generations drain for up to 10 s) and, on stdio, when the host closes our stdin.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isLoopbackHost } from '@switchboard/mcp/http';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import type { Output } from '../output.js';
import { startForwarder, type Forwarder } from '../dev/httpForward.js';
import { GenerationFailedError, startGeneration, type Generation } from '../dev/generation.js';
import { StdioRelay } from '../dev/stdioRelay.js';
import { watchSources, type Watcher } from '../dev/watch.js';
import { reportFailure } from './serverCommand.js';
import { SERVE_DRAIN_MS } from './serve.js';

/** How long a stdio generation may finish what it was asked once its stdin is closed, in ms. */
export const DEV_STDIO_GRACE_MS = 5000;

/** The text `switchboard dev --help` ends with. */
export const DEV_HELP = `
Each generation is a child process: every file the module imports is read again. A change to a .js, .ts or .json
file under the module's folder (not node_modules, .git or hidden folders) starts a new generation; it replaces the
old one once it serves. A module that fails to load leaves the old generation serving, with the error printed.
  HTTP (--port): the port stays open and hosts stay connected: a session keeps its id, its initialize is replayed
  to the new generation, and its open GET stream stays open; 2026-07-28 requests simply reach the new generation.
  stdio: the host keeps its connection; its initialize is replayed to the new generation.
  Either way the host is told that the lists may have changed (notifications/tools/list_changed, and those of
  prompts and resources, where the server declares listChanged); a 2026-07-28 subscriptions/listen stream that
  opted in hears it too and stays open (dev sends its request again to the new generation).
  Calls in flight finish on the old generation (it drains for up to 10 s); one it never answers gets an error.
The first Ctrl-C (SIGINT) or SIGTERM stops it after that drain; a second one exits at once.

Examples:
  switchboard dev server.js
  switchboard dev server.js --port 3000
`;

/** What `dev` is told. */
export interface DevOptions {
  readonly io: CliIo;
  readonly output: Output;
  readonly module: string;
  /** Serve Streamable HTTP on this port (0: one the system picks); absent: stdio. */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
}

function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Runs the command: resolves once stopped. */
export async function devCommand(options: DevOptions): Promise<number> {
  const { io, output } = options;
  const file = path.resolve(io.cwd, options.module);
  const mode = options.port === undefined ? 'stdio' : 'http';
  const host = options.host ?? '127.0.0.1';
  const protect = isLoopbackHost(host);
  const graceMs = mode === 'http' ? SERVE_DRAIN_MS : DEV_STDIO_GRACE_MS;
  let count = 1;
  let current: Generation | undefined;
  try {
    if (!existsSync(file)) throw new CliError('usage', `Cannot import "${file}": no such file`);
    current = await startGeneration({ mode, file, number: count, io, protect });
  } catch (error) {
    // The server could not be started: exit code 2, as for serve.
    if (!(error instanceof GenerationFailedError)) return reportFailure(output, error, true);
    output.error(error.message);
    return ExitCode.Usage;
  }
  let forwarder: Forwarder | undefined;
  let relay: StdioRelay | undefined;
  if (mode === 'http') {
    try {
      forwarder = await startForwarder({ host, port: options.port!, upstream: () => (current?.alive() === true && current.url !== undefined ? { url: current.url, number: current.number } : undefined) });
    } catch (error) {
      await current.stop(0);
      return reportFailure(output, error, true);
    }
    if (!protect) output.note(output.colors.yellow(`switchboard: bound to "${host}" without Host validation (DNS rebinding): use it on a trusted network only`));
  } else {
    // stdout is the host's wire from here on: notes go to stderr only.
    relay = new StdioRelay({ input: process.stdin, write: (line) => void process.stdout.write(`${line}\n`) });
    await relay.attach(current);
  }
  watchExit(current, output);

  let reloading: Promise<void> | undefined;
  /** Generations replaced and still draining: waited for before the command ends, so none outlives it. */
  const retiring = new Set<Promise<void>>();
  let pending = new Set<string>();
  const reload = async (files: readonly string[]): Promise<void> => {
    const number = ++count;
    const started = Date.now();
    const what = files.map((f) => path.relative(path.dirname(file), f)).slice(0, 3).join(', ') + (files.length > 3 ? ', …' : '');
    let next: Generation;
    try {
      next = await startGeneration({ mode, file, number, io, protect });
    } catch (error) {
      output.error(`reload after ${what} failed; ${current?.alive() === true ? `generation ${current.number} keeps serving` : 'no generation serves'}: ${(error as Error).message}`);
      return;
    }
    let previous: Generation | undefined;
    if (relay !== undefined) {
      try {
        previous = await relay.attach(next);
      } catch (error) {
        output.error(`reload after ${what} failed; generation ${current?.number ?? '?'} keeps serving: ${(error as Error).message}`);
        await next.stop(0);
        return;
      }
    } else {
      previous = current?.alive() === true ? current : undefined;
    }
    current = next;
    forwarder?.reloaded();
    watchExit(next, output);
    const ended = mode === 'http' ? 'hosts stay connected' : 'the host keeps its connection';
    output.note(`switchboard: reloaded after ${what} (generation ${number}, ${Date.now() - started} ms)${previous === undefined ? '' : `; generation ${previous.number} stops: ${ended}`}`);
    if (previous !== undefined) {
      const stopping = previous.stop(graceMs);
      retiring.add(stopping);
      void stopping.then(() => retiring.delete(stopping));
    }
  };
  // One reload at a time; changes during one make one more after it.
  const schedule = (files: readonly string[]): void => {
    for (const changed of files) pending.add(changed);
    if (reloading !== undefined) return;
    const batch = [...pending];
    pending = new Set();
    reloading = reload(batch).finally(() => {
      reloading = undefined;
      if (pending.size > 0) schedule([]);
    });
  };
  let watcher: Watcher;
  try {
    watcher = await watchSources({ root: path.dirname(file), onchange: schedule });
  } catch (error) {
    await current.stop(0);
    await forwarder?.close();
    return reportFailure(output, error, true);
  }
  // Said once the watcher is ready: a change from here on reloads.
  output.note(`switchboard: dev serving ${options.module} on ${forwarder === undefined ? 'stdio' : forwarder.url} (reloads when a file in ${path.dirname(file)} changes${forwarder === undefined ? '' : '; Ctrl-C stops'})`);

  await Promise.race([untilAborted(io.signal), ...(relay === undefined ? [] : [relay.ended])]);
  await watcher.close();
  await reloading;
  await Promise.all([current?.stop(graceMs), ...retiring]);
  await forwarder?.close();
  relay?.close();
  output.note('switchboard: stopped');
  return ExitCode.Ok;
}

/** Says so when a generation that serves ends by itself (it crashed, or its module called `process.exit`). */
function watchExit(generation: Generation, output: Output): void {
  void generation.exited.then((how) => {
    if (!generation.stopRequested()) output.error(`the server (generation ${generation.number}) ended by itself (${how}); save a file to start it again`);
  });
}
