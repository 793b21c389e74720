/**
 * What the HTTP endpoints (Streamable HTTP, 2024-11-05 HTTP+SSE) are handed by the handler that routes to them:
 * the server, the session table and the settings they share, and the small helpers both use.
 * Internal to the package (not a public entry).
 */
import type { Inbound, Logger, TransportMessageExtra } from '@switchboard/jsonrpc';
import type { BodyLimits } from './body.js';
import type { HttpInput, HttpOutput } from './inputOutput.js';
import type { McpHttpServerLike } from './serverLike.js';
import type { SessionTable } from './sessions/sessionTable.js';
import type { SessionEntry } from './sessions/sessionEntry.js';
import type { ClusterHub } from './sessions/clusterHub.js';

/** What {@link EndpointContext.authorize} is asked about: a body read, before it is dispatched. */
export interface EndpointAuthorizeRequest {
  /** The request (its `authInfo` the verified token's). */
  readonly input: HttpInput;
  readonly inbound: Inbound;
  /** The session the body came on; `undefined` for a modern POST. */
  readonly session: SessionEntry | undefined;
}

/** A session an endpoint asks to open for the HTTP request `input`. */
export interface EndpointAdmitRequest {
  readonly sessionId: string;
  readonly kind: SessionEntry['kind'];
  readonly input: HttpInput;
  /** The session's stream prefix for its record (`null`: no resumption). */
  readonly streamPrefix: string | null;
}

/** The shared state and settings of the endpoints of one handler. */
export interface EndpointContext {
  readonly server: McpHttpServerLike;
  readonly logger: Logger;
  readonly table: SessionTable;
  /** The instance's side of a cluster (the handler's `cluster` option); absent: one instance. */
  readonly hub?: ClusterHub | undefined;
  readonly body: BodyLimits;
  /** Interval (ms) of SSE keep-alive comments on long-lived streams; `0` disables. */
  readonly keepAliveMs: number;
  /** Unsent SSE data allowed per connection before it is dropped, in bytes. */
  readonly maxSseBufferBytes: number;
  /** Unsent SSE data allowed across every stateless (2026-07-28) stream together, in bytes. */
  readonly maxSseBufferBytesTotal: number;
  /** Admits a new session: the refusal to send (429, 503), or `undefined` when the slot is taken. */
  admit(request: EndpointAdmitRequest): Promise<HttpOutput | undefined>;
  /** The 500 answer to an internal failure (logged; no exception text on the wire). */
  internalError(error: unknown): HttpOutput;
  /**
   * The key of the caller that sent `input`, for the server's per-caller shares (tasks, listen streams, SSE
   * buffers): the handler's `callerIdentity`, else `address:<address after trustProxy>` (a loopback peer
   * included), else `undefined` (no address known: the Web handler).
   */
  readonly callerOf: (input: HttpInput) => string | undefined;
  /**
   * With the handler's `auth` option: the 403 `insufficient_scope` answering a body whose `tools/call` needs a scope
   * the caller lacks (`auth/toolScopeCheck.ts`), else `undefined`. Absent without `auth`.
   */
  readonly authorize?: ((request: EndpointAuthorizeRequest) => HttpOutput | undefined) | undefined;
  /**
   * With the handler's `auth` option: who the verified token of `input` speaks for (issuer, subject, client), the
   * principal a 2024-11-05 HTTP+SSE session is bound to. Absent without `auth`.
   */
  readonly principalOf?: ((input: HttpInput) => string) | undefined;
}

export const TEXT_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'text/plain; charset=utf-8' });

/** The caller key of an input (see {@link EndpointContext.callerOf}). */
export type CallerOf = (input: HttpInput) => string | undefined;

/**
 * The {@link TransportMessageExtra} of one request, with the key of its caller (see `callerKeyOf` on the server);
 * the key and the headers are worked out only if someone reads them (a per-caller budget: tasks, listen streams,
 * SSE bytes), so a request no budget looks at costs no address parsing.
 */
class LazyExtra implements TransportMessageExtra {
  readonly authInfo: unknown;
  readonly #input: HttpInput;
  readonly #callerOf: CallerOf | undefined;
  #caller: string | undefined = undefined;
  #callerKnown = false;
  #headers: Record<string, string> | undefined = undefined;

  constructor(input: HttpInput, callerOf: CallerOf | undefined) {
    this.#input = input;
    this.authInfo = input.authInfo;
    this.#callerOf = callerOf;
  }

  /** See {@link EndpointContext.callerOf}; computed once, when first read. */
  get caller(): string | undefined {
    if (!this.#callerKnown) {
      this.#caller = this.#callerOf?.(this.#input);
      this.#callerKnown = true;
    }
    return this.#caller;
  }

  get headers(): Record<string, string> {
    return (this.#headers ??= this.#input.headers());
  }
}

/**
 * The {@link TransportMessageExtra} handed to the server with the messages of `input`; `callerOf` gives its caller
 * key when a budget asks for it.
 */
export function extraOf(input: HttpInput, callerOf?: CallerOf): TransportMessageExtra {
  return new LazyExtra(input, callerOf);
}

/**
 * A new session id: cryptographically secure, visible ASCII (MCP 2025-11-25 basic/transports.mdx "Session
 * Management" item 1).
 */
export function newSessionId(): string {
  return globalThis.crypto.randomUUID();
}
