/**
 * The stdio transport, server side: newline-delimited JSON-RPC on stdin/stdout.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "stdio": messages are newline-delimited and MUST NOT contain
 *   embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message; it MAY
 *   log to stderr.
 */
import { Console } from 'node:console';
import type { Readable, Writable } from 'node:stream';
import {
  DEFAULT_MAX_LINE_BYTES,
  ErrorCode,
  JsonRpcLocalError,
  LocalErrorCode,
  NdjsonDecoder,
  parseMessage,
  type JsonRpcMessage,
  type Logger,
  type Transport,
} from '@switchboard/jsonrpc';
import { createStderrLogger } from '../logger.js';
import type { McpServer } from '../server/mcpServer.js';
import type { ServerSession } from '../server/types.js';

/**
 * Messages at least this long (UTF-16 units) are written at once instead of being coalesced with the other
 * writes of the same event-loop turn: for small messages one `write` per turn saves syscalls, for large ones
 * the concatenation is a needless copy.
 */
const DIRECT_WRITE_CHARS = 8192;

/** The coalescing buffer is written out as soon as it holds this many UTF-16 units (64 KiB of ASCII). */
const MAX_OUTBOX_CHARS = 65_536;

const RESOLVED: Promise<void> = Promise.resolve();

/** {@link StdioServerTransport} options. */
export interface StdioServerTransportOptions {
  /** @default process.stdin */
  readonly stdin?: Readable;
  /** @default process.stdout */
  readonly stdout?: Writable;
  /**
   * A line longer than this (bytes) is refused with a -32600 error response (id `null`) and skipped up to the
   * next newline; the connection survives (B16). @default 4 MiB
   */
  readonly maxLineBytes?: number;
  /** @default a stderr logger */
  readonly logger?: Logger;
}

/**
 * Server-side stdio transport. Reads stdin as bytes (no `readline`: U+2028/U+2029 stay inside strings),
 * survives any malformed input (each bad line gets its own error response, B11–B18), writes each message as
 * one line on stdout, coalescing the writes of one event-loop turn into a single `write` call, and closes on
 * stdin end-of-file.
 */
export class StdioServerTransport implements Transport {
  onmessage: Transport['onmessage'];
  onerror: Transport['onerror'];
  onclose: Transport['onclose'];
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #decoder: NdjsonDecoder;
  readonly #maxLineBytes: number;
  readonly #logger: Logger;
  #started = false;
  #closed = false;
  #outbox = '';
  #flushScheduled = false;
  #drain: Promise<void> | undefined;

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#decoder = new NdjsonDecoder({ maxLineBytes: this.#maxLineBytes });
    this.#logger = options.logger ?? createStderrLogger();
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error('StdioServerTransport already started'));
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('error', this.#onError);
    this.#stdout.on('error', this.#onError);
    return Promise.resolve();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (const event of this.#decoder.push(bytes)) this.#deliver(event);
  };

  /**
   * Called when stdin reaches end-of-file, after the last line has been delivered. When set, the owner decides
   * when to close (e.g. after in-flight requests are answered); when unset, the transport closes at once.
   */
  oninputend: (() => void) | undefined;

  readonly #onEnd = (): void => {
    for (const event of this.#decoder.end()) this.#deliver(event);
    if (this.oninputend !== undefined) this.oninputend();
    else void this.close();
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
    // A broken pipe on stdout means the client is gone.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') void this.close();
  };

  #deliver(event: ReturnType<NdjsonDecoder['push']>[number]): void {
    if (event.kind === 'line') {
      this.onmessage?.(parseMessage(event.text));
      return;
    }
    this.#logger.warn(`Refused a stdin line longer than ${this.#maxLineBytes} bytes`);
    // The id of an oversized message cannot be read without buffering it: answer with id null (JSON-RPC 2.0 §5).
    this.send({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: message exceeds the limit of ${this.#maxLineBytes} bytes` },
    }).catch(() => {});
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    if (this.#closed) return Promise.reject(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, 'Connection closed: stdio transport is closed'));
    const line = JSON.stringify(message) + '\n';
    if (line.length >= DIRECT_WRITE_CHARS) {
      // A large message is written on its own: gluing it to others only costs a copy (measured in bench/).
      if (this.#outbox !== '') this.#flush();
      this.#write(line);
    } else {
      this.#outbox += line;
      // Bounded memory: a producer that never yields to the event loop (a handler awaiting ctx.log in a loop)
      // would otherwise grow the outbox without limit before the scheduled flush runs.
      if (this.#outbox.length >= MAX_OUTBOX_CHARS) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    }
    return this.#drain ?? RESOLVED;
  }

  #write(text: string): void {
    // Backpressure: while the pipe is full, sends resolve only once it drains, so a fast producer waits.
    if (!this.#stdout.write(text) && this.#drain === undefined) {
      this.#drain = new Promise((resolve) =>
        this.#stdout.once('drain', () => {
          this.#drain = undefined;
          resolve();
        }),
      );
    }
  }

  readonly #flush = (): void => {
    // Also run when the outbox is full: the scheduled run then finds it empty (or written by a later schedule).
    this.#flushScheduled = false;
    const text = this.#outbox;
    this.#outbox = '';
    if (text === '' || this.#closed) return;
    this.#write(text);
  };

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#outbox !== '') this.#flush();
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('error', this.#onError);
    this.#stdout.off('error', this.#onError);
    this.#stdin.pause();
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Default for {@link ServeStdioOptions.shutdownGraceMs}. */
export const DEFAULT_STDIO_SHUTDOWN_GRACE_MS = 1000;

/** {@link serveStdio} options. */
export interface ServeStdioOptions extends StdioServerTransportOptions {
  /**
   * On stdin end-of-file, requests still being handled get up to this long to send their answers before the
   * session closes (their handlers' signals are then aborted). The MCP client closes stdin to shut a server
   * down and escalates to SIGTERM if it does not exit (MCP 2025-11-25 basic/lifecycle.mdx "Shutdown").
   * @default 1000
   */
  readonly shutdownGraceMs?: number;
  /**
   * End the process (exit code 0) once the session closes, e.g. on stdin end-of-file, even if timers or
   * handlers are still pending. @default true
   */
  readonly exitOnClose?: boolean;
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
 * @param server - The server to serve.
 * @param options - See {@link ServeStdioOptions}.
 * @returns The session, once the transport is started.
 * @see MCP 2025-11-25 basic/transports.mdx "stdio"
 * @example
 * await serveStdio(server); // a console.log in a tool now prints on stderr, not into the stream
 * @example
 * await serveStdio(server, { redirectConsole: false }); // leave console alone (stdout must stay MCP-only)
 */
export async function serveStdio(server: McpServer, options: ServeStdioOptions = {}): Promise<ServerSession> {
  const transport = new StdioServerTransport({ logger: server.logger, ...options });
  const graceMs = options.shutdownGraceMs ?? DEFAULT_STDIO_SHUTDOWN_GRACE_MS;
  const redirect = options.redirectConsole ?? (options.stdout === undefined || options.stdout === process.stdout);
  const restoreConsole = redirect ? redirectConsoleToStderr(options.logger ?? server.logger) : undefined;
  let session: ServerSession;
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
      // Let the final flush reach the pipe before exiting.
      setImmediate(() => process.exit(0));
    };
  }
  return session;
}
