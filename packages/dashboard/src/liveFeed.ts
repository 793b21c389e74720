/**
 * The dashboard's live feed: Server-Sent Events (HTML Living Standard §9.2 "Server-sent events": `event:` and
 * `data:` lines, a blank line ending each event, `:` lines as comments) carrying the analytics snapshot whenever it
 * changed. One timer per dashboard, not per stream: every `intervalMs` it reads the store's `recorded` count (one
 * number), and only when that moved is the snapshot taken and serialized, once for every open stream. So a new call
 * shows within `intervalMs` plus the page's drawing, and an idle dashboard costs a counter read per tick.
 *
 * Bounded: at most `maxStreams` streams (the next is refused), and a stream whose reader lags by more than
 * `MAX_UNSENT_BYTES` is closed (its page reconnects and gets the newest snapshot: nothing is queued for it).
 */

/** Where the feed writes one stream's events. */
export interface FeedSink {
  /** Writes `chunk`; `false`: the reader lags too far, the stream was closed and leaves the feed. */
  write(chunk: string): boolean;
  /** Ends the stream (the dashboard closes). */
  end(): void;
}

/** What the feed reads. */
export interface FeedSource {
  /** Requests recorded so far; the snapshot is read again only when this moved. */
  recorded(): number;
  /** The snapshot as JSON text (one line). */
  snapshotJson(): string;
}

/** Unsent bytes a stream may hold before it is closed. */
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024;
/** A comment line this often keeps proxies and the socket's idle timer from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** A snapshot this often even when nothing changed: the time buckets move on. */
const REFRESH_MS = 10_000;

/** The feed of one dashboard. */
export class LiveFeed {
  readonly #sinks = new Set<FeedSink>();
  readonly #source: FeedSource;
  readonly #intervalMs: number;
  readonly #maxStreams: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #seen = -1;
  #sentAt = 0;
  #wroteAt = 0;

  constructor(options: { readonly source: FeedSource; readonly intervalMs: number; readonly maxStreams: number }) {
    this.#source = options.source;
    this.#intervalMs = options.intervalMs;
    this.#maxStreams = options.maxStreams;
  }

  /** Streams open now. */
  get size(): number {
    return this.#sinks.size;
  }

  /** Whether `maxStreams` streams are open (the next must be refused). */
  get full(): boolean {
    return this.#sinks.size >= this.#maxStreams;
  }

  /**
   * Adds a stream and writes it the snapshot now (check {@link full} first).
   * @returns `false` when `maxStreams` are open (nothing was written)
   */
  add(sink: FeedSink): boolean {
    if (this.full) return false;
    this.#sinks.add(sink);
    // The stream's first event: the reconnection delay (HTML §9.2 "retry"), then the snapshot as it is now.
    if (sink.write(`retry: 1000\n${event(this.#source.snapshotJson())}`)) this.#start();
    else this.#sinks.delete(sink);
    return true;
  }

  /** Removes a stream (its connection closed). */
  remove(sink: FeedSink): void {
    this.#sinks.delete(sink);
    if (this.#sinks.size === 0) this.#stop();
  }

  /** Ends every stream and stops the timer. */
  close(): void {
    this.#stop();
    for (const sink of this.#sinks) sink.end();
    this.#sinks.clear();
  }

  #start(): void {
    if (this.#timer !== undefined) return;
    this.#seen = this.#source.recorded();
    this.#sentAt = this.#wroteAt = Date.now();
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    this.#timer.unref?.();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    const now = Date.now();
    const recorded = this.#source.recorded();
    let chunk: string | undefined;
    if (recorded !== this.#seen || now - this.#sentAt >= REFRESH_MS) {
      this.#seen = recorded;
      this.#sentAt = now;
      chunk = event(this.#source.snapshotJson());
    } else if (now - this.#wroteAt >= KEEP_ALIVE_MS) {
      chunk = ': keep-alive\n\n';
    }
    if (chunk === undefined) return;
    this.#wroteAt = now;
    for (const sink of this.#sinks) if (!sink.write(chunk)) this.remove(sink);
  }
}

/** One `snapshot` event (JSON text has no line breaks: one `data:` line). */
function event(json: string): string {
  return `event: snapshot\ndata: ${json}\n\n`;
}
