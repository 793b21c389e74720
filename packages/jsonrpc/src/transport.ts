/**
 * The transport contract shared by every transport (stdio, Streamable HTTP, legacy HTTP+SSE, in-memory).
 * A transport moves whole messages; it does not interpret them beyond framing.
 */
import type { Inbound } from './classify.js';
import type { JsonRpcId, JsonRpcMessage } from './message.js';

/** Per-send routing hints. */
export interface TransportSendOptions {
  /**
   * The inbound request this message belongs to (a response, or a notification/request issued while
   * handling it). Transports with several streams (Streamable HTTP) use it to pick the stream.
   */
  readonly relatedRequestId?: JsonRpcId;
}

/** Facts about an inbound message that only the transport knows (HTTP headers, authentication). */
export interface TransportMessageExtra {
  /** Authentication facts established by the transport, passed to handlers untouched. */
  readonly authInfo?: unknown;
  /** Request headers, lower-cased names (HTTP transports only). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Whom per-caller budgets count this message against (HTTP transports): `client:<clientId>` for an authenticated
   * principal, else `address:<ip>` — the peer's, or behind the transport's trusted proxies the client they name.
   * `undefined` when nothing names the caller (stdio: one caller per process).
   */
  readonly caller?: string | undefined;
  /**
   * The id of this side's own request that a request or notification of the peer relates to, when it arrived on that
   * request's response channel (Streamable HTTP: an SSE event on the stream of the POST that carried the request).
   * `undefined` when the channel relates nothing (stdio, a shared stream).
   */
  readonly relatedRequestId?: JsonRpcId;
}

/**
 * A bidirectional message channel.
 *
 * Contract: `onmessage` receives each inbound message already classified by {@link parseMessage} (so a
 * parse error or invalid request arrives as `kind: "invalid"` and the receiver can answer it); `send`
 * resolves when the message has been handed to the underlying channel and rejects if it cannot be;
 * `close` is idempotent and fires `onclose` exactly once.
 */
export interface Transport {
  /** Starts reading. Resolves when the transport is ready to send and receive. */
  start(): Promise<void>;
  /**
   * Sends one message, or one batch (an array) as a single unit. A transport whose connection is gone rejects with
   * an error whose `code` is `'connection_closed'` (a `JsonRpcLocalError`, or a class of its own with that code).
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: TransportSendOptions): Promise<void>;
  /** Closes the channel; idempotent. */
  close(): Promise<void>;
  /** Set by the receiver before `start()`. */
  onmessage?: ((message: Inbound, extra?: TransportMessageExtra) => void) | undefined;
  /** A non-fatal error (a framing problem, a failed write); the transport stays usable unless it closes. */
  onerror?: ((error: Error) => void) | undefined;
  /** Fired once when the channel is closed, from either side. */
  onclose?: (() => void) | undefined;
  /**
   * Optional inbound flow control, called by the {@link Peer}: `true` when `maxQueuedInbound` inbound requests wait
   * for a slot (`maxConcurrentInbound` are being handled), `false` once half of them got one. A transport that can stop reading
   * (stdio pauses stdin) delivers nothing while paused, so what a client pipelines stays in the pipe rather than in
   * memory; a transport that cannot (an HTTP request is answered on its own exchange) leaves this out.
   * Never called twice in a row with the same value.
   */
  pauseInput?(paused: boolean): void;
  /**
   * Optional, called by the {@link Peer} when {@link Peer.cancelInbound} abandons an inbound request that has not
   * been answered: no response will ever be sent for `requestId`. A transport that holds a stream per request
   * (Streamable HTTP) ends that stream here instead of reading cancellation notifications itself. Called at most
   * once per request, never for one whose response was already handed to {@link Transport.send}, and not when the
   * connection closes (every request is abandoned then). A throw is logged and ignored.
   */
  requestCancelled?(requestId: JsonRpcId): void;
}
