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
  /**
   * The pieces of the line not yet ended, joined once when it ends: appending each chunk to one string and
   * searching it again from its start was quadratic in an unfinished line (small chunks of a long line took
   * minutes of CPU to reach the event bound).
   */
  #parts: string[] = [];
  #partsLength = 0;
  #started = false;
  /** The previous chunk ended with CR: an LF opening the next one ends no line. */
  #afterCr = false;
  /** The data buffer: every `data` value followed by `\n`. */
  #data = '';
  #event = '';
  #id = '';
  #retry: number | undefined = undefined;
  #reconnectMs: number | undefined = undefined;
  #work = 0;

  /** The last event id the stream set (what a client sends as `Last-Event-ID`); `''` when none. */
  get lastEventId(): string {
    return this.#id;
  }

  /**
   * How much text the decoder holds for the event not yet ended (its unfinished line and its `data` so far), in
   * UTF-16 code units: what a reader bounds to keep one endless event from growing without limit.
   */
  get pendingLength(): number {
    return this.#partsLength + this.#data.length;
  }

  /** The reconnection time (ms) the stream last asked for with `retry`, also on an event that carried no data. */
  get retryMs(): number | undefined {
    return this.#reconnectMs;
  }

  /**
   * Code units searched for line ends plus code units copied into lines so far: linear in the input, whatever its
   * chunking (what the property test checks). @internal
   */
  get workUnits(): number {
    return this.#work;
  }

  /**
   * Feeds one chunk of the stream's text. Each code unit is searched once for a line end and copied once into its
   * line, whatever the chunking.
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
    const events: SseEvent[] = [];
    const length = text.length;
    let start = 0;
    // The next CR and LF at or after `start`, each searched again only once `start` passed it (-1: none left).
    let cr = this.#find(text, '\r', 0);
    let lf = this.#find(text, '\n', 0);
    while (start < length) {
      if (cr !== -1 && cr < start) cr = this.#find(text, '\r', start);
      if (lf !== -1 && lf < start) lf = this.#find(text, '\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      let line = text.slice(start, end);
      if (this.#partsLength > 0) {
        this.#parts.push(line);
        line = this.#parts.join('');
        this.#parts = [];
        this.#partsLength = 0;
      }
      this.#work += line.length;
      let next = end + 1;
      if (end === cr) {
        if (next === length) this.#afterCr = true;
        else if (text.charCodeAt(next) === 10) next++;
      }
      start = next;
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    if (start < length) {
      const rest = start === 0 ? text : text.slice(start);
      this.#parts.push(rest);
      this.#partsLength += rest.length;
    }
    return events;
  }

  /** `text.indexOf(char, from)`, counting the code units searched. */
  #find(text: string, char: string, from: number): number {
    const at = text.indexOf(char, from);
    this.#work += (at === -1 ? text.length : at + 1) - from;
    return at;
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
