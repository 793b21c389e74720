/**
 * The bidirectional endpoint: sends requests and notifications over a {@link Transport}, keeps a pending
 * table that always settles, and dispatches inbound requests through a {@link Dispatcher}.
 * CONTRACT STUB — to be implemented (issue #2 section 2). Signatures are fixed; bodies are not.
 */
import type { Dispatcher } from './dispatcher.js';
import type { Logger } from './logger.js';
import type { Transport, TransportMessageExtra } from './transport.js';
import type {
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
} from './types.js';

/** Default for {@link PeerRequestOptions.timeoutMs}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default for {@link PeerOptions.maxConcurrentInbound}. */
export const DEFAULT_MAX_CONCURRENT_INBOUND = 64;

/** Options of one outbound request. */
export interface PeerRequestOptions {
  /** Time without a response (or, with `resetTimeoutOnProgress`, without progress) before the request fails with `request_timeout`. @default 60_000 */
  readonly timeoutMs?: number;
  /** With `resetTimeoutOnProgress`: a hard cap from the send, in ms. @default unlimited */
  readonly maxTotalTimeoutMs?: number;
  /** Restart the `timeoutMs` clock whenever progress for this request is reported. @default false */
  readonly resetTimeoutOnProgress?: boolean;
  /** Aborting rejects the request with `request_aborted` (and sends the peer's cancel notification if configured). */
  readonly signal?: AbortSignal;
  /** Routing hint passed to the transport: the inbound request this one is issued on behalf of. */
  readonly relatedRequestId?: JsonRpcId;
  /**
   * A token under which progress for this request is reported with {@link Peer.reportProgress}. The
   * protocol layer puts it in the params itself (MCP: `params._meta.progressToken`).
   */
  readonly progressToken?: string | number;
  /** Called with each progress payload reported under `progressToken`. */
  readonly onprogress?: (progress: unknown) => void;
}

/** Options of one outbound notification. */
export interface PeerNotifyOptions {
  /** Routing hint passed to the transport. */
  readonly relatedRequestId?: JsonRpcId;
}

/** {@link Peer} construction options. */
export interface PeerOptions<Ctx> {
  readonly transport: Transport;
  /** Handles inbound requests and notifications. Without one, every inbound request gets -32601. */
  readonly dispatcher?: Dispatcher<Ctx>;
  /**
   * Builds the dispatcher context of one inbound request or notification. Called once per inbound message.
   */
  readonly context?: (message: JsonRpcRequest | JsonRpcNotification, extra: TransportMessageExtra | undefined) => Ctx;
  /**
   * The notification to send when an outbound request is abandoned (aborted or timed out), e.g. MCP's
   * `notifications/cancelled`. Return `undefined` to send nothing. @default none
   */
  readonly cancelNotification?: (id: JsonRpcId, reason: string) => JsonRpcNotification | undefined;
  /** Inbound requests handled at once; more wait in arrival order. @default 64 */
  readonly maxConcurrentInbound?: number;
  /** Reports unknown response ids, transport errors and handler failures. @default silentLogger */
  readonly logger?: Logger;
}

/**
 * Bidirectional JSON-RPC endpoint.
 *
 * Guarantees: ids are fresh (a counter; never reused while pending); every pending request settles exactly
 * once (response → resolve/reject with JsonRpcError; timeout → `request_timeout`; abort → `request_aborted`;
 * close → `connection_closed`, all {@link JsonRpcLocalError}); a response with an unknown id is logged and
 * dropped; an inbound request cancelled with {@link Peer.cancelInbound} gets its signal aborted and no
 * response is sent.
 */
export declare class Peer<Ctx = unknown> {
  constructor(options: PeerOptions<Ctx>);
  /** Starts the transport. */
  start(): Promise<void>;
  /** Sends a request and waits for its result. @throws JsonRpcError (error response) or JsonRpcLocalError. */
  request<T = unknown>(method: string, params?: JsonRpcParams, options?: PeerRequestOptions): Promise<T>;
  /** Sends a notification. @throws JsonRpcLocalError `connection_closed` or `send_failed`. */
  notify(method: string, params?: JsonRpcParams, options?: PeerNotifyOptions): Promise<void>;
  /** Routes a progress payload to the pending request registered under `token`; returns whether one was found. */
  reportProgress(token: string | number, progress: unknown): boolean;
  /** Cancels an inbound request being handled: aborts its signal and suppresses its response. Returns whether it was in flight. */
  cancelInbound(id: JsonRpcId, reason?: string): boolean;
  /** Number of outbound requests awaiting a response. */
  readonly pendingCount: number;
  /** Closes the transport; pending requests reject with `connection_closed`; inbound signals abort. Idempotent. */
  close(): Promise<void>;
  /** Fired once after the connection closes. */
  onclose?: (() => void) | undefined;
  /** Sends a pre-built response (used by protocol layers that answer outside the dispatcher). */
  sendResponse(response: JsonRpcResponse, relatedRequestId?: JsonRpcId): Promise<void>;
}
