/**
 * A `Map` for entries that come and go by the thousand while the map itself lives for the whole connection: the
 * requests in flight by id. It behaves as a `Map`; what differs is that its storage is renewed from time to time.
 *
 * Why. V8 rehashes a `Map`'s table (every few insertions under churn: deleted entries keep their slots until then)
 * into a new table allocated in the generation the old one lives in, and the dead table keeps pointing at the values
 * it held. Once a long-lived map's table has been promoted to the old generation (two young collections without a
 * rehash are enough: a quiet moment), every rehash allocates the next one there too, and every dead table holds the
 * requests that were in flight when it was replaced: alive, with all they reach (the request's options, callbacks
 * and promise, a proxy's front request), through every young-generation collection until the next full one, and so
 * promoted. Measured with an `McpClient` over stdio at 8 calls in flight: about 930 bytes promoted per call and 9
 * mark-compacts in 6 s with plain maps, 165 bytes and 4 with these. A new `Map` starts with a young table, which the
 * churn keeps rehashing in the young generation, where a dead table keeps nothing alive; renewing the map bounds how
 * long an old table can last. The copy is amortized: renewal comes after at least four times as many insertions as
 * there are entries, and a map of more than {@link RENEW_UP_TO_ENTRIES} entries is not copied.
 */

/** Insertions between renewals when few entries are live (see the module comment). */
const RENEW_AFTER_INSERTIONS = 512;
/**
 * The most entries a renewal copies. A larger map is left as it is: the copy would stall the event loop (about 20 ms
 * for 100,000 entries on the bench machine, 1 ms for 4,096), V8 already rehashes a table that size about as often,
 * and what its dead tables keep alive is mostly long-lived anyway (a server's sessions).
 */
const RENEW_UP_TO_ENTRIES = 4096;

/** A `Map` whose storage is renewed every so often (see the module comment); iteration is in insertion order. */
export class TransientMap<K, V> {
  #map = new Map<K, V>();
  /** Insertions left before the storage is renewed. */
  #untilRenewal = RENEW_AFTER_INSERTIONS;

  /** Entries now. */
  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /**
   * Sets `key` to `value`. It may renew the storage first. Unlike a `Map`, an iteration begun before a renewal goes on
   * over the entries as they were then: it does not see what is added or deleted after it (deleting the entry being
   * visited, or copying the entries before changing the map, as every user here does, is safe).
   */
  set(key: K, value: V): this {
    if (--this.#untilRenewal === 0) {
      const live = this.#map;
      if (live.size <= RENEW_UP_TO_ENTRIES) {
        const fresh = new Map<K, V>();
        live.forEach((v, k) => fresh.set(k, v));
        this.#map = fresh;
      }
      this.#untilRenewal = Math.max(RENEW_AFTER_INSERTIONS, 4 * live.size);
    }
    this.#map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** Removes every entry; an iteration in progress ends, as with a `Map`. */
  clear(): void {
    this.#map.clear();
  }

  values(): MapIterator<V> {
    return this.#map.values();
  }

  keys(): MapIterator<K> {
    return this.#map.keys();
  }

  entries(): MapIterator<[K, V]> {
    return this.#map.entries();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#map.entries();
  }
}
