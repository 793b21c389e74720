/**
 * The last lines a server process wrote to stderr, kept for the error that reports its end. MCP 2025-11-25
 * basic/transports.mdx "stdio": the server MAY write anything to stderr, and the client SHOULD NOT take it for an
 * error; so stderr is only remembered (a bounded tail) and handed on line by line, never parsed.
 */

/** Default of `maxStderrLines`: the lines kept for an error report. */
export const DEFAULT_MAX_STDERR_LINES = 20;

/** Longest stderr line kept or handed on (UTF-16 units); the rest of a longer line is cut off, `…` marks the cut. */
export const MAX_STDERR_LINE_CHARS = 1024;

const LF = '\n';

/** {@link StderrTail} options. */
export interface StderrTailOptions {
  /** Lines kept (the newest). A positive integer. */
  readonly maxLines: number;
  /** Called once per complete, non-blank line (CR removed, capped at {@link MAX_STDERR_LINE_CHARS}). */
  readonly online?: ((line: string) => void) | undefined;
}

/**
 * Splits stderr bytes into lines and keeps the last `maxLines` of them. Chunks may split anywhere (a UTF-8
 * sequence is decoded once complete); memory stays under `maxLines` + 1 lines of {@link MAX_STDERR_LINE_CHARS}
 * whatever the process writes, since the part of a line past the cap is dropped as it arrives.
 */
export class StderrTail {
  readonly #maxLines: number;
  readonly #online: ((line: string) => void) | undefined;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false });
  readonly #lines: string[] = [];
  /** The current, unfinished line (at most the cap). */
  #partial = '';
  /** The current line passed the cap: its rest is dropped up to the next LF. */
  #cut = false;

  constructor(options: StderrTailOptions) {
    this.#maxLines = options.maxLines;
    this.#online = options.online;
  }

  /** The kept lines, oldest first (a copy). */
  get lines(): readonly string[] {
    return [...this.#lines];
  }

  /** Feeds bytes read from stderr. */
  push(chunk: Uint8Array): void {
    this.#text(this.#decoder.decode(chunk, { stream: true }));
  }

  /** stderr ended: the last unterminated line counts as a line. */
  end(): void {
    this.#text(this.#decoder.decode());
    this.#finishLine();
  }

  #text(text: string): void {
    let start = 0;
    for (;;) {
      const newline = text.indexOf(LF, start);
      this.#append(text.slice(start, newline === -1 ? text.length : newline));
      if (newline === -1) return;
      this.#finishLine();
      start = newline + 1;
    }
  }

  #append(piece: string): void {
    if (this.#cut || piece === '') return;
    const room = MAX_STDERR_LINE_CHARS - this.#partial.length;
    if (piece.length > room) {
      this.#partial += `${piece.slice(0, room)}…`;
      this.#cut = true;
    } else this.#partial += piece;
  }

  #finishLine(): void {
    let line = this.#partial;
    this.#partial = '';
    this.#cut = false;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') return;
    this.#lines.push(line);
    if (this.#lines.length > this.#maxLines) this.#lines.shift();
    this.#online?.(line);
  }
}
