/**
 * The Streamable HTTP endpoint of a dual-era server: POST, GET and DELETE on one path, classified by the ladder. A
 * session-based message (MCP 2025-03-26 … 2025-11-25) goes to the session transport of the session it names (or a
 * new one for `initialize`); a modern POST (MCP 2026-07-28) is answered on its own, with no session.
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"; MCP 2026-07-28 basic/transports/streamable-http.mdx
 */
import { classifyValue } from '@switchboard/jsonrpc';
import type { Inbound, JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { LEGACY_REVISIONS, isLegacyRevision, isModernRevision } from '../../../protocol/revisions.js';
import type { ProtocolRevision } from '../../../protocol/revisions.js';
import type { ParamHeader } from '../../../protocol/paramHeaders.js';
import type { ServerCapabilities } from '../../../protocol/types.js';
import { isRefusedBody, readJsonBody } from './body.js';
import { extraOf, newSessionId } from './endpointContext.js';
import type { EndpointContext } from './endpointContext.js';
import type { HttpInput, HttpOutput } from './inputOutput.js';
import { checkStreamableHttpHead, classifyStreamableHttp } from './ladder/ladder.js';
import type { HttpCaller, HttpInitializeDecision, HttpModernDecision, HttpRefusalDecision, HttpServerFacts } from './ladder/decisions.js';
import type { ResponseMode } from '../media.js';
import { HttpStatus, errorOutput, refusalOutput, withRequestId } from './refusals.js';
import { phaseAfterPost } from './sessions/sessionEntry.js';
import type { StreamableEntry } from './sessions/sessionEntry.js';
import { newStreamPrefix } from './sessions/sessionTransportBase.js';
import { StreamableHttpSessionTransport } from './sessions/sessionTransport.js';
import { STORE_RETRY_AFTER_SECONDS, UNSETTLED } from './sessions/sessionTable.js';
import { ClusterSession } from './sessions/clusterSession.js';
import { openerOf } from './callerIdentity.js';
import { ModernExchange, ModernExchangeHost } from './exchanges/modernExchange.js';
import type { HttpModernHandle, McpHttpServerLike } from './serverLike.js';
import type { EventStore } from '../../../stores/eventStore.js';

/** The settings of the Streamable HTTP endpoint besides the shared ones. */
export interface StreamableEndpointSettings {
  readonly responseMode: ResponseMode;
  /** `responseMode: 'auto'`: ms before an undecided exchange becomes SSE. */
  readonly sseAfterMs: number;
  readonly eventStore: EventStore | undefined;
  /** The `retry` hint (ms) on priming events and before a stream is closed on purpose. */
  readonly retryMs: number;
}

const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** A modern notification accepted: 202, no body, no `Mcp-Session-Id`. */
const ACCEPTED: HttpOutput = Object.freeze({ status: HttpStatus.Accepted, headers: EMPTY_HEADERS });

/** The answer to a refusal decision of the ladder (with `Allow` on a 405). */
function decisionOutput(decision: HttpRefusalDecision): HttpOutput {
  return errorOutput(decision.httpStatus, decision.jsonrpcError, decision.allow === undefined ? undefined : { allow: decision.allow });
}

const NO_CAPABILITIES: ServerCapabilities = Object.freeze({});

/** How long (ms) an id the session store did not know is answered 404 without asking it again. */
const MISSING_MS = 5000;
/** The most such ids remembered (past it, all are forgotten). */
const MAX_MISSING = 10_000;
/** What {@link StreamableEndpoint}'s adoption answers when the session store could not be read. */
const STORE_FAILED = Symbol('session store failed');

/** The id of a single request (echoed in a refusal: JSON-RPC 2.0 §5); `null` for anything else. */
function requestIdOf(body: Inbound | undefined): JsonRpcRequest['id'] | null {
  return body?.kind === 'request' ? body.message.id : null;
}

/**
 * What the ladder knows of the server, read once (its capabilities when a modern request needs them). The
 * session-based revisions only unless the server names the revisions it serves and can answer modern messages.
 */
class ServedFacts implements HttpServerFacts {
  readonly servedRevisions: readonly ProtocolRevision[];
  readonly servesModern: boolean;
  readonly servesLegacy: boolean;
  readonly #server: McpHttpServerLike;

  constructor(server: McpHttpServerLike) {
    this.#server = server;
    this.servedRevisions = server.servedRevisions ?? LEGACY_REVISIONS;
    this.servesModern = typeof server.handle === 'function' && this.servedRevisions.some(isModernRevision);
    this.servesLegacy = this.servedRevisions.some(isLegacyRevision);
  }

  get capabilities(): ServerCapabilities {
    return this.#server.capabilities ?? NO_CAPABILITIES;
  }

  paramHeaders(toolName: string, caller?: HttpCaller): readonly ParamHeader[] | undefined {
    return this.#server.paramHeaders?.(toolName, caller);
  }
}

/** @internal The Streamable HTTP endpoint of one handler. */
export class StreamableEndpoint {
  readonly #context: EndpointContext;
  readonly #settings: StreamableEndpointSettings;
  readonly #served: ServedFacts;
  readonly #modernHost: ModernExchangeHost;
  /** The server's modern `handle`, bound once; only called when the server serves a modern revision. */
  readonly #handle: HttpModernHandle | undefined;
  /** Rebuilds of sessions opened elsewhere, in flight (see {@link #adopt}). */
  readonly #adopting = new Map<string, Promise<StreamableEntry | typeof STORE_FAILED | undefined>>();
  /**
   * Session ids the store lately did not know, with when (ms) that answer goes stale: a client (or a flood) repeating
   * an unknown or ended id costs one store read per {@link MISSING_MS}, not one per request. Safe to remember: an id
   * is only known to a client once its session's record holds its state, and an ended session never comes back.
   */
  readonly #missing = new Map<string, number>();

  constructor(context: EndpointContext, settings: StreamableEndpointSettings) {
    this.#context = context;
    this.#settings = settings;
    const server = context.server;
    this.#served = new ServedFacts(server);
    this.#handle = this.#served.servesModern ? (server.handle as HttpModernHandle).bind(server) : undefined;
    this.#modernHost = new ModernExchangeHost({
      logger: context.logger,
      maxSseBufferBytes: context.maxSseBufferBytes,
      maxSseBufferBytesTotal: context.maxSseBufferBytesTotal,
      keepAliveMs: context.keepAliveMs,
      sseAfterMs: settings.sseAfterMs,
    });
  }

  /** The unsent bytes of every stateless SSE stream together (see `maxSseBufferBytesTotal`). */
  get modernSseBytes(): number {
    return this.#modernHost.sseBudget.bytes;
  }

  /** Answers one request to the endpoint (Host and Origin already checked). */
  async handle(input: HttpInput): Promise<HttpOutput> {
    const method = input.method;
    const contentType = input.header('content-type');
    // Refuse what the headers alone refuse (405, 415) before reading a body.
    const head = checkStreamableHttpHead(method, contentType);
    if (head !== undefined) return decisionOutput(head);

    let body: Inbound | undefined;
    if (method === 'POST') {
      const read = await readJsonBody(input, this.#context.body);
      if (isRefusedBody(read)) return read;
      body = classifyValue(read.value);
    }

    const table = this.#context.table;
    const sessionId = input.header('mcp-session-id');
    let entry = sessionId === undefined ? undefined : table.streamable(sessionId);
    /** Whether the session's record was read for this very request (a session rebuilt here from it). */
    let fresh = false;
    // A session opened on another instance sharing the session store: rebuilt here from its record.
    if (entry === undefined && sessionId !== undefined) {
      const adopted = await this.#adopt(sessionId, input);
      // The store could not be read: the session may be live elsewhere, so 503 (retry), never 404 (drop it).
      if (adopted === STORE_FAILED) return refusalOutput('sessionStoreUnavailable', { id: requestIdOf(body), retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
      entry = adopted;
      fresh = true;
    }
    const decision = classifyStreamableHttp({
      httpMethod: method,
      contentType,
      accept: input.header('accept'),
      sessionId,
      protocolVersionHeader: input.header('mcp-protocol-version'),
      lastEventId: input.header('last-event-id'),
      session: entry?.transport,
      body,
      responseMode: this.#settings.responseMode,
      mcpMethod: input.header('mcp-method'),
      mcpName: input.header('mcp-name'),
      headers: input,
      server: this.#served,
      authInfo: input.authInfo,
    });

    switch (decision.kind) {
      case 'refuse':
        return decisionOutput(decision);
      case 'modern': {
        // Per-tool scopes, before dispatch (`auth/toolScopeCheck.ts`); the ladder has cross-checked `Mcp-Name`.
        const forbidden = 'id' in decision.message ? this.#context.authorize?.({ input, inbound: { kind: 'request', message: decision.message }, session: undefined }) : undefined;
        return forbidden ?? this.#modern(decision, input);
      }
      case 'initialize':
        return this.#initialize(decision, input);
      case 'message': {
        const forbidden = this.#context.authorize?.({ input, inbound: decision.inbound, session: entry });
        if (forbidden !== undefined) return forbidden;
        const touched = table.touch(entry as StreamableEntry, phaseAfterPost(decision.inbound));
        if (touched !== undefined && !fresh && !(await touched)) {
          return this.#endedElsewhere(entry as StreamableEntry, !decision.batch && decision.requestIds.length === 1 ? (decision.requestIds[0] as JsonRpcId) : null);
        }
        return (entry as StreamableEntry).transport._post(decision, extraOf(input, this.#context.callerOf));
      }
      case 'listen': {
        const touched = table.touch(entry as StreamableEntry, 'active');
        if (touched !== undefined && !fresh && !(await touched)) return this.#endedElsewhere(entry as StreamableEntry, null);
        return (entry as StreamableEntry).transport._listen(decision.lastEventId);
      }
      case 'terminate': {
        // MCP 2025-11-25 basic/transports.mdx "Session Management" item 5: DELETE ends the session; later
        // requests with its id get 404 (the session is no longer in the table) — on every instance once the record
        // is deleted, which the answer waits for. With a cluster, a copy of a session that already ended elsewhere
        // gets 404, as on the instance that ended it.
        const ended = await table.terminate(entry as StreamableEntry, this.#context.hub !== undefined && !fresh);
        if (ended === 'gone') return this.#endedElsewhere(entry as StreamableEntry, null);
        // The record could not be deleted: the session lives on (here and elsewhere), so the DELETE did not happen —
        // 503 and retry, never a 200 for a session that other instances go on serving.
        if (ended === 'unavailable') return refusalOutput('sessionStoreUnavailable', { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
        return { status: HttpStatus.Ok, headers: EMPTY_HEADERS };
      }
    }
  }

  /**
   * A request for a session held here whose record is gone (with a cluster, the request's touch of the record said
   * so): it ended on another instance, whose word may not have reached this one yet. Its copy here closes, and the
   * request gets what an unknown session gets: 404 (`id`: the request's, when the body is one request).
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management" item 5 (after termination, 404)
   */
  #endedElsewhere(entry: StreamableEntry, id: JsonRpcId | null): HttpOutput {
    const sessionId = entry.transport.sessionId;
    this.#context.logger.debug('A request for a session that ended on another instance', { sessionId });
    this.#context.table.closedElsewhere(sessionId);
    return refusalOutput('sessionNotFound', { id });
  }

  /** A modern message: a notification is accepted with 202 (B23); a request gets its own stateless exchange. */
  #modern(decision: HttpModernDecision, input: HttpInput): HttpOutput | Promise<HttpOutput> {
    // Only a server that serves a modern revision has its messages classified modern (so `#handle` is set).
    const handle = this.#handle as HttpModernHandle;
    const { message, respondWith } = decision;
    if (respondWith === 'accepted') {
      this.#notify(handle, message, input);
      return ACCEPTED;
    }
    const request = message as JsonRpcRequest;
    const exchange = new ModernExchange({ host: this.#modernHost, request, respondWith, input });
    return exchange.run(handle, request, extraOf(input, this.#context.callerOf));
  }

  /**
   * Hands a modern notification to the server, answering nothing. `notifications/cancelled` is not delivered: over
   * HTTP a request is cancelled by closing its stream, so the notification must not cancel anything (B23).
   */
  #notify(handle: HttpModernHandle, message: JsonRpcNotification, input: HttpInput): void {
    if (message.method === 'notifications/cancelled') return;
    handle(message, { extra: extraOf(input, this.#context.callerOf), judged: true }).catch((error: unknown) => this.#context.logger.error('Modern notification handler rejected', { error }));
  }

  /** A new session transport of this endpoint. */
  #newTransport(sessionId: string, streamPrefix: string): StreamableHttpSessionTransport {
    const context = this.#context;
    const settings = this.#settings;
    const hub = context.hub;
    return new StreamableHttpSessionTransport({
      sessionId,
      eventStore: settings.eventStore,
      logger: context.logger,
      retryMs: settings.retryMs,
      keepAliveMs: context.keepAliveMs,
      maxSseBufferBytes: context.maxSseBufferBytes,
      sseAfterMs: settings.sseAfterMs,
      onClosed: (t) => void context.table.remove(t.sessionId, t),
      streamPrefix,
      record: context.table.link(sessionId),
      cluster: hub === undefined ? undefined : new ClusterSession(hub, sessionId),
    });
  }

  /**
   * The live entry of a session this instance does not hold yet but the session store knows (opened on another
   * instance): rebuilt from its record, so the request is served here (one store read). Concurrent requests for
   * the same session share one rebuild. `undefined`: no such session (the ladder answers 404); {@link STORE_FAILED}:
   * the store could not be read.
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
   */
  #adopt(sessionId: string, input: HttpInput): Promise<StreamableEntry | typeof STORE_FAILED | undefined> | undefined {
    const missing = this.#missing.get(sessionId);
    if (missing !== undefined) {
      if (missing > Date.now()) return undefined;
      this.#missing.delete(sessionId);
    }
    const running = this.#adopting.get(sessionId);
    if (running !== undefined) return running;
    const run = this.#adoptNow(sessionId, input).finally(() => this.#adopting.delete(sessionId));
    this.#adopting.set(sessionId, run);
    return run;
  }

  async #adoptNow(sessionId: string, input: HttpInput): Promise<StreamableEntry | typeof STORE_FAILED | undefined> {
    const context = this.#context;
    const table = context.table;
    let record;
    try {
      record = await table.adoptable(sessionId, openerOf(input.authInfo));
    } catch (error) {
      context.logger.error('Session store failed reading a session opened elsewhere', { error });
      return STORE_FAILED;
    }
    if (record === null) {
      // Remembered only when the store has no record at all (never for a record this request may not use: that
      // would let a stranger make the session unreachable here).
      if (this.#missing.size >= MAX_MISSING) this.#missing.clear();
      this.#missing.set(sessionId, Date.now() + MISSING_MS);
      return undefined;
    }
    if (record === undefined) return undefined;
    // A session that may be live on another instance, but whose record cannot serve it yet: 503 (retry), never 404.
    if (record === UNSETTLED) return STORE_FAILED;
    const raced = table.streamable(sessionId);
    if (raced !== undefined) return raced;
    const transport = this.#newTransport(sessionId, record.streamPrefix ?? newStreamPrefix());
    transport._restore(record.protocolVersion);
    const entry: StreamableEntry = { kind: 'streamable-http', transport, session: undefined };
    table.addAdopted(entry, record);
    try {
      entry.session = await context.server.connect(transport, { sessionId, authInfo: input.authInfo, batches: true, sessionState: record.state as unknown as Readonly<Record<string, unknown>> });
    } catch (error) {
      context.logger.error('Rebuilding a session opened elsewhere failed', { sessionId, error });
      transport._detach();
      table.closedElsewhere(sessionId);
      return undefined;
    }
    return entry;
  }

  async #initialize(decision: HttpInitializeDecision, input: HttpInput): Promise<HttpOutput> {
    const context = this.#context;
    // MCP 2025-11-25 basic/transports.mdx "Session Management" item 1: the id is assigned on the response that
    // carries the InitializeResult.
    const sessionId = newSessionId();
    const streamPrefix = newStreamPrefix();
    const refused = await context.admit({ sessionId, kind: 'streamable-http', input, streamPrefix });
    // The initialize request was read: the refusal (503, 429) carries its id (JSON-RPC 2.0 §5).
    if (refused !== undefined) return withRequestId(refused, decision.request.id);
    const transport = this.#newTransport(sessionId, streamPrefix);
    const entry: StreamableEntry = { kind: 'streamable-http', transport, session: undefined };
    context.table.add(entry);
    try {
      entry.session = await context.server.connect(transport, { sessionId, authInfo: input.authInfo, batches: true });
    } catch (error) {
      await transport.close();
      return withRequestId(context.internalError(error), decision.request.id);
    }
    const output = await transport._initialize(decision.request, decision.respondWith, extraOf(input, context.callerOf));
    // A failed initialize leaves no session behind (its answer carries no Mcp-Session-Id).
    if (transport.protocolVersion === undefined) await context.table.closeEntry(entry);
    else if (transport._stateUnrecorded) {
      // The session's record could not get its state (a store that refuses writes, e.g. a full Redis, or is
      // unreachable): the other instances could never serve it. Refused like any store failure at admission (503,
      // retry), and closed here (its record deleted), rather than a session only this instance knows.
      await context.table.closeEntry(entry);
      return refusalOutput('sessionStoreUnavailable', { id: decision.request.id, retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
    }
    return output;
  }
}
