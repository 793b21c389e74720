/**
 * The server-wide budgets of `subscriptions/listen` streams (how many are open, and the characters of their
 * subscribed URIs), with a share per caller. A caller past its own share is refused; when the whole budget is
 * full, a caller within its share is still served: the caller holding most of what is short gives up its
 * longest-held streams, each ended gracefully with the listen result (the client may listen again).
 *
 * @see MCP 2026-07-28 basic/patterns/subscriptions.mdx (the listen result is sent on a graceful server-side close)
 */

/** One open stream, as the budgets see it. */
export interface ListenHolder {
  /** The caller key (`undefined`: the request named none; it has no share of its own, only the totals). */
  readonly caller: string | undefined;
  /** The characters of its subscribed URIs. */
  readonly chars: number;
  /** Ends the stream gracefully (its `ended` callback must call {@link ListenShares.release} synchronously). */
  reclaim(): void;
}

/** The budgets of {@link ListenShares}. */
export interface ListenShareLimits {
  readonly maxStreams: number;
  readonly maxStreamsPerCaller: number;
  readonly maxUriChars: number;
  readonly maxUriCharsPerCaller: number;
}

interface Holding {
  /** Its open streams, the longest-held first. */
  readonly streams: Set<ListenHolder>;
  chars: number;
}

/** Why a new stream is refused: its caller's share is full. */
export interface ListenShareRefusal {
  readonly message: string;
  readonly data: Readonly<Record<string, number>>;
}

/** The accounting of the open listen streams (see the module comment). */
export class ListenShares {
  readonly limits: ListenShareLimits;
  readonly #holdings = new Map<string, Holding>();
  #streams = 0;
  #chars = 0;

  constructor(limits: ListenShareLimits) {
    this.limits = limits;
  }

  /** Open streams, all callers. */
  get streams(): number {
    return this.#streams;
  }

  /** Subscribed URI characters of the open streams, all callers. */
  get uriChars(): number {
    return this.#chars;
  }

  /** What `caller` holds: streams and URI characters. */
  holding(caller: string): { readonly streams: number; readonly uriChars: number } {
    const holding = this.#holdings.get(caller);
    return holding === undefined ? { streams: 0, uriChars: 0 } : { streams: holding.streams.size, uriChars: holding.chars };
  }

  /**
   * Makes room for a new stream of `caller` holding `chars` URI characters, reclaiming from the caller holding
   * most when the whole budget is full.
   * @returns the refusal when `caller`'s own share (or the whole budget, for a stream larger than it) cannot hold it
   */
  admit(caller: string | undefined, chars: number): ListenShareRefusal | undefined {
    const { maxStreams, maxStreamsPerCaller, maxUriChars, maxUriCharsPerCaller } = this.limits;
    if (caller !== undefined) {
      const own = this.holding(caller);
      if (own.streams + 1 > maxStreamsPerCaller) {
        return { message: `too many listen streams are open for this caller (${maxStreamsPerCaller})`, data: { maxListenStreamsPerCaller: maxStreamsPerCaller } };
      }
      if (own.uriChars + chars > maxUriCharsPerCaller) {
        return { message: `the listen streams' resource subscriptions of this caller exceed its share of ${maxUriCharsPerCaller} characters`, data: { maxListenUriCharsPerCaller: maxUriCharsPerCaller } };
      }
    }
    if (chars > maxUriChars) {
      return { message: `the listen streams' resource subscriptions exceed the server's limit of ${maxUriChars} characters`, data: { maxSubscriptionCharsTotal: maxUriChars } };
    }
    while (this.#streams + 1 > maxStreams || this.#chars + chars > maxUriChars) {
      const byChars = this.#chars + chars > maxUriChars;
      const victim = this.#largest(byChars);
      const before = this.#streams;
      victim?.reclaim();
      // Nothing to reclaim, or a stream that did not let go (neither can happen while the totals are over): refuse
      // rather than loop.
      if (this.#streams === before) return { message: `too many listen streams are open (${maxStreams})`, data: { maxListenStreams: maxStreams } };
    }
    return undefined;
  }

  /** Counts an admitted stream. */
  add(stream: ListenHolder): void {
    const key = stream.caller ?? '';
    let holding = this.#holdings.get(key);
    if (holding === undefined) this.#holdings.set(key, (holding = { streams: new Set(), chars: 0 }));
    holding.streams.add(stream);
    holding.chars += stream.chars;
    this.#streams++;
    this.#chars += stream.chars;
  }

  /** Forgets a stream that ended. Idempotent. */
  release(stream: ListenHolder): void {
    const key = stream.caller ?? '';
    const holding = this.#holdings.get(key);
    if (holding === undefined || !holding.streams.delete(stream)) return;
    holding.chars -= stream.chars;
    this.#streams--;
    this.#chars -= stream.chars;
    if (holding.streams.size === 0) this.#holdings.delete(key);
  }

  /** The longest-held stream of the caller holding most streams (or URI characters), among those that help. */
  #largest(byChars: boolean): ListenHolder | undefined {
    let best: Holding | undefined;
    for (const holding of this.#holdings.values()) {
      if (byChars && holding.chars === 0) continue;
      if (best === undefined || (byChars ? holding.chars > best.chars : holding.streams.size > best.streams.size)) best = holding;
    }
    if (best === undefined) return undefined;
    for (const stream of best.streams) {
      if (!byChars || stream.chars > 0) return stream;
    }
    return undefined;
  }
}
