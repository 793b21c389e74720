/**
 * What the HTTP transports need of a server, as structural types: `connect` a session transport and later
 * `close` what it returned; for the modern era, `handle` one message with no session, the revisions and
 * capabilities served, and each tool's mirrored-argument headers. `McpServer` satisfies them without the HTTP layer
 * importing the server's modules, so the transports stay below the server in the layering (`protocol` ← `server`;
 * `transports` know neither).
 */
import type {
  ContextRequest,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  Logger,
  Transport,
  TransportMessageExtra,
} from '@switchboard/jsonrpc';
import type { ParamHeader } from '../../../protocol/paramHeaders.js';
import type { HttpCaller } from './ladder/decisions.js';
import type { ProtocolRevision } from '../../../protocol/revisions.js';
import type { ServerCapabilities } from '../../../protocol/types.js';

/** What the HTTP handler tells the server about a session it connects. */
export interface HttpConnectOptions {
  /** The session id (`Mcp-Session-Id`, or the 2024-11-05 `sessionId` query parameter). */
  readonly sessionId?: string;
  /** Authentication facts established upstream (Node: `req.auth`), passed on untouched. */
  readonly authInfo?: unknown;
  /** Whether the transport can carry JSON-RPC batches (Streamable HTTP: yes; 2024-11-05 HTTP+SSE: no). */
  readonly batches?: boolean;
  /**
   * The state of a session opened on another instance (its record's `state`): the server serves the session from it,
   * with no `initialize` exchange (see `ConnectOptions.sessionState`).
   */
  readonly sessionState?: Readonly<Record<string, unknown>>;
}

/** What the HTTP handler keeps of one connected session: a way to end it. */
export interface HttpSessionHandle {
  /** Ends the session (and its transport). */
  close(): Promise<void>;
}

/** Options of {@link HttpClientChannel.notify}. */
export interface HttpChannelNotifyOptions {
  /** The request the notification belongs to (it goes on that request's response stream). */
  readonly relatedRequestId?: JsonRpcId;
}

/**
 * The way back to the client of one modern request over HTTP: its response stream. A modern request never sends a
 * server→client request (MCP 2026-07-28 basic/transports/streamable-http.mdx "Receiving Messages"), so `request`
 * always rejects.
 */
export interface HttpClientChannel {
  /**
   * Writes a notification (progress, a log message, a listen-stream notification) on the request's stream.
   * Resolves once written, or once a congested connection was read down (backpressure).
   * @throws JsonRpcLocalError `connection_closed` (rejection) when the client went away
   */
  notify(method: string, params?: JsonRpcParams, options?: HttpChannelNotifyOptions): Promise<void>;
  /** @throws JsonRpcLocalError `send_failed` (rejection), always: no server→client request in the modern era */
  request<T = unknown>(method: string, params?: JsonRpcParams): Promise<T>;
}

/** What the HTTP handler hands {@link McpHttpServerLike.handle} with one modern message. */
export interface HttpHandleOptions {
  /** The request's response stream. */
  readonly channel?: HttpClientChannel;
  /** Aborts when the client went away (closing the response stream is cancellation, MCP 2026-07-28). */
  readonly signal?: AbortSignal;
  /**
   * Instead of `signal`: the request with a `signal` getter, read only when the handler reads `ctx.signal` (the
   * exchange then makes its `AbortController`); the response is returned even if it aborted (the exchange drops it).
   * @internal
   */
  readonly contextRequest?: ContextRequest;
  /** The HTTP request's headers and authentication facts. */
  readonly extra?: TransportMessageExtra;
  /**
   * The ladder ran the message through the inbound step (`protocol/inbound.ts`) over the server's own
   * `servedRevisions` and `capabilities`, and it passed: the server need not judge it again. Always `true` from
   * the endpoint (every modern message it hands over was judged); a server-like may ignore it.
   * @internal
   */
  readonly judged?: boolean;
}

/** The modern `handle`: one message, its channel, signal and transport facts (see {@link McpHttpServerLike.handle}). */
export type HttpModernHandle = (message: JsonRpcRequest | JsonRpcNotification, options?: HttpHandleOptions) => Promise<JsonRpcResponse | undefined>;


/** What the handler needs of an McpServer: `connect` (and its `logger`, used when no logger is given). */
export interface McpHttpServerLike {
  /**
   * Serves one session on `transport`.
   * @returns A handle whose `close()` ends the session.
   */
  connect(transport: Transport, options?: HttpConnectOptions): Promise<HttpSessionHandle>;
  /** The server's logger; the handler logs through it when no `logger` option is given. */
  readonly logger?: Logger;
  /**
   * Answers one modern message with no session (the server reads its envelope from `_meta`): resolves with the
   * response, or `undefined` for a notification or when `signal` aborted first; never rejects. Absent: modern
   * messages are refused (-32022 naming the revisions served).
   */
  readonly handle?: HttpModernHandle;
  /**
   * The revisions the server serves. Absent: the session-based revisions only. A server serving no legacy
   * revision answers GET and DELETE 405 and refuses `initialize` (MCP 2026-07-28 streamable-http.mdx "Earlier
   * Streamable HTTP Revisions").
   */
  readonly servedRevisions?: readonly ProtocolRevision[];
  /** The capabilities a modern request is served with (its method's capability gate, 404 when missing). */
  readonly capabilities?: ServerCapabilities;
  /**
   * The `Mcp-Param-*` headers of tool `toolName`, compiled at registration from its `inputSchema`'s
   * `x-mcp-header` annotations; `undefined` for an unknown tool.
   */
  paramHeaders?(toolName: string, caller?: HttpCaller): readonly ParamHeader[] | undefined;
}
