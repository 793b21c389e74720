/**
 * The stdout of a stdio server cut into lines, exactly as written: split on `\n` only, a `\r` or byte order mark
 * kept in the line (the doctor reports them; a client's reader would hide them), a line over
 * {@link MAX_LINE_BYTES} cut and flagged, chunks split anywhere (even inside a UTF-8 sequence).
 */

/** The longest line kept whole, in bytes (without its `\n`); the rest of a longer one is dropped. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** One line of raw text. */
export interface RawLine {
  /** The line without its `\n`, decoded as UTF-8 (invalid bytes become U+FFFD; a BOM is kept). */
  readonly raw: string;
  /** Set when the line was longer than the limit: `raw` is its start, and this is its full length in bytes. */
  readonly truncatedBytes?: number;
}

const LF = 0x0a;

/** Splits a byte stream into {@link RawLine}s; memory is bounded by the line limit. */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  #parts: Uint8Array[] = [];
  #kept = 0;
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
    const room = this.#maxLineBytes - this.#kept;
    if (room <= 0 || bytes.length === 0) return;
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
    this.#parts.push(kept.slice());
    this.#kept += kept.length;
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
    this.#parts = [];
    this.#kept = 0;
    this.#length = 0;
    return truncated ? { raw, truncatedBytes: length } : { raw };
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
