/**
 * The stdout of a stdio server cut into lines, exactly as written: split on `\n` only, a `\r` or byte order mark
 * kept in the line (the doctor reports them; a client's reader would hide them), a line over
 * {@link MAX_LINE_BYTES} cut and flagged, chunks split anywhere (even inside a UTF-8 sequence).
 */

/**
 * The longest line kept whole, in bytes (without its `\n`): 64 MiB; the rest of a longer one is dropped (its last
 * {@link CUT_TAIL_BYTES} are kept to find its id). A `tools/list` of 100,000 tools is about 9 MB.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** The end of a cut line kept to find a top-level `"id"` written last, in bytes. */
export const CUT_TAIL_BYTES = 1024;
/** How far into a cut line its top-level `"id"` is looked for, in characters. */
const ID_SCAN_CHARS = 1024 * 1024;

/** One line of raw text. */
export interface RawLine {
  /** The line without its `\n`, decoded as UTF-8 (invalid bytes become U+FFFD; a BOM is kept). */
  readonly raw: string;
  /** Set when the line was longer than the limit: `raw` is its start, and this is its full length in bytes. */
  readonly truncatedBytes?: number;
  /**
   * A cut line's top-level `"id"` (in its first MiB, or written last, just before the closing brace), when it has
   * one and no top-level `"method"` before it: the response it probably is, so a request waiting for it can end.
   */
  readonly cutId?: string | number;
}

const ID_VALUE = /^\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/;
const TAIL_ID = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*\}\s*\r?$/;

function idValue(token: string): string | number | undefined {
  try {
    const value = JSON.parse(token) as unknown;
    return typeof value === 'string' || typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The top-level `"id"` of a JSON object cut short: looked for in its head (outside strings, at depth 1; a
 * top-level `"method"` first means a request or notification, so none), else at its very end (`,"id":7}`, the
 * order some SDKs write a response in).
 */
export function cutLineId(head: string, tail: string): string | number | undefined {
  let depth = 0;
  let key: string | undefined;
  const end = Math.min(head.length, ID_SCAN_CHARS);
  for (let i = 0; i < end; i++) {
    const c = head[i];
    if (c === '"') {
      const start = i;
      for (i++; i < end && head[i] !== '"'; i++) if (head[i] === '\\') i++;
      key = depth === 1 ? head.slice(start + 1, i) : undefined;
      continue;
    }
    if (c === ':' && key !== undefined) {
      if (key === 'method') return undefined;
      if (key === 'id') {
        const match = ID_VALUE.exec(head.slice(i + 1, i + 1 + 1024));
        return match === null ? undefined : idValue(match[1]!);
      }
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\n') key = undefined;
  }
  const match = TAIL_ID.exec(tail);
  return match === null ? undefined : idValue(match[1]!);
}

const LF = 0x0a;

/** Splits a byte stream into {@link RawLine}s; memory is bounded by the line limit. */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  #parts: Uint8Array[] = [];
  #kept = 0;
  /** The last {@link CUT_TAIL_BYTES} of the part of a line over the limit. */
  #tail = new Uint8Array(0);
  /** Bytes of the current line, kept or not. */
  #length = 0;

  constructor(options: { readonly maxLineBytes?: number } = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  /** The lines a chunk completes. */
  push(chunk: Uint8Array): RawLine[] {
    const lines: RawLine[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(LF, start);
      if (end === -1) {
        this.#keep(chunk.subarray(start));
        return lines;
      }
      this.#keep(chunk.subarray(start, end));
      lines.push(this.#take());
      start = end + 1;
    }
  }

  /** The last line, when the stream ended without a `\n` after it. */
  end(): RawLine[] {
    return this.#length === 0 ? [] : [this.#take()];
  }

  #keep(bytes: Uint8Array): void {
    this.#length += bytes.length;
    const room = Math.max(0, this.#maxLineBytes - this.#kept);
    if (bytes.length === 0) return;
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
    if (kept.length > 0) {
      this.#parts.push(kept.slice());
      this.#kept += kept.length;
    }
    if (kept.length < bytes.length) {
      const over = bytes.subarray(kept.length);
      const tail = new Uint8Array(Math.min(CUT_TAIL_BYTES, this.#tail.length + over.length));
      const fromOld = tail.length - Math.min(over.length, tail.length);
      tail.set(this.#tail.subarray(this.#tail.length - fromOld), 0);
      tail.set(over.subarray(over.length - (tail.length - fromOld)), fromOld);
      this.#tail = tail;
    }
  }

  #take(): RawLine {
    const parts = this.#parts;
    let bytes: Uint8Array;
    if (parts.length === 1) bytes = parts[0]!;
    else {
      bytes = new Uint8Array(this.#kept);
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
      }
    }
    const raw = this.#decoder.decode(bytes);
    const length = this.#length;
    const truncated = length > this.#kept;
    const tail = this.#tail;
    this.#parts = [];
    this.#kept = 0;
    this.#length = 0;
    this.#tail = new Uint8Array(0);
    if (!truncated) return { raw };
    const cutId = cutLineId(raw, new TextDecoder('utf-8', { fatal: false }).decode(tail));
    return { raw, truncatedBytes: length, ...(cutId === undefined ? {} : { cutId }) };
  }
}

/** The JSON value of a line read leniently (one leading BOM and one trailing `\r` ignored), or `undefined`. */
export function parseLine(raw: string): unknown {
  let text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The last lines of a text stream (stderr), bounded in count and length. */
export class TextTail {
  readonly #maxLines: number;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false });
  #partial = '';
  readonly #lines: string[] = [];

  constructor(maxLines: number) {
    this.#maxLines = maxLines;
  }

  /** The complete lines so far (the last `maxLines`), without their `\r\n`. */
  get lines(): readonly string[] {
    return this.#partial === '' ? this.#lines : [...this.#lines, this.#partial].slice(-this.#maxLines);
  }

  push(chunk: Uint8Array): void {
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    this.#partial = (parts.pop() ?? '').slice(-MAX_TAIL_LINE_CHARS);
    for (const line of parts) this.#add(line);
  }

  end(): void {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = '';
    if (rest !== '') this.#add(rest);
  }

  #add(line: string): void {
    this.#lines.push((line.endsWith('\r') ? line.slice(0, -1) : line).slice(0, MAX_TAIL_LINE_CHARS));
    if (this.#lines.length > this.#maxLines) this.#lines.shift();
  }
}

/** The longest stderr line kept, in characters. */
const MAX_TAIL_LINE_CHARS = 2_000;
