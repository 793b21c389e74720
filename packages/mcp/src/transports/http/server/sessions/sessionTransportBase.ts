/**
 * What both HTTP session transports (Streamable HTTP and the 2024-11-05 `HttpSse` one) share: the lease the session
 * table reads to decide whether a session may be reclaimed or reaped, the negotiated revision, the link to the
 * session's record in the `SessionStore`, and one idempotent close.
 */
import type { JsonRpcMessage, Transport, TransportSendOptions } from '@switchboard/jsonrpc';
import type { SessionStateJson } from '../../../../stores/sessionStore.js';

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * How a live HTTP session is being used, in one shape for both HTTP transports. The session table never closes a
 * session (for admission under a flood or for idleness) while {@link requestInFlight} or {@link streamOpen} holds.
 */
export interface SessionLease {
  /** When the session was opened (`Date.now()` ms). */
  readonly createdAt: number;
  /**
   * When the session was last used (`Date.now()` ms): its last inbound HTTP request, or (2024-11-05 `HttpSse`, whose
   * stream is the session) its last POST or stream write.
   */
  readonly lastActivity: number;
  /** Whether a request of the client is waiting for its response on this transport. */
  readonly requestInFlight: boolean;
  /**
   * Whether a stream of the session is connected to the client. A 2024-11-05 `HttpSse` stream counts from the
   * client's first POST: before it, the stream only carried the `endpoint` event of the handshake.
   */
  readonly streamOpen: boolean;
}

/**
 * The session table's side of one session's record, as a transport sees it: the transport tells it the revision
 * `initialize` negotiated and reads back the stream prefix the record holds (so any instance with the same store
 * validates a `Last-Event-ID` the same way).
 */
export interface SessionRecordLink {
  /** Records the negotiated revision (not awaited; a store failure is logged). */
  recordProtocolVersion(revision: string): void;
  /** The record's stream prefix; `undefined` when the record is gone or has none. */
  recordedStreamPrefix(): Promise<string | undefined>;
  /**
   * Records the session's MCP state and tells the other instances; resolves `true` once recorded (or when there is
   * nothing to record), `false` when the store failed (never rejects: the failure is logged).
   */
  recordState?(state: SessionStateJson): Promise<boolean>;
}

/** Construction options of {@link HttpSessionTransportBase}. */
export interface HttpSessionTransportBaseInit<T> {
  readonly sessionId: string;
  /** Called once, when the transport closes (before `onclose`). */
  readonly onClosed: (transport: T) => void;
  /** The session's record; absent when the transport runs without a session table (tests). */
  readonly record?: SessionRecordLink | undefined;
}

/** The part of a session transport that is the same for both HTTP transports (see the module comment). */
export abstract class HttpSessionTransportBase<T extends HttpSessionTransportBase<T>> implements Transport, SessionLease {
  /** The session id (`Mcp-Session-Id`, or the `sessionId` query parameter of the 2024-11-05 POST endpoint). */
  readonly sessionId: string;
  onmessage: Transport['onmessage'] = undefined;
  onerror: Transport['onerror'] = undefined;
  onclose: Transport['onclose'] = undefined;
  /** `Date.now()` when the session was opened. */
  readonly createdAt = Date.now();

  readonly #onClosed: (transport: T) => void;
  /** @internal */
  protected readonly record: SessionRecordLink | undefined;
  #closed = false;
  #protocolVersion: string | undefined = undefined;
  #lastActivity = this.createdAt;

  protected constructor(init: HttpSessionTransportBaseInit<T>) {
    this.sessionId = init.sessionId;
    this.#onClosed = init.onClosed;
    this.record = init.record;
  }

  /** Whether the session is closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** See {@link SessionLease.lastActivity}. */
  get lastActivity(): number {
    return this.#lastActivity;
  }

  /** See {@link SessionLease.requestInFlight}. */
  abstract get requestInFlight(): boolean;
  /** See {@link SessionLease.streamOpen}. */
  abstract get streamOpen(): boolean;

  /** The revision negotiated by `initialize`; `undefined` until it succeeded (see {@link setProtocolVersion}). */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /**
   * Tells the transport the revision `initialize` negotiated, before its result is sent; it is kept in the
   * session's record too. The transport reads no MCP message to learn it.
   * @param revision - A revision string, e.g. `'2025-11-25'`.
   * @see MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation"
   */
  setProtocolVersion(revision: string): void {
    this.#protocolVersion = revision;
    this.record?.recordProtocolVersion(revision);
  }

  /** @internal The revision of a session rebuilt from its record: known, not written back to it. */
  protected restoreProtocolVersion(revision: string): void {
    this.#protocolVersion = revision;
  }

  /** Nothing to start: the HTTP handler feeds inbound messages. */
  start(): Promise<void> {
    return RESOLVED;
  }

  abstract send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: TransportSendOptions): Promise<void>;

  /** Closes the session's streams and the transport; idempotent. */
  close(): Promise<void> {
    if (this.#closed) return RESOLVED;
    this.#closed = true;
    this.release();
    try {
      this.#onClosed(this as unknown as T);
    } finally {
      this.onclose?.();
    }
    return RESOLVED;
  }

  /** @internal Ends what the transport holds (streams, pending answers); called once, by {@link close}. */
  protected abstract release(): void;

  /** @internal Marks the session used now (see {@link SessionLease.lastActivity}). */
  protected touch(): void {
    this.#lastActivity = Date.now();
  }
}

/** The start of every stream id (and so SSE event id) of a session: random, never the session id. */
export function newStreamPrefix(): string {
  return `${globalThis.crypto.randomUUID().replaceAll('-', '')}.`;
}
