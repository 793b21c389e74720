/**
 * The handler's `cluster` option: serving one set of sessions from several instances behind a load balancer with
 * no sticky sessions (see `sessions/clusterHub.ts` for what crosses instances and how).
 */
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import type { ClusterBus } from '../../../stores/clusterBus.js';
import type { LeaseStore } from '../../../stores/leaseStore.js';

/** @see {@link HttpClusterOptions.leaseTtlMs} */
export const DEFAULT_CLUSTER_LEASE_TTL_MS = 10_000;

/**
 * Several instances serving the same sessions. Each instance is given the same shared `sessionStore` and
 * `eventStore` (handler options), the same `bus` and `leases`, and its own `instanceId`; the `McpServer` of each is
 * given the same `NotificationBus`. A request of a session opened on another instance is served here: the session
 * is rebuilt from its record (`SessionRecord.state`); the client's answer to a server→client request, a
 * cancellation, and changes of the session's state reach the instance concerned through `bus`.
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management", "Multiple Connections"
 */
export interface HttpClusterOptions {
  /** What instances tell each other (answers, cancellations, state changes, session ends). */
  readonly bus: ClusterBus;
  /**
   * Which instance is alive, and which holds which response stream: with it, the requests a dead instance was
   * running are answered with an error (`-32603`, `data.reason: 'instance_lost'`) when the client resumes their
   * stream on another instance. Absent: such a client waits for its own timeout.
   */
  readonly leases?: LeaseStore;
  /**
   * This instance's id: letters, digits, `_` and `-`, at most 64; unique in the cluster (it tags the ids of the
   * server→client requests the instance sends, and names its lease).
   * @default a random 12-character id
   */
  readonly instanceId?: string;
  /**
   * How long (ms) the instance's lease lasts; it is renewed every third of it. An instance that dies is known dead
   * at most this long after its last renewal.
   * @default 10_000
   */
  readonly leaseTtlMs?: number;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A random instance id (12 hex digits). */
export function newInstanceId(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 12);
}

/**
 * Checks the `cluster` option.
 * @throws TypeError when it is not an object, `bus` lacks `publish`/`subscribe`, `leases` lacks
 *   `acquire`/`get`/`release`, or `instanceId` is not a string of 1–64 letters, digits, `_` or `-`
 * @throws RangeError when `leaseTtlMs` is not a number of ms from 3 to 2^31 − 1 (TypeError when not a number)
 */
export function checkClusterOptions(value: HttpClusterOptions | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null) throw new TypeError('Invalid option cluster: expected an object ({ bus, leases?, instanceId?, leaseTtlMs? })');
  const bus = value.bus as Partial<ClusterBus> | undefined;
  if (typeof bus?.publish !== 'function' || typeof bus.subscribe !== 'function') throw new TypeError('Invalid option cluster.bus: expected a ClusterBus (publish, subscribe)');
  const leases = value.leases as Partial<LeaseStore> | undefined;
  if (leases !== undefined && (typeof leases?.acquire !== 'function' || typeof leases.get !== 'function' || typeof leases.release !== 'function')) {
    throw new TypeError('Invalid option cluster.leases: expected a LeaseStore (acquire, get, release)');
  }
  if (value.instanceId !== undefined && (typeof value.instanceId !== 'string' || !INSTANCE_ID.test(value.instanceId))) {
    throw new TypeError('Invalid option cluster.instanceId: expected 1 to 64 letters, digits, "_" or "-"');
  }
  checkMsOption('cluster.leaseTtlMs', value.leaseTtlMs, { min: 3 });
}
