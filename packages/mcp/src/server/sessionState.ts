/**
 * The state one legacy-era session negotiated, as one serializable record with one owner (the session-era
 * rules in `eras/legacy.ts` write it; the connection holds it). `toJSON` / {@link SessionState.fromJSON}
 * round-trip it, so a shared session store can hold it.
 */
import type { JsonRpcId } from '@switchboard/jsonrpc';
import type { InboundSessionFacts } from '../protocol/inbound.js';
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
  /** Messages below this rank are not sent (`logging/setLevel`); 0 sends everything. */
  logLevelRank = 0;
  /** Whether `notifications/initialized` arrived. */
  initialized = false;
  /** The URIs subscribed to with `resources/subscribe`. */
  readonly subscriptions = new Set<string>();

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
      subscriptions: [...this.subscriptions],
      initializeRequestId: this.initializeRequestId ?? null,
      initialized: this.initialized,
    };
    return this.clientInfo === undefined ? record : { ...record, clientInfo: this.clientInfo };
  }

  /** Rebuilds a state from {@link SessionState.toJSON}'s output. */
  static fromJSON(record: SessionStateRecord): SessionState {
    const state = new SessionState({ ...record, clientInfo: record.clientInfo, initializeRequestId: record.initializeRequestId ?? undefined });
    state.logLevelRank = record.logLevelRank;
    state.initialized = record.initialized;
    for (const uri of record.subscriptions) state.subscriptions.add(uri);
    return state;
  }
}
