/**
 * The record of used `requestState` values, so each is redeemed at most once: a retry that carries a state the
 * server already continued from is refused (MCP 2026-07-28 basic/patterns/mrtr.mdx "Security Considerations":
 * single use is enforced by the server). A state is named by its id (`RequestStateCodec.openState`) and need not
 * be remembered past its expiry, when the codec refuses it anyway.
 */

/**
 * Where the server records used request states. Asynchronous so a shared store can back it (Redis:
 * `SET <id> 1 NX PXAT <expiresAt>`, true when it was set): servers behind one endpoint that share the state keys
 * should share this store too, or a state used on one instance can be used once more on each other one.
 */
export interface RequestStateStore {
  /**
   * Records that the state `id` was used, unless it already was, as one atomic step.
   * @param id the state's id (`OpenedRequestState.id`: 22 URL-safe base64 characters)
   * @param expiresAt when the state expires (ms since the epoch): the record may go then
   * @returns `true` when this call recorded it (the retry goes on); `false` when it was used before, or when the
   *   store can no longer tell (a bounded store that forgot states expiring after this one refuses it rather than
   *   allow a replay)
   */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

/** Options of {@link InMemoryRequestStateStore}. */
export interface InMemoryRequestStateStoreOptions {
  /** Most used states remembered at once (a positive integer). @default 100_000 */
  readonly maxEntries?: number;
  /** Most bytes the remembered states may take, as estimated per entry (an integer ≥ 4096). @default 33_554_432 (32 MiB) */
  readonly maxBytes?: number;
  /** Clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
}

const DEFAULT_MAX_ENTRIES = 100_000;
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const MIN_MAX_BYTES = 4096;
/**
 * Estimated heap of one entry besides its id's characters: the Map slot, the queue slot, the string header and the
 * number, with the slack both keep under churn (measured on Node 20 with 22-character ids: 90 bytes an entry filled
 * once, 176 under continuous claims, flat over 1.8 million; the estimate is 172).
 */
const ENTRY_OVERHEAD_BYTES = 128;

/**
 * The default {@link RequestStateStore}: one process's memory, bounded in count and in bytes. Records leave when
 * their state expires; when the store is full the oldest record goes, and the store then refuses every state
 * that expires no later than the latest expiry it forgot. That is the safe side: a forgotten state could
 * otherwise be replayed; the cost is that, under a flood of more retries than `maxEntries` within one state
 * lifetime, a client's older, never-used state is refused too (it starts the request again).
 */
export class InMemoryRequestStateStore implements RequestStateStore {
  /** Used ids → expiry. */
  readonly #used = new Map<string, number>();
  /**
   * The same ids in the order they were claimed (with one lifetime per server, expiry order), oldest at `#head`.
   * Records leave only from this end; a queue of its own because taking the first entry of a `Map` that keeps
   * losing its first entries costs a scan over the deleted slots (300,000 claims through a full record of 100,000
   * took 29 s that way).
   */
  #order: string[] = [];
  #head = 0;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;
  /** The latest expiry among the records forgotten to make room: states expiring no later are refused. */
  #forgottenUntil = Number.NEGATIVE_INFINITY;

  /**
   * @param options bounds and clock
   * @throws TypeError when `now` is not a function
   * @throws RangeError when `maxEntries` is not a positive integer or `maxBytes` is not an integer ≥ 4096
   */
  constructor(options: InMemoryRequestStateStoreOptions = {}) {
    const { maxEntries = DEFAULT_MAX_ENTRIES, maxBytes = DEFAULT_MAX_BYTES, now = Date.now } = options;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0) throw new RangeError(`Invalid request state store options: "maxEntries" must be a positive integer, got ${String(maxEntries)}`);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < MIN_MAX_BYTES) throw new RangeError(`Invalid request state store options: "maxBytes" must be an integer >= ${MIN_MAX_BYTES}, got ${String(maxBytes)}`);
    if (typeof now !== 'function') throw new TypeError('Invalid request state store options: "now" must be a function');
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  /** Records held. */
  get size(): number {
    return this.#used.size;
  }

  /** Estimated bytes held (see `maxBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  claim(id: string, expiresAt: number): Promise<boolean> {
    const now = this.#now();
    this.#sweep(now);
    if (typeof id !== 'string' || !(expiresAt > now) || this.#used.has(id) || expiresAt <= this.#forgottenUntil) return Promise.resolve(false);
    this.#used.set(id, expiresAt);
    this.#order.push(id);
    this.#bytes += entryBytes(id);
    while (this.#used.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const until = this.#forgetOldest();
      if (until > this.#forgottenUntil) this.#forgottenUntil = until;
    }
    return Promise.resolve(true);
  }

  /** Drops expired records from the oldest end. */
  #sweep(now: number): void {
    while (this.#head < this.#order.length && (this.#used.get(this.#order[this.#head] as string) as number) <= now) this.#forgetOldest();
  }

  /** Removes the oldest record; returns its expiry. */
  #forgetOldest(): number {
    const id = this.#order[this.#head] as string;
    this.#head++;
    const until = this.#used.get(id) as number;
    this.#used.delete(id);
    this.#bytes -= entryBytes(id);
    // The queue's consumed front is dropped once it is half the array: amortized O(1) a record.
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
    return until;
  }
}

function entryBytes(id: string): number {
  return ENTRY_OVERHEAD_BYTES + 2 * id.length;
}
