/**
 * Leases: who is alive in a cluster of instances, and which instance holds a piece of live work. An instance
 * holds the lease of its own id ({@link instanceLeaseKey}) and renews it well within its TTL; when the instance
 * dies it stops renewing, the lease expires, and the others know that whatever it held live (the requests it was
 * running, the answers it was waiting for) will never complete: another instance takes the session over and answers
 * those requests with an error instead of letting the client wait forever. Work records ({@link streamLeaseKey})
 * name their instance as holder and carry a little JSON (the request ids of a response stream), so the instance
 * that takes over knows what to fail.
 *
 * The in-memory default ({@link InMemoryLeaseStore}) serves instances in one process; a shared implementation
 * (Redis `SET key value NX PX ttl` plus a compare-and-delete script) serves processes.
 */
import { checkCountOption } from '@switchboard/jsonrpc/internal';

/** One lease as {@link LeaseStore.get} reads it. */
export interface Lease {
  /** Who holds it (an instance id). */
  readonly holder: string;
  /** When it ends unless renewed (ms since the epoch). */
  readonly expiresAt: number;
  /** What the holder attached to it (plain JSON); `null` when nothing. */
  readonly value: unknown;
}

/** What {@link LeaseStore.acquire} is asked. */
export interface LeaseRequest {
  /** Who takes it (an instance id). */
  readonly holder: string;
  /** How long it lasts from now unless renewed (ms, at least 1). */
  readonly ttlMs: number;
  /** Plain JSON kept with the lease (replaced on each acquire by its holder). @default null */
  readonly value?: unknown;
}

/**
 * Where leases live. Asynchronous so a shared store backs it.
 *
 * Contract (what the conformance checks hold every implementation to):
 * - `acquire` takes the lease when nobody holds it, when its TTL passed, or when `holder` already holds it (a
 *   renewal: the new TTL and value replace the old); it resolves `false`, changing nothing, while another holder's
 *   lease is live. Atomic: of two racing `acquire`s of a free key, exactly one resolves `true`;
 * - `get` resolves the live lease, or `undefined` once it expired or was released (an expired lease is never read);
 * - `release` removes the lease only when `holder` holds it (idempotent; another holder's lease is untouched);
 * - values round-trip as JSON.
 */
export interface LeaseStore {
  /** Takes or renews `key` for `request.holder`; see the interface contract. */
  acquire(key: string, request: LeaseRequest): Promise<boolean>;
  /** The live lease of `key`, or `undefined`. */
  get(key: string): Promise<Lease | undefined>;
  /** Gives `key` up when `holder` holds it. */
  release(key: string, holder: string): Promise<void>;
}

/** The lease an instance holds on itself while it lives (its heartbeat). */
export function instanceLeaseKey(instanceId: string): string {
  return `instance:${instanceId}`;
}

/** The work record of one response stream of a session (its holder and the ids of the requests it answers). */
export function streamLeaseKey(streamId: string): string {
  return `stream:${streamId}`;
}

/** Construction options of {@link InMemoryLeaseStore}. */
export interface InMemoryLeaseStoreOptions {
  /**
   * The most leases held at once; past it the lease closest to its end is dropped (a work record, at worst: an
   * instance renews its own lease often).
   * @default 100_000
   */
  readonly maxLeases?: number;
  /** The clock (ms since the epoch); tests move it. @default Date.now */
  readonly now?: () => number;
}

/** The in-process {@link LeaseStore}: a `Map`, expired leases dropped when read or when room is needed. */
export class InMemoryLeaseStore implements LeaseStore {
  readonly #leases = new Map<string, { readonly holder: string; readonly expiresAt: number; readonly value: string }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: InMemoryLeaseStoreOptions = {}) {
    this.#max = checkCountOption('maxLeases', options.maxLeases ?? 100_000);
    this.#now = options.now ?? Date.now;
  }

  /** Leases held (live or not yet swept). */
  get size(): number {
    return this.#leases.size;
  }

  acquire(key: string, request: LeaseRequest): Promise<boolean> {
    if (!(request.ttlMs >= 1)) return Promise.reject(new RangeError(`Invalid lease TTL: expected at least 1 ms, got ${String(request.ttlMs)}`));
    const now = this.#now();
    const current = this.#leases.get(key);
    if (current !== undefined && current.expiresAt > now && current.holder !== request.holder) return Promise.resolve(false);
    this.#leases.delete(key);
    if (this.#leases.size >= this.#max) this.#makeRoom(now);
    this.#leases.set(key, { holder: request.holder, expiresAt: now + request.ttlMs, value: JSON.stringify(request.value ?? null) });
    return Promise.resolve(true);
  }

  get(key: string): Promise<Lease | undefined> {
    const current = this.#leases.get(key);
    if (current === undefined) return Promise.resolve(undefined);
    if (current.expiresAt <= this.#now()) {
      this.#leases.delete(key);
      return Promise.resolve(undefined);
    }
    return Promise.resolve({ holder: current.holder, expiresAt: current.expiresAt, value: JSON.parse(current.value) as unknown });
  }

  release(key: string, holder: string): Promise<void> {
    if (this.#leases.get(key)?.holder === holder) this.#leases.delete(key);
    return Promise.resolve();
  }

  /** Drops the expired leases, else the one closest to its end. */
  #makeRoom(now: number): void {
    let soonest: string | undefined;
    let soonestAt = Infinity;
    for (const [key, lease] of this.#leases) {
      if (lease.expiresAt <= now) this.#leases.delete(key);
      else if (lease.expiresAt < soonestAt) {
        soonestAt = lease.expiresAt;
        soonest = key;
      }
    }
    if (this.#leases.size >= this.#max && soonest !== undefined) this.#leases.delete(soonest);
  }
}
