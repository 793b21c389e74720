/**
 * Server-Sent Events: event formatting and {@link SseChannel}, the adapter-independent stream the
 * transports write to. An adapter (Web `ReadableStream` or Node `ServerResponse`) attaches a sink to it; what is
 * written before that is buffered, what is written after the client left is dropped (the caller keeps it in the
 * event store when the stream is resumable). Reading such a stream is `sseDecoder.ts`.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"
 */
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import type { TimerHandle } from '@switchboard/jsonrpc';

/** Headers of every SSE response. `X-Accel-Buffering: no` keeps nginx from buffering (MCP 2026-07-28 streamable-http.mdx "Receiving"). */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/**
 * One `message` event carrying a JSON-RPC message. `json` never contains a raw line break (`JSON.stringify`
 * escapes them), so one `data:` line suffices.
 */
export function formatMessageEvent(json: string, eventId?: string): string {
  return eventId === undefined ? `event: message\ndata: ${json}\n\n` : `id: ${eventId}\nevent: message\ndata: ${json}\n\n`;
}

/**
 * The priming event: an id and empty data, optionally with `retry` (MCP 2025-11-25 basic/transports.mdx
 * "Sending Messages to the Server" item 6). A client records the id without dispatching an event.
 */
export function formatPrimingEvent(eventId: string, retryMs?: number): string {
  return retryMs === undefined ? `id: ${eventId}\ndata: \n\n` : `id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`;
}

/** A bare `retry` field (the client's reconnection delay, ms), sent before the server closes a stream on purpose. */
export function formatRetry(retryMs: number): string {
  return `retry: ${Math.max(0, Math.floor(retryMs))}\n\n`;
}

/** A comment line, ignored by clients; keeps idle connections alive through proxies. */
export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

/** What an adapter gives an {@link SseChannel}: raw text out, and the end of the response. */
export interface SseSink {
  /** Writes text; may throw when the connection is gone (the channel then detaches). */
  write(chunk: string): void;
  /** Ends the HTTP response. */
  end(): void;
  /**
   * What the connection holds that the client did not take yet (written, not sent): bytes, or UTF-16 units for
   * text not encoded yet. The adapter calls {@link SseChannel.drained} when that went down.
   */
  buffered(): number;
  /** Drops the connection and whatever it still holds (the client stopped reading; see `maxBufferedBytes`). */
  abort(): void;
}

/** What a channel tells a shared budget of unsent bytes it is counted against (`sseBudget.ts`). */
export interface SseBudgetLink {
  /** The channel wrote: its backlog may have grown. */
  update(channel: SseChannel): void;
  /** The channel ended or was dropped: it holds nothing any more. */
  release(channel: SseChannel): void;
}

/** Default {@link SseChannel} hard cap (`maxSseBufferBytes`): 8 MiB. */
export const DEFAULT_MAX_SSE_BUFFER_BYTES = 8 * 1024 * 1024;
/** Above this much unsent data (or half the hard cap, when smaller) writers are asked to wait ({@link SseChannel.ready}). */
export const SSE_HIGH_WATER_BYTES = 1024 * 1024;

const RESOLVED: Promise<void> = Promise.resolve();
const TAKEN: SseSink = Object.freeze({ write(): void {}, end(): void {}, buffered: (): number => 0, abort(): void {} });

/**
 * An SSE response body, independent of the HTTP runtime.
 *
 * States: buffering (no sink yet) → attached → ended (by the server) or detached (the client went away).
 * Writes after `end` or `detach` return `false` and do nothing; `end` and `detach` are idempotent.
 *
 * Backpressure: what is written and not yet taken by the client (buffered here before a sink is attached, then
 * the connection's own queue) is bounded. Above the high-water mark ({@link SSE_HIGH_WATER_BYTES}, or half the
 * cap) {@link congested} is true and {@link ready} resolves only once the client read it down (the transports
 * return it from `send()`, so `await ctx.log(...)` waits); above the hard cap the connection is dropped with what it
 * held and the channel detaches (the stream can be resumed from the event store, when there is one).
 */
export class SseChannel {
  #buffer: string[] | undefined = [];
  /** Length of {@link #buffer}'s text. */
  #pending = 0;
  #max: number;
  readonly #highWater: number;
  #waiting: Promise<void> | undefined = undefined;
  #wake: (() => void) | undefined = undefined;
  #overflowed = false;
  #sink: SseSink | undefined = undefined;
  #ended = false;
  #detached = false;
  #keepAlive: TimerHandle | undefined = undefined;
  #keepAliveMs = 0;
  /** Called once when the client goes away before the server ended the stream. */
  ondetach: (() => void) | undefined = undefined;
  /** The shared budget this channel's backlog counts against, if any (told of every write, and of the end). */
  budget: SseBudgetLink | undefined = undefined;
  /**
   * Called once when the server ended the stream and everything written was handed to the connection (the sink
   * took every write and the end without throwing). Not called when the client left first.
   */
  ondelivered: (() => void) | undefined = undefined;

  /** @param maxBufferedBytes - The hard cap on unsent data (see the class documentation). @default 8 MiB */
  constructor(maxBufferedBytes: number = DEFAULT_MAX_SSE_BUFFER_BYTES) {
    this.#max = maxBufferedBytes;
    this.#highWater = Math.min(SSE_HIGH_WATER_BYTES, Math.floor(maxBufferedBytes / 2));
  }

  /** Whether writes still reach (or will reach) the client. */
  get open(): boolean {
    return !this.#ended && !this.#detached;
  }

  /** Whether the server ended the stream. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Whether the channel was cut because the client did not read (more than `maxBufferedBytes` unsent). */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** What was written and not yet taken by the client (see {@link SseSink.buffered}). */
  get buffered(): number {
    const sink = this.#sink;
    return sink === undefined ? this.#pending : sink.buffered();
  }

  /** Whether more than the high-water mark is waiting for the client (writers should wait for {@link ready}). */
  get congested(): boolean {
    return !this.#ended && !this.#detached && this.buffered > this.#highWater;
  }

  /**
   * Resolves when writing may go on: at once unless {@link congested}, otherwise once the client read the backlog
   * down (or the stream ended or was dropped). One promise per congestion episode, shared by every writer.
   */
  ready(): Promise<void> {
    if (!this.congested) return RESOLVED;
    return (this.#waiting ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    }));
  }

  /** The adapter's queue went down (Node `'drain'`, a Web stream pull): wakes {@link ready} waiters when it may. */
  drained(): void {
    this.budget?.update(this);
    if (this.#waiting !== undefined && !this.congested) this.#release();
  }

  #release(): void {
    const wake = this.#wake;
    this.#waiting = undefined;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Drops the connection with what it holds (a shared budget reclaims this channel's backlog): as past the hard
   * cap, the channel detaches and reports {@link overflowed}.
   */
  drop(): void {
    if (this.#ended || this.#detached) return;
    this.#overflow();
  }

  /** More than the hard cap is unsent: drop the connection with what it holds, and detach. */
  #overflow(): void {
    this.#overflowed = true;
    this.#buffer = undefined;
    this.#pending = 0;
    const sink = this.#sink;
    if (sink !== undefined) {
      try {
        sink.abort();
      } catch {
        // Already gone.
      }
    }
    this.detach();
  }

  /**
   * Writes SSE text (one or more complete events).
   * @returns `false` when the stream is ended or detached (nothing was written).
   */
  write(chunk: string): boolean {
    if (this.#ended || this.#detached) return false;
    const sink = this.#sink;
    // The cap is on a backlog, not on one event: a single event larger than the cap, written to a client that has
    // kept up (at most the high-water mark unsent before it), goes out; what is cut is a connection whose client
    // stopped reading. (An answer over 8 MiB used to be dropped at once, with a log line blaming the client.)
    let before: number;
    if (sink === undefined) {
      before = this.#pending;
      (this.#buffer ??= []).push(chunk);
      this.#pending += chunk.length;
      if (this.#pending <= this.#max || before <= this.#highWater) return this.#counted();
    } else {
      before = sink.buffered();
      try {
        sink.write(chunk);
      } catch {
        this.detach();
        return false;
      }
      if (before <= this.#highWater || sink.buffered() <= this.#max) return this.#counted();
    }
    this.#overflow();
    return false;
  }

  /** Tells the shared budget of a write; `false` when the budget dropped this very channel for it. */
  #counted(): boolean {
    this.budget?.update(this);
    return !this.#detached;
  }

  /**
   * Buffers a replay (events already held by the event store) before a sink is attached. Not bound by the hard cap:
   * the cap of this connection grows by the replay, so a long history can still be resumed.
   */
  preload(chunk: string): void {
    if (this.#sink !== undefined || this.#ended || this.#detached) return;
    (this.#buffer ??= []).push(chunk);
    this.#pending += chunk.length;
    this.#max += chunk.length;
  }

  /** Ends the stream from the server side (the HTTP response completes). */
  end(): void {
    if (this.#ended || this.#detached) return;
    this.#ended = true;
    this.budget?.release(this);
    this.#stopKeepAlive();
    this.#release();
    const sink = this.#sink;
    if (sink === undefined) return;
    try {
      sink.end();
    } catch {
      // The connection is already gone; nothing to end.
      return;
    }
    this.#delivered();
  }

  /**
   * Connects the HTTP response: flushes what was buffered (in one write) and, if the stream was already ended,
   * ends the response. Called once by the adapter.
   */
  attach(sink: SseSink): void {
    if (this.#sink !== undefined) return;
    if (this.#detached) {
      // Dropped before the response existed (the cap was passed while buffering): the response goes the same way.
      if (this.#overflowed) sink.abort();
      return;
    }
    this.#sink = sink;
    const buffered = this.#buffer;
    this.#buffer = undefined;
    this.#pending = 0;
    try {
      if (buffered !== undefined && buffered.length > 0) sink.write(buffered.length === 1 ? (buffered[0] as string) : buffered.join(''));
      if (this.#ended) sink.end();
    } catch {
      this.detach();
      return;
    }
    if (this.#ended) this.#delivered();
    else this.drained();
  }

  /**
   * What was written so far and not yet handed to a sink, as one string, when the stream is already ended and no
   * sink is attached (the whole body is known: an adapter may send it in one piece). Marks the stream delivered
   * as {@link attach} would; the caller must send the text. `undefined` otherwise (nothing changes).
   */
  takeComplete(): string | undefined {
    if (!this.#ended || this.#sink !== undefined || this.#detached) return undefined;
    const buffered = this.#buffer;
    this.#buffer = undefined;
    this.#pending = 0;
    this.#sink = TAKEN;
    const text = buffered === undefined ? '' : buffered.length === 1 ? (buffered[0] as string) : buffered.join('');
    this.#delivered();
    return text;
  }

  #delivered(): void {
    const callback = this.ondelivered;
    this.ondelivered = undefined;
    callback?.();
  }

  /** The client went away (adapter: socket closed, stream cancelled). Fires {@link ondetach} unless already ended. */
  detach(): void {
    if (this.#detached || this.#ended) return;
    this.#detached = true;
    this.#buffer = undefined;
    this.#pending = 0;
    this.budget?.release(this);
    this.#stopKeepAlive();
    this.#release();
    this.ondetach?.();
  }

  /**
   * Writes a comment every `intervalMs` while the stream is open (timer unref'd where supported).
   * @param intervalMs - Interval in ms; `0` or less does nothing.
   */
  keepAlive(intervalMs: number): void {
    if (intervalMs <= 0 || this.#keepAlive !== undefined || !this.open) return;
    this.#keepAliveMs = intervalMs;
    this.#keepAlive = setUnrefTimeout(this.#tick, intervalMs);
  }

  /** One keep-alive comment, then the next one armed while the stream takes writes. */
  readonly #tick = (): void => {
    this.#keepAlive = undefined;
    if (this.write(SSE_KEEP_ALIVE) && this.#keepAlive === undefined) this.#keepAlive = setUnrefTimeout(this.#tick, this.#keepAliveMs);
  };

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) {
      clearTimeout(this.#keepAlive);
      this.#keepAlive = undefined;
    }
  }
}
