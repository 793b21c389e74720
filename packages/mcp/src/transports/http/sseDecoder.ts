/**
 * {@link SseDecoder}: the incremental reader of a `text/event-stream` (what a client, a test or a probe reads).
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
/** One event read by {@link SseDecoder}. */
export interface SseEvent {
  /** The `event` field; `'message'` when the event named none. */
  readonly event: string;
  /** The `data` lines, joined with `\n`. */
  readonly data: string;
  /** The last event id seen on the stream so far (`id` fields persist across events); `''` when none. */
  readonly id: string;
  /** The `retry` field of this event (ms), when it carried a valid one. */
  readonly retry?: number;
}

/**
 * Reads a `text/event-stream` incrementally, by the WHATWG HTML parsing rules ("server-sent events",
 * "Interpreting an event stream"): lines end with CR, LF or CRLF (also when a CRLF is split across chunks); a
 * line starting with `:` is a comment; `field: value` drops one leading space of the value; `data` lines are
 * joined with `\n`; `id` persists (a value holding NUL is ignored); `retry` takes ASCII digits only; an empty line
 * dispatches the event, unless no `data` line came (an event of one empty `data` line, such as MCP's priming
 * event, is dispatched with data `''`: callers skip it). An event not yet ended
 * by an empty line is not emitted. A leading byte order mark is skipped.
 * @example
 * const decoder = new SseDecoder();
 * decoder.push('id: 1\ndata: {"a":'); // []
 * decoder.push('1}\n\n'); // [{ event: 'message', data: '{"a":1}', id: '1' }]
 */
export class SseDecoder {
  #buffer = '';
  #started = false;
  /** The previous chunk ended with CR: an LF opening the next one ends no line. */
  #afterCr = false;
  /** The data buffer: every `data` value followed by `\n`. */
  #data = '';
  #event = '';
  #id = '';
  #retry: number | undefined = undefined;
  #reconnectMs: number | undefined = undefined;

  /** The last event id the stream set (what a client sends as `Last-Event-ID`); `''` when none. */
  get lastEventId(): string {
    return this.#id;
  }

  /**
   * How much text the decoder holds for the event not yet ended (its unfinished line and its `data` so far), in
   * UTF-16 code units: what a reader bounds to keep one endless event from growing without limit.
   */
  get pendingLength(): number {
    return this.#buffer.length + this.#data.length;
  }

  /** The reconnection time (ms) the stream last asked for with `retry`, also on an event that carried no data. */
  get retryMs(): number | undefined {
    return this.#reconnectMs;
  }

  /**
   * Feeds one chunk of the stream's text.
   * @returns The events the chunk completed, in order (often none).
   */
  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.#afterCr && text.startsWith('\n')) text = text.slice(1);
    this.#afterCr = false;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let buffer = this.#buffer + text;
    const events: SseEvent[] = [];
    for (;;) {
      const cr = buffer.indexOf('\r');
      const lf = buffer.indexOf('\n');
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      const line = buffer.slice(0, end);
      let next = end + 1;
      if (buffer.charCodeAt(end) === 13) {
        if (next === buffer.length) this.#afterCr = true;
        else if (buffer.charCodeAt(next) === 10) next++;
      }
      buffer = buffer.slice(next);
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    this.#buffer = buffer;
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data += `${value}\n`;
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) {
          this.#retry = Number(value);
          this.#reconnectMs = this.#retry;
        }
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    const type = this.#event;
    const retry = this.#retry;
    this.#data = '';
    this.#event = '';
    this.#retry = undefined;
    // No data line: nothing is dispatched (the id, if any, was kept).
    if (data === '') return undefined;
    const event = { event: type === '' ? 'message' : type, data: data.slice(0, -1), id: this.#id };
    return retry === undefined ? event : { ...event, retry };
  }
}
