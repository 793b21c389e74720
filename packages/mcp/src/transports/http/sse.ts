/**
 * Server-Sent Events writing: event formatting and {@link SseChannel}, the adapter-independent stream the
 * transports write to. An adapter (Web `ReadableStream` or Node `ServerResponse`) attaches a sink to it; what is
 * written before that is buffered, what is written after the client left is dropped (the caller keeps it in the
 * event store when the stream is resumable).
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"
 */

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
}

const TAKEN: SseSink = Object.freeze({ write(): void {}, end(): void {} });

/**
 * An SSE response body, independent of the HTTP runtime.
 *
 * States: buffering (no sink yet) → attached → ended (by the server) or detached (the client went away).
 * Writes after `end` or `detach` return `false` and do nothing; `end` and `detach` are idempotent.
 */
export class SseChannel {
  #buffer: string[] | undefined = [];
  #sink: SseSink | undefined = undefined;
  #ended = false;
  #detached = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined = undefined;
  /** Called once when the client goes away before the server ended the stream. */
  ondetach: (() => void) | undefined = undefined;
  /**
   * Called once when the server ended the stream and everything written was handed to the connection (the sink
   * took every write and the end without throwing). Not called when the client left first.
   */
  ondelivered: (() => void) | undefined = undefined;

  /** Whether writes still reach (or will reach) the client. */
  get open(): boolean {
    return !this.#ended && !this.#detached;
  }

  /** Whether the server ended the stream. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Writes SSE text (one or more complete events).
   * @returns `false` when the stream is ended or detached (nothing was written).
   */
  write(chunk: string): boolean {
    if (this.#ended || this.#detached) return false;
    const sink = this.#sink;
    if (sink === undefined) {
      (this.#buffer ??= []).push(chunk);
      return true;
    }
    try {
      sink.write(chunk);
      return true;
    } catch {
      this.detach();
      return false;
    }
  }

  /** Ends the stream from the server side (the HTTP response completes). */
  end(): void {
    if (this.#ended || this.#detached) return;
    this.#ended = true;
    this.#stopKeepAlive();
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
    if (this.#sink !== undefined || this.#detached) return;
    this.#sink = sink;
    const buffered = this.#buffer;
    this.#buffer = undefined;
    try {
      if (buffered !== undefined && buffered.length > 0) sink.write(buffered.length === 1 ? (buffered[0] as string) : buffered.join(''));
      if (this.#ended) sink.end();
    } catch {
      this.detach();
      return;
    }
    if (this.#ended) this.#delivered();
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
    this.#stopKeepAlive();
    this.ondetach?.();
  }

  /**
   * Writes a comment every `intervalMs` while the stream is open (timer unref'd where supported).
   * @param intervalMs - Interval in ms; `0` or less does nothing.
   */
  keepAlive(intervalMs: number): void {
    if (intervalMs <= 0 || this.#keepAlive !== undefined || !this.open) return;
    const timer = setInterval(() => {
      if (!this.write(SSE_KEEP_ALIVE)) this.#stopKeepAlive();
    }, intervalMs);
    (timer as { unref?: () => void }).unref?.();
    this.#keepAlive = timer;
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = undefined;
    }
  }
}
