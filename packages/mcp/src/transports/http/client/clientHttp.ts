/**
 * What the two HTTP client transports (Streamable HTTP and the 2024-11-05 HTTP+SSE transport) share: the injected
 * `fetch`, the caller's headers, bounded body reads, reading an error answer (field bug B45), reading an SSE body
 * with a bound on one event, and an abortable wait. Runtime-neutral: Web `fetch`, Web streams, no `node:` module.
 */
import { classifyValue, parseJson, type CancellationSource, type Inbound, type JsonRpcId, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { ConnectionClosedError, HttpStatusError } from '../../../protocol/clientErrors.js';
import { mcpErrorFromWire } from '../../../protocol/errors.js';
import { mediaTypeEssence } from '../media.js';
import { readBoundedText } from '../boundedBody.js';
import type { SseDecoder, SseEvent } from '../sse/sseDecoder.js';

/** The `fetch` a client transport calls: the global one, or one a host injects (a proxy agent, a test double). */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** `globalThis.fetch`, read at each call (so a stub installed later is the one called). */
const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);
let runtimeFetch: FetchLike | undefined;

/**
 * The `fetch` of a client transport given none: the runtime's own when its entry installed one (on Node, the
 * `./node` and `./stdio` entries install `nodeFetch`, a `fetch` on `node:http` that costs a fraction of
 * `globalThis.fetch`'s CPU per request), else `globalThis.fetch`. Read when a transport is made.
 */
export function defaultClientFetch(): FetchLike {
  return runtimeFetch ?? globalFetch;
}

/**
 * Installs the default `fetch` of the client transports (see {@link defaultClientFetch}): what a runtime's entry
 * does once, when it is imported. It must follow redirects by hand as `fetch` does with `redirect: 'manual'`.
 * @internal
 */
export function installDefaultClientFetch(fetch: FetchLike): void {
  runtimeFetch = fetch;
}

/**
 * One answer of a {@link DirectRequest}: the status and header fields, and either the body of a JSON answer already
 * read as text (no Web stream, no `Response`) or, for everything else (an SSE stream, an error body, a redirect),
 * the `Response` a `fetch` would have given.
 * @internal
 */
export interface DirectAnswer {
  readonly status: number;
  /** A header field by its lower-case name (repeated fields joined with `, `); `undefined` when absent. */
  header(name: string): string | undefined;
  /**
   * A 2xx answer whose `Content-Type` is JSON: its body as UTF-8 text, at most `maxJsonBytes` of it (`complete:
   * false` when it was longer: the rest is dropped with the connection), or the error reading it failed with, as a
   * `fetch` body read fails (`TypeError('terminated')` for a body cut short, the abort's reason once aborted).
   * `undefined` for any other answer: read it with {@link response}.
   */
  readonly json: { readonly text: string; readonly complete: boolean } | { readonly error: Error } | undefined;
  /** The answer as a `fetch` `Response` whose body streams (called once, only when {@link json} is `undefined`). */
  response(): Response;
}

/**
 * A runtime's cheaper way to send one request than `fetch` (on Node: straight on `node:http`): the transport
 * reads a JSON answer without building a `Response`, its `Headers` and a Web stream, and without a promise of its
 * own for the body, and cancelled by the request's `abort` through one listener (its signal only if a streamed
 * answer needs one). Same failures as `fetch` (`TypeError('fetch failed')` with the socket error in `cause`; the
 * abort's reason once cancelled) until the answer's head arrives; redirects are not followed. A `fetch` offers one under
 * {@link DIRECT_REQUEST}.
 * @internal
 */
export type DirectRequest = (
  url: URL,
  init: {
    readonly method: string;
    /**
     * The header fields as a flat list of lower-case names and their values (`[name, value, name, value, …]`, each
     * name once; see {@link headerList}); the request adds `Host` (unless listed; over TLS a listed one names the
     * server as well) and `Content-Length` (always its own), and drops a listed `Transfer-Encoding`.
     */
    readonly headers: readonly string[];
    readonly body: string;
    readonly abort: CancellationSource;
    readonly maxJsonBytes: number;
  },
) => Promise<DirectAnswer>;

/** The property under which a `fetch` offers its {@link DirectRequest} (`nodeFetch` does). @internal */
export const DIRECT_REQUEST: unique symbol = Symbol.for('switchboard.directRequest');

/** The {@link DirectRequest} `fetch` offers, if any. @internal */
export function directRequestOf(fetch: FetchLike): DirectRequest | undefined {
  return (fetch as FetchLike & { readonly [DIRECT_REQUEST]?: DirectRequest })[DIRECT_REQUEST];
}

/**
 * Headers added to every HTTP request of a client transport (e.g. `Authorization`), or a function called before
 * each request that returns them (for a token that is refreshed). The transport's own headers (`Content-Type`,
 * `Accept`, `Mcp-Session-Id`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `Last-Event-ID`)
 * win over these.
 */
export type HttpClientHeaders = HttpHeaderFields | (() => HttpHeaderFields | Promise<HttpHeaderFields>);

/** Header fields: a plain record of names to values, or a `Headers` object. */
export type HttpHeaderFields = Readonly<Record<string, string>> | Headers;

/** Fields of `RequestInit` passed to every `fetch` as they are (`credentials`, `mode`, `keepalive`, …). */
export type HttpClientRequestInit = Omit<RequestInit, 'method' | 'body' | 'headers' | 'signal'>;

/** Default bound (characters of text, bytes for ASCII) of one SSE event a client transport reads: 16 MiB. */
export const DEFAULT_MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;
/** Default bound (bytes) of one `application/json` answer a client transport reads: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** How many bytes of an error answer are read to find a JSON-RPC error in it (the error keeps 1 KiB of text). */
export const ERROR_BODY_READ_BYTES = 64 * 1024;

/** `SSE` media type. */
export const EVENT_STREAM = 'text/event-stream';

/** Whether a response's `Content-Type` is `text/event-stream`. */
export function isEventStream(response: Response): boolean {
  return mediaTypeEssence(response.headers.get('content-type') ?? undefined) === EVENT_STREAM;
}

/** The caller's headers for one request, then `own` on top (the transport's headers win). */
export async function requestHeaders(base: HttpClientHeaders | undefined, own: Record<string, string>): Promise<Headers> {
  return mergedHeaders(typeof base === 'function' ? await base() : base, own);
}

/**
 * The caller's header fields, each set in turn (of two names that differ only in case the last wins), then `own`
 * on top. `Headers` checks each name and value as `fetch` would (a name or value with CR/LF is refused).
 * @throws {TypeError} for a name or value a `Headers` would refuse
 */
function mergedHeaders(fields: HttpHeaderFields | undefined, own: Readonly<Record<string, string>>): Headers {
  const headers = new Headers();
  if (fields instanceof Headers) fields.forEach((value, name) => headers.set(name, value));
  else if (fields !== undefined) for (const [name, value] of Object.entries(fields)) headers.set(name, value);
  for (const [name, value] of Object.entries(own)) headers.set(name, value);
  return headers;
}

/**
 * The caller's header fields (already resolved, when the caller gave a function), then `own` on top, as a flat list
 * of lower-case names and values (`[name, value, …]`, each name once): what {@link requestHeaders} gives as
 * `Headers`, for a {@link DirectRequest} (node:http sends a list as it is, without the per-field `setHeader` an
 * object costs: about 16k fewer instructions per request, measured with callgrind on Node 20).
 * @throws {TypeError} for a name or value a `Headers` would refuse (a {@link DirectRequest} checks none)
 */
export function headerList(fields: HttpHeaderFields | undefined, own: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  if (fields !== undefined) {
    mergedHeaders(fields, own).forEach((value, name) => out.push(name, value));
    return out;
  }
  for (const name in own) out.push(name.toLowerCase(), own[name] as string);
  return out;
}

/** A {@link headerList} as the `[name, value]` pairs a `fetch` takes. */
export function headerPairs(list: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < list.length; i += 2) pairs.push([list[i] as string, list[i + 1] as string]);
  return pairs;
}

/** A short description of why a `fetch` rejected (Node puts the socket error in `cause`). */
export function fetchFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  const detail = cause instanceof Error ? ((cause as Error & { code?: unknown }).code ?? cause.message) : undefined;
  return typeof detail === 'string' && detail !== '' ? `${error.message} (${detail})` : error.message;
}

/**
 * Whether a `fetch` failed because nothing accepted the connection: its `cause` (Node's socket error, from undici's
 * fetch and from `nodeFetch` alike) has the code `ECONNREFUSED`, or is an `AggregateError` of such errors (Node
 * tried each address of a host name, e.g. `localhost` as ::1 then 127.0.0.1).
 */
export function isConnectionRefused(error: unknown): boolean {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const refused = (e: unknown): boolean => e instanceof Error && (e as Error & { code?: unknown }).code === 'ECONNREFUSED';
  if (refused(cause)) return true;
  return cause instanceof AggregateError && cause.errors.length > 0 && cause.errors.every(refused);
}

/**
 * Whether a `fetch` failed because the connection was reset or closed under it (`ECONNRESET`, `EPIPE`, undici's
 * "other side closed"): what a kept-alive connection the server closed at that moment looks like. A refused
 * connection (`ECONNREFUSED`) is not.
 */
export function isStaleSocket(error: unknown): boolean {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code = cause instanceof Error ? (cause as Error & { code?: unknown }).code : undefined;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/** Whether `error` is what an aborted `fetch` or body read rejects with. */
export function isAbort(error: unknown, signal: { readonly aborted: boolean }): boolean {
  return signal.aborted || (error instanceof Error && error.name === 'AbortError');
}

/** Drops a body the transport does not read (so the connection can be reused). */
export function discardBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/** The JSON-RPC responses an inbound unit holds (one, or those of a batch). */
export function responsesOf(inbound: Inbound): JsonRpcResponse[] {
  if (inbound.kind === 'response') return [inbound.message];
  if (inbound.kind === 'batch') return inbound.items.flatMap((item) => (item.kind === 'response' ? [item.message] : []));
  return [];
}

/** The responses of an inbound unit that were well-formed (not stand-ins the classifier made for malformed ones). */
function wellFormedResponsesOf(inbound: Inbound): JsonRpcResponse[] {
  const items = inbound.kind === 'batch' ? inbound.items : [inbound];
  return items.flatMap((item) => (item.kind === 'response' && item.invalid === undefined ? [item.message] : []));
}

/** What an answer's body that is not the success the client expected means (see {@link readErrorAnswer}). */
export type ErrorAnswer =
  /** A JSON-RPC response for the request: delivered as any response is, whatever the status. */
  | { readonly deliver: Inbound }
  /** Nothing to pair with the request: the send fails with this. */
  | { readonly error: HttpStatusError };

/**
 * Reads an answer that is an HTTP error, or a success the client cannot use, field bug B45: a body holding a
 * JSON-RPC response whose `id` is the request's is delivered (so `-32022` settles the request as the wire error
 * it is); an error without an `id`, with `"id": null` or another id, or a body that is not JSON-RPC, is an
 * {@link HttpStatusError} carrying the status, the first 1 KiB of the body and the typed JSON-RPC error, if any.
 * @param facts - The answer, the request's id (`undefined` for a notification or response), and what was sent.
 */
export async function readErrorAnswer(facts: { readonly response: Response; readonly requestId: JsonRpcId | undefined; readonly what: string }): Promise<ErrorAnswer> {
  const { response, requestId, what } = facts;
  let text = '';
  try {
    text = (await readBoundedText(response, ERROR_BODY_READ_BYTES)).text;
  } catch {
    // A body cut short says nothing more than the status.
  }
  const parsed = text.trim() === '' ? undefined : parseJson(text);
  if (parsed?.ok === true) {
    const inbound = classifyValue(parsed.value);
    const responses = responsesOf(inbound);
    if (requestId !== undefined && responses.some((r) => r.id === requestId)) return { deliver: inbound };
    const failure = wellFormedResponsesOf(inbound).find((r) => 'error' in r);
    if (failure !== undefined && 'error' in failure) {
      return { error: new HttpStatusError({ status: response.status, body: text, error: mcpErrorFromWire(failure.error), what }) };
    }
  }
  return { error: new HttpStatusError({ status: response.status, body: text, what }) };
}

/** How reading one SSE body ended. */
export type SseEnd = 'ended' | 'stopped' | 'aborted' | 'failed' | 'too_large';

/** Options of {@link readSseBody}. */
export interface ReadSseBodyOptions {
  /** The decoder of this connection (its `lastEventId` and `retryMs` are read by the caller afterwards). */
  readonly decoder: SseDecoder;
  /** Bound of the event not yet ended, in characters. */
  readonly maxEventBytes: number;
  /** Aborting stops the read (`'aborted'`). */
  readonly signal: AbortSignal;
  /**
   * Called before each read: a promise holds the read back until it resolves (backpressure: the body is not read,
   * so the connection's flow control stops the sender). @default always room
   */
  readonly room?: () => Promise<void> | undefined;
  /** Each event, in order; returning `true` stops reading (`'stopped'`; the body is cancelled). */
  readonly onEvent: (event: SseEvent) => boolean | undefined;
  /** Called with the failure when the body could not be read to its end (`'failed'`). */
  readonly onFailure?: (error: unknown) => void;
}

/** Reads an SSE body to its end, event by event, bounding the event not yet ended. */
export async function readSseBody(response: Response, options: ReadSseBodyOptions): Promise<SseEnd> {
  const body = response.body;
  if (body === null) return 'ended';
  const { decoder, signal } = options;
  const reader = body.getReader();
  const text = new TextDecoder();
  /** Ends the wait for room, if any: an aborted read held back for room stops waiting at once. */
  let stopWaiting: (() => void) | undefined;
  const cancel = (): void => {
    stopWaiting?.();
    reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      for (let wait = options.room?.(); wait !== undefined && !signal.aborted; wait = options.room?.()) {
        const room = wait;
        await new Promise<void>((resolve) => {
          stopWaiting = resolve;
          void room.then(resolve);
        });
        stopWaiting = undefined;
      }
      if (signal.aborted) return 'aborted';
      const { value, done } = await reader.read();
      if (done) {
        for (const event of decoder.push(text.decode())) if (options.onEvent(event) === true) return 'stopped';
        return signal.aborted ? 'aborted' : 'ended';
      }
      for (const event of decoder.push(text.decode(value, { stream: true }))) {
        if (options.onEvent(event) === true) {
          cancel();
          return 'stopped';
        }
      }
      if (decoder.pendingLength > options.maxEventBytes) {
        cancel();
        return 'too_large';
      }
    }
  } catch (error) {
    if (isAbort(error, signal)) return 'aborted';
    options.onFailure?.(error);
    return 'failed';
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** Waits `ms`; resolves `false` at once when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error of a request whose stream ended before its response and cannot be resumed. */
export function streamLost(reason: string, cause?: unknown): ConnectionClosedError {
  return new ConnectionClosedError(cause === undefined ? { what: 'the response stream ended', reason } : { what: 'the response stream ended', reason, cause });
}
