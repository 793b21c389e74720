/**
 * What the HTTP session table holds and is asked: the live entries of both HTTP transports, an admission request,
 * the table's settings, a record another instance wrote that this one can serve, and the phase a POST moves a
 * session to. Internal to the package (not a public entry).
 */
import type { Inbound } from '@switchboard/jsonrpc';
import type { SessionPhase, SessionRecord, SessionStateJson, SessionStore, SessionTransportKind } from '../../../../stores/sessionStore.js';
import type { Logger } from '@switchboard/jsonrpc';
import type { HttpSseSessionTransport } from '../httpSse/httpSseTransport.js';
import type { HttpSessionHandle } from '../serverLike.js';
import type { StreamableHttpSessionTransport } from './sessionTransport.js';
import type { ClusterHub } from './clusterHub.js';

/** A live Streamable HTTP session. */
export interface StreamableEntry {
  readonly kind: 'streamable-http';
  readonly transport: StreamableHttpSessionTransport;
  session: HttpSessionHandle | undefined;
}

/** A live 2024-11-05 HTTP+SSE session (it lives as long as its stream). */
export interface HttpSseEntry {
  readonly kind: 'legacy-sse';
  readonly transport: HttpSseSessionTransport;
  session: HttpSessionHandle | undefined;
  /** With the handler's `auth`: the principal whose token opened the session (`GET /sse`); its POSTs must be theirs. */
  readonly principal?: string | undefined;
}

export type SessionEntry = StreamableEntry | HttpSseEntry;

/** What {@link SessionTable.admit} is asked to admit. */
export interface AdmitRequest {
  readonly sessionId: string;
  readonly kind: SessionTransportKind;
  /** The caller identity the session counts against; `undefined`: no per-caller budget applies. */
  readonly caller: string | undefined;
  /**
   * Whom the session is counted for when reclaiming at the cap (the caller, else its address; `''` when unknown):
   * the group holding most sessions gives one up first.
   */
  readonly group: string;
  /** The session's stream prefix, kept in its record (`null`: the transport has no resumption). */
  readonly streamPrefix: string | null;
  /** Who opened it (see `SessionRecord.opener`); `null` when not authenticated. */
  readonly opener: string | null;
}

/** {@link SessionTable} settings (validated by the handler). */
export interface SessionTableInit {
  readonly store: SessionStore;
  readonly logger: Logger;
  readonly maxSessions: number;
  readonly maxSessionsPerCaller: number;
  /** `0`: never reaped for idleness. */
  readonly idleMs: number;
  /** `0`: never reaped for an unfinished handshake. */
  readonly handshakeMs: number;
  /** How long after its last request a session that made two or more requests is kept from being reclaimed. */
  readonly graceMs: number;
  /**
   * The instance's side of a cluster (the handler's `cluster` option), read when first needed; absent: one
   * instance.
   */
  readonly hub?: () => ClusterHub | undefined;
}

/** A record another instance wrote that this one can serve: a Streamable HTTP session past `initialize`. */
export type AdoptableRecord = SessionRecord & { readonly protocolVersion: string; readonly state: SessionStateJson };

/**
 * The phase a Streamable HTTP POST moves a session to: a request or a response makes it `active`, except `ping`: a
 * session whose client only pings after the handshake has done no work, so it stays reclaimable `graceMs` after
 * its last ping (one ping per session per idle timeout used to hold a flood of sessions for good).
 */
export function phaseAfterPost(inbound: Inbound): SessionPhase {
  if (worked(inbound)) return 'active';
  if (inbound.kind === 'batch') {
    for (const item of inbound.items) if (worked(item)) return 'active';
  }
  return 'initialized';
}

function worked(inbound: Inbound): boolean {
  return inbound.kind === 'response' || (inbound.kind === 'request' && inbound.message.method !== 'ping');
}

