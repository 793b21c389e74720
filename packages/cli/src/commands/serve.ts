/**
 * `switchboard serve <module>`: runs a server module (its default export an `McpServer`, or a function that
 * returns one) on stdio (the default) or on Streamable HTTP with `--port` (bound to `--host`, 127.0.0.1 by
 * default). HTTP runs until the io's `signal` aborts (SIGINT/SIGTERM in `main.ts`), then drains for up to 10 s.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '@switchboard/mcp/server';
import { serveHttp } from '@switchboard/mcp/node';
import { serveStdio } from '@switchboard/mcp/stdio';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import type { Output } from '../output.js';
import { reportFailure } from './serverCommand.js';

/** How long an HTTP server may finish the calls in flight once asked to stop, in ms. */
export const SERVE_DRAIN_MS = 10_000;

function isServer(value: unknown): value is McpServer {
  const candidate = value as { connect?: unknown; tool?: unknown } | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.connect === 'function' && typeof candidate.tool === 'function';
}

/**
 * Imports `module` (against the working directory) and returns the server it exports by default.
 * @throws CliError `usage` when the module cannot be imported or exports no server
 */
export async function loadServerModule(module: string, io: CliIo): Promise<McpServer> {
  const file = path.resolve(io.cwd, module);
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
  } catch (error) {
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
}

/** Runs the command: resolves once the server stopped (stdio: once it is serving; the process ends with stdin). */
export async function serveCommand(options: ServeOptions): Promise<number> {
  const { io, output } = options;
  let server: McpServer;
  try {
    server = await loadServerModule(options.module, io);
  } catch (error) {
    return reportFailure(output, error, true);
  }
  if (options.port === undefined) {
    // stdout is the wire from here on: nothing else may be written there.
    await serveStdio(server);
    return ExitCode.Ok;
  }
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp({ server, host: options.host ?? '127.0.0.1', port: options.port });
  } catch (error) {
    return reportFailure(output, error, true);
  }
  output.note(`switchboard: serving ${options.module} on ${handle.url} (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    if (io.signal === undefined || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close({ drainMs: SERVE_DRAIN_MS });
  output.note('switchboard: stopped');
  return ExitCode.Ok;
}
