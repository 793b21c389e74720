/**
 * Whole server-sent events out of a byte stream, for `switchboard dev --port`: the parent relays a generation's SSE
 * answers event by event (never half an event), so that it can add events of its own between two (a clean error
 * for a request a generation that went away never answered, a `list_changed` after a reload) and move a held
 * stream from one generation to the next without cutting an event in two.
 *
 * @see HTML Living Standard "Server-sent events" §9.2.5 (an event ends with a blank line; lines end with CRLF, LF or CR)
 */

/** The longest event kept while its end has not arrived, in UTF-16 units: past it the stream is cut. */
export const MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

/** One event as written on the wire (its lines, `\n`-terminated, and the blank line), and its JSON-RPC message. */
export interface RelayedEvent {
  readonly text: string;
  /** The `data` of the event parsed as JSON, if it is. */
  readonly message: JsonRpcLike | undefined;
}

/** The parts of a JSON-RPC message the relay looks at. */
export interface JsonRpcLike {
  readonly id?: string | number | null;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: unknown;
}

/** A JSON object, or `undefined`. */
export function parseMessage(text: string): JsonRpcLike | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** An SSE event carrying one JSON-RPC message (MCP 2025-11-25 basic/transports.mdx "Streamable HTTP": `data` is a message). */
export function sseMessage(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** Splits decoded text into whole events; {@link EventSplitter.push} returns those completed by a chunk. */
export class EventSplitter {
  #pending = '';
  /** A CR that ended the last chunk: with the next chunk's first LF, it is one line end. */
  #carry = '';
  /** Whether an event was cut by {@link MAX_SSE_EVENT_CHARS}. */
  overflowed = false;

  /**
   * Adds a chunk; returns the events it completed. `dropIds`: leave out `id:` lines (the ids of one generation's
   * event history mean nothing to the next one: a host resuming with one would be refused).
   */
  push(chunk: string, dropIds = false): RelayedEvent[] {
    let text = this.#carry + chunk;
    this.#carry = '';
    if (text.endsWith('\r')) {
      this.#carry = '\r';
      text = text.slice(0, -1);
    }
    this.#pending += text.replace(/\r\n?/g, '\n');
    const events: RelayedEvent[] = [];
    let end: number;
    while ((end = this.#pending.indexOf('\n\n')) >= 0) {
      const lines = this.#pending.slice(0, end).split('\n');
      this.#pending = this.#pending.slice(end + 2);
      const kept = dropIds ? lines.filter((line) => !/^id(:|$)/.test(line)) : lines;
      if (kept.length === 0 || kept.every((line) => line === '')) continue;
      const data = kept.filter((line) => /^data(:|$)/.test(line)).map((line) => line.replace(/^data: ?/, '')).join('\n');
      events.push({ text: `${kept.join('\n')}\n\n`, message: data === '' ? undefined : parseMessage(data) });
    }
    if (this.#pending.length > MAX_SSE_EVENT_CHARS) {
      this.#pending = '';
      this.overflowed = true;
    }
    return events;
  }
}
