/**
 * The deprecated HTTP+SSE transport of MCP 2024-11-05, served beside the Streamable HTTP endpoint from the same
 * McpServer, for clients that predate Streamable HTTP.
 *
 * Wire (MCP 2024-11-05 basic/transports.mdx "HTTP with SSE"; paths and query parameter per the TS SDK's
 * server-legacy `sse.ts` convention, since the spec fixes no paths):
 * - `GET /sse` opens the SSE stream; its first event is `event: endpoint` with `data: /messages?sessionId=<id>`;
 * - the client POSTs each message to that URI (`application/json`), answered `202 Accepted` with body `Accepted`;
 * - every server message travels on the SSE stream as `event: message`.
 * The session lives as long as its SSE stream: closing the stream ends the session (no resumability in 2024-11-05).
 */
import { JsonRpcLocalError, LocalErrorCode } from '@switchboard/jsonrpc';
import type { Inbound, JsonRpcMessage, TransportMessageExtra, TransportSendOptions } from '@switchboard/jsonrpc';
import { HttpSessionTransportBase } from '../sessions/sessionTransportBase.js';
import type { SessionRecordLink } from '../sessions/sessionTransportBase.js';
import { formatMessageEvent } from '../../sse/sseChannel.js';
import type { SseChannel } from '../../sse/sseChannel.js';

/** The `endpoint` event (MCP 2024-11-05 basic/transports.mdx "HTTP with SSE": the first event on connect). */
export function formatEndpointEvent(uri: string): string {
  return `event: endpoint\ndata: ${uri}\n\n`;
}

/** @internal Construction options, supplied by the HTTP handler. */
export interface HttpSseSessionTransportInit {
  readonly sessionId: string;
  /** The session's stream; the handler wrote the `endpoint` event into it first. */
  readonly channel: SseChannel;
  readonly onClosed: (transport: HttpSseSessionTransport) => void;
  readonly record?: SessionRecordLink | undefined;
}

/**
 * One 2024-11-05 HTTP+SSE session's transport: everything sent goes out on its SSE stream as `event: message`.
 * Created by the HTTP handler on `GET /sse`.
 */
export class HttpSseSessionTransport extends HttpSessionTransportBase<HttpSseSessionTransport> {
  readonly #channel: SseChannel;
  #used = false;

  /** @internal Created by the HTTP handler. */
  constructor(init: HttpSseSessionTransportInit) {
    super(init);
    this.#channel = init.channel;
  }

  /** The transport does not see requests: the Peer answers them on the stream, whenever. */
  get requestInFlight(): boolean {
    return false;
  }

  /**
   * Whether the stream is open and the client POSTed on the session: such a session lives as long as its
   * stream. One that never POSTs is closed after the handler's `sessionHandshakeTimeoutMs`.
   */
  get streamOpen(): boolean {
    return this.#used && this.#channel.open;
  }

  /**
   * Writes each message as an `event: message` on the SSE stream (a batch as one event per member).
   * @throws JsonRpcLocalError `connection_closed` when the stream is gone.
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: TransportSendOptions): Promise<void> {
    if (this.closed || !this.#channel.open) {
      return Promise.reject(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, `SSE stream closed: session '${this.sessionId}'`));
    }
    if (Array.isArray(message)) {
      for (const m of message as readonly JsonRpcMessage[]) this.#channel.write(formatMessageEvent(JSON.stringify(m)));
    } else {
      this.#channel.write(formatMessageEvent(JSON.stringify(message)));
    }
    this.touch();
    // Backpressure: waits while the client is not reading (see the handler's maxSseBufferBytes).
    return this.#channel.ready();
  }

  /** Ends the SSE stream. */
  protected release(): void {
    this.#channel.end();
  }

  /** @internal Hands a POSTed message to the session. */
  _receive(inbound: Inbound, extra: TransportMessageExtra): void {
    this.#used = true;
    this.touch();
    this.onmessage?.(inbound, extra);
  }
}
