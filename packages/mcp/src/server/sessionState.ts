/**
 * The state one legacy-era session negotiated, as one serializable record with one owner (the session-era
 * rules in `eras/legacy.ts` write it; the connection holds it). `toJSON` / {@link SessionState.fromJSON}
 * round-trip it, so a shared session store can hold it.
 */
import type { JsonRpcId } from '@switchboard/jsonrpc';
import type { InboundSessionFacts } from '../protocol/inbound.js';
import type { McpServerTransport } from '../protocol/transport.js';
import type { LegacyRevision } from '../protocol/revisions.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../protocol/types.js';

/** {@link SessionState} as plain JSON. */
export interface SessionStateRecord {
  /** The revision `initialize` negotiated, e.g. `'2025-11-25'`. */
  readonly protocolVersion: string;
  /** `clientInfo` of the `initialize` request; absent when the client sent none. */
  readonly clientInfo?: Implementation;
  /** The capabilities the client declared in `initialize`. */
  readonly clientCapabilities: ClientCapabilities;
  /** The capabilities this session was told (fixed for its life; the gate and list-changed read them). */
  readonly serverCapabilities: ServerCapabilities;
  /** Messages below this rank are not sent (`logging/setLevel`; 0 sends everything). */
  readonly logLevelRank: number;
  /** The URIs of `resources/subscribe`, in subscription order. */
  readonly subscriptions: readonly string[];
  /** The id of the `initialize` request, which must not be cancelled; `null` in JSON when unknown. */
  readonly initializeRequestId: JsonRpcId | null;
  /** Whether `notifications/initialized` arrived. */
  readonly initialized: boolean;
}

/**
 * A `Set` of subscribed URIs that tells its session state when it changed (so the change can be shared with the
 * other instances serving the session), and keeps the server-wide subscription budget exact when URIs come from
 * elsewhere. The budget (`eras/legacy.ts`) adds a URI's length when `resources/subscribe` adds it here, subtracts it
 * when `delete` says `true`, and subtracts every URI iterated when the session closes. A URI that came from a record
 * or another instance ({@link replaceQuietly}) was never added to the budget: `delete` says `false` for it and
 * iteration skips it; a URI added here and then removed quietly was: iteration still yields it (once per time it was
 * counted), so the close gives back exactly what was taken. `has`, `size` and {@link all} are the session's real set.
 */
class SubscriptionSet extends Set<string> {
  readonly #owner: SessionState;
  /** Held but never counted here (came from elsewhere). */
  readonly #uncounted = new Set<string>();
  /** Counted here, no longer held (removed elsewhere), with how many times. */
  readonly #ghosts = new Map<string, number>();

  constructor(owner: SessionState) {
    super();
    this.#owner = owner;
  }

  override add(uri: string): this {
    if (this.has(uri)) return this;
    super.add(uri);
    this.#owner.changed();
    return this;
  }

  override delete(uri: string): boolean {
    if (!super.delete(uri)) return false;
    this.#owner.changed();
    return !this.#uncounted.delete(uri);
  }

  override clear(): void {
    this.#uncounted.clear();
    this.#ghosts.clear();
    if (this.size === 0) return;
    super.clear();
    this.#owner.changed();
  }

  /** The URIs this server counted for the session (see the class documentation). */
  override [Symbol.iterator](): SetIterator<string> {
    const counted: string[] = [];
    for (const uri of super.values()) if (!this.#uncounted.has(uri)) counted.push(uri);
    for (const [uri, times] of this.#ghosts) for (let i = 0; i < times; i++) counted.push(uri);
    return counted.values();
  }

  /** Every URI the session holds, in subscription order. */
  all(): string[] {
    return Array.from(super.values());
  }

  /** Replaces the content without telling the owner (a state applied from elsewhere). */
  replaceQuietly(uris: readonly string[]): void {
    const next = new Set(uris);
    for (const uri of super.values()) {
      if (next.has(uri)) continue;
      if (!this.#uncounted.delete(uri)) this.#ghosts.set(uri, (this.#ghosts.get(uri) ?? 0) + 1);
    }
    const held = new Set(super.values());
    super.clear();
    for (const uri of next) {
      super.add(uri);
      if (held.has(uri)) continue;
      // Back from elsewhere: counted once more only if it was counted here before (then no longer a ghost).
      const ghost = this.#ghosts.get(uri);
      if (ghost === undefined) this.#uncounted.add(uri);
      else if (ghost <= 1) this.#ghosts.delete(uri);
      else this.#ghosts.set(uri, ghost - 1);
    }
  }
}

/** What a session's `initialize` negotiated, and what it changed since. */
export class SessionState implements InboundSessionFacts {
  /** The negotiated revision. */
  readonly protocolVersion: string;
  /** `clientInfo` of the `initialize` request, if the client sent one. */
  readonly clientInfo: Implementation | undefined;
  /** What the client declared in `initialize`. */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * The server capabilities this session's `initialize` advertised (before the per-revision trimming of the
   * wire copy), fixed for the session's life: the capability gate and list-changed notifications read them.
   */
  readonly serverCapabilities: ServerCapabilities;
  /** The id of the `initialize` request, which MUST NOT be cancelled (MCP 2025-11-25 basic/utilities/cancellation.mdx). */
  readonly initializeRequestId: JsonRpcId | undefined;
  /** The URIs subscribed to with `resources/subscribe`. */
  readonly subscriptions: Set<string> = new SubscriptionSet(this);
  /**
   * Called after each change of {@link logLevelRank}, {@link initialized} or {@link subscriptions} (not for a state
   * applied with {@link assign}); set by the connection when its transport shares the session (see
   * `McpServerTransport.setSessionState`).
   */
  onchange: ((state: SessionState) => void) | undefined = undefined;
  /** Whether this state came from a record ({@link fromJSON}): it is already shared, nothing to announce. */
  restored = false;
  #logLevelRank = 0;
  #initialized = false;

  /** @param negotiated what `initialize` settled */
  constructor(negotiated: {
    readonly protocolVersion: string;
    readonly clientInfo: Implementation | undefined;
    readonly clientCapabilities: ClientCapabilities;
    readonly serverCapabilities: ServerCapabilities;
    readonly initializeRequestId: JsonRpcId | undefined;
  }) {
    this.protocolVersion = negotiated.protocolVersion;
    this.clientInfo = negotiated.clientInfo;
    this.clientCapabilities = negotiated.clientCapabilities;
    this.serverCapabilities = negotiated.serverCapabilities;
    this.initializeRequestId = negotiated.initializeRequestId;
  }

  /** Messages below this rank are not sent (`logging/setLevel`); 0 sends everything. */
  get logLevelRank(): number {
    return this.#logLevelRank;
  }

  set logLevelRank(rank: number) {
    if (rank === this.#logLevelRank) return;
    this.#logLevelRank = rank;
    this.changed();
  }

  /** Whether `notifications/initialized` arrived. */
  get initialized(): boolean {
    return this.#initialized;
  }

  set initialized(value: boolean) {
    if (value === this.#initialized) return;
    this.#initialized = value;
    this.changed();
  }

  /** @internal Tells {@link onchange} (a listener's failure is its own). */
  changed(): void {
    const onchange = this.onchange;
    if (onchange === undefined) return;
    try {
      onchange(this);
    } catch {
      // Sharing the state is best effort: the session goes on here whatever the listener did.
    }
  }

  /**
   * Applies what another instance serving this session changed (its log level, `notifications/initialized`, its
   * subscriptions), without telling {@link onchange}. What `initialize` negotiated is fixed and is not read.
   */
  assign(record: Pick<SessionStateRecord, 'logLevelRank' | 'initialized' | 'subscriptions'>): void {
    this.#logLevelRank = record.logLevelRank;
    this.#initialized = record.initialized;
    (this.subscriptions as SubscriptionSet).replaceQuietly(record.subscriptions);
  }

  /** The negotiated revision, as the inbound step reads it (`initialize` only ever negotiates a legacy one). */
  get revision(): LegacyRevision {
    return this.protocolVersion as LegacyRevision;
  }

  /** The record as plain JSON (`subscriptions` as an array, an absent id as `null`). */
  toJSON(): SessionStateRecord {
    const record: SessionStateRecord = {
      protocolVersion: this.protocolVersion,
      clientCapabilities: this.clientCapabilities,
      serverCapabilities: this.serverCapabilities,
      logLevelRank: this.logLevelRank,
      subscriptions: (this.subscriptions as SubscriptionSet).all(),
      initializeRequestId: this.initializeRequestId ?? null,
      initialized: this.initialized,
    };
    return this.clientInfo === undefined ? record : { ...record, clientInfo: this.clientInfo };
  }

  /** Rebuilds a state from {@link SessionState.toJSON}'s output. */
  static fromJSON(record: SessionStateRecord): SessionState {
    const state = new SessionState({ ...record, clientInfo: record.clientInfo, initializeRequestId: record.initializeRequestId ?? undefined });
    state.assign(record);
    state.restored = true;
    return state;
  }
}

/**
 * Shares `state` through `transport` when the transport keeps session state for other instances
 * ({@link McpServerTransport.setSessionState}): each change is handed to it, and a state it receives from elsewhere
 * ({@link McpServerTransport.onsessionstate}) is applied. A state made by `initialize` is handed over at once; a
 * restored one ({@link SessionState.restored}) is already where the others read it. No-op for other transports.
 */
export function shareSessionState(transport: McpServerTransport, state: SessionState): void {
  if (typeof transport.setSessionState !== 'function') return;
  state.onchange = (changed) => transport.setSessionState?.(changed.toJSON() as unknown as Readonly<Record<string, unknown>>);
  transport.onsessionstate = (record) => state.assign(record as unknown as SessionStateRecord);
  if (!state.restored) transport.setSessionState(state.toJSON() as unknown as Readonly<Record<string, unknown>>);
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The {@link SessionState} of a record another instance wrote (`ConnectOptions.sessionState`), checked for shape:
 * a record that is not one (a foreign or corrupted store entry) is refused rather than served half-understood.
 * @throws TypeError when `json` is not a {@link SessionStateRecord}
 */
export function restoredSessionState(json: Readonly<Record<string, unknown>>): SessionState {
  const ok =
    typeof json.protocolVersion === 'string' &&
    isObject(json.clientCapabilities) &&
    isObject(json.serverCapabilities) &&
    typeof json.logLevelRank === 'number' &&
    Array.isArray(json.subscriptions) &&
    json.subscriptions.every((uri) => typeof uri === 'string') &&
    typeof json.initialized === 'boolean' &&
    (json.clientInfo === undefined || isObject(json.clientInfo));
  if (!ok) throw new TypeError('Invalid sessionState: expected the JSON of a session state (protocolVersion, clientCapabilities, serverCapabilities, logLevelRank, subscriptions, initialized)');
  const id = json.initializeRequestId;
  return SessionState.fromJSON({ ...(json as unknown as SessionStateRecord), initializeRequestId: typeof id === 'string' || typeof id === 'number' ? id : null });
}
