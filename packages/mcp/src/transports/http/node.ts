/**
 * The Node `http` adapter of the MCP HTTP handler.
 *
 * The default (`via: 'direct'`) drives the handler's core straight from `IncomingMessage`/`ServerResponse`: the
 * body is read once into a buffer (bounded by `maxBodyBytes`), no `Request`/`Response` objects are built, and SSE
 * events are written to the socket as they are produced. `via: 'fetch'` converts to a Web `Request` and back; both
 * paths share every decision (the core), and the test suite runs through both.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { BodyRead, HttpInput, HttpOutput } from './exchange.js';
import { peerAddress } from './exchange.js';
import { REQUEST_PEERS } from './web.js';
import type { SseChannel } from './sse.js';
import { HTTP_CORE, createMcpHttpHandler } from './handler.js';
import type { McpHttpHandler, McpHttpHandlerOptions } from './handler.js';
import { isLoopbackHost } from './security.js';

/** A Node request listener; with `next` (Express/Connect) requests for other paths are passed on. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** {@link toNodeListener} options. */
export interface NodeListenerOptions {
  /**
   * `direct`: the lean path (no `Request`/`Response` objects). `fetch`: convert to the Web-standard handler and
   * back (same behaviour, slower; useful to check the portable path). @default 'direct'
   */
  readonly via?: 'direct' | 'fetch';
  /**
   * Socket inactivity timeout (ms) for answers that are not streams. The listener lifts the socket's timeout while
   * the handler works on a request (a tool may run silently for minutes) and for SSE streams (long-lived by design,
   * kept alive by comments and bounded by backpressure), and re-arms it at this value when it writes a buffered
   * answer, so a client that stops reading is cut. `0` leaves socket timeouts alone. @default 0 (`serveHttp`: 60_000)
   */
  readonly idleTimeoutMs?: number;
}

const TOO_LARGE: BodyRead = Object.freeze({ kind: 'tooLarge' });
const ABORTED: BodyRead = Object.freeze({ kind: 'aborted' });
const GONE = new Error('The client closed the connection');

function ignore(): void {}

/**
 * After a 413: how long the rest of the body is read and dropped before the connection is cut. A client still
 * sending when the answer leaves (curl sends the whole body before it reads) must be able to finish and read it;
 * closing while it sends resets the connection under it (EPIPE/ECONNRESET instead of the 413). Dropping bytes
 * costs no memory, so only time bounds it: a client that never stops sending cannot hold the connection longer.
 */
const DRAIN_MAX_MS = 5000;

/**
 * Instead of Node's `destroySoon` (called after a `Connection: close` response: end, then destroy as soon as the
 * end is written, which resets a connection whose client is still sending): only half-close. The socket keeps
 * reading (and dropping) until the client closes its side, or {@link DRAIN_MAX_MS} passes.
 */
function halfClose(this: Socket): void {
  if (this.writable) this.end();
}

/**
 * Drains the rest of a request without keeping it (after a 413), then lets the connection end gracefully: the
 * answer (with `Connection: close`) goes out, the server half-closes, and the socket closes when the client does.
 * Destroyed only when that takes longer than {@link DRAIN_MAX_MS}.
 */
function discard(req: IncomingMessage): void {
  req.on('error', ignore);
  if (req.readableEnded || req.destroyed) return;
  const socket = req.socket as Socket | null;
  if (socket === null || socket.destroyed) return;
  (socket as { destroySoon?: () => void }).destroySoon = halfClose;
  socket.on('error', ignore);
  const timer = setTimeout(() => socket.destroy(), DRAIN_MAX_MS);
  (timer as { unref?: () => void }).unref?.();
  socket.once('close', () => clearTimeout(timer));
  req.on('data', ignore);
  req.resume();
}

/**
 * A Node request body as a Web stream for the `fetch` path. Unlike `Readable.toWeb`, cancelling it (the handler
 * stops reading at `maxBodyBytes`) drains the rest within bounds instead of destroying the socket, so the 413
 * reaches the client.
 */
function nodeBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (cancelled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once('end', () => {
        if (!cancelled) controller.close();
      });
      const fail = (error?: unknown): void => {
        if (cancelled || req.readableEnded) return;
        cancelled = true;
        controller.error(error instanceof Error ? error : new Error('The client closed the connection while sending'));
      };
      req.once('error', fail);
      req.once('close', () => fail());
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      cancelled = true;
      discard(req);
    },
  });
}

function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  // A body parser (express.json()) that already consumed the stream left its result on req.body.
  const parsed = (req as { body?: unknown }).body;
  if (parsed !== undefined && req.readableEnded) {
    if (typeof parsed === 'string') return Promise.resolve({ kind: 'text', text: parsed });
    if (Buffer.isBuffer(parsed)) return Promise.resolve({ kind: 'text', text: parsed.toString('utf8') });
    return Promise.resolve({ kind: 'parsed', value: parsed });
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    discard(req);
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise<BodyRead>((resolve) => {
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        // Bounded buffering: stop keeping bytes as soon as the limit is passed.
        settled = true;
        first = undefined;
        more = undefined;
        resolve(TOO_LARGE);
        discard(req);
        return;
      }
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      const bytes = more !== undefined ? Buffer.concat(more, size) : first;
      resolve({ kind: 'text', text: bytes === undefined ? '' : bytes.toString('utf8') });
    });
    // The client went away mid-body (field bug B27, first variant): 'error' (ECONNRESET) or 'close' before 'end'.
    const aborted = (): void => {
      if (settled) return;
      settled = true;
      resolve(ABORTED);
    };
    req.on('error', aborted);
    req.on('close', aborted);
  });
}

/** `https` when the request came over TLS (an `https.Server`, or a TLS socket handed to `http`). */
function schemeOf(req: IncomingMessage): 'http' | 'https' {
  return (req.socket as { encrypted?: boolean } | null)?.encrypted === true ? 'https' : 'http';
}

/** {@link HttpInput} over a Node request; methods live on the prototype (no per-request closures). */
class NodeHttpInput implements HttpInput {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly scheme: 'http' | 'https';
  readonly authInfo: unknown;
  readonly remoteAddress: string | undefined;
  readonly #req: IncomingMessage;

  constructor(req: IncomingMessage) {
    this.#req = req;
    let url = req.url ?? '/';
    if (url.charCodeAt(0) !== 47 /* '/' */) {
      try {
        const absolute = new URL(url);
        url = absolute.pathname + absolute.search;
      } catch {
        url = '/';
      }
    }
    const q = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = q === -1 ? url : url.slice(0, q);
    this.query = q === -1 ? '' : url.slice(q + 1);
    this.scheme = schemeOf(req);
    this.authInfo = (req as { auth?: unknown }).auth;
    this.remoteAddress = peerAddress(req.socket?.remoteAddress);
  }

  header(name: string): string | undefined {
    const value = this.#req.headers[name];
    return value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : value;
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.#req.headers)) {
      if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }

  readBody(maxBytes: number): Promise<BodyRead> {
    return readNodeBody(this.#req, maxBytes);
  }
}

function writeNode(res: ServerResponse, output: HttpOutput, idleMs: number): void {
  const channel = output.sse;
  if (res.destroyed) {
    channel?.detach();
    return;
  }
  if (channel === undefined) {
    if (idleMs > 0) res.setTimeout(idleMs);
    res.statusCode = output.status;
    const headers = output.headers;
    for (const key of Object.keys(headers)) res.setHeader(key, headers[key] as string);
    res.end(output.body);
    return;
  }
  // A response that is produced within the current tick (a quick tool) completes its stream before the next one:
  // the whole stream then leaves in one write, like any small response, instead of headers and events piecemeal.
  if (!channel.ended) {
    process.nextTick(streamNode, res, output.status, output.headers, channel);
    return;
  }
  streamNode(res, output.status, output.headers, channel);
}

/** Sends an SSE body: at once when the stream already ended, otherwise by attaching a sink to the channel. */
function streamNode(res: ServerResponse, status: number, headers: Readonly<Record<string, string>>, channel: SseChannel): void {
  if (res.destroyed) {
    channel.detach();
    return;
  }
  // Field bug B27: a write racing a disconnect must never surface as an uncaught 'error'.
  res.on('error', ignore);
  const whole = channel.takeComplete();
  if (whole !== undefined) {
    res.writeHead(status, headers);
    res.end(whole);
    return;
  }
  res.on('close', () => channel.detach());
  // Backpressure: the channel asks writers to wait while the response holds more than its high-water mark.
  res.on('drain', () => channel.drained());
  res.writeHead(status, headers);
  let wrote = false;
  let corked = false;
  const uncork = (): void => {
    corked = false;
    res.uncork();
  };
  channel.attach({
    write(chunk: string): void {
      if (res.destroyed || res.writableEnded) throw GONE;
      wrote = true;
      // Events written in the same tick (a response and the end of the stream, a replay) leave in one syscall.
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      res.write(chunk);
    },
    end(): void {
      if (res.destroyed) throw GONE;
      if (!res.writableEnded) res.end();
    },
    buffered(): number {
      return res.writableLength;
    },
    abort(): void {
      res.destroy();
    },
  });
  // Headers go out with the first event; a stream with nothing to say yet (GET) sends them now.
  if (!wrote && !res.writableEnded) res.flushHeaders();
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'http2-settings']);

async function viaFetch(handler: McpHttpHandler, req: IncomingMessage, res: ServerResponse, idleMs: number): Promise<void> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(key)) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (hasBody) {
    init.body = nodeBodyStream(req);
    init.duplex = 'half';
  }
  const request = new Request(`${schemeOf(req)}://localhost${req.url ?? '/'}`, init);
  const peer = peerAddress(req.socket?.remoteAddress);
  if (peer !== undefined) REQUEST_PEERS.set(request, peer);
  const response = await handler.fetch(request);
  if (res.destroyed) {
    await response.body?.cancel().catch(ignore);
    return;
  }
  res.on('error', ignore);
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    out[key] = value;
  });
  if (idleMs > 0 && !(out['content-type'] ?? '').startsWith('text/event-stream')) res.setTimeout(idleMs);
  res.writeHead(response.status, out);
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = body.getReader();
  res.on('close', () => {
    reader.cancel().catch(ignore);
  });
  let drained: (() => void) | undefined;
  const wake = (): void => drained?.();
  res.on('drain', wake);
  res.on('close', wake);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      // Backpressure: read the next chunk only once the client took this one (the body stream then holds the rest).
      if (!res.write(value) && !res.destroyed) {
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
        drained = undefined;
      }
    }
  } catch {
    // The stream was cancelled because the client left, or failed (the server dropped it): cut the response.
    res.destroy();
    return;
  }
  if (!res.writableEnded) res.end();
}

/**
 * Adapts an MCP HTTP handler to Node's `http` (or Express/Connect: with `next`, other paths are passed on).
 *
 * @param handler - From {@link createMcpHttpHandler}.
 * @param options - `via`: `direct` (default, lean) or `fetch` (through `Request`/`Response`); `idleTimeoutMs`.
 * @returns A request listener.
 * @throws RangeError when `idleTimeoutMs` is negative, NaN or above 2^31 − 1.
 * @example
 * const handler = createMcpHttpHandler({ server });
 * http.createServer(toNodeListener(handler)).listen(3000, '127.0.0.1');
 */
export function toNodeListener(handler: McpHttpHandler, options: NodeListenerOptions = {}): NodeListener {
  const core = handler[HTTP_CORE];
  const idleMs = options.idleTimeoutMs ?? 0;
  checkTimeout('idleTimeoutMs', idleMs);
  const fail = (res: ServerResponse, error: unknown): void => {
    if (!res.headersSent && !res.destroyed) writeNode(res, core.internalError(error), idleMs);
    else {
      core.logger.error('MCP HTTP adapter failed', { error });
      if (!res.writableEnded) res.destroy();
    }
  };
  if (options.via === 'fetch') {
    return (req, res, next) => {
      if (next !== undefined && !core.matches(pathOf(req.url))) {
        next();
        return;
      }
      if (idleMs > 0) req.socket?.setTimeout(0);
      viaFetch(handler, req, res, idleMs).catch((error: unknown) => fail(res, error));
    };
  }
  return (req, res, next) => {
    const input = new NodeHttpInput(req);
    if (next !== undefined && !core.matches(input.path)) {
      next();
      return;
    }
    // The request is the handler's now: no inactivity timeout until its answer is written (see idleTimeoutMs).
    if (idleMs > 0) req.socket?.setTimeout(0);
    core.handle(input).then(
      (output) => writeNode(res, output, idleMs),
      (error: unknown) => fail(res, error),
    );
  };
}

function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}

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
/** Default {@link ServeHttpOptions.requestTimeoutMs}: 30 seconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default {@link ServeHttpOptions.keepAliveTimeoutMs}: 5 seconds. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5000;
/** Default {@link ServeHttpOptions.idleTimeoutMs}: 60 seconds. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Default {@link ServeHttpOptions.maxConnections}. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Default {@link ServeHttpOptions.maxConnectionsPerAddress}: a quarter of the default {@link DEFAULT_MAX_CONNECTIONS}. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** Peers exempt from {@link ServeHttpOptions.maxConnectionsPerAddress}: the host itself (a local reverse proxy). */
const SELF_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The longest delay Node's timers honour. */
const MAX_TIMER_MS = 2_147_483_647;

function checkTimeout(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number') throw new TypeError(`Invalid option ${name}: expected a number of milliseconds, got "${String(value)}"`);
  if (!Number.isInteger(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new RangeError(`Invalid option ${name}: expected an integer between 0 and ${MAX_TIMER_MS} milliseconds, got "${String(value)}"`);
  }
}

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
   * Open connections at most. A connection beyond the cap is closed as soon as it is accepted (no bytes are
   * read or written; Node's `server.maxConnections`), and a warning is logged (at most every 10 s, with the count
   * dropped); a slot frees when any connection closes. A client holds one or two (a POST and its GET stream; a
   * legacy session holds its SSE stream), so the default serves about 500 streaming clients while staying well
   * under common file-descriptor limits (Node raises the soft `ulimit -n` to the hard one, usually 4096 or
   * more). Raise it with the process's descriptor limit for more concurrent streams; `Infinity` disables.
   * @default 1024
   */
  readonly maxConnections?: number;
  /**
   * Open connections at most from one remote address, so one peer cannot hold every slot of `maxConnections`: a
   * connection beyond it is closed at once (counted in the same warning). `127.0.0.1` and `::1` are exempt (a reverse
   * proxy on the same host forwards every client from there; then it must do this limiting itself). `Infinity`
   * disables. @default 256
   */
  readonly maxConnectionsPerAddress?: number;
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
   * @throws RangeError (as a rejection) when `drainMs` is not a finite number from 0
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
 *   refuses, and RangeError for a `port` that is not an integer from 0 to 65535, a timeout that is not an integer
 *   from 0 to 2^31 − 1 ms, `headersTimeoutMs` above a non-zero `requestTimeoutMs`, or a `maxConnections` that is
 *   neither a positive integer nor `Infinity`.
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
  const listenPort = options.port ?? 0;
  if (typeof listenPort !== 'number' || !Number.isInteger(listenPort) || listenPort < 0 || listenPort > 65_535) {
    throw new RangeError(`Invalid option port: expected an integer from 0 to 65535, got "${String(listenPort)}"`);
  }
  const host = options.host ?? '127.0.0.1';
  checkTimeout('headersTimeoutMs', options.headersTimeoutMs);
  checkTimeout('requestTimeoutMs', options.requestTimeoutMs);
  checkTimeout('keepAliveTimeoutMs', options.keepAliveTimeoutMs);
  checkTimeout('idleTimeoutMs', options.idleTimeoutMs);
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (requestTimeout > 0 && headersTimeout > requestTimeout) {
    throw new RangeError(`Invalid option headersTimeoutMs: expected at most requestTimeoutMs (${requestTimeout}), got "${headersTimeout}"`);
  }
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (typeof maxConnections !== 'number') throw new TypeError(`Invalid option maxConnections: expected a number, got "${String(maxConnections)}"`);
  if (maxConnections !== Infinity && (!Number.isSafeInteger(maxConnections) || maxConnections < 1)) {
    throw new RangeError(`Invalid option maxConnections: expected a positive integer or Infinity, got "${String(maxConnections)}"`);
  }
  const perAddress = options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
  if (typeof perAddress !== 'number') throw new TypeError(`Invalid option maxConnectionsPerAddress: expected a number, got "${String(perAddress)}"`);
  if (perAddress !== Infinity && (!Number.isSafeInteger(perAddress) || perAddress < 1)) {
    throw new RangeError(`Invalid option maxConnectionsPerAddress: expected a positive integer or Infinity, got "${String(perAddress)}"`);
  }
  const idleTimeout = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const protection = options.dnsRebindingProtection ?? (isLoopbackHost(host) || options.allowedHosts !== undefined);
  const handler = createMcpHttpHandler({ ...options, dnsRebindingProtection: protection });
  const warning = bindWarning(host, protection, options.allowAnyOrigin === true);
  if (warning !== undefined) handler[HTTP_CORE].logger.warn(warning);
  const httpServer = createServer({
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
  }, toNodeListener(handler, { via: options.via ?? 'direct', idleTimeoutMs: idleTimeout }));
  // Before a request and between requests the socket idles under Node's own timers; this covers the rest.
  httpServer.timeout = idleTimeout;
  const logger = handler[HTTP_CORE].logger;
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
  if (maxConnections !== Infinity) {
    httpServer.maxConnections = maxConnections;
    httpServer.on('drop', () => drop(`maxConnections (${maxConnections})`));
  }
  if (perAddress !== Infinity) {
    const open = new Map<string, number>();
    httpServer.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress;
      if (address === undefined || SELF_ADDRESSES.has(address)) return;
      const count = (open.get(address) ?? 0) + 1;
      if (count > perAddress) {
        socket.destroy();
        drop(`maxConnectionsPerAddress (${perAddress})`);
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left === 0) open.delete(address);
        else open.set(address, left);
      });
    });
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
  /** setTimeout fires at once for a delay over 2^31 - 1 ms (with a warning): longer drains wait this long. */
  const MAX_TIMER_DELAY_MS = 2_147_483_647;
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
      if (typeof drainMs !== 'number' || !Number.isFinite(drainMs) || drainMs < 0) {
        return Promise.reject(new RangeError(`Invalid option drainMs: expected a number of milliseconds from 0, got "${String(drainMs)}"`));
      }
      closing ??= (async () => {
        if (drainMs > 0 && posts > 0) {
          // Drain: new sessions are refused (503), but the listener stays open, because a call in flight may be
          // waiting for its client's answer to a server-to-client request (sampling, elicitation), which the client
          // is free to POST on a new connection. Answers are sent with `Connection: close`.
          handler[HTTP_CORE].stopAdmitting();
          draining = true;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const done = await Promise.race([
            new Promise<true>((resolve) => { whenAnswered = () => resolve(true); }),
            new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), Math.min(drainMs, MAX_TIMER_DELAY_MS)); }),
          ]);
          clearTimeout(timer);
          if (!done) handler[HTTP_CORE].logger.warn('MCP HTTP server closing with requests in flight: the drain deadline passed', { unanswered: posts, drainMs });
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
