/**
 * One channel to one server: a JSON-RPC {@link Peer} over a {@link ClientTransport}, with the envelope every
 * request carries in its era, the progress token that lets any progress reset a request's timeout, the answers to
 * the server's live requests on a session (`ping`, `sampling/createMessage`, `elicitation/create`, `roots/list`),
 * and the server's notifications handed on as they arrive. Reconnecting makes a new one.
 */
import { Dispatcher, JsonRpcLocalError, LocalErrorCode, Peer, type JsonRpcId, type JsonRpcNotification, type Logger, type PeerRequestOptions } from '@switchboard/jsonrpc';
import { TransientMap } from '@switchboard/jsonrpc/internal';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY } from '../protocol/envelope.js';
import { McpError, McpErrorCode } from '../protocol/errors.js';
import { cancelledNotification, parseCancelled, parseProgressToken, CANCELLED_METHOD, PROGRESS_METHOD } from '../protocol/notifications.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { ClientProtocol, ClientTransport } from '../protocol/transport.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { CoreSendOptions, InputQuestion } from './clientCore.js';
import { clientFailure } from './failures.js';
import type { ClientConnectionEnd, ClientInstrumentation, ClientRequestObservation, ClientRequestOutcome } from './instrumentation.js';
import type { InputContext } from './options.js';

/** The live server → client requests a session may carry, answered by the application's callbacks. */
const QUESTIONS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;

/** What a {@link ClientConnection} is made with. */
export interface ConnectionSetup {
  readonly transport: ClientTransport;
  readonly logger: Logger;
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  /** Answers a live server → client request (`InputContext.era` is `legacy`). */
  readonly answer: (question: InputQuestion, ctx: InputContext) => Promise<unknown>;
  /**
   * Every server notification, in arrival order (after progress was routed to its request); `requestTag`: the tag of
   * the request the transport relates it to (see {@link InputContext.requestTag}).
   */
  readonly onNotification: (notification: JsonRpcNotification, requestTag: unknown) => void;
  /** The client's instrumentation (`McpClientOptions.instrumentation`). @default none */
  readonly instrumentation?: ClientInstrumentation | undefined;
}

/** One request: its method, params and budgets (resolved by the caller). */
export interface WireCall {
  readonly method: string;
  readonly params: Params | undefined;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number | undefined;
}

/**
 * {@link CoreSendOptions} plus what negotiation needs; the budgets are in the {@link WireCall}, so a call's options
 * object is passed on as it came, not copied per call.
 */
export interface WireRequestOptions extends Omit<CoreSendOptions, 'timeoutMs' | 'maxTotalTimeoutMs'> {
  /** Give up without telling the server (`initialize`, and the probe of an unknown server). @default true */
  readonly cancellable?: boolean;
  /** Claim this modern revision in `_meta` whatever the connection's protocol (the probe). @default none */
  readonly claim?: ProtocolRevision;
  /** Send no progress token (`initialize`). @default false */
  readonly noProgress?: boolean;
}

type Params = Record<string, unknown>;

/** The dispatcher context of a live server → client request: the request of ours it came in answer to, if known. */
interface QuestionOrigin {
  readonly relatedRequestId?: JsonRpcId;
}

/** A question the transport relates to no request of ours (one object for all). */
const UNRELATED: QuestionOrigin = {};
/** The `InputContext` part of a question with no tag to hand back. */
const NO_TAG: { readonly requestTag?: unknown } = {};

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One channel to one server; see the module comment. */
export class ClientConnection {
  readonly transport: ClientTransport;
  readonly #peer: Peer;
  readonly #setup: ConnectionSetup;
  #protocol: ClientProtocol | undefined = undefined;
  #nextToken = 0;
  /**
   * The `tag` of each request in flight that has one, by its JSON-RPC id: a question the transport relates to one of
   * them is answered with it ({@link InputContext.requestTag}).
   */
  readonly #tags = new TransientMap<JsonRpcId, unknown>();
  /** Modern era: the `logLevel` every request carries, once `setLoggingLevel` was called. */
  logLevel: LoggingLevel | undefined = undefined;
  /** Called once when the channel ends, from either side. */
  onclose: (() => void) | undefined = undefined;

  constructor(setup: ConnectionSetup) {
    this.#setup = setup;
    const transport = setup.transport;
    this.transport = transport;
    const dispatcher = new Dispatcher<QuestionOrigin>({ logger: setup.logger });
    // MCP 2025-11-25 basic/utilities/ping.mdx: the receiver MUST answer promptly with an empty result.
    dispatcher.register('ping', () => ({}), { kind: 'request' });
    for (const method of QUESTIONS) {
      dispatcher.register(method, (params, ctx) => setup.answer({ method, params }, { signal: ctx.signal, era: 'legacy', method, ...relatedTask(params), ...this.#tagOf(ctx.relatedRequestId) }), { kind: 'request' });
    }
    this.#peer = new Peer<QuestionOrigin>({
      transport,
      dispatcher,
      logger: setup.logger,
      // The transport's extra already holds the relation (one object per exchange): no object per message here.
      context: (_message, extra) => extra ?? UNRELATED,
      // A transport that carries the cancellation itself (2026-07-28 HTTP closes the response stream) sends nothing.
      cancelNotification: (id, reason) => (transport.abandonRequest?.(id) === true ? undefined : this.#withClaim(cancelledNotification({ requestId: id, reason }))),
      // The server's notifications (a batch's too) come here, not to the dispatcher: progress goes straight to its
      // request (its timeout is reset whether or not the caller passed `onprogress`), the rest to the listeners.
      onNotification: (notification, extra) => this.#notification(notification, extra?.relatedRequestId),
    });
    this.#peer.onclose = () => this.onclose?.();
    transport.onresponselost = (id, error) => void this.#peer.failRequest(id, error);
  }

  /** Starts the transport. @throws what the transport's `start()` throws (a `SpawnError`, …) */
  start(): Promise<void> {
    const instrumentation = this.#setup.instrumentation;
    if (instrumentation?.onConnection !== undefined) this.#observeConnection(instrumentation.onConnection);
    return this.#peer.start();
  }

  /** Tells the instrumentation this channel starts, and when it ends ({@link ClientInstrumentation.onConnection}). */
  #observeConnection(onConnection: NonNullable<ClientInstrumentation['onConnection']>): void {
    let end: ((end: ClientConnectionEnd) => void) | undefined;
    try {
      end = onConnection(this.transport);
    } catch (error) {
      this.#setup.logger.error('Instrumentation failed', { error });
      return;
    }
    if (end === undefined) return;
    const ended = end;
    this.#peer.onclose = () => {
      try {
        ended({ era: this.#protocol?.era, protocolVersion: this.#protocol?.revision });
      } catch (error) {
        this.#setup.logger.error('Instrumentation failed', { error });
      }
      this.onclose?.();
    };
  }

  /** The era and revision once negotiated. */
  get protocol(): ClientProtocol | undefined {
    return this.#protocol;
  }

  /** Fixes the era and revision, and tells the transport (its headers follow). */
  setProtocol(protocol: ClientProtocol): void {
    this.#protocol = protocol;
    this.transport.setProtocol(protocol);
  }

  /** Whether the channel has ended. */
  get closed(): boolean {
    return this.#peer.closed;
  }

  /** Requests awaiting a response. */
  get pendingCount(): number {
    return this.#peer.pendingCount;
  }

  /**
   * Sends one request in the connection's era and waits for its result.
   * @throws the typed errors of `clientFailure` (`RequestTimeoutError`, `RequestAbortedError`, `ConnectionClosedError`,
   *   a transport's `HttpStatusError` / `SessionExpiredError`, or the server's `McpError`)
   */
  request<T>(call: WireCall, options: WireRequestOptions): Promise<T> {
    const instrumentation = this.#setup.instrumentation;
    if (instrumentation === undefined) return this.#request<T>(call, options);
    return this.#observed<T>(instrumentation, call, options);
  }

  /** {@link request} seen by the instrumentation: its `meta` joins the request's `_meta`, its `end` hears the outcome. */
  async #observed<T>(instrumentation: ClientInstrumentation, call: WireCall, options: WireRequestOptions): Promise<T> {
    const { method, params } = call;
    const protocol = this.#protocol;
    let observation: ClientRequestObservation | undefined;
    try {
      observation = instrumentation.onRequest({ method, params, era: protocol?.era, protocolVersion: protocol?.revision, transport: this.transport });
    } catch (error) {
      this.#setup.logger.error('Instrumentation failed: request begin', { method, error });
    }
    if (observation === undefined) return this.#request<T>(call, options);
    const extra = observation.meta;
    const sent = extra === undefined ? options : { ...options, meta: { ...extra, ...options.meta } };
    const end = (outcome: ClientRequestOutcome): void => {
      try {
        observation.end(outcome);
      } catch (error) {
        this.#setup.logger.error('Instrumentation failed: request end', { method, error });
      }
    };
    try {
      const result = await this.#request<T>(call, sent);
      end({ kind: 'result', result });
      return result;
    } catch (error) {
      end({ kind: 'error', error });
      throw error;
    }
  }

  async #request<T>(call: WireCall, options: WireRequestOptions): Promise<T> {
    const { method, params, timeoutMs, maxTotalTimeoutMs } = call;
    const token = options.noProgress === true ? undefined : this.#nextToken++;
    const sentAt = Date.now();
    const onprogress = options.onprogress;
    // A request the protocol forbids cancelling (initialize, the era probe) sends no notifications/cancelled when
    // given up on, but its transport still drops what it holds for it (2026-07-28 HTTP: the open POST).
    let sentId: JsonRpcId | undefined;
    // A tagged request is known by its id while in flight, so a question related to it gets its tag.
    const tag = options.tag;
    let taggedId: JsonRpcId | undefined;
    const onRequestId =
      options.cancellable === false || tag !== undefined
        ? (id: JsonRpcId): void => {
            if (options.cancellable === false) sentId = id;
            if (tag !== undefined) this.#tags.set((taggedId = id), tag);
            options.onRequestId?.(id);
          }
        : options.onRequestId;
    try {
      // One literal of one shape whatever is given (the engine reads each field as `!== undefined`): no spread of a
      // temporary and no field added later, which would change the object's shape per call (this runs per call).
      const peerOptions: PeerRequestOptions = {
        timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeoutMs,
        signal: options.signal,
        cancellation: options.cancellation,
        progressToken: token,
        onprogress: onprogress as ((progress: unknown) => void) | undefined,
        cancelOnAbandon: options.cancellable === false ? false : undefined,
        onRequestId,
      };
      return await this.#peer.request<T>(method, this.#envelope(params, options, token), peerOptions);
    } catch (error) {
      if (sentId !== undefined && error instanceof JsonRpcLocalError && (error.code === LocalErrorCode.RequestTimeout || error.code === LocalErrorCode.RequestAborted)) {
        this.transport.abandonRequest?.(sentId);
      }
      throw clientFailure(error, { method, timeoutMs, maxTotalTimeoutMs, sentAt, endFacts: this.transport.endFacts });
    } finally {
      if (taggedId !== undefined) this.#tags.delete(taggedId);
    }
  }

  /** `{ requestTag }` of the request in flight with this id, when it has a tag. */
  #tagOf(id: JsonRpcId | undefined): { readonly requestTag?: unknown } {
    if (id === undefined) return NO_TAG;
    const tag = this.#tags.get(id);
    return tag === undefined ? NO_TAG : { requestTag: tag };
  }

  /**
   * Sends one notification; in the modern era its `_meta` carries the revision claim (MCP 2026-07-28 schema.ts
   * `NotificationMetaObject`).
   * @throws ConnectionClosedError when the channel has ended or the send failed
   */
  async notify(method: string, params?: Params): Promise<void> {
    try {
      const message = this.#withClaim({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
      await this.#peer.notify(method, message.params);
    } catch (error) {
      throw clientFailure(error, { method, timeoutMs: 0, maxTotalTimeoutMs: undefined, sentAt: Date.now(), endFacts: this.transport.endFacts });
    }
  }

  /** Closes the channel; pending requests fail with `ConnectionClosedError`. Idempotent. */
  close(): Promise<void> {
    return this.#peer.close();
  }

  /** A notification with the modern claim added to its `_meta` when the connection is modern. */
  #withClaim(notification: JsonRpcNotification): JsonRpcNotification {
    const protocol = this.#protocol;
    if (protocol?.era !== 'modern') return notification;
    const params = isRecord(notification.params) ? notification.params : {};
    const meta = isRecord(params._meta) ? params._meta : {};
    return { ...notification, params: { ...params, _meta: { ...meta, [PROTOCOL_VERSION_META_KEY]: protocol.revision } } };
  }

  /**
   * The params as sent: `_meta` holds the caller's `params._meta`, then the modern protocol fields, then `options.meta`
   * (so a part may widen `clientCapabilities` for one request), then the progress token, which is always ours.
   */
  #envelope(params: Params | undefined, options: WireRequestOptions, token: number | undefined): Params | undefined {
    const modern = options.claim ?? (this.#protocol?.era === 'modern' ? this.#protocol.revision : undefined);
    if (modern === undefined && token === undefined && options.meta === undefined) return params;
    const given = params?._meta;
    const meta: Params = isRecord(given) ? { ...given } : {};
    if (modern !== undefined) {
      meta[PROTOCOL_VERSION_META_KEY] = modern;
      meta[CLIENT_CAPABILITIES_META_KEY] = options.capabilities ?? this.#setup.capabilities;
      meta[CLIENT_INFO_META_KEY] = this.#setup.clientInfo;
      if (this.logLevel !== undefined) meta[LOG_LEVEL_META_KEY] = this.logLevel;
    }
    if (options.meta !== undefined) Object.assign(meta, options.meta);
    if (token !== undefined) meta.progressToken = token;
    return { ...params, _meta: meta };
  }

  #notification(notification: JsonRpcNotification, relatedRequestId: JsonRpcId | undefined): void {
    const params = notification.params;
    if (notification.method === PROGRESS_METHOD) {
      const token = parseProgressToken(params);
      if (token !== undefined) this.#peer.reportProgress(token, params);
    } else if (notification.method === CANCELLED_METHOD) {
      // The server gave up on one of its requests to us (MCP 2025-11-25 basic/utilities/cancellation.mdx).
      const cancelled = parseCancelled(params);
      if (cancelled !== undefined) this.#peer.cancelInbound(cancelled.requestId, cancelled.reason);
    }
    try {
      this.#setup.onNotification(notification, relatedRequestId === undefined ? undefined : this.#tags.get(relatedRequestId));
    } catch (error) {
      this.#setup.logger.error('Notification listener failed', { method: notification.method, error });
    }
  }
}

/** The -32601 answer to a question the application gave no callback for. */
export function noCallback(method: string): McpError {
  return new McpError(McpErrorCode.MethodNotFound, `Method not found: "${method}" (the client has no handler for it)`);
}

/** `{ taskId }` of a request tagged with the related-task `_meta` (MCP 2025-11-25 basic/utilities/tasks.mdx "Related Task Metadata"). */
function relatedTask(params: unknown): { taskId?: string } {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const related = typeof meta === 'object' && meta !== null ? (meta['io.modelcontextprotocol/related-task'] as { taskId?: unknown } | undefined) : undefined;
  return typeof related?.taskId === 'string' ? { taskId: related.taskId } : {};
}
