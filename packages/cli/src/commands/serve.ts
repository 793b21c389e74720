/**
 * `switchboard serve <module>`: runs a server module (its default export an `McpServer`, or a function that
 * returns one) on stdio (the default) or on Streamable HTTP with `--port` (bound to `--host`, 127.0.0.1 by
 * default). It runs until the io's `signal` aborts (the first SIGINT/SIGTERM in `main.ts`), then drains for up to
 * {@link SERVE_DRAIN_MS} (HTTP: the POSTs in flight are answered; stdio: the requests being handled answer) and
 * ends; `main.ts` then exits the process even if the module still holds a handle (a timer, a socket).
 */
import path from 'node:path';
import type { McpServer } from '@switchboard/mcp/server';
import type { RedisStores } from '@switchboard/redis';
import { serveHttp } from '@switchboard/mcp/node';
import { serveStdio } from '@switchboard/mcp/stdio';
import { CliError, ExitCode } from '../errors.js';
import { importModuleFile } from '../moduleImport.js';
import type { CliIo } from '../cliIo.js';
import type { Output } from '../output.js';
import { openRedisStores, redisUrlOf } from './redisOption.js';
import { reportFailure } from './serverCommand.js';

/** How long a server may finish the calls in flight once asked to stop (SIGINT, SIGTERM), in ms. */
export const SERVE_DRAIN_MS = 10_000;

function isServer(value: unknown): value is McpServer {
  const candidate = value as { connect?: unknown; tool?: unknown } | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.connect === 'function' && typeof candidate.tool === 'function';
}

/**
 * Imports `module` (against the working directory) and returns the server it exports by default.
 * @param imported the module's namespace when the caller imported it already (`dev`'s generation, which must tell
 *   an import failure from a missing server), so that a TypeScript module loaded through `tsx` is evaluated once
 * @throws CliError `usage` when the module cannot be imported or exports no server
 */
export async function loadServerModule(module: string, io: CliIo, imported?: Record<string, unknown>): Promise<McpServer> {
  const file = path.resolve(io.cwd, module);
  let exported: unknown;
  try {
    exported = (imported ?? (await importModuleFile(file))).default;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError('usage', `Cannot import "${file}": ${(error as Error).message}`);
  }
  const server: unknown = typeof exported === 'function' && !isServer(exported) ? await (exported as () => unknown)() : exported;
  if (!isServer(server)) throw new CliError('usage', `No server in "${file}": its default export must be an McpServer or a function that returns one`);
  return server;
}

/** What `serve` is told. */
export interface ServeOptions {
  readonly io: CliIo;
  readonly output: Output;
  readonly module: string;
  /** Serve Streamable HTTP on this port (0: one the system picks); absent: stdio. */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Share sessions, SSE events, tasks, request states and notifications with other instances through this Redis
   * (`--redis-url`). @default the `SWITCHBOARD_REDIS_URL` environment variable; unset: in-memory stores
   */
  readonly redisUrl?: string;
}

/**
 * With Redis: a module whose default export is a function is called with the server options of the shared stores
 * (`{ bus, taskStore, requestStateStore, cluster }`), so `export default (options) => new McpServer({ name, version }, options)`
 * shares them; an `McpServer` exported ready-made keeps its own (and a note says so).
 */
async function loadWithStores(options: ServeOptions, stores: RedisStores): Promise<McpServer> {
  const { module, io, output } = options;
  let namespace: Record<string, unknown>;
  try {
    namespace = await importModuleFile(path.resolve(io.cwd, module));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError('usage', `Cannot import "${path.resolve(io.cwd, module)}": ${(error as Error).message}`);
  }
  const exported = namespace.default;
  if (typeof exported === 'function' && !isServer(exported)) return loadServerModule(module, io, { default: () => (exported as (options: unknown) => unknown)(stores.serverOptions) });
  output.note('switchboard: the module exports a ready-made McpServer: its bus and task store stay in memory (export a function (options) => new McpServer({ name, version }, options) to share them); sessions and SSE events are shared');
  return loadServerModule(module, io, namespace);
}

/** Runs the command: resolves once the server stopped (stdio: once it is serving; the process ends with stdin). */
export async function serveCommand(options: ServeOptions): Promise<number> {
  const { io, output } = options;
  const redisUrl = redisUrlOf(options.redisUrl, io);
  let stores: RedisStores | undefined;
  let server: McpServer;
  try {
    stores = redisUrl === undefined ? undefined : await openRedisStores(redisUrl, { io });
    server = stores === undefined ? await loadServerModule(options.module, io) : await loadWithStores(options, stores);
  } catch (error) {
    await stores?.close();
    return reportFailure(output, error, true);
  }
  if (options.port === undefined) {
    // stdout is the wire from here on: nothing else may be written there.
    const session = await serveStdio(server);
    // Asked to stop: answer what is being handled (bounded), then close; serveStdio exits once stdout is flushed.
    io.signal?.addEventListener('abort', () => {
      session.endOfInput();
      void session.drain(SERVE_DRAIN_MS).then(() => session.close());
    }, { once: true });
    return ExitCode.Ok;
  }
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp({ server, host: options.host ?? '127.0.0.1', port: options.port, ...stores?.httpOptions });
  } catch (error) {
    await stores?.close();
    return reportFailure(output, error, true);
  }
  output.note(`switchboard: serving ${options.module} on ${handle.url}${stores === undefined ? '' : ' with the stores on Redis'} (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    if (io.signal === undefined || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close({ drainMs: SERVE_DRAIN_MS });
  await stores?.close();
  output.note('switchboard: stopped');
  return ExitCode.Ok;
}
