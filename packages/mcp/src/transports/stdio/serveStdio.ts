/**
 * Serving a server on this process's stdin/stdout: one session over a {@link StdioServerTransport}, the
 * shutdown on stdin end-of-file (a grace period, then close and exit once stdout drained), and `console`
 * kept off stdout while the session lives.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "stdio", basic/lifecycle.mdx "Shutdown"
 */
import { Console } from 'node:console';
import type { Writable } from 'node:stream';
import { neverThrowing, type Logger, type Transport } from '@switchboard/jsonrpc';
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import { StdioServerTransport, type StdioServerTransportOptions } from './stdioServerTransport.js';

/**
 * The session {@link serveStdio} drives: the part of the server's `ServerSession` it uses (structural, so this
 * transport imports nothing from the server).
 */
export interface StdioSession {
  /** Called once the session closed; {@link serveStdio} chains its own cleanup onto it. */
  onclose: (() => void) | undefined;
  /** No answer to the session's own requests can arrive any more (stdin ended): fail them now. */
  endOfInput(): void;
  /** Resolves when the requests being handled answered, or after `timeoutMs` (milliseconds). */
  drain(timeoutMs: number): Promise<void>;
  /** Closes the session and its transport; idempotent. */
  close(): Promise<void>;
}

/** What {@link serveStdio} needs of a server (`McpServer` is one): its logger and one connection per transport. */
export interface StdioServer<S extends StdioSession = StdioSession> {
  /** Where the transport logs when {@link ServeStdioOptions.logger} is not given. */
  readonly logger: Logger;
  /** Serves one session over `transport` and starts it. */
  connect(transport: Transport): Promise<S>;
}

/** Default for {@link ServeStdioOptions.shutdownGraceMs}. */
export const DEFAULT_STDIO_SHUTDOWN_GRACE_MS = 1000;

/** Default for {@link ServeStdioOptions.drainTimeoutMs}: 10 s. */
export const DEFAULT_STDIO_DRAIN_TIMEOUT_MS = 10_000;

/** {@link serveStdio} options. */
export interface ServeStdioOptions extends StdioServerTransportOptions {
  /**
   * On stdin end-of-file, requests still being handled get up to this long to send their answers before the
   * session closes (their handlers' signals are then aborted). The MCP client closes stdin to shut a server
   * down and escalates to SIGTERM if it does not exit (MCP 2025-11-25 basic/lifecycle.mdx "Shutdown").
   * A non-negative number; `Infinity` waits as long as the requests take. @default 1000
   */
  readonly shutdownGraceMs?: number;
  /**
   * End the process once the session closes, e.g. on stdin end-of-file, even if timers or handlers are still
   * pending. Every answer already produced is written out first (see `drainTimeoutMs`); the exit code is 0, or 1
   * when the drain deadline cut output off. @default true
   */
  readonly exitOnClose?: boolean;
  /**
   * With `exitOnClose`, how long (ms) the closed session waits for stdout to take the answers still buffered (a
   * client may read its end of the pipe late) before the process exits anyway: it then logs an error on stderr
   * naming how many bytes were not written, and exits with code 1. `Infinity` waits as long as it takes.
   * A non-negative number. @default 10_000 ({@link DEFAULT_STDIO_DRAIN_TIMEOUT_MS})
   */
  readonly drainTimeoutMs?: number;
  /**
   * Route the `console` methods that print to stdout (`log`, `info`, `debug`, `dir`, `dirxml`, `table`, `count`,
   * `countReset`, `group`, `groupCollapsed`, `groupEnd`, `time`, `timeLog`, `timeEnd`) to stderr while the
   * session lives, so a stray `console.log` in a handler or a dependency cannot corrupt the stdio stream (MCP
   * 2025-11-25 basic/transports.mdx "stdio": nothing but MCP messages on stdout). `warn`, `error`, `trace` and
   * `assert` already write to stderr. The first redirected call logs one warning saying so. The originals are put
   * back when the session closes. `false` leaves `console` alone.
   * @default true when the transport writes to `process.stdout` (the default), false for another `stdout`
   */
  readonly redirectConsole?: boolean;
}

/** The `console` methods that print to stdout (Node's `Console`): redirected by {@link serveStdio}. */
const STDOUT_CONSOLE_METHODS = [
  'log', 'info', 'debug', 'dir', 'dirxml', 'table', 'count', 'countReset', 'group', 'groupCollapsed', 'groupEnd', 'time', 'timeLog', 'timeEnd',
] as const;

/**
 * Points the stdout-printing `console` methods at a stderr Console (made on the first call, which also logs one
 * warning). Returns the function that puts the originals back (each only if nobody replaced it since).
 */
function redirectConsoleToStderr(logger: Logger): () => void {
  const table = console as unknown as Record<string, ((...args: unknown[]) => void) | undefined>;
  // Made on first use: building a Console costs about 2 ms, which a stdio server's start-up need not pay.
  let target: Record<string, ((...args: unknown[]) => void) | undefined> | undefined;
  const saved = new Map<string, (...args: unknown[]) => void>();
  const installed = new Map<string, (...args: unknown[]) => void>();
  for (const name of STDOUT_CONSOLE_METHODS) {
    const original = table[name];
    if (original === undefined) continue;
    const wrapper = (...args: unknown[]): void => {
      if (target === undefined) {
        target = new Console({ stdout: process.stderr, stderr: process.stderr }) as unknown as Record<string, ((...args: unknown[]) => void) | undefined>;
        logger.warn('console.log, console.info, console.debug (and the other console methods that print to stdout) now write to stderr, because stdout carries MCP messages; pass redirectConsole: false to serveStdio to keep them on stdout');
      }
      target[name]?.(...args);
    };
    saved.set(name, original);
    installed.set(name, wrapper);
    table[name] = wrapper;
  }
  return () => {
    for (const [name, original] of saved) if (table[name] === installed.get(name)) table[name] = original;
  };
}

/**
 * Serves `server` on this process's stdin/stdout: one legacy-era session. Returns the session; on stdin
 * end-of-file it lets in-flight requests answer (at most `shutdownGraceMs`), then closes (MCP 2025-11-25
 * basic/lifecycle.mdx "Shutdown": the client closes stdin). While the session lives, `console.log` and the other
 * stdout-printing `console` methods write to stderr (see {@link ServeStdioOptions.redirectConsole}).
 *
 * With `exitOnClose` (the default), the process exits once the session has closed and stdout has taken every
 * answer (at most `drainTimeoutMs`).
 *
 * @param server - The server to serve: an `McpServer` (any {@link StdioServer}).
 * @param options - See {@link ServeStdioOptions}.
 * @returns The session (for an `McpServer`, its `ServerSession`), once the transport is started.
 * @throws TypeError when a numeric option is not a number.
 * @throws RangeError when `maxLineBytes` or `maxJsonDepth` is not a positive integer, or `shutdownGraceMs` or
 *   `drainTimeoutMs` is negative or `NaN`.
 * @see MCP 2025-11-25 basic/transports.mdx "stdio"
 * @example
 * await serveStdio(server); // a console.log in a tool now prints on stderr, not into the stream
 * @example
 * await serveStdio(server, { redirectConsole: false }); // leave console alone (stdout must stay MCP-only)
 */
export async function serveStdio<S extends StdioSession>(server: StdioServer<S>, options: ServeStdioOptions = {}): Promise<S> {
  const graceMs = options.shutdownGraceMs ?? DEFAULT_STDIO_SHUTDOWN_GRACE_MS;
  checkMsOption('shutdownGraceMs', graceMs, { max: Infinity });
  const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_STDIO_DRAIN_TIMEOUT_MS;
  checkMsOption('drainTimeoutMs', drainTimeoutMs, { max: Infinity });
  const transport = new StdioServerTransport({ logger: server.logger, ...options });
  const logger = neverThrowing(options.logger ?? server.logger);
  const redirect = options.redirectConsole ?? (options.stdout === undefined || options.stdout === process.stdout);
  const restoreConsole = redirect ? redirectConsoleToStderr(logger) : undefined;
  let session: S;
  try {
    session = await server.connect(transport);
  } catch (error) {
    restoreConsole?.();
    throw error;
  }
  if (restoreConsole !== undefined) {
    const previous = session.onclose;
    session.onclose = () => {
      restoreConsole();
      previous?.();
    };
  }
  transport.oninputend = () => {
    // No answer to our own requests can arrive any more: fail them now, so their handlers can still reply.
    session.endOfInput();
    void session.drain(graceMs).then(() => session.close());
  };
  if (options.exitOnClose ?? true) {
    const previous = session.onclose;
    session.onclose = () => {
      previous?.();
      void exitWhenFlushed(transport, { timeoutMs: drainTimeoutMs, logger, stdout: options.stdout ?? process.stdout });
    };
  }
  return session;
}

/**
 * Exits the process once stdout has taken everything sent (code 0), or after `timeoutMs` (code 1, logged): the
 * answers buffered in this process would otherwise be lost by `process.exit` while a slow client has not read
 * them yet.
 */
async function exitWhenFlushed(
  transport: StdioServerTransport,
  options: { readonly timeoutMs: number; readonly logger: Logger; readonly stdout: Writable },
): Promise<void> {
  const { timeoutMs, logger, stdout } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flushed = await Promise.race([
    transport.whenFlushed().then(() => true),
    // Infinity: no deadline (setTimeout would fire at once).
    ...(timeoutMs < Infinity ? [new Promise<boolean>((resolve) => (timer = setTimeout(resolve, Math.min(timeoutMs, 2_147_483_647), false)))] : []),
  ]);
  clearTimeout(timer);
  if (!flushed) {
    logger.error(`Exiting with code 1: stdout did not drain within drainTimeoutMs (${timeoutMs} ms), ${stdout.writableLength} bytes of output not written`);
  }
  process.exit(flushed ? 0 : 1);
}
