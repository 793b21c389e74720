/**
 * How one request reaches the client: the notifications and server → client requests a handler sends while
 * it runs. On a session it is the connection's {@link Peer} (which satisfies this interface as it is); on the
 * 2026-07-28 stateless path it will be the response stream plus `input_required` results.
 */
import type { JsonRpcId, JsonRpcParams } from '@switchboard/jsonrpc';

/** Options of {@link ClientChannel.notify}. */
export interface ChannelNotifyOptions {
  /** The inbound request this notification belongs to (Streamable HTTP sends it on that request's stream). */
  readonly relatedRequestId?: JsonRpcId;
}

/** Options of {@link ClientChannel.request}. */
export interface ChannelRequestOptions {
  /** The inbound request this request is issued for. */
  readonly relatedRequestId?: JsonRpcId;
  /** Milliseconds to wait for the answer. @default the channel's own (60 000 on a Peer) */
  readonly timeoutMs?: number;
  /** Aborts the request. */
  readonly signal?: AbortSignal;
}

/** The way back to the client for the handler of one request. */
export interface ClientChannel {
  /** Sends a notification. @throws JsonRpcLocalError `connection_closed` (rejection) */
  notify(method: string, params?: JsonRpcParams, options?: ChannelNotifyOptions): Promise<void>;
  /**
   * Sends a request and resolves with its result; an error answer rejects with the received `JsonRpcError`
   * (the request context wraps it in `ClientRequestError` before handler code sees it).
   * @throws JsonRpcLocalError `request_timeout`, `request_aborted`, `connection_closed` (rejection)
   */
  request<T = unknown>(method: string, params?: JsonRpcParams, options?: ChannelRequestOptions): Promise<T>;
}
