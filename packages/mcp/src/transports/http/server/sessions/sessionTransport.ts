/**
 * The server side of one Streamable HTTP session (MCP 2025-03-26 … 2025-11-25): the `Transport` an
 * McpServer session runs on. Inbound messages arrive from POSTs and GETs routed here by the HTTP endpoint and are
 * answered as 202, one JSON body or an SSE stream; outbound messages go to the stream they belong to (see
 * `streamRouter.ts`). With an event store every SSE event carries an id `<token>.<k>.<n>`, `token` being random per
 * session and never the session id (event ids, which proxies log, never repeat the session credential), and is
 * stored whether or not the client is connected, so a client that lost a stream resumes it with `GET` +
 * `Last-Event-ID` (basic/transports.mdx "Resumability and Redelivery"). Disconnection is not cancellation
 * ("Sending Messages to the Server" item 7; field bug B27): the handler keeps running and its response is stored.
 */
import { JsonRpcLocalError, LocalErrorCode } from '@switchboard/jsonrpc';
import { TransientMap } from '@switchboard/jsonrpc/internal';
import type {
  Inbound,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  Logger,
  TransportMessageExtra,
  TransportSendOptions,
} from '@switchboard/jsonrpc';
import { HttpSessionTransportBase, newStreamPrefix } from './sessionTransportBase.js';
import { StreamRouter } from '../exchanges/streamRouter.js';
import type { SessionRecordLink } from './sessionTransportBase.js';
import { OutStream, PRIMING } from '../exchanges/exchange.js';
import type { HttpMessageDecision } from '../ladder/decisions.js';
import type { ResponseShape } from '../../media.js';
import { HttpStatus, refusalOutput } from '../refusals.js';
import type { HttpRefusalName } from '../refusals.js';
import { Resumption } from '../exchanges/resumption.js';
import { SessionExchangeHost, primesAt, settleCleanup, type SessionExchangeSettings } from './sessionExchangeHost.js';
import type { EventStore } from '../../../../stores/eventStore.js';
import type { ClusterMessage } from '../../../../stores/clusterBus.js';
import type { SessionStateJson } from '../../../../stores/sessionStore.js';
import type { ClusterSession } from './clusterSession.js';
import type { HttpOutput } from '../inputOutput.js';
import { JSON_HEADERS } from '../inputOutput.js';
import { SSE_HEADERS, SseChannel, formatMessageEvent } from '../../sse/sseChannel.js';

/** @internal Construction options, supplied by the HTTP handler. */
export interface SessionTransportInit extends SessionExchangeSettings {
  readonly keepAliveMs: number;
  /** How long (ms) an adaptive exchange waits for its first outbound message before it becomes SSE (`sseAfterMs`). */
  readonly sseAfterMs: number;
  readonly onClosed: (transport: StreamableHttpSessionTransport) => void;
  /**
   * `<token>.`: the start of every stream id of the session, as its record holds it (see {@link newStreamPrefix}).
   * @default a new one
   */
  readonly streamPrefix?: string | undefined;
  /** The session's record in the session table; absent without a table (tests). */
  readonly record?: SessionRecordLink | undefined;
  /** The session's side of the cluster (the handler's `cluster` option); absent: one instance. */
  readonly cluster?: ClusterSession | undefined;
}

/** Options of {@link StreamableHttpSessionTransport.closeSseStream}. */
export interface CloseSseStreamOptions {
  /**
   * The `retry` field (ms) sent just before closing: how long the client waits before it reconnects with
   * `GET` + `Last-Event-ID` (MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6).
   * @default the handler's `sseRetryMs` (1000)
   */
  readonly retryMs?: number;
}

const RESOLVED: Promise<void> = Promise.resolve();
/**
 * One Streamable HTTP session's transport. Created by the HTTP handler on `initialize`; reachable from a
 * handler as `ctx.session?.transport` (see {@link closeRequestSseStream}).
 */
export class StreamableHttpSessionTransport extends HttpSessionTransportBase<StreamableHttpSessionTransport> {
  readonly #store: EventStore | undefined;
  /**
   * Ids of the streams this session stored events for and has not deleted yet, the 1,000 most recently written
   * (`MAX_REMEMBERED_STREAMS`: the store bounds what it keeps by itself). A `TransientMap` (see there), not a
   * `Set`: a stream comes and goes with each request while the session lives, and a plain set's old tables kept every
   * answered stream's id, and through the store's deletion all that hung on it, alive into the old generation (about
   * 12 MB in 3.5 s at 16 calls in flight over SSE with the default event store; the heaviest promoted allocation site).
   */
  readonly #storedStreams = new TransientMap<string, true>();
  readonly #logger: Logger;
  readonly #keepAliveMs: number;
  readonly #maxSseBuffer: number;
  readonly #sseAfterMs: number;
  /** `<token>.`: the start of every stream id of this session; `token` is random and is not the session id. */
  readonly #prefix: string;
  /** What this session's exchanges need from it (one object per session). */
  /** The exchanges' view of this session. */
  readonly #host: SessionExchangeHost;
  readonly #resumption: Resumption;
  /** The session's streams and where each outbound message goes. */
  readonly #router: StreamRouter;
  readonly #cluster: ClusterSession | undefined;
  /** Set by {@link _detach}: this instance lets go of the session, which lives on elsewhere (history kept). */
  #detached = false;
  /** The write of the session's state to its record, while in flight (see {@link setSessionState}). */
  #stateWrite: Promise<void> | undefined = undefined;
  /** Whether the last write of the session's state failed (the store refused it or could not be reached). */
  #stateUnrecorded = false;
  /** Set by the server (`McpServerTransport.onsessionstate`): applies a state another instance wrote. */
  onsessionstate: ((state: Readonly<Record<string, unknown>>) => void) | undefined = undefined;

  /** @internal Created by the HTTP handler. */
  constructor(init: SessionTransportInit) {
    super(init);
    this.#store = init.eventStore;
    this.#logger = init.logger;
    this.#keepAliveMs = init.keepAliveMs;
    this.#maxSseBuffer = init.maxSseBufferBytes;
    this.#sseAfterMs = init.sseAfterMs;
    this.#prefix = init.streamPrefix ?? newStreamPrefix();
    this.#router = new StreamRouter({ sessionId: init.sessionId, logger: init.logger });
    const cluster = init.cluster;
    this.#cluster = cluster;
    if (cluster !== undefined) {
      // A server→client request with no stream here goes to the instance holding the client's GET stream.
      this.#router.elsewhere = (message) => {
        cluster.hub.forwardRequest(init.sessionId, message as never);
        return true;
      };
    }
    this.#host = new SessionExchangeHost({ owner: this, init, prefix: this.#prefix, streams: this.#router.streams, stored: this.#storedStreams, hub: cluster?.hub });
    this.#resumption = new Resumption({
      sessionId: init.sessionId,
      eventStore: init.eventStore,
      logger: init.logger,
      prefix: this.#prefix,
      recordedPrefix: init.record === undefined ? undefined : () => (init.record as SessionRecordLink).recordedStreamPrefix(),
      holder: cluster === undefined ? undefined : { of: (streamId) => cluster.hub.streamHolder(streamId), recheckMs: cluster.hub.recheckMs, tracked: cluster.hub.leases !== undefined },
      keepAliveMs: init.keepAliveMs,
      maxSseBufferBytes: init.maxSseBufferBytes,
    });
  }

  /**
   * Tells the transport the revision `initialize` negotiated, before its result is sent: it decides whether POST
   * streams are primed (2025-11-25 and later), whether batches are accepted, which `MCP-Protocol-Version` header
   * values match, and that the session exists (its answer then carries `Mcp-Session-Id`); the session's record
   * keeps it. The transport reads no MCP message to learn it.
   * @param revision - A revision string, e.g. `'2025-11-25'`.
   * @see MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation"
   */
  override setProtocolVersion(revision: string): void {
    // The server shares the session's state (it carries the revision) just before: no second write for it.
    if (this.#stateWrite !== undefined) this.restoreProtocolVersion(revision);
    else super.setProtocolVersion(revision);
  }

  /**
   * Tells the transport that an inbound request was cancelled (the server will send no response for it, MCP
   * 2025-11-25 basic/utilities/cancellation.mdx "Behavior Requirements"): its exchange stops waiting for it and
   * the id is forgotten (the client may reuse it). When no other request of its POST is pending, the exchange
   * ends: an SSE stream is closed after what it already carried; a JSON answer with nothing collected is
   * `202 Accepted` with no body (RFC 9110 §15.3.3: accepted, no result will follow; the status MCP uses for a
   * POST that gets no JSON-RPC answer, basic/transports.mdx "Sending Messages to the Server" item 4). An id that
   * is not in flight here is ignored.
   * @param requestId - The id of the cancelled request.
   */
  requestCancelled(requestId: JsonRpcId): void {
    this.#router.forget(requestId);
  }

  /** Whether a request of the client is waiting for its response (see {@link SessionLease}). */
  get requestInFlight(): boolean {
    return this.#router.inFlight;
  }

  /** Whether a POST or GET stream of the session is connected (see {@link SessionLease}). */
  get streamOpen(): boolean {
    return this.#router.connected;
  }

  /**
   * Routes one message (or each member of a batch) to its stream; see the module documentation.
   * Resolves once written or stored; a response whose stream is gone and cannot be stored is dropped (logged).
   * Backpressure: while the connection of the stream a message went to holds more than its high-water mark (the
   * client is not reading), the promise resolves only once the client read it down, so a handler that awaits
   * `ctx.log`/`ctx.progress` waits instead of piling up memory (see the handler's `maxSseBufferBytes`).
   * Messages are serialized before any routing state is consumed, so a response that cannot be serialized rejects
   * with its request still routed (the Peer's -32603 stand-in for the same id then reaches the client).
   * @throws TypeError when a message cannot be serialized (cyclic, BigInt); nothing of it was sent.
   * @throws JsonRpcLocalError `connection_closed` after {@link close}; `send_failed` for a server→client request
   *   that can never reach the client (its request is answered as a single JSON body, or the client has no GET
   *   stream), so the caller fails fast instead of hanging (field bug B25).
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: TransportSendOptions): Promise<void> {
    if (this.closed) {
      return Promise.reject(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, `Session closed: '${this.sessionId}'`));
    }
    let wait: Promise<void> | undefined;
    const cluster = this.#cluster;
    if (cluster !== undefined) {
      message = Array.isArray(message) ? (message as readonly JsonRpcMessage[]).map((m) => cluster.outbound(m)) : cluster.outbound(message as JsonRpcMessage);
    }
    try {
      if (Array.isArray(message)) {
        const list = message as readonly JsonRpcMessage[];
        // Every member first: one that cannot be serialized fails the whole send before any member is routed.
        const texts = list.map((m) => JSON.stringify(m));
        for (let i = 0; i < list.length; i++) wait = this.#router.route(list[i] as JsonRpcMessage, options?.relatedRequestId, texts[i]) ?? wait;
      } else {
        wait = this.#router.route(message as JsonRpcMessage, options?.relatedRequestId, undefined);
      }
    } catch (error) {
      // A serialization TypeError or a JsonRpcLocalError (see @throws).
      return Promise.reject(error instanceof Error ? error : new TypeError(String(error)));
    }
    return wait ?? RESOLVED;
  }

  /**
   * Closes the POST SSE stream of `requestId` on purpose, after sending `retry` — the 2025-11-25 "SSE polling"
   * pattern: the client reconnects with `GET` + `Last-Event-ID` and receives what was produced meanwhile
   * (including the response). The request keeps running.
   *
   * Only possible when the client can resume: the stream carries event ids (an event store is configured) and
   * the client already received one (the priming event of a 2025-11-25 session, or any event).
   *
   * @param requestId - The id of a request in flight on this session (`ctx.requestId` in a handler).
   * @returns Whether a stream was closed.
   * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6
   * @example
   * server.tool('slow', {}, async (_args, ctx) => {
   *   const t = ctx.session?.transport;
   *   if (t instanceof StreamableHttpSessionTransport) t.closeSseStream(ctx.requestId, { retryMs: 500 });
   *   return { content: [{ type: 'text', text: await longWork() }] };
   * });
   */
  closeSseStream(requestId: JsonRpcId, options: CloseSseStreamOptions = {}): boolean {
    const stream = this.#router.byRequest.get(requestId);
    if (stream === undefined) return false;
    // Asking to close a stream is asking for a stream: an undecided exchange becomes SSE first.
    if (stream.kind === 'adaptive') stream.upgrade();
    if (stream.kind !== 'sse') return false;
    return stream.closeOnPurpose(options.retryMs);
  }

  /**
   * Closes the standalone GET stream on purpose, after sending `retry`; the client reconnects (with
   * `Last-Event-ID` when it holds one) and nothing stored meanwhile is lost.
   * @returns Whether a stream was closed.
   */
  closeStandaloneSseStream(options: CloseSseStreamOptions = {}): boolean {
    const stream = this.#router.standalone;
    return stream === undefined ? false : stream.closeOnPurpose(options.retryMs);
  }

  /** Ends the session's streams (pending JSON answers get 404 "Session not found") and their stored history. */
  protected release(): void {
    this.#host.closed = true;
    const store = this.#store;
    const deleteStream = this.#detached ? undefined : store?.deleteStream?.bind(store);
    const live = this.#router.abortAll();
    // Every stream that has history leaves the store with its session: the live ones just aborted (one silent while
    // MAX_REMEMBERED_STREAMS others were written is no longer among the ids remembered) and the finished ones (ended
    // with an error, cut, or never resumed) that the transport no longer holds.
    if (deleteStream !== undefined) {
      const stored = this.#storedStreams;
      for (const stream of live) if (stream.resumable && !stored.has(stream.id)) this.#settle(deleteStream(stream.id));
      for (const id of stored.keys()) this.#settle(deleteStream(id));
    }
    this.#storedStreams.clear();
    this.#resumption.close();
  }

  // -------------------------------------------------------------------------------------------------------
  // Inbound (called by the HTTP handler)

  /**
   * @internal Dispatches the `initialize` request and resolves with the HTTP answer once its response exists.
   * The answer carries `Mcp-Session-Id` only when initialize succeeded (MCP 2025-11-25 basic/transports.mdx
   * "Session Management" item 1: the id is assigned on the response carrying the InitializeResult).
   */
  _initialize(request: JsonRpcRequest, respondWith: ResponseShape, extra: TransportMessageExtra): Promise<HttpOutput> {
    this.touch();
    const stream = new OutStream(this.#host, 'json', `${this.#prefix}init`);
    const answered = stream.settled();
    this.#router.register(stream, [request.id]);
    this.#deliverFor(stream, { kind: 'request', message: request }, extra);
    return answered.then((settled) => {
      if (!settled) return this.#refusalOutput('sessionNotFound', request.id);
      const headers = this.protocolVersion === undefined
        ? respondWith === 'sse' ? SSE_HEADERS : JSON_HEADERS
        : respondWith === 'sse' ? this.#host.sseHeaders : this.#host.jsonHeaders;
      // One request, so one response (initialize is never cancelled, and never batched).
      const json = stream.takeJson(false);
      // The session exists for every instance once its record holds its state.
      return this.#afterStateWrite(() => ({ status: HttpStatus.Ok, headers, body: respondWith === 'sse' ? formatMessageEvent(json) : json }));
    });
  }

  /**
   * @internal Handles a classified POST: hands the messages to the session and answers 202, a JSON body, or an
   * SSE stream that ends after the last response.
   */
  _post(post: HttpMessageDecision, extra: TransportMessageExtra): HttpOutput | Promise<HttpOutput> {
    const { requestIds, replies, batch, respondWith } = post;
    const cluster = this.#cluster;
    // With a cluster, answers to another instance's requests go there; what is left is this session's.
    const local = cluster === undefined ? post.inbound : cluster.inbound(post.inbound, (id) => this.#router.byRequest.has(id));
    this.touch();
    if (respondWith === 'accepted') {
      if (local !== undefined) this.#deliver(local, extra);
      // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 4: 202, no body.
      return this.#afterStateWrite(() => ({ status: HttpStatus.Accepted, headers: this.#host.acceptedHeaders }));
    }
    // A POST with a request: the requests stay here (only responses can leave), so something is left.
    const inbound = local ?? post.inbound;
    for (const id of requestIds) {
      if (this.#router.byRequest.has(id)) return this.#refusalOutput('duplicateRequestId', id);
    }
    if (respondWith === 'adaptive' && replies.length === 0) {
      const stream = new OutStream(this.#host, 'adaptive');
      const answered = stream.settled();
      this.#router.register(stream, requestIds);
      this.#deliverFor(stream, inbound, extra);
      if (stream.kind === 'adaptive' && !stream.done) stream.timer = setTimeout(() => stream.upgrade(), this.#sseAfterMs);
      return answered.then((settled) => this.#afterStateWrite(() => stream.adaptiveOutput(settled, batch)));
    }
    if (respondWith === 'json') {
      const stream = new OutStream(this.#host, 'json');
      const answered = stream.settled();
      for (const reply of replies) stream.collect(JSON.stringify(reply));
      this.#router.register(stream, requestIds);
      this.#deliverFor(stream, inbound, extra);
      if (requestIds.length === 0) stream.complete();
      return answered.then((settled) => this.#afterStateWrite(() => stream.jsonOutput(settled, batch)));
    }

    const channel = new SseChannel(this.#maxSseBuffer);
    const stream = new OutStream(this.#host, 'sse');
    this.#host.opened(stream);
    stream.attach(channel);
    this.#router.register(stream, requestIds);
    // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6: prime the stream with an
    // event id and empty data (only for 2025-11-25 sessions: older clients choke on empty data; the TS SDK
    // makes the same cut).
    if (stream.resumable && this.#primes()) void stream.emit(PRIMING, '');
    for (const reply of replies) void stream.emit(reply, JSON.stringify(reply));
    this.#deliverFor(stream, inbound, extra);
    if (requestIds.length === 0) stream.complete();
    return { status: HttpStatus.Ok, headers: this.#host.sseHeaders, sse: channel };
  }

  /**
   * @internal Handles a GET: opens the standalone stream (409 when one is connected), or resumes a stream from
   * `lastEventId` (MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery" items 2–4: replay what came
   * after that event on that stream only, then go on with it if it is still live).
   */
  _listen(lastEventId: string | undefined): HttpOutput | Promise<HttpOutput> {
    this.touch();
    if (lastEventId !== undefined) return this.#resume(lastEventId);
    const current = this.#router.standalone;
    if (current?.channel?.open === true) return this.#refusalOutput('streamConflict');
    const channel = new SseChannel(this.#maxSseBuffer);
    const stream = current ?? new OutStream(this.#host, 'standalone', `${this.#prefix}0`);
    this.#router.standalone = stream;
    stream.attach(channel);
    channel.keepAlive(this.#keepAliveMs);
    return { status: HttpStatus.Ok, headers: this.#host.sseHeaders, sse: channel };
  }

  async #resume(lastEventId: string): Promise<HttpOutput> {
    const resumed = await this.#resumption.resume(
      lastEventId,
      (streamId) => this.#router.find(streamId),
      () => this.closed,
    );
    return typeof resumed === 'string' ? this.#refusalOutput(resumed) : { status: HttpStatus.Ok, headers: this.#host.sseHeaders, sse: resumed };
  }

  // -------------------------------------------------------------------------------------------------------
  // Cluster (the handler's `cluster` option)

  /**
   * Keeps the session's state where the other instances read it (see `McpServerTransport.setSessionState`): the
   * record in the session store, then a word to the instances holding the session. Ignored once closed (a closing
   * session clears its subscriptions; that is no change of the session's state elsewhere).
   */
  setSessionState(state: Readonly<Record<string, unknown>>): void {
    if (this.closed) return;
    const write = this.record?.recordState?.(state as unknown as SessionStateJson);
    if (write === undefined) return;
    const settled = write.then((recorded) => {
      this.#stateUnrecorded = !recorded;
      if (this.#stateWrite === settled) this.#stateWrite = undefined;
    });
    this.#stateWrite = settled;
  }

  /**
   * `output` once the session's state written by the request is recorded (so the client's next request, on any
   * instance, sees it); at once when nothing is being written.
   */
  #afterStateWrite(output: () => HttpOutput): HttpOutput | Promise<HttpOutput> {
    const write = this.#stateWrite;
    return write === undefined ? output() : write.then(output);
  }

  /**
   * @internal Whether the last write of the session's state to its record failed: with a cluster, the other
   * instances cannot serve the session (read once the request's answer is built, after the write settled).
   */
  get _stateUnrecorded(): boolean {
    return this.#stateUnrecorded;
  }

  /** @internal A message another instance received for this session (see `ClusterMessage`). */
  _deliverFromCluster(message: ClusterMessage): void {
    if (this.closed) return;
    if (message.type === 'state') {
      this.onsessionstate?.(message.state as unknown as Readonly<Record<string, unknown>>);
      return;
    }
    if (message.type === 'stream_events') {
      this.#resumption.heard(message.streamId, message.done);
      return;
    }
    if (message.type === 'server_request') {
      // Only the instance holding the client's GET stream writes it (MCP 2025-11-25 basic/transports.mdx
      // "Listening for Messages from the Server"); the others drop it.
      const standalone = this.#router.standalone;
      if (standalone?.channel?.open === true) void standalone.emit(message.message as never, JSON.stringify(message.message));
      return;
    }
    const inbound = this.#cluster?.fromCluster(message);
    if (inbound !== undefined) this.#deliver(inbound, undefined);
  }

  /**
   * @internal This instance lets go of the session without ending it (the handler shuts down, or the session ended
   * elsewhere): its stored history and its response streams' records stay for the instance that goes on.
   */
  _detach(): void {
    this.#detached = true;
    this.#host.detached = true;
  }

  /** @internal Tells the transport the revision of a session rebuilt from its record (nothing is written back). */
  _restore(revision: string): void {
    this.restoreProtocolVersion(revision);
  }

  // -------------------------------------------------------------------------------------------------------
  // Internals

  #primes(): boolean {
    return primesAt(this.protocolVersion);
  }

  /** Hands a POST's messages to the session, remembering which exchange a whole-POST refusal answers. */
  #deliverFor(stream: OutStream, inbound: Inbound, extra: TransportMessageExtra): void {
    const router = this.#router;
    const outer = router.delivering;
    router.delivering = stream;
    try {
      this.#deliver(inbound, extra);
    } finally {
      router.delivering = outer;
    }
  }

  #deliver(inbound: Inbound, extra: TransportMessageExtra | undefined): void {
    try {
      this.onmessage?.(inbound, extra);
    } catch (error) {
      this.#logger.error('Session message handler threw', { sessionId: this.sessionId, error });
    }
  }

  #refusalOutput(name: HttpRefusalName, id: JsonRpcId | null = null): HttpOutput {
    return refusalOutput(name, { id });
  }

  #settle(result: void | Promise<void>): void {
    settleCleanup(result, this.#logger);
  }
}
