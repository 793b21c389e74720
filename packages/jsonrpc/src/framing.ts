/**
 * Newline-delimited JSON framing (MCP stdio: one message per line, LF-terminated).
 * CONTRACT STUB — to be implemented (issue #2 section 2).
 */

/** Default for {@link NdjsonDecoderOptions.maxLineBytes}: 4 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

/** {@link NdjsonDecoder} options. */
export interface NdjsonDecoderOptions {
  /** A line longer than this (bytes, excluding the newline) is refused; the decoder resynchronises at the next newline. @default 4 MiB */
  readonly maxLineBytes?: number;
}

/** What the decoder yields for each line. */
export type NdjsonEvent =
  | { readonly kind: 'line'; readonly text: string }
  /** A line that exceeded `maxLineBytes`; `bytes` is how many bytes were dropped so far when detected. */
  | { readonly kind: 'oversized'; readonly bytes: number };

/**
 * Splits a byte stream into lines: chunks may split anywhere (even inside a UTF-8 sequence) and carry
 * several lines; CRLF and a leading BOM are stripped; blank lines are skipped; raw U+2028/U+2029 inside
 * strings are kept (no `readline`); invalid UTF-8 becomes U+FFFD (then fails JSON parse or survives as text).
 * Memory is bounded by `maxLineBytes`.
 */
export declare class NdjsonDecoder {
  constructor(options?: NdjsonDecoderOptions);
  /** Feeds a chunk; returns the complete lines (and oversize events) it finished. */
  push(chunk: Uint8Array): NdjsonEvent[];
  /** Flushes a final unterminated line at end of stream. */
  end(): NdjsonEvent[];
}

/** Serializes one message (or batch) as a line, newline included. */
export declare function encodeNdjson(message: unknown): string;
