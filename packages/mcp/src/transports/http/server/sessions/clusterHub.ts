/**
 * One instance's side of a cluster (the handler's `cluster` option): several instances behind a load balancer with
 * no sticky sessions, sharing a {@link SessionStore}, a {@link ClusterBus} and optionally a {@link LeaseStore}.
 * Any instance serves any request of any session (it rebuilds the session from its record when it does not hold it
 * yet); what must reach another instance travels on the bus:
 * - the id of every server→client request this instance sends is tagged with the instance id
 *   (`<instanceId>:<n>`); the client's answer may land anywhere, and the instance that received it sends it to the
 *   tagged instance ({@link ClusterHub.forwardResponse});
 * - a client notification naming a request this instance does not run (`notifications/cancelled`) goes to every
 *   instance holding the session ({@link ClusterHub.forwardNotification});
 * - a server→client request with no response stream here goes to the instance holding the client's GET stream
 *   ({@link ClusterHub.forwardRequest});
 * - a change of the session's state and the end of the session go to every instance holding it;
 * - events stored for a response stream whose client is not connected here (it may have resumed elsewhere) are
 *   announced to every instance holding the session ({@link ClusterHub.streamEvents}).
 * With leases, the instance renews the lease of its own id every third of `leaseTtlMs`, and records which response
 * streams it holds with which requests (see `transports/http/server/exchanges/resumption.ts`: a stream whose
 * instance died is answered, on resumption elsewhere, with an error per unanswered request).
 * Internal to the package (not a public entry).
 */
import type { JsonRpcId, Logger, TimerHandle } from '@switchboard/jsonrpc';
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import { instanceChannel, sessionChannel } from '../../../../stores/clusterBus.js';
import type { ClusterBus, ClusterJsonRpcMessage, ClusterMessage } from '../../../../stores/clusterBus.js';
import { instanceLeaseKey, streamLeaseKey } from '../../../../stores/leaseStore.js';
import type { LeaseStore } from '../../../../stores/leaseStore.js';
import type { SessionStateJson } from '../../../../stores/sessionStore.js';

/** What the hub needs of the session table: the live transport of a session, and closing one that ended elsewhere. */
export interface ClusterHubHost {
  /** The live transport of `sessionId` on this instance, if any. */
  transportOf(sessionId: string): ClusterSessionTransport | undefined;
  /** The session ended on another instance (its record is gone): close this instance's copy. */
  closedElsewhere(sessionId: string): void;
}

/** What the hub hands a session transport (its side of the cluster). */
export interface ClusterSessionTransport {
  /** Delivers a message that reached the cluster on another instance (see {@link ClusterMessage}). */
  _deliverFromCluster(message: ClusterMessage): void;
}

/** Construction options of {@link ClusterHub}. */
export interface ClusterHubInit {
  readonly bus: ClusterBus;
  readonly leases: LeaseStore | undefined;
  readonly instanceId: string;
  readonly leaseTtlMs: number;
  readonly logger: Logger;
  readonly host: ClusterHubHost;
}

/** The JSON-RPC error a request gets when the instance running it died: -32603 with `data.reason`. */
export const INSTANCE_LOST_ERROR = Object.freeze({
  code: -32603,
  message: 'Internal error: the server instance running this request stopped before answering',
  data: Object.freeze({ reason: 'instance_lost' }),
});

/** See {@link ClusterHub.streamHolder}. */
export type StreamHolder = { readonly alive: true } | { readonly alive: false; readonly requestIds: readonly JsonRpcId[] };

const ALIVE: StreamHolder = Object.freeze({ alive: true });

/** A tagged id: `<instanceId>:<n>` (the instance id holds no `:`). */
const TAGGED_ID = /^([A-Za-z0-9_-]{1,64}):(\d{1,15})$/;

/** How long a stream's work record lasts unless released (ms): a bound on garbage, far above a request's life. */
const STREAM_RECORD_TTL_MS = 60 * 60 * 1000;

/** @internal See the module documentation. */
export class ClusterHub {
  readonly instanceId: string;
  readonly leases: LeaseStore | undefined;
  readonly #bus: ClusterBus;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  readonly #host: ClusterHubHost;
  /** The session channels this instance listens to (one per live session here), with their unsubscribe functions. */
  readonly #held = new Map<string, () => void>();
  #unsubscribeInstance: (() => void) | undefined = undefined;
  #heartbeat: TimerHandle | undefined = undefined;
  #closed = false;

  constructor(init: ClusterHubInit) {
    this.instanceId = init.instanceId;
    this.leases = init.leases;
    this.#bus = init.bus;
    this.#ttlMs = init.leaseTtlMs;
    this.#logger = init.logger;
    this.#host = init.host;
    this.#unsubscribeInstance = this.#bus.subscribe(instanceChannel(this.instanceId), (message) => this.#hear(message));
    this.#beat();
  }

  /** The wire id of this instance's outbound request `n` (see the module documentation). */
  tag(n: number): string {
    return `${this.instanceId}:${n}`;
  }

  /** The instance and local id a wire id names, when it is a tagged id. */
  static untag(id: string): { readonly instanceId: string; readonly n: number } | undefined {
    const match = TAGGED_ID.exec(id);
    return match === null ? undefined : { instanceId: match[1] as string, n: Number(match[2]) };
  }

  /** Starts listening to what other instances say about `sessionId` (a session live here). Idempotent. */
  hold(sessionId: string): void {
    if (this.#closed || this.#held.has(sessionId)) return;
    this.#held.set(sessionId, this.#bus.subscribe(sessionChannel(sessionId), (message) => this.#hear(message)));
  }

  /** Stops listening for `sessionId` (no longer live here). Idempotent. */
  drop(sessionId: string): void {
    const unsubscribe = this.#held.get(sessionId);
    if (unsubscribe === undefined) return;
    this.#held.delete(sessionId);
    unsubscribe();
  }

  /** Sends the client's `response` to `instanceId`, whose request it answers. */
  forwardResponse(sessionId: string, instanceId: string, response: ClusterJsonRpcMessage): void {
    void this.#publish(instanceChannel(instanceId), { type: 'client_response', from: this.instanceId, sessionId, message: response });
  }

  /** Sends a client notification naming a request not run here to every instance holding the session. */
  forwardNotification(sessionId: string, notification: ClusterJsonRpcMessage): void {
    void this.#publish(sessionChannel(sessionId), { type: 'client_notification', from: this.instanceId, sessionId, message: notification });
  }

  /** Sends a server→client request with no stream here to the instance holding the session's GET stream. */
  forwardRequest(sessionId: string, request: ClusterJsonRpcMessage): void {
    void this.#publish(sessionChannel(sessionId), { type: 'server_request', from: this.instanceId, sessionId, message: request });
  }

  /**
   * Tells every instance holding the session its new state (after the record was written); resolves once the bus
   * took the message (never rejects: a failure is logged).
   */
  stateChanged(sessionId: string, state: SessionStateJson): Promise<void> {
    return this.#publish(sessionChannel(sessionId), { type: 'state', from: this.instanceId, sessionId, state });
  }

  /**
   * Tells every instance holding the session that response stream `streamId` has new events in the event store
   * (`done`: it is complete), stored while no connection here writes it: an instance serving the client's resumed
   * stream reads them (see `exchanges/streamFollower.ts`).
   * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"
   */
  streamEvents(sessionId: string, streamId: string, done: boolean): void {
    void this.#publish(sessionChannel(sessionId), { type: 'stream_events', from: this.instanceId, sessionId, streamId, done });
  }

  /** Tells every instance holding the session that it ended. */
  sessionClosed(sessionId: string): void {
    void this.#publish(sessionChannel(sessionId), { type: 'closed', from: this.instanceId, sessionId });
  }

  /** Records that this instance holds response stream `streamId`, answering `requestIds` (needs leases). */
  streamOpened(streamId: string, requestIds: readonly JsonRpcId[]): void {
    const leases = this.leases;
    if (leases === undefined || requestIds.length === 0) return;
    leases.acquire(streamLeaseKey(streamId), { holder: this.instanceId, ttlMs: STREAM_RECORD_TTL_MS, value: { requestIds } }).catch((error: unknown) => {
      this.#logger.warn('Lease store failed recording a response stream', { streamId, error });
    });
  }

  /** The stream answered everything (or its session closed): its record goes. */
  streamFinished(streamId: string): void {
    this.leases?.release(streamLeaseKey(streamId), this.instanceId).catch((error: unknown) => {
      this.#logger.debug('Lease store failed releasing a response stream', { streamId, error });
    });
  }

  /**
   * Who holds response stream `streamId` when it is not live here: `undefined` when nobody (it finished, or was
   * never recorded); `alive` when another living instance holds it; else the ids of the requests it was answering
   * for an instance that is gone (to be answered with {@link INSTANCE_LOST_ERROR}; the record is released, so they
   * are failed once).
   */
  async streamHolder(streamId: string): Promise<StreamHolder | undefined> {
    const leases = this.leases;
    if (leases === undefined) return undefined;
    const record = await leases.get(streamLeaseKey(streamId));
    if (record === undefined || record.holder === this.instanceId) return undefined;
    if ((await leases.get(instanceLeaseKey(record.holder))) !== undefined) return ALIVE;
    await leases.release(streamLeaseKey(streamId), record.holder);
    const ids = (record.value as { requestIds?: unknown } | null)?.requestIds;
    return { alive: false, requestIds: Array.isArray(ids) ? ids.filter((id): id is JsonRpcId => typeof id === 'string' || typeof id === 'number') : [] };
  }

  /** How often (ms) a resumed stream held by another living instance is looked at again: a third of the lease. */
  get recheckMs(): number {
    return Math.max(1, Math.floor(this.#ttlMs / 3));
  }

  /** Stops listening and gives the instance's lease up (others take its sessions over at once). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#heartbeat !== undefined) clearTimeout(this.#heartbeat);
    this.#heartbeat = undefined;
    this.#unsubscribeInstance?.();
    this.#unsubscribeInstance = undefined;
    for (const unsubscribe of this.#held.values()) unsubscribe();
    this.#held.clear();
    try {
      await this.leases?.release(instanceLeaseKey(this.instanceId), this.instanceId);
    } catch (error) {
      this.#logger.warn('Lease store failed releasing the instance lease', { error });
    }
  }

  /** Renews the instance lease, then arms the next renewal (a third of the TTL later). */
  #beat(): void {
    const leases = this.leases;
    if (leases === undefined || this.#closed) return;
    leases.acquire(instanceLeaseKey(this.instanceId), { holder: this.instanceId, ttlMs: this.#ttlMs }).then(
      (held) => {
        if (!held) this.#logger.error('Another instance holds this instance id: give each instance its own id', { instanceId: this.instanceId });
      },
      (error: unknown) => this.#logger.warn('Lease store failed renewing the instance lease', { error }),
    );
    this.#heartbeat = setUnrefTimeout(() => this.#beat(), Math.max(1, Math.floor(this.#ttlMs / 3)));
  }

  #publish(channel: string, message: ClusterMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#bus.publish(channel, message).catch((error: unknown) => {
      this.#logger.warn('Cluster bus failed: a message for another instance was lost', { type: message.type, sessionId: message.sessionId, error });
    });
  }

  /** A message for this instance, or for a session it holds. */
  #hear(message: ClusterMessage): void {
    if (message.from === this.instanceId && message.type !== 'client_response') return;
    if (message.type === 'closed') {
      this.#host.closedElsewhere(message.sessionId);
      return;
    }
    const transport = this.#host.transportOf(message.sessionId);
    if (transport === undefined) {
      this.#logger.debug('Cluster message for a session not live here: dropped', { type: message.type, sessionId: message.sessionId });
      return;
    }
    transport._deliverFromCluster(message);
  }
}
