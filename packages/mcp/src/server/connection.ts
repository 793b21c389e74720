/**
 * One connection: a {@link Peer} over one transport, serving the shared dispatcher, holding the session record
 * once `initialize` negotiated one. It is its requests' facts (the session's state, read live: {@link RequestFacts}) and its Peer
 * is their channel back to the client; it hears the server's events from the {@link NotificationBus}.
 */
import {
  Peer,
  type Dispatcher,
  type InboundSingle,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type Logger,
  type Transport,
  type TransportMessageExtra,
} from '@switchboard/jsonrpc';
import { clampTimerMs } from '@switchboard/jsonrpc/internal';
import { classifyInboundBatch, isInboundRefusal, type InboundFacts } from '../protocol/inbound.js';
import { cancelledNotification } from '../protocol/notifications.js';
import { protocolVersionClaim } from '../protocol/envelope.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../protocol/types.js';
import type { BusMessage, NotificationBus } from '../stores/notificationBus.js';
import { ModernFacts, modernMetaOf, type RequestFacts } from './requestFacts.js';
import type { ClientChannel } from './channel.js';
import { shareSessionState, type SessionState } from './sessionState.js';
import type { ClientRequestOptions, ServerSession } from './types.js';
import type { ConnectOptions } from './options.js';

const EMPTY_CAPABILITIES: ClientCapabilities = Object.freeze({});

const LIST_CHANGED_METHOD = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
} as const;

/** What a connection needs from its server. */
export interface ConnectionHost {
  readonly dispatcher: Dispatcher<DispatchContext>;
  readonly logger: Logger;
  readonly bus: NotificationBus;
  readonly maxConcurrentInbound: number;
  readonly maxQueuedInbound: number;
  /** The revisions the server serves. */
  readonly servedRevisions: readonly ProtocolRevision[];
  /** The capabilities the next `initialize` advertises (gates requests before a session exists). */
  readonly capabilities: ServerCapabilities;
  connectionClosed(connection: Connection): void;
}

/**
 * What the inbound step knows about one connection, read live: its session once `initialize` was accepted,
 * and the capabilities that session was told of (before it: the server's current ones).
 */
class ConnectionFacts implements InboundFacts {
  readonly servedRevisions: readonly ProtocolRevision[];
  readonly batches: boolean;
  readonly #connection: Connection;
  readonly #host: ConnectionHost;

  constructor(connection: Connection, host: ConnectionHost, batches: boolean) {
    this.#connection = connection;
    this.#host = host;
    this.batches = batches;
    this.servedRevisions = host.servedRevisions;
  }

  get session(): SessionState | undefined {
    return this.#connection.session;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.#connection.session?.serverCapabilities ?? this.#host.capabilities;
  }
}

/**
 * The notice of a request we abandon (MCP 2025-11-25 basic/utilities/cancellation.mdx "Cancellation Flow"): one
 * function for every connection, so an idle connection holds no closure of its own for it.
 */
function abandonedRequestNotice(requestId: JsonRpcId, reason: string): JsonRpcNotification {
  return cancelledNotification({ requestId, reason });
}

/**
 * The dispatcher context of one inbound message: the request's facts, the channel, the connection when there is one
 * (`undefined` for `McpServer.handle`), and the transport's facts about the message.
 */
export interface DispatchContext {
  readonly facts: RequestFacts;
  readonly channel: ClientChannel;
  /**
   * The session-era connection the message is served on; `undefined` for `McpServer.handle` and for a modern-era
   * message (served from its own envelope, not from the connection's session).
   */
  readonly connection: Connection | undefined;
  /** The connection a modern-era message arrived on (stdio cancels its requests through it); else `undefined`. */
  readonly arrivedOn?: Connection | undefined;
  readonly extra: TransportMessageExtra | undefined;
  /**
   * The message's modern-era version claim (`protocolVersionClaim`: `''` for a claim that is not a string), when this
   * context was built for a modern-era message from it; the inbound gate reads it instead of reading the envelope
   * again. `undefined`: not known here (the gate reads the message).
   */
  readonly claim?: string;
}

/**
 * The dispatcher context of one modern-era message, which is also its facts (read from its own envelope, see
 * {@link ModernFacts}): one object per message, where a context and a facts object would be two.
 */
class ModernDispatch extends ModernFacts implements DispatchContext {
  readonly facts: RequestFacts;
  readonly channel: ClientChannel;
  readonly connection: undefined = undefined;
  readonly arrivedOn: Connection | undefined;
  readonly extra: TransportMessageExtra | undefined;
  readonly judged: boolean;
  readonly claim: string;

  // eslint-disable-next-line @typescript-eslint/max-params -- built per message: positional, so no options object is made for it
  constructor(message: JsonRpcRequest | JsonRpcNotification, claim: string, channel: ClientChannel, arrivedOn: Connection | undefined, extra: TransportMessageExtra | undefined, judged: boolean) {
    super(modernMetaOf(message));
    this.facts = this;
    this.channel = channel;
    this.arrivedOn = arrivedOn;
    this.extra = extra;
    this.judged = judged;
    this.claim = claim;
  }
}

/**
 * The dispatcher context of the modern-era `message` (one with a version claim in `params._meta`), served beside
 * any session (MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility").
 * @param at where it is served: `at.arrivedOn` is the connection it arrived on (stdio cancels its requests through
 *   it), `undefined` for `McpServer.handle`
 */
export function modernDispatchOf(message: JsonRpcRequest | JsonRpcNotification, at: ModernDispatchSite): DispatchContext & { readonly judged: boolean } {
  return new ModernDispatch(message, at.claim ?? protocolVersionClaim(message) ?? '', at.channel, at.arrivedOn, at.extra, at.judged === true);
}

/** Where a modern-era message is served: its channel back, the connection it arrived on, what its transport knows. */
export interface ModernDispatchSite {
  readonly channel: ClientChannel;
  readonly arrivedOn: Connection | undefined;
  readonly extra: TransportMessageExtra | undefined;
  /** The transport already ran the inbound step (the HTTP ladder); see the gate's `GateContext.judged`. */
  readonly judged?: boolean;
  /** The message's version claim (`protocolVersionClaim`), when the caller already read it. @default read here */
  readonly claim?: string;
}

/** A server connection (see the module comment); the `ServerSession` transports and hosts see. */
export class Connection implements ServerSession, RequestFacts {
  readonly id: string | undefined;
  readonly transport: Transport;
  readonly peer: Peer<DispatchContext>;
  readonly authInfo: unknown;
  #session: SessionState | undefined = undefined;
  onclose: (() => void) | undefined = undefined;
  /** What the inbound step reads for each message of this connection (the dispatcher's guard hands it over). */
  readonly inboundFacts: InboundFacts;
  readonly #defaultContext: DispatchContext;
  readonly #logger: Logger;

  constructor(host: ConnectionHost, transport: Transport, options: ConnectOptions = {}) {
    this.id = options.sessionId;
    this.authInfo = options.authInfo;
    this.transport = transport;
    this.inboundFacts = new ConnectionFacts(this, host, options.batches ?? true);
    this.#logger = host.logger;
    this.peer = new Peer<DispatchContext>({
      transport,
      dispatcher: host.dispatcher,
      context: (message, extra) => this.#contextOf(message, extra),
      batchRefusal: (items) => this.#batchRefusal(items),
      cancelNotification: abandonedRequestNotice,
      maxConcurrentInbound: host.maxConcurrentInbound,
      maxQueuedInbound: host.maxQueuedInbound,
      logger: host.logger,
    });
    this.#defaultContext = { facts: this, channel: this.peer, connection: this, extra: undefined };
    const unsubscribe = host.bus.subscribe((message) => this.#hear(message));
    this.peer.onclose = () => {
      unsubscribe();
      host.connectionClosed(this);
      this.onclose?.();
    };
  }

  /**
   * The session record, from `initialize` on (written by the session-era rules only, or restored from a shared
   * store); shared through the transport when it keeps session state for other instances (`shareSessionState`).
   */
  get session(): SessionState | undefined {
    return this.#session;
  }

  set session(state: SessionState | undefined) {
    this.#session = state;
    if (state !== undefined) shareSessionState(this.transport, state);
  }

  get protocolVersion(): string | undefined {
    return this.session?.protocolVersion;
  }

  get clientInfo(): Implementation | undefined {
    return this.session?.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.session?.clientCapabilities ?? EMPTY_CAPABILITIES;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.session?.serverCapabilities;
  }

  get logLevelRank(): number {
    return this.session?.logLevelRank ?? 0;
  }

  get initialized(): boolean {
    return this.session?.initialized ?? false;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, params);
  }

  request<T = unknown>(method: string, params?: Record<string, unknown>, options?: ClientRequestOptions): Promise<T> {
    return this.peer.request<T>(method, params, { timeoutMs: options?.timeoutMs, signal: options?.signal });
  }

  /** See {@link ServerSession.drain}. The timer keeps the process alive while it waits. */
  drain(timeoutMs: number): Promise<void> {
    const idle = this.peer.whenIdle();
    if (this.peer.inboundCount === 0) return idle;
    return new Promise((resolve) => {
      const timer = timeoutMs === Infinity ? undefined : setTimeout(resolve, clampTimerMs(timeoutMs));
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

  /**
   * The dispatcher context of one inbound message. The dual-era connection: a modern-era message is served
   * statelessly from its own envelope, beside the session (MCP 2026-07-28 basic/versioning.mdx "Backward
   * Compatibility"); any other is served from the session.
   */
  #contextOf(message: JsonRpcRequest | JsonRpcNotification, extra: TransportMessageExtra | undefined): DispatchContext {
    const claim = protocolVersionClaim(message);
    if (claim !== undefined) return new ModernDispatch(message, claim, this.peer, this, extra, false);
    return extra === undefined ? this.#defaultContext : { facts: this, channel: this.peer, connection: this, extra };
  }

  /**
   * A server event, filtered by what this session was told: a list change only when its `initialize`
   * advertised that capability with `listChanged: true` and `notifications/initialized` arrived (MCP
   * 2025-11-25 "List Changed Notification"); a resource update only when subscribed to the URI.
   */
  #hear(message: BusMessage): Promise<void> | undefined {
    const state = this.session;
    if (state === undefined) return undefined;
    if (message.type === 'list_changed') {
      if (!state.initialized || (state.serverCapabilities[message.capability] as Record<string, unknown> | undefined)?.listChanged !== true) return undefined;
      return this.peer.notify(LIST_CHANGED_METHOD[message.capability]).catch(() => {});
    }
    // Task changes reach 2026-07-28 listen streams only; a session hears of its tasks from the task runner.
    if (message.type !== 'resource_updated' || !state.subscriptions.has(message.uri)) return undefined;
    return this.peer.notify('notifications/resources/updated', { uri: message.uri }).catch((error: unknown) => {
      this.#logger.debug('Resource update not delivered', { uri: message.uri, error });
    });
  }

  /**
   * A batch goes through the inbound step first ({@link classifyInboundBatch}; the Peer asks before it reads any
   * member): refused whole (one error, `id: null`) unless the session's revision takes batches and the transport
   * carries them; its members are then gated one by one like any message (the dispatcher's guard).
   */
  #batchRefusal(items: readonly InboundSingle[]): JsonRpcResponse | undefined {
    // Where batches are not accepted the array itself is the invalid request: one -32600 with `id: null`, and no
    // member is read, a batch of notifications only included (MCP 2025-06-18 changelog: batching removed; field bug
    // B05). One exception: a batch that answers requests of ours and holds no request is read and never answered
    // (JSON-RPC 2.0 §5: a response is not replied to, not even to refuse the array it came in). Where batches are
    // accepted, a batch of notifications and responses only is read and answered with nothing at all (§6).
    if (items.every(isUnanswered) && items.some((item) => item.kind === 'response')) return undefined;
    const verdict = classifyInboundBatch(items.filter(isCall).map((item) => item.message), this.inboundFacts);
    if (!isInboundRefusal(verdict)) return undefined;
    return { jsonrpc: '2.0', id: null, error: { code: verdict.code, message: verdict.message } };
  }
}

/** A member the receiver never answers (JSON-RPC 2.0 §4.1 notifications, §5 responses). */
function isUnanswered(item: InboundSingle): boolean {
  return item.kind === 'response' || item.kind === 'notification';
}

function isCall(item: InboundSingle): item is InboundSingle & { readonly message: JsonRpcRequest | JsonRpcNotification } {
  return item.kind === 'request' || item.kind === 'notification';
}
