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
import type {
  Inbound,
  JsonRpcMessage,
  Transport,
  TransportMessageExtra,
  TransportSendOptions,
} from '@switchboard/jsonrpc';
import { formatMessageEvent } from './sse.js';
import type { SseChannel } from './sse.js';

const RESOLVED: Promise<void> = Promise.resolve();

/** The `endpoint` event (MCP 2024-11-05 basic/transports.mdx "HTTP with SSE": the first event on connect). */
export function formatEndpointEvent(uri: string): string {
  return `event: endpoint\ndata: ${uri}\n\n`;
}

/**
 * One 2024-11-05 HTTP+SSE session's transport: everything sent goes out on its SSE stream as `event: message`.
 * Created by the HTTP handler on `GET /sse`.
 */
export class HttpSseSessionTransport implements Transport {
  /** The session id (the `sessionId` query parameter of the POST endpoint). */
  readonly sessionId: string;
  onmessage: Transport['onmessage'] = undefined;
  onerror: Transport['onerror'] = undefined;
  onclose: Transport['onclose'] = undefined;

  readonly #channel: SseChannel;
  readonly #onClosed: (transport: HttpSseSessionTransport) => void;
  #closed = false;
  #used = false;
  /** @internal `Date.now()` when the stream opened. */
  readonly createdAt = Date.now();

  /** @internal Created by the HTTP handler, which writes the `endpoint` event into `channel` first. */
  constructor(sessionId: string, channel: SseChannel, onClosed: (transport: HttpSseSessionTransport) => void) {
    this.sessionId = sessionId;
    this.#channel = channel;
    this.#onClosed = onClosed;
  }

  /** Whether the session is closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * @internal Whether the client POSTed anything yet. A session that never does is closed after the handler's
   * `sessionHandshakeTimeoutMs`.
   */
  get used(): boolean {
    return this.#used;
  }

  /** Nothing to start: the stream is already open. */
  start(): Promise<void> {
    return RESOLVED;
  }

  /**
   * Writes each message as an `event: message` on the SSE stream (a batch as one event per member).
   * @throws JsonRpcLocalError `connection_closed` when the stream is gone.
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: TransportSendOptions): Promise<void> {
    if (this.#closed || !this.#channel.open) {
      return Promise.reject(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, `SSE stream closed: session '${this.sessionId}'`));
    }
    if (Array.isArray(message)) {
      for (const m of message as readonly JsonRpcMessage[]) this.#channel.write(formatMessageEvent(JSON.stringify(m)));
    } else {
      this.#channel.write(formatMessageEvent(JSON.stringify(message)));
    }
    // Backpressure: waits while the client is not reading (see the handler's maxSseBufferBytes).
    return this.#channel.ready();
  }

  /** Ends the SSE stream and the session; idempotent. */
  close(): Promise<void> {
    if (this.#closed) return RESOLVED;
    this.#closed = true;
    this.#channel.end();
    try {
      this.#onClosed(this);
    } finally {
      this.onclose?.();
    }
    return RESOLVED;
  }

  /** @internal Hands a POSTed message to the session. */
  _receive(inbound: Inbound, extra: TransportMessageExtra): void {
    this.#used = true;
    this.onmessage?.(inbound, extra);
  }
}

/**
 * @deprecated Renamed {@link HttpSseSessionTransport} ("legacy" names the session-based protocol era, not this
 * transport); the old name stays as an alias.
 */
export const LegacySseSessionTransport = HttpSseSessionTransport;
/** @deprecated Renamed {@link HttpSseSessionTransport}. */
export type LegacySseSessionTransport = HttpSseSessionTransport;
