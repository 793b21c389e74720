/**
 * A `fetch` on `node:http` / `node:https` for the HTTP client transports on Node: the same contract as
 * `globalThis.fetch` for what the transports ask of it (a request with headers, a string or byte body and a
 * signal; a WHATWG `Response` whose body streams), at a fraction of the CPU of Node's built-in (undici) `fetch`.
 * Connections are kept alive in a bounded `Agent`. Redirects are never followed (MCP defines none): a 3xx is
 * returned as it is.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isJsonContentType } from '../http/media.js';
import type { CancellationSource } from '@switchboard/jsonrpc';
import { DIRECT_REQUEST, type DirectAnswer, type DirectRequest, type FetchLike } from '../http/client/clientHttp.js';

/** Default bound of open sockets per host (`Agent#maxSockets`) of the agents {@link createNodeFetch} makes. */
export const DEFAULT_NODE_FETCH_MAX_SOCKETS = 64;

/** Options of {@link createNodeFetch}. */
export interface NodeFetchOptions {
  /**
   * The agent of `http:` requests (a proxy agent, one with other limits). When given, `maxSockets` does not apply
   * to it and {@link NodeFetch.destroy} leaves it alone.
   * @default a new `http.Agent({ keepAlive: true, maxSockets })`
   */
  readonly agent?: http.Agent;
  /**
   * The agent of `https:` requests; as `agent`.
   * @default a new `https.Agent({ keepAlive: true, maxSockets })`, made on the first `https:` request
   */
  readonly httpsAgent?: https.Agent;
  /**
   * Bound of open sockets per host of the agents made here; requests beyond it wait for a free socket. Each open
   * SSE stream (a legacy GET stream, a 2026-07-28 listen stream, a streamed answer) holds one.
   * @default 64 ({@link DEFAULT_NODE_FETCH_MAX_SOCKETS})
   */
  readonly maxSockets?: number;
}

/** A `fetch` made by {@link createNodeFetch}: call it as `fetch`; `destroy()` closes the sockets of its own agents. */
export interface NodeFetch extends FetchLike {
  /** Destroys the agents this `fetch` made (not those passed in): their idle and open sockets are closed. */
  destroy(): void;
  /** The same requests without a `Response` for a JSON answer (what the Streamable HTTP client transport uses). @internal */
  readonly [DIRECT_REQUEST]: DirectRequest;
}

/** A stream of a response body that ended before its end: what undici's `fetch` reports as `terminated`. */
function terminated(cause?: unknown): TypeError {
  return cause === undefined ? new TypeError('terminated') : new TypeError('terminated', { cause });
}

/** What `fetch` rejects with when the request could not be made or answered (the Node error, its `code`, in `cause`). */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/**
 * The reason an aborted signal (or direct request) rejects with: its `reason` as it is (an `AbortError` `DOMException`
 * unless the caller gave another; `fetch` rejects with a non-Error reason too, hence the cast), else a new `AbortError`.
 */
function abortReason(aborted: { readonly reason: unknown }): Error {
  const reason: unknown = aborted.reason;
  return reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : (reason as Error);
}

/**
 * A header value character that is one byte in Fetch (a ByteString: U+0080..U+00FF as bytes 0x80..0xFF) but two if
 * node:http writes it as UTF-8, which it does when it sends the header block joined with a string body; beside a
 * body of bytes it writes the block as latin1. A request with such a value sends its body as bytes.
 */
const WIDE_HEADER_CHAR = /[\x80-\xff]/;

/** `body` as node:http should write it beside header fields that hold a {@link WIDE_HEADER_CHAR}, when `wide`. */
function bodyBeside<B extends string | Uint8Array | undefined>(body: B, wide: boolean): B | Buffer {
  return wide && typeof body === 'string' ? Buffer.from(body) : body;
}

/** A request's header fields as node:http takes them. */
function outgoingHeaders(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || headers === null) return out;
  (headers instanceof Headers ? headers : new Headers(headers)).forEach((value, name) => (out[name] = value));
  // The body's framing is the request's own: a caller's Transfer-Encoding beside the Content-Length set here would
  // frame the message two ways (RFC 9112 §6.1; the Fetch standard lists it among the forbidden request-headers).
  delete out['transfer-encoding'];
  return out;
}

/**
 * The TLS server name (SNI, and the name the certificate must carry) for a `Host` field the caller set: its host
 * without the port or an IPv6 literal's brackets; `''` (none) for an IP address (RFC 6066 §3). What node:http
 * derives itself from a `Host` in an object of header fields, and not from a list.
 */
function serverNameOf(host: string): string {
  let name = host;
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    if (end !== -1) name = name.slice(1, end);
  } else {
    const colon = name.indexOf(':');
    if (colon !== -1) name = name.slice(0, colon);
  }
  return isIP(name) === 0 ? name : '';
}

/** A request body as bytes or text node:http writes; `undefined` for none. */
function outgoingBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(`Unsupported request body: "${Object.prototype.toString.call(body)}": nodeFetch sends a string or bytes`);
}

/** The response's header fields; repeated fields are joined with `, ` (`Set-Cookie` kept apart, as `Headers` does). */
function responseHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/**
 * A Web stream over a response body: chunks as they arrive (an endless SSE stream works), paused while the
 * reader is behind; cancelling it destroys the response and its socket; aborting `signal` errors it with the reason.
 */
function bodyStream(res: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let settled = false;
  let onAbort: (() => void) | undefined;
  /** Ends the stream once; its listener on `signal` goes. */
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    return true;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const finish = (error?: unknown): void => {
          if (!settle()) return;
          if (error === undefined) controller.close();
          else controller.error(error);
        };
        onAbort = (): void => {
          finish(abortReason(signal as AbortSignal));
          res.destroy();
        };
        res.on('data', (chunk: Uint8Array) => {
          if (settled) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 1) <= 0) res.pause();
        });
        res.on('end', () => finish());
        res.on('error', (error) => finish(terminated(error)));
        res.on('close', () => finish(res.complete ? undefined : terminated()));
        // A signal that aborted before the body was asked for (between the answer's head and this) errors it at once.
        if (signal?.aborted === true) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      },
      pull() {
        res.resume();
      },
      cancel() {
        settle();
        res.destroy();
      },
    },
    { highWaterMark: 16 },
  );
}

/** Statuses whose response has no body (`new Response` refuses one). */
function isNullBodyStatus(status: number): boolean {
  return status === 101 || status === 204 || status === 205 || status === 304;
}

/** The `Response` of an answer: its body streams (`null` for `HEAD` and the null-body statuses, whose body is dropped). */
function toResponse(res: http.IncomingMessage, method: string, signal: AbortSignal | undefined): Response {
  const status = res.statusCode ?? 0;
  const noBody = method === 'HEAD' || isNullBodyStatus(status);
  const response = new Response(noBody ? null : bodyStream(res, signal), { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res.rawHeaders) });
  if (noBody) res.resume();
  return response;
}

/**
 * Reads a body whole as UTF-8 text, at most `maxBytes` of it (beyond: the response is destroyed, `complete: false`),
 * then calls `done` once with it or with the error: `TypeError('terminated')` when cut short, the abort's reason once
 * it is cancelled (heard through a listener on `abort`: no signal).
 */
function readText(res: http.IncomingMessage, bound: { readonly maxBytes: number; readonly abort: CancellationSource }, done: (body: NonNullable<DirectAnswer['json']>) => void): void {
  const { maxBytes, abort } = bound;
  if (abort.cancelled) {
    res.destroy();
    done({ error: abortReason(abort) });
    return;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  let settled = false;
  const finish = (error: Error | undefined, complete = true): void => {
    if (settled) return;
    settled = true;
    abort.offCancel(onAbort);
    if (error !== undefined) {
      done({ error });
      return;
    }
    const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    // A body cut at the bound may end inside a character: the partial sequence decodes as U+FFFD, as a streaming read would.
    done({ text: whole.toString('utf8'), complete });
  };
  const onAbort = (): void => {
    finish(abortReason(abort));
    res.destroy();
  };
  res.on('data', (chunk: Buffer) => {
    if (settled) return;
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      chunks.push(chunk.subarray(0, chunk.byteLength - (bytes - maxBytes)));
      finish(undefined, false);
      res.destroy();
      return;
    }
    chunks.push(chunk);
  });
  res.on('end', () => finish(undefined));
  res.on('error', (error) => finish(terminated(error)));
  res.on('close', () => finish(res.complete ? undefined : terminated()));
  abort.onCancel(onAbort);
}

/** A {@link DirectAnswer} over a node:http answer. */
class NodeDirectAnswer implements DirectAnswer {
  readonly status: number;
  json: DirectAnswer['json'] = undefined;
  readonly #res: http.IncomingMessage;
  readonly #method: string;
  readonly #abort: CancellationSource;

  constructor(res: http.IncomingMessage, method: string, abort: CancellationSource) {
    this.status = res.statusCode ?? 0;
    this.#res = res;
    this.#method = method;
    this.#abort = abort;
  }

  header(name: string): string | undefined {
    const value = this.#res.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  response(): Response {
    return toResponse(this.#res, this.#method, this.#abort.signal);
  }
}

const ignoreError = (): void => {};

/**
 * Makes a `fetch` on `node:http` / `node:https` with keep-alive agents, for `streamableHttp({ url, fetch })` and
 * `httpSse({ url, fetch })` on Node. It sends `method`, `headers` and a string or byte `body` (other `RequestInit`
 * fields are ignored); the `Response` has `status`, `statusText`, `headers` and a streaming `body` (`null` for a
 * `HEAD` request and for statuses 204, 205 and 304). Redirects are never followed (a 3xx is returned as it is, as
 * with `redirect: 'manual'`): the client transports follow a same-origin 307/308 themselves and refuse the rest
 * with `RedirectRefusedError`, so no body or header goes to another origin.
 *
 * Failures are those of `fetch`: a request that cannot be made or is cut before its answer rejects with
 * `TypeError('fetch failed')` whose `cause` is the Node error (its `code`, e.g. `ECONNRESET`, `ECONNREFUSED`,
 * `EPIPE`, kept); a body cut short errors its stream with `TypeError('terminated')`; aborting `init.signal`
 * destroys the request and rejects (or errors the body) with the signal's reason (an `AbortError` `DOMException`
 * unless another was given).
 * @throws {TypeError} (as a rejection) for a URL that is not `http:` or `https:` and for a body of another type.
 * @example
 * import { streamableHttp } from '@switchboard/mcp/client';
 * import { createNodeFetch } from '@switchboard/mcp/node';
 * const fetch = createNodeFetch({ maxSockets: 8 });
 * const connector = streamableHttp({ url: 'http://127.0.0.1:3000/mcp', fetch });
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const maxSockets = options.maxSockets ?? DEFAULT_NODE_FETCH_MAX_SOCKETS;
  const ownAgent = options.agent === undefined ? new http.Agent({ keepAlive: true, maxSockets }) : undefined;
  const httpAgent = options.agent ?? ownAgent;
  let ownHttpsAgent: https.Agent | undefined;
  const agentFor = (protocol: string): http.Agent | undefined => {
    if (protocol === 'http:') return httpAgent;
    if (options.httpsAgent !== undefined) return options.httpsAgent;
    ownHttpsAgent ??= new https.Agent({ keepAlive: true, maxSockets });
    return ownHttpsAgent;
  };

  const nodeFetch = (input: string | URL, init: RequestInit = {}): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      let url: URL;
      let body: string | Uint8Array | undefined;
      try {
        url = input instanceof URL ? input : new URL(input);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`Unsupported URL scheme: "${url.protocol}": nodeFetch speaks http: and https:`);
        body = outgoingBody(init.body);
      } catch (error) {
        reject(fetchFailed(error));
        return;
      }
      const method = (init.method ?? 'GET').toUpperCase();
      const headers = outgoingHeaders(init.headers);
      if (body !== undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      let wide = false;
      for (const name in headers) if (WIDE_HEADER_CHAR.test(headers[name] as string)) wide = true;
      const send = url.protocol === 'http:' ? http.request : https.request;
      let answered = false;
      const onAbort = (): void => {
        if (answered) return;
        answered = true;
        if (signal !== undefined) reject(abortReason(signal));
        req.destroy();
      };
      const req = send(
        { protocol: url.protocol, hostname: hostOf(url), port: url.port, path: url.pathname + url.search, method, headers, agent: agentFor(url.protocol) },
        (res) => {
          if (answered) {
            res.destroy();
            return;
          }
          answered = true;
          // From here the body stream listens to the signal itself.
          signal?.removeEventListener('abort', onAbort);
          let response: Response;
          try {
            response = toResponse(res, method, signal);
          } catch (error) {
            res.destroy();
            reject(fetchFailed(error));
            return;
          }
          resolve(response);
        },
      );
      req.on('error', (error) => {
        if (answered) return;
        answered = true;
        signal?.removeEventListener('abort', onAbort);
        reject(fetchFailed(error));
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      req.end(bodyBeside(body, wide));
    });

  /** `nodeFetch` without the `Response`: the answer's status and fields at once, its body read as the caller needs. */
  const direct: DirectRequest = (url, init) =>
    new Promise<DirectAnswer>((resolve, reject) => {
      const { method, abort } = init;
      if (abort.cancelled) {
        reject(abortReason(abort));
        return;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(fetchFailed(new TypeError(`Unsupported URL scheme: "${url.protocol}": nodeFetch speaks http: and https:`)));
        return;
      }
      // A flat list goes to node:http as it is (no `setHeader` per field); `Host` is the URL's unless listed, as
      // node:http itself would add it for an object.
      const fields = init.headers;
      const headers: string[] = [];
      let host: string | undefined;
      let wide = false;
      for (let i = 0; i < fields.length; i += 2) {
        const name = fields[i] as string;
        const value = fields[i + 1] as string;
        if (WIDE_HEADER_CHAR.test(value)) wide = true;
        if (name === 'host') host = value;
        else if (name !== 'content-length' && name !== 'transfer-encoding') headers.push(name, value);
      }
      headers.push('host', host ?? url.host, 'content-length', String(Buffer.byteLength(init.body)));
      // Over TLS the server name follows a Host the caller set, as it does for an object of fields.
      const servername = host !== undefined && url.protocol === 'https:' ? serverNameOf(host) : undefined;
      let answered = false;
      const onAbort = (): void => {
        if (answered) return;
        answered = true;
        reject(abortReason(abort));
        req.destroy();
      };
      const send = url.protocol === 'http:' ? http.request : https.request;
      let req: http.ClientRequest;
      try {
        const target: https.RequestOptions = { protocol: url.protocol, hostname: hostOf(url), port: url.port, path: url.pathname + url.search, method, headers, agent: agentFor(url.protocol) };
        if (servername !== undefined) target.servername = servername;
        req = send(target, (res) => {
          if (answered) {
            res.destroy();
            return;
          }
          answered = true;
          abort.offCancel(onAbort);
          const answer = new NodeDirectAnswer(res, method, abort);
          const status = answer.status;
          if (status < 200 || status >= 300 || !isJsonContentType(answer.header('content-type'))) {
            // Until `response()` reads it (within the same turn), a failure of the answer must not go unhandled.
            res.on('error', ignoreError);
            resolve(answer);
            return;
          }
          readText(res, { maxBytes: init.maxJsonBytes, abort }, (body) => {
            answer.json = body;
            resolve(answer);
          });
        });
      } catch (error) {
        // A header node:http refuses (a name or value `Headers` would refuse too).
        reject(error instanceof Error ? error : new TypeError(String(error)));
        return;
      }
      req.on('error', (error) => {
        if (answered) return;
        answered = true;
        abort.offCancel(onAbort);
        reject(fetchFailed(error));
      });
      abort.onCancel(onAbort);
      req.end(bodyBeside(init.body, wide));
    });

  return Object.assign(nodeFetch, {
    destroy(): void {
      ownAgent?.destroy();
      ownHttpsAgent?.destroy();
    },
    [DIRECT_REQUEST]: direct,
  });
}

/**
 * The process-wide {@link createNodeFetch} `fetch` (keep-alive agents of at most 64 sockets per host): pass it as
 * `streamableHttp({ url, fetch: nodeFetch })` on Node for less CPU per request than `globalThis.fetch`. Its idle
 * sockets do not keep the process alive.
 */
export const nodeFetch: NodeFetch = createNodeFetch();

/**
 * The host `node:http` connects to: a URL's `hostname` keeps an IPv6 literal's brackets (`[::1]`, WHATWG URL), which
 * `http.request` would look up as a name.
 */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
