/**
 * `serveHttp`: the MCP HTTP handler on a Node `http.Server` of its own, with the connection limits, timeouts, the
 * bind-address checks and the graceful close (drain) that a listening server needs.
 */
import { checkCountOption, checkMsOption, msError, shownValue } from '@switchboard/jsonrpc/internal';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHttpHandler, httpCoreOf } from '../http/server/handler.js';
import type { McpHttpHandler } from '../http/server/handler.js';
import type { McpHttpHandlerOptions } from '../http/server/handlerOptions.js';
import { isLoopbackHost } from '../http/server/security.js';
import { toNodeListener } from './listener.js';
import { ConnectionBudget } from './connectionBudget.js';

/**
 * {@link serveHttp} could not listen: another process already listens on `port` at `host` (`EADDRINUSE`).
 * Launchers print one line and exit 1 instead of a stack trace.
 *
 * @example
 * err.message // 'Port 3000 on 127.0.0.1 is in use'
 * err.code    // 'ADDRESS_IN_USE'
 */
export class AddressInUseError extends Error {
  /** Stable code to test for: `'ADDRESS_IN_USE'`. */
  readonly code = 'ADDRESS_IN_USE' as const;
  /** The port that was asked for. */
  readonly port: number;
  /** The bind address that was asked for. */
  readonly host: string;

  /**
   * @param options - `port` and `host` that were asked for; `cause` the `listen` error (`EADDRINUSE`).
   */
  constructor(options: { readonly port: number; readonly host: string; readonly cause?: unknown }) {
    super(`Port ${options.port} on ${options.host} is in use`, { cause: options.cause });
    this.name = 'AddressInUseError';
    this.port = options.port;
    this.host = options.host;
  }
}

/**
 * @internal The warning {@link serveHttp} logs when it listens on a non-loopback address without `Host`
 * validation: what is off, what is still checked, and what to set. `undefined` when there is nothing to say.
 */
export function bindWarning(host: string, protection: boolean, allowAnyOrigin: boolean): string | undefined {
  if (protection || isLoopbackHost(host)) return undefined;
  const origin = allowAnyOrigin
    ? 'Origin validation is off too (allowAnyOrigin: true): set allowedOrigins instead to accept only the listed browser pages'
    : 'Origin is still checked (a browser request from another origin gets 403 unless listed in allowedOrigins)';
  return `MCP HTTP server bound to "${host}" without Host validation: set allowedHosts to the names clients use (e.g. ["mcp.example.com"]) to enable it; ${origin}`;
}

/** Default {@link ServeHttpOptions.headersTimeoutMs}: 10 seconds. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Default {@link ServeHttpOptions.requestTimeoutMs}, the time to receive a whole request (Node's `server.requestTimeout`): 30 seconds. */
export const DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS = 30_000;
/** Default {@link ServeHttpOptions.keepAliveTimeoutMs}: 5 seconds. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5000;
/** Default {@link ServeHttpOptions.idleTimeoutMs}: 60 seconds. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Default {@link ServeHttpOptions.maxConnections}. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Default {@link ServeHttpOptions.maxConnectionsPerAddress}: a quarter of the default {@link DEFAULT_MAX_CONNECTIONS}. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** How long (ms) a new connection, or a request still arriving, is safe from being reclaimed as half-sent. */
const FRESH_MS = 1000;


/** How often Node looks for requests past `headersTimeoutMs`/`requestTimeoutMs`: a quarter of the shorter one. */
function checkingInterval(headersMs: number, requestMs: number): number {
  const shortest = Math.min(headersMs > 0 ? headersMs : Infinity, requestMs > 0 ? requestMs : Infinity);
  return Number.isFinite(shortest) ? Math.min(30_000, Math.max(10, Math.floor(shortest / 4))) : 30_000;
}

/** The slowest the connection-cap warning repeats (ms). */
const DROP_REPORT_MS = 10_000;

/** {@link serveHttp} options: the handler's options plus where to listen. */
export interface ServeHttpOptions extends McpHttpHandlerOptions {
  /** TCP port; `0` picks a free one (read it from the result). @default 0 */
  readonly port?: number;
  /** Bind address. Loopback by default: local servers SHOULD bind localhost (MCP 2025-11-25 basic/transports.mdx "Security Warning"). @default '127.0.0.1' */
  readonly host?: string;
  /** See {@link NodeListenerOptions.via}. @default 'direct' */
  readonly via?: 'direct' | 'fetch';
  /**
   * A connection whose request headers are not complete this long (ms) after it opened (or after its previous
   * answer, on a kept-alive connection) gets 408 and is closed: slow-header clients (slowloris) cannot hold
   * sockets. At most `requestTimeoutMs` when that is set. `0` disables. Node's `server.headersTimeout`.
   * @default 10_000
   */
  readonly headersTimeoutMs?: number;
  /**
   * A request whose body is not complete this long (ms) after it began gets 408 and its connection is closed
   * (at the default, a 4 MiB body needs about 140 KB/s). Only the request counts: an answer, an SSE stream
   * included, may last as long as it needs. `0` disables. Node's `server.requestTimeout`.
   * @default 30_000
   */
  readonly requestTimeoutMs?: number;
  /** A kept-alive connection with no new request this long (ms) after its last answer is closed. Node's `server.keepAliveTimeout`. @default 5000 */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Socket inactivity timeout (ms): a connection on which no byte moves this long is closed, except while the
   * handler works on a request and while an SSE stream is open (see {@link NodeListenerOptions.idleTimeoutMs});
   * catches clients that stop reading a buffered answer. `0` disables. @default 60_000
   */
  readonly idleTimeoutMs?: number;
  /**
   * Open connections at most. When they are all held, a new connection is served by closing one held connection
   * instead of being refused: a half-sent request first (headers or body still arriving after a 1 s fresh window),
   * then an idle keep-alive connection, then the longest-held SSE answer (a `GET` or `subscriptions/listen` stream),
   * then a request being worked on — each time from the caller holding most connections (a warning is logged at
   * most every 10 s). Only when nothing can be taken (every connection is younger than the fresh window) is the
   * newcomer closed unanswered. A client holds one or two (a POST and its GET stream; a legacy session holds its
   * SSE stream), so the default serves about 500 streaming clients while staying well under common
   * file-descriptor limits (Node raises the soft `ulimit -n` to the hard one, usually 4096 or more). Raise it with
   * the process's descriptor limit for more concurrent streams; `Infinity` disables.
   * @default 1024
   */
  readonly maxConnections?: number;
  /**
   * Open connections at most per caller: its address, or behind a proxy named in `trustProxy` the client's
   * address the proxy vouches for (see `callerKey`). A caller at its share gives back one of its own
   * connections (the `maxConnections` order) for a new one, or is refused: a new connection is closed at once, a
   * request that names the caller behind a proxy gets 429 and its connection closes. `127.0.0.1` and `::1` have no
   * share while no proxy is trusted (a local client, or a proxy on the same host not named in `trustProxy`); they
   * are still the first reclaimed from when they hold most. `Infinity` disables. @default 256
   */
  readonly maxConnectionsPerAddress?: number;
  /**
   * Answers the requests for paths the MCP handler does not serve (instead of its 404), under the same connection
   * limits and timeouts: e.g. a dashboard (`createDashboard(…).listener` of `@switchboard/dashboard`). It applies
   * its own access rules (the MCP handler's Host and Origin checks do not run for it). @default none: 404
   */
  readonly otherPaths?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** A running server from {@link serveHttp}. */
export interface ServeHttpHandle {
  /** The endpoint URL, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** The bound address as given. */
  readonly host: string;
  /** The handler (sessions, close). */
  readonly handler: McpHttpHandler;
  /** The underlying Node server. */
  readonly httpServer: Server;
  /**
   * Closes every session, stops listening and drops open connections. Idempotent (a second call returns the first
   * call's promise, whatever its options).
   *
   * With `drainMs` (graceful shutdown, e.g. on SIGTERM) it first stops listening (new connections are refused and
   * idle keep-alive connections closed) and waits up to `drainMs` for the POSTs in flight to be answered; then it
   * closes as without. Passing the deadline is logged as a warning with the number of POSTs still unanswered.
   * @throws TypeError (as a rejection) when `drainMs` is not a number
   * @throws RangeError (as a rejection) when `drainMs` is outside 0 to 2^31 − 1 ms (a timer's longest)
   * @example
   * process.once('SIGTERM', () => { void handle.close({ drainMs: 10_000 }).then(() => process.exit(0)); });
   */
  close(options?: ServeHttpCloseOptions): Promise<void>;
}

/** {@link ServeHttpHandle.close} options. */
export interface ServeHttpCloseOptions {
  /**
   * Longest wait (ms) for POSTs in flight to be answered before sessions are closed and connections dropped;
   * `0` closes at once. Long-lived `GET` streams are not waited for. @default 0
   */
  readonly drainMs?: number;
}

/**
 * Serves an McpServer over HTTP with Node's `http` module: Streamable HTTP at `path` (default `/mcp`) and the
 * legacy HTTP+SSE transport at `/sse` + `/messages`.
 *
 * `Host` validation (DNS rebinding) is on by default when `host` is a loopback address, or when `allowedHosts` is
 * given; bound elsewhere without `allowedHosts` it is off (a warning says so). `Origin` validation is on for every
 * bind address: a browser request from another origin gets 403 unless listed in `allowedOrigins` (or
 * `allowAnyOrigin: true`).
 *
 * @param options - Handler options plus `port` (default 0) and `host` (default `127.0.0.1`).
 * @returns Once listening: the URL, the port and `close()`.
 * @throws TypeError, RangeError (as a rejection, before listening) for option values {@link createMcpHttpHandler}
 *   refuses, and for a `port` that is not an integer from 0 to 65535, a timeout that is not an integer from 0 to
 *   2^31 − 1 ms, `headersTimeoutMs` above a non-zero `requestTimeoutMs`, or a `maxConnections` that is neither a
 *   positive integer nor `Infinity` (TypeError when the value is no number, RangeError otherwise).
 * @throws AddressInUseError (code `ADDRESS_IN_USE`) when another process listens on `port` at `host`.
 * @throws Error any other `listen` error (e.g. `EACCES` for a privileged port).
 * @see MCP 2025-11-25 basic/transports.mdx "Security Warning"
 * @example
 * const { url, close } = await serveHttp({ server, port: 3000 });
 * // … later
 * await close();
 * @example
 * try {
 *   await serveHttp({ server, port: 3000 });
 * } catch (error) {
 *   if (!(error instanceof AddressInUseError)) throw error;
 *   process.stderr.write(`port ${error.port} is in use; pass --port\n`);
 *   process.exit(1);
 * }
 */
export async function serveHttp(options: ServeHttpOptions): Promise<ServeHttpHandle> {
  const listenPort = checkCountOption('port', options.port ?? 0, { min: 0, max: 65_535 });
  const host = options.host ?? '127.0.0.1';
  checkMsOption('headersTimeoutMs', options.headersTimeoutMs, { integer: true });
  checkMsOption('requestTimeoutMs', options.requestTimeoutMs, { integer: true });
  checkMsOption('keepAliveTimeoutMs', options.keepAliveTimeoutMs, { integer: true });
  checkMsOption('idleTimeoutMs', options.idleTimeoutMs, { integer: true });
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS;
  if (requestTimeout > 0 && headersTimeout > requestTimeout) {
    const given = options.headersTimeoutMs === undefined ? ' (the default)' : '';
    throw new RangeError(`Invalid option headersTimeoutMs: expected at most requestTimeoutMs (${requestTimeout}), got ${headersTimeout}${given}`);
  }
  const maxConnections = checkCountOption('maxConnections', options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, { infinite: true });
  const perAddress = checkCountOption('maxConnectionsPerAddress', options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, { infinite: true });
  const otherPaths = options.otherPaths;
  if (otherPaths !== undefined && typeof otherPaths !== 'function') throw new TypeError(`Invalid option otherPaths: expected a function, got ${shownValue(otherPaths)}`);
  const idleTimeout = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const protection = options.dnsRebindingProtection ?? (isLoopbackHost(host) || options.allowedHosts !== undefined);
  const handler = createMcpHttpHandler({ ...options, dnsRebindingProtection: protection });
  // The handler's core: its logger, proxy trust and admission switch (the listener drives the same core).
  const core = httpCoreOf(handler);
  const warning = bindWarning(host, protection, options.allowAnyOrigin === true);
  if (warning !== undefined) core.logger.warn(warning);
  const listener = toNodeListener(handler, { via: options.via ?? 'direct', idleTimeoutMs: idleTimeout });
  /** The connection budget's look at a request before the handler's (set below when there is a budget). */
  let admit: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  const httpServer = createServer({
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
  }, (req, res) => {
    if (admit !== undefined && !admit(req, res)) return;
    if (otherPaths === undefined) listener(req, res);
    // With `next`, the listener passes on the paths the handler does not serve.
    else listener(req, res, () => otherPaths(req, res));
  });
  // Before a request and between requests the socket idles under Node's own timers; this covers the rest.
  httpServer.timeout = idleTimeout;
  const logger = core.logger;
  let dropped = 0;
  let reportedAt = -Infinity;
  const drop = (limit: string): void => {
    dropped++;
    const now = Date.now();
    if (now - reportedAt < DROP_REPORT_MS) return;
    reportedAt = now;
    logger.warn(`Refusing connections: ${limit} reached`, { dropped });
    dropped = 0;
  };
  let reclaimed = 0;
  let reclaimReportedAt = -Infinity;
  const reclaim = (limit: string): void => {
    reclaimed++;
    const now = Date.now();
    if (now - reclaimReportedAt < DROP_REPORT_MS) return;
    reclaimReportedAt = now;
    logger.warn(`Reclaiming connections: ${limit} reached (half-sent requests, then idle keep-alive connections, then the longest-held streams of the caller holding most)`, { reclaimed });
    reclaimed = 0;
  };
  if (maxConnections !== Infinity || perAddress !== Infinity) {
    const budget = new ConnectionBudget({
      max: maxConnections,
      perCaller: perAddress,
      trust: core.trust,
      freshMs: Math.min(FRESH_MS, headersTimeout > 0 ? headersTimeout : FRESH_MS),
      report: (what, limit) => (what === 'refused' ? drop(limit) : reclaim(limit)),
    });
    httpServer.on('connection', budget.accept);
    admit = (req, res) => budget.request(req, res);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(listenPort, host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await handler.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new AddressInUseError({ port: listenPort, host, cause: error });
    throw error;
  }
  const port = (httpServer.address() as AddressInfo).port;
  // POSTs whose answer has not left yet, so that a graceful close can wait for them. A second 'request' listener
  // runs right after the handler's, before any answer is written (the handler answers asynchronously).
  let posts = 0;
  let draining = false;
  let whenAnswered: (() => void) | undefined;
  const answered = (): void => {
    posts--;
    if (posts === 0) whenAnswered?.();
  };
  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    if (req.method === 'POST') {
      posts++;
      res.once('close', answered);
    }
  });
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${options.path ?? '/mcp'}`,
    port,
    host,
    handler,
    httpServer,
    close(closeOptions: ServeHttpCloseOptions = {}): Promise<void> {
      const drainMs = closeOptions.drainMs ?? 0;
      const invalid = msError('option drainMs', drainMs);
      if (invalid !== undefined) return Promise.reject(invalid);
      closing ??= (async () => {
        if (drainMs > 0 && posts > 0) {
          // Drain: new sessions are refused (503), but the listener stays open, because a call in flight may be
          // waiting for its client's answer to a server-to-client request (sampling, elicitation), which the client
          // is free to POST on a new connection. Answers are sent with `Connection: close`.
          core.stopAdmitting();
          draining = true;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const done = await Promise.race([
            new Promise<true>((resolve) => { whenAnswered = () => resolve(true); }),
            new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), drainMs); }),
          ]);
          clearTimeout(timer);
          if (!done) core.logger.warn('MCP HTTP server closing with requests in flight: the drain deadline passed', { unanswered: posts, drainMs });
        }
        // Stop listening: new connections are refused, idle keep-alive ones closed (Node >= 19).
        const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        await handler.close();
        httpServer.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}
