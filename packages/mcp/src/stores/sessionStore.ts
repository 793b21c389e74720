/**
 * Session records for the HTTP handler's session table: when each session was opened, when its client last
 * made a request, how far it got (handshake or not), who opened it, how long it may stay idle, and what another
 * instance needs to serve a resume (the negotiated revision, the prefix of the session's SSE event ids). The live
 * transport objects (streams, pending requests) stay in the process that serves the session; the store holds
 * only these plain, JSON-serializable facts, which admission under a session flood, the idle reaper and
 * `Last-Event-ID` resumption read, and the session's MCP state ({@link SessionRecord.state}), from which another
 * instance rebuilds the session when a request for it lands there.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
 */
import { TransientMap } from '@switchboard/jsonrpc/internal';

/**
 * How far a session got:
 * - `opened`: `initialize` was answered (Streamable HTTP) or `GET /sse` was opened (legacy), nothing since;
 * - `initialized`: the client sent `notifications/initialized` (or only notifications) and no request since;
 * - `active`: the client made a request, answered one of the server's, or opened a GET stream.
 */
export type SessionPhase = 'opened' | 'initialized' | 'active';

/** The transport a session was opened on. */
export type SessionTransportKind = 'streamable-http' | 'legacy-sse';

/**
 * The MCP state of one session as plain JSON (what `initialize` negotiated and what the client changed since):
 * everything another instance needs to serve the session without the `initialize` exchange.
 * @see MCP 2025-11-25 basic/lifecycle.mdx "Initialization"; server/utilities/logging.mdx; server/resources.mdx "Subscriptions"
 */
export interface SessionStateJson {
  /** The revision `initialize` negotiated, e.g. `'2025-11-25'`. */
  readonly protocolVersion: string;
  /** `clientInfo` of the `initialize` request; absent when the client sent none. */
  readonly clientInfo?: Readonly<Record<string, unknown>>;
  /** The capabilities the client declared in `initialize`. */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The server capabilities this session was told (fixed for its life). */
  readonly serverCapabilities: Readonly<Record<string, unknown>>;
  /** `logging/setLevel` as a rank (0 sends everything). */
  readonly logLevelRank: number;
  /** The URIs of `resources/subscribe`, in subscription order. */
  readonly subscriptions: readonly string[];
  /** The id of the `initialize` request (never cancelled); `null` when unknown. */
  readonly initializeRequestId: string | number | null;
  /** Whether `notifications/initialized` arrived. */
  readonly initialized: boolean;
}

/** One session's record: plain data (numbers are `Date.now()` milliseconds), safe to `JSON.stringify`. */
export interface SessionRecord {
  /** The session id (`Mcp-Session-Id`, or the legacy `sessionId` query parameter). */
  readonly sessionId: string;
  readonly transport: SessionTransportKind;
  /** The caller identity the session counts against (see the handler's `callerIdentity`); `null` when unknown. */
  readonly caller: string | null;
  /** When the session was opened (ms since the epoch). */
  readonly createdAt: number;
  /** When its client last sent an HTTP request on it (ms since the epoch). */
  readonly lastActivity: number;
  readonly phase: SessionPhase;
  /**
   * How long (ms) after `lastActivity` the session may be closed when nothing is in flight on it: the handshake
   * timeout while `opened`, the idle timeout after; `0` means never. A shared store may use it as the key's TTL.
   */
  readonly ttlMs: number;
  /**
   * The start of every SSE stream id (and so event id) of the session: a random token and a dot, never the session
   * id. A `Last-Event-ID` whose stream does not start with it belongs to another session and is refused. `null` on
   * the 2024-11-05 `HttpSse` transport, which has no resumption.
   * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"
   */
  readonly streamPrefix: string | null;
  /**
   * The revision `initialize` negotiated, e.g. `'2025-11-25'`; `null` until it succeeded.
   * @see MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation"
   */
  readonly protocolVersion: string | null;
  /**
   * The session's MCP state (client capabilities and info, log level, subscriptions…), written when `initialize`
   * succeeds and each time the client changes it, so that any instance sharing the store can serve the session
   * (see {@link SessionStateJson}). Absent or `null` until `initialize` succeeded, and on the 2024-11-05 `HttpSse`
   * transport, whose session lives on one instance with its stream. A store keeps it as given (plain JSON).
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
   */
  readonly state?: SessionStateJson | null;
  /**
   * Who opened the session, when its `initialize` was authenticated: the issuer, subject and client of its
   * credentials as JSON text; another instance serves the session only to requests of the same opener (404
   * otherwise), as the instance that opened it does. Absent or `null`: not authenticated, nothing to match.
   * @see MCP 2025-11-25 basic/security_best_practices.mdx "Session Hijacking"
   */
  readonly opener?: string | null;
}

/** What {@link SessionStore.touch} changes. */
export interface SessionActivity {
  /** The new `lastActivity` (ms since the epoch). */
  readonly at: number;
  /** The new phase, when it changed. */
  readonly phase?: SessionPhase;
  /** The new TTL (ms), when it changed. */
  readonly ttlMs?: number;
  /** The negotiated revision, when `initialize` just negotiated it. */
  readonly protocolVersion?: string;
  /** The session's new MCP state, when it changed (replaces the whole {@link SessionRecord.state}). */
  readonly state?: SessionStateJson;
}

/** A filter for {@link SessionStore.count} and {@link SessionStore.scan}. */
export interface SessionQuery {
  /** Only the sessions of this caller identity. */
  readonly caller?: string;
}

/**
 * Where the HTTP handler keeps its session records. Asynchronous so a shared store (Redis, a database) can back
 * it; the in-memory default ({@link InMemorySessionStore}) answers at once. The handler awaits `create`, `count`
 * and `scan` when it admits a session, and `delete` on a DELETE (a failure is answered 503: the session lives on).
 * It does not wait for `touch` without a cluster (a failure is logged); with one, it awaits it before serving a
 * request (one round trip: a session ended on another instance is 404 here too).
 */
export interface SessionStore {
  /** Adds a record (a new session). */
  create(record: SessionRecord): Promise<void>;
  /** The record of `sessionId`, or `undefined`. */
  get(sessionId: string): Promise<SessionRecord | undefined>;
  /**
   * Records activity on a session; an unknown id is ignored. Resolves `false` when there is no record of
   * `sessionId` (it ended, or expired), `true` when one was touched; a store that cannot tell resolves nothing. With
   * the handler's `cluster` option the answer is awaited before a request of a session held by this instance is
   * served: `false` makes it 404 on every instance, however late the word of the session's end reaches this one
   * (MCP 2025-11-25 basic/transports.mdx "Session Management" item 5).
   */
  touch(sessionId: string, activity: SessionActivity): Promise<boolean | void>;
  /** Removes a record; an unknown id is ignored. */
  delete(sessionId: string): Promise<void>;
  /** How many records there are (matching `query`). */
  count(query?: SessionQuery): Promise<number>;
  /**
   * Calls `visit` with the records matching `query`, least recently active first, until it returns `false`.
   * Records touched or deleted during the scan may or may not be visited.
   */
  scan(visit: (record: SessionRecord) => boolean | void, query?: SessionQuery): Promise<void>;
}

const DONE: Promise<void> = Promise.resolve();
const TOUCHED: Promise<boolean> = Promise.resolve(true);
const MISSING: Promise<boolean> = Promise.resolve(false);

/** `T` with its fields writable (a copy being filled in). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The default {@link SessionStore}: a `Map` kept in order of last activity (a touch moves a record to the end),
 * and one such `Map` per caller, so counting is O(1) and a scan meets the longest-idle sessions first and, for one
 * caller, visits only that caller's records.
 */
export class InMemorySessionStore implements SessionStore {
  // Transient maps: a touch replaces the record at the end of its map, one per request (see `TransientMap`).
  readonly #records = new TransientMap<string, SessionRecord>();
  readonly #byCaller = new Map<string, TransientMap<string, SessionRecord>>();

  /** Records held (all callers). */
  get size(): number {
    return this.#records.size;
  }

  create(record: SessionRecord): Promise<void> {
    const previous = this.#records.get(record.sessionId);
    if (previous !== undefined) this.#forget(previous);
    this.#records.set(record.sessionId, record);
    if (record.caller !== null) {
      let mine = this.#byCaller.get(record.caller);
      if (mine === undefined) this.#byCaller.set(record.caller, (mine = new TransientMap<string, SessionRecord>()));
      mine.set(record.sessionId, record);
    }
    return DONE;
  }

  get(sessionId: string): Promise<SessionRecord | undefined> {
    return Promise.resolve(this.#records.get(sessionId));
  }

  touch(sessionId: string, activity: SessionActivity): Promise<boolean | void> {
    const record = this.#records.get(sessionId);
    if (record === undefined) return MISSING;
    // A new record (one handed out stays as it was), written field by field: on V8 (Node 20) a spread of the previous
    // record (`{ ...record, lastActivity, … }`) took the slow clone path on every touch, one per HTTP request of a
    // session (a micro-benchmark: ≈ 10 µs against ≈ 0.15 µs for this literal).
    const next: Mutable<SessionRecord> = {
      sessionId: record.sessionId,
      transport: record.transport,
      caller: record.caller,
      createdAt: record.createdAt,
      lastActivity: activity.at,
      phase: activity.phase ?? record.phase,
      ttlMs: activity.ttlMs ?? record.ttlMs,
      streamPrefix: record.streamPrefix,
      protocolVersion: activity.protocolVersion ?? record.protocolVersion,
      state: activity.state ?? record.state ?? null,
    };
    if (record.opener !== undefined) next.opener = record.opener;
    this.#records.delete(sessionId);
    this.#records.set(sessionId, next);
    const mine = record.caller === null ? undefined : this.#byCaller.get(record.caller);
    if (mine !== undefined) {
      mine.delete(sessionId);
      mine.set(sessionId, next);
    }
    return TOUCHED;
  }

  delete(sessionId: string): Promise<void> {
    const record = this.#records.get(sessionId);
    if (record !== undefined) this.#forget(record);
    return DONE;
  }

  count(query?: SessionQuery): Promise<number> {
    const caller = query?.caller;
    return Promise.resolve(caller === undefined ? this.#records.size : (this.#byCaller.get(caller)?.size ?? 0));
  }

  scan(visit: (record: SessionRecord) => boolean | void, query?: SessionQuery): Promise<void> {
    const caller = query?.caller;
    const records = caller === undefined ? this.#records : this.#byCaller.get(caller);
    if (records !== undefined) {
      for (const record of records.values()) if (visit(record) === false) break;
    }
    return DONE;
  }

  #forget(record: SessionRecord): void {
    this.#records.delete(record.sessionId);
    if (record.caller === null) return;
    const mine = this.#byCaller.get(record.caller);
    mine?.delete(record.sessionId);
    if (mine?.size === 0) this.#byCaller.delete(record.caller);
  }
}
