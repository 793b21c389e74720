/**
 * The Node `http` request listener of the MCP HTTP handler (`toNodeListener`).
 *
 * The default (`via: 'direct'`) drives the handler's core straight from `IncomingMessage`/`ServerResponse`: the
 * body is read once into a buffer (bounded by `maxBodyBytes`), no `Request`/`Response` objects are built, and SSE
 * events are written to the socket as they are produced. `via: 'fetch'` converts to a Web `Request` and back; both
 * paths share every decision (the core), and the test suite runs through both.
 */
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyRead, HttpInput, HttpOutput } from '../http/server/inputOutput.js';
import { nodeBodyStream, readNodeBody } from './nodeBody.js';
import { peerAddress } from '../http/server/inputOutput.js';
import { REQUEST_PEERS } from '../http/server/web.js';
import type { SseChannel } from '../http/sse/sseChannel.js';
import { httpCoreOf } from '../http/server/handler.js';
import type { McpHttpHandler } from '../http/server/handler.js';

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

const GONE = new Error('The client closed the connection');

function ignore(): void {}

/** `https` when the request came over TLS (an `https.Server`, or a TLS socket handed to `http`). */
function schemeOf(req: IncomingMessage): 'http' | 'https' {
  return (req.socket as { encrypted?: boolean } | null)?.encrypted === true ? 'https' : 'http';
}

/**
 * Every `Authorization` value of a request joined by `, `, or `undefined`. Node keeps only the first of repeated
 * `Authorization` headers in `req.headers`, so `Bearer good` then `Bearer garbage` would pass as `Bearer good`;
 * RFC 9110 §5.3 makes a repeated field the same as its values joined by commas, which the resource server refuses as
 * malformed (400 `invalid_request`: RFC 6750 §2.1 credentials are one `Bearer` token). Read from `rawHeaders`.
 */
function authorizationOf(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let joined: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    joined = joined === undefined ? raw[i + 1] : `${joined}, ${raw[i + 1] as string}`;
  }
  return joined;
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
  readonly #res: ServerResponse;
  #gone: AbortController | undefined = undefined;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.#req = req;
    this.#res = res;
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
    if (name === 'authorization') return authorizationOf(this.#req);
    const value = this.#req.headers[name];
    return value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : value;
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.#req.headers)) {
      if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (out.authorization !== undefined) out.authorization = authorizationOf(this.#req) as string;
    return out;
  }

  readBody(maxBytes: number): Promise<BodyRead> {
    return readNodeBody(this.#req, maxBytes);
  }

  /** Made when first read (modern requests only): aborts when the response closes before it was all written. */
  get signal(): AbortSignal {
    if (this.#gone === undefined) {
      const gone = new AbortController();
      this.#gone = gone;
      whenCut(this.#res, () => gone.abort());
    }
    return this.#gone.signal;
  }

  onGone(listener: () => void): void {
    whenCut(this.#res, listener);
  }
}

/** Calls `listener` when `res` closes before its end was written (the client went away), at once if it did. */
function whenCut(res: ServerResponse, listener: () => void): void {
  if (res.writableFinished) return;
  if (res.destroyed) {
    listener();
    return;
  }
  res.once('close', () => {
    if (!res.writableFinished) listener();
  });
}

function writeNode(res: ServerResponse, output: HttpOutput, idleMs: number): void {
  const channel = output.sse;
  if (res.destroyed) {
    channel?.detach();
    return;
  }
  if (channel === undefined) {
    const body = output.body;
    if (body === undefined) {
      res.writeHead(output.status, output.headers);
      res.end();
    } else {
      // With its length the answer leaves in one write (head and body together); without, Node frames it chunked
      // and writes the pieces with writev (RFC 9112 §6.2: Content-Length delimits the body).
      res.writeHead(output.status, { 'content-length': Buffer.byteLength(body), ...output.headers });
      res.end(body);
    }
    // The inactivity timeout guards an answer the client does not read. One the kernel took whole (the usual case)
    // finishes at once, and Node then arms the connection's keep-alive timeout in its place: arming ours would only
    // make a timer (and a bound function) per request that is replaced a tick later.
    if (idleMs > 0 && (res.socket?.writableLength ?? 0) > 0) res.setTimeout(idleMs);
    return;
  }
  // A response that is produced within the current tick (a quick tool) completes its stream before the next one:
  // the whole stream then leaves in one write, like any small response, instead of headers and events piecemeal.
  if (!channel.ended) {
    process.nextTick(streamNode, res, output, channel);
    return;
  }
  streamNode(res, output, channel);
}

/**
 * Sends an SSE body (`channel`, the answer's `sse`) with the answer's status and headers: at once when the stream
 * already ended, otherwise by attaching a sink to the channel.
 */
function streamNode(res: ServerResponse, output: HttpOutput, channel: SseChannel): void {
  const { status, headers } = output;
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

/** What {@link viaFetch} needs besides the exchange: the handler and the listener's `idleTimeoutMs`. */
interface FetchRoute {
  readonly handler: McpHttpHandler;
  readonly idleMs: number;
}

async function viaFetch(route: FetchRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { handler, idleMs } = route;
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(key)) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  // Every Authorization value, as the direct path reads them (see `authorizationOf`).
  if (req.headers.authorization !== undefined) headers.set('authorization', authorizationOf(req) as string);
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  // The Request's signal tells the handler when the client goes away (a modern request's cancellation).
  const gone = new AbortController();
  whenCut(res, () => gone.abort());
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: gone.signal };
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
 * @param handler - From {@link createMcpHttpHandler} (that object itself: the listener drives the core behind it).
 * @param options - `via`: `direct` (default, lean) or `fetch` (through `Request`/`Response`); `idleTimeoutMs`.
 * @returns A request listener.
 * @throws TypeError when `handler` is not an object {@link createMcpHttpHandler} returned (a copy or a wrapper).
 * @throws RangeError when `idleTimeoutMs` is negative, NaN or above 2^31 − 1.
 * @example
 * const handler = createMcpHttpHandler({ server });
 * http.createServer(toNodeListener(handler)).listen(3000, '127.0.0.1');
 */
export function toNodeListener(handler: McpHttpHandler, options: NodeListenerOptions = {}): NodeListener {
  const core = httpCoreOf(handler);
  const idleMs = options.idleTimeoutMs ?? 0;
  checkMsOption('idleTimeoutMs', idleMs, { integer: true });
  const fail = (res: ServerResponse, error: unknown): void => {
    if (!res.headersSent && !res.destroyed) writeNode(res, core.internalError(error), idleMs);
    else {
      core.logger.error('MCP HTTP adapter failed', { error });
      if (!res.writableEnded) res.destroy();
    }
  };
  if (options.via === 'fetch') {
    const route: FetchRoute = { handler, idleMs };
    return (req, res, next) => {
      if (next !== undefined && !core.matches(pathOf(req.url))) {
        next();
        return;
      }
      if (idleMs > 0) req.socket?.setTimeout(0);
      viaFetch(route, req, res).catch((error: unknown) => fail(res, error));
    };
  }
  return (req, res, next) => {
    const input = new NodeHttpInput(req, res);
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
