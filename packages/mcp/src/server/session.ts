/**
 * One legacy-era session (2024-11-05 … 2025-11-25): a {@link Peer} over a transport plus the state the
 * `initialize` handshake negotiated. Sessions share the server's dispatcher and registry and hold only their
 * own state (no shared mutable per-client state).
 */
import {
  ErrorCode,
  JsonRpcError,
  Peer,
  type ContextRequest,
  type Dispatcher,
  type Inbound,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type Logger,
  type Transport,
  type TransportMessageExtra,
  type TransportSendOptions,
} from '@switchboard/jsonrpc';
import { REVISION_FEATURES, type LegacyRevision } from '../protocol/revisions.js';
import {
  LOGGING_LEVELS,
  type ClientCapabilities,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingLevel,
  type Meta,
  type ServerCapabilities,
} from '../protocol/types.js';
import type { ClientRequestOptions, RequestContext, ServerSession } from './types.js';

/** The dispatcher context of a message received on a session. */
export interface SessionContext {
  readonly session: Session;
  readonly extra: TransportMessageExtra | undefined;
}

/** Rank of each logging level (RFC 5424 order, MCP 2025-11-25 server/utilities/logging.mdx). */
export const LOGGING_LEVEL_RANK: ReadonlyMap<string, number> = new Map(LOGGING_LEVELS.map((level, i) => [level, i]));

const EMPTY_CAPABILITIES: ClientCapabilities = Object.freeze({});

/** What a session needs from its server. */
export interface SessionHost {
  readonly dispatcher: Dispatcher<SessionContext>;
  readonly logger: Logger;
  readonly maxConcurrentInbound: number;
  readonly maxQueuedInbound: number;
  sessionClosed(session: Session): void;
}

/** {@link Session} construction options. */
export interface SessionOptions {
  readonly sessionId?: string;
  readonly authInfo?: unknown;
  readonly batches?: boolean;
}

/**
 * A transport proxy handed to the Peer: inbound batches are refused unless the negotiated revision allows
 * them (only 2025-03-26: MCP 2025-03-26 basic/index.mdx "Batching"; removed by MCP 2025-06-18 changelog.mdx).
 */
class SessionTransport implements Transport {
  onmessage: Transport['onmessage'];
  onerror: Transport['onerror'];
  onclose: Transport['onclose'];

  constructor(
    private readonly inner: Transport,
    private readonly session: Session,
  ) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
  }

  private receive(message: Inbound, extra: TransportMessageExtra | undefined): void {
    if (message.kind === 'batch' && !this.session.acceptsBatches()) {
      const revision = this.session.protocolVersion ?? 'an uninitialized session';
      void this.inner
        .send({
          jsonrpc: '2.0',
          id: null,
          error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: JSON-RPC batches are not accepted at ${revision}` },
        })
        .catch(() => {});
      return;
    }
    this.onmessage?.(message, extra);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  pauseInput(paused: boolean): void {
    this.inner.pauseInput?.(paused);
  }
}

/** A legacy-era server session. */
export class Session implements ServerSession {
  readonly id: string | undefined;
  readonly transport: Transport;
  readonly peer: Peer<SessionContext>;
  readonly authInfo: unknown;
  readonly subscriptions = new Set<string>();
  protocolVersion: LegacyRevision | undefined = undefined;
  clientInfo: Implementation | undefined = undefined;
  clientCapabilities: ClientCapabilities = EMPTY_CAPABILITIES;
  /**
   * The server capabilities this session's `initialize` advertised (before the per-revision trimming of the
   * wire copy), fixed for the session's life: the capability gate and list-changed notifications read them,
   * not what is registered now. `undefined` before `initialize`.
   */
  serverCapabilities: ServerCapabilities | undefined = undefined;
  initialized = false;
  /** Messages below this rank are not sent (`logging/setLevel`); 0 sends everything. */
  logLevelRank = 0;
  /** The id of the `initialize` request, which MUST NOT be cancelled (MCP 2025-11-25 basic/utilities/cancellation.mdx). */
  initializeRequestId: JsonRpcId | undefined = undefined;
  onclose: (() => void) | undefined = undefined;
  readonly #batches: boolean;
  readonly #defaultContext: SessionContext;

  constructor(host: SessionHost, transport: Transport, options: SessionOptions = {}) {
    this.id = options.sessionId;
    this.authInfo = options.authInfo;
    this.transport = transport;
    this.#batches = options.batches ?? true;
    this.#defaultContext = { session: this, extra: undefined };
    this.peer = new Peer<SessionContext>({
      transport: new SessionTransport(transport, this),
      dispatcher: host.dispatcher,
      context: (_message, extra) => (extra === undefined ? this.#defaultContext : { session: this, extra }),
      // MCP 2025-11-25 basic/utilities/cancellation.mdx: a request we abandon is announced with notifications/cancelled.
      cancelNotification: (requestId, reason): JsonRpcNotification => ({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason },
      }),
      maxConcurrentInbound: host.maxConcurrentInbound,
      maxQueuedInbound: host.maxQueuedInbound,
      logger: host.logger,
    });
    this.peer.onclose = () => {
      host.sessionClosed(this);
      this.onclose?.();
    };
  }

  /** Whether inbound JSON-RPC batches are allowed now. */
  acceptsBatches(): boolean {
    return this.#batches && this.protocolVersion !== undefined && REVISION_FEATURES[this.protocolVersion].batches;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, params);
  }

  request<T = unknown>(method: string, params?: Record<string, unknown>, options?: ClientRequestOptions): Promise<T> {
    return this.peer.request<T>(method, params, { timeoutMs: options?.timeoutMs, signal: options?.signal });
  }

  drain(timeoutMs: number): Promise<void> {
    const idle = this.peer.whenIdle();
    if (this.peer.inboundCount === 0) return idle;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      void idle.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  endOfInput(): void {
    this.peer.failPending('the client closed its input');
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}

/**
 * The context of one message handled on a session: the dispatcher builds one per request (see
 * `createContext` in mcpServer.ts) and the same object is the tool/resource/prompt handler's `ctx`. Methods
 * live on the prototype and the AbortSignal is made only when `signal` is read, so a request costs one small
 * object.
 */
export class SessionRequestContext implements RequestContext, SessionContext {
  /** `params._meta` of the request, set by the method handler that reads the params. */
  requestMeta: Meta | undefined = undefined;
  readonly id: JsonRpcId | undefined;
  readonly method: string;
  /** Kept whole: reading its `signal` may create the AbortController, so it is read only when asked for. */
  readonly #request: ContextRequest;

  constructor(
    readonly session: Session,
    readonly extra: TransportMessageExtra | undefined,
    request: ContextRequest,
  ) {
    this.id = request.id;
    this.method = request.method;
    this.#request = request;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get requestId(): JsonRpcId {
    return this.id as JsonRpcId;
  }

  get authInfo(): unknown {
    return this.extra?.authInfo ?? this.session.authInfo;
  }

  get protocolVersion(): string {
    return this.session.protocolVersion ?? 'unknown';
  }

  get clientCapabilities(): ClientCapabilities {
    return this.session.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.session.clientInfo;
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    // MCP 2025-11-25 basic/utilities/progress.mdx: only when the request carried a progressToken.
    const token = this.requestMeta?.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return Promise.resolve();
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` on progress exists from 2025-03-26 (changelog).
    const revision = this.session.protocolVersion;
    if (message !== undefined && (revision === undefined || REVISION_FEATURES[revision].progressMessage)) params.message = message;
    return this.session.peer.notify('notifications/progress', params, { relatedRequestId: this.requestId });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const rank = LOGGING_LEVEL_RANK.get(level);
    if (rank === undefined) return Promise.reject(new TypeError(`Unknown logging level: "${String(level)}"`));
    // MCP 2025-11-25 server/utilities/logging.mdx: only messages at or above the level set by logging/setLevel.
    if (rank < this.session.logLevelRank) return Promise.resolve();
    const params: Record<string, unknown> = logger === undefined ? { level, data } : { level, logger, data };
    return this.session.peer.notify('notifications/message', params, { relatedRequestId: this.requestId });
  }

  sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult> {
    return this.#clientRequest('sampling/createMessage', 'sampling', params, options);
  }

  elicit(params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult> {
    return this.#clientRequest('elicitation/create', 'elicitation', params, options);
  }

  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult> {
    return this.#clientRequest('roots/list', 'roots', undefined, options);
  }

  #clientRequest<T>(method: string, capability: 'sampling' | 'elicitation' | 'roots', params: object | undefined, options: ClientRequestOptions | undefined): Promise<T> {
    // MCP 2025-11-25 basic/lifecycle.mdx "Operation": only use capabilities the client declared.
    if (this.session.clientCapabilities[capability] === undefined) {
      return Promise.reject(
        new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: the client did not declare the "${capability}" capability needed for "${method}"`),
      );
    }
    return this.session.peer.request<T>(method, params as Record<string, unknown> | undefined, {
      relatedRequestId: this.requestId,
      timeoutMs: options?.timeoutMs,
      signal: options?.signal ?? this.signal,
    });
  }
}
