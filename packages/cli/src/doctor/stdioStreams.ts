/**
 * How the doctor reads a stdio server's output, on the library's pieces (a framing fix there reaches the doctor):
 * stdout is cut into lines by `@switchboard/jsonrpc`'s `NdjsonDecoder` in its `raw` mode (split on `\n` only; a
 * `\r`, a byte order mark and invalid bytes, as U+FFFD, stay in the line, and blank lines are lines: the doctor
 * reports them, where a client's reader hides them), a line over {@link MAX_LINE_BYTES} cut and flagged with the
 * response id it carries; stderr is kept as the library's `StderrTail`.
 *
 * MCP 2025-11-25 basic/transports.mdx "stdio": messages are delimited by newlines and MUST NOT contain embedded
 * newlines; the server MUST NOT write anything to its stdout that is not a valid MCP message; it MAY write to stderr.
 */
import { NdjsonDecoder, oversizedLineId, type JsonRpcId, type NdjsonEvent } from '@switchboard/jsonrpc';
import { StderrTail } from '@switchboard/mcp/client';

/**
 * The longest line read whole, in bytes (without its `\n`): 64 MiB; a longer one is cut (its first 64 MiB kept, its
 * last KiB read for its id). A `tools/list` of 100,000 tools is about 9 MB.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** The stderr lines kept (the last ones). */
export const STDERR_TAIL_LINES = 50;

/** One stdout line, as written. */
export interface RawLine {
  /** The line without its `\n`, decoded as UTF-8 (invalid bytes become U+FFFD; a `\r` and a BOM are kept). */
  readonly raw: string;
  /** Set when the line was longer than the limit: `raw` is its start, and this is its whole length in bytes. */
  readonly truncatedBytes?: number;
  /**
   * A cut line's top-level `"id"` (written first, or last, just before the closing brace), when it has one and no
   * top-level `"method"` before it: the response it probably is, so a request waiting for it can end.
   */
  readonly cutId?: JsonRpcId;
}

function rawLineOf(event: NdjsonEvent): RawLine {
  if (event.kind === 'line') return { raw: event.text };
  const cutId = oversizedLineId(event);
  return { raw: event.head, truncatedBytes: event.bytes, ...(cutId === undefined ? {} : { cutId }) };
}

/**
 * Reads `stdout` to its end, handing each line to `online`; a stream that fails ends like one that closes.
 * @param options - `maxLineBytes` (default {@link MAX_LINE_BYTES}) and `online`.
 */
export async function readStdoutLines(stdout: AsyncIterable<Uint8Array>, options: { readonly maxLineBytes?: number; readonly online: (line: RawLine) => void }): Promise<void> {
  const decoder = new NdjsonDecoder({ maxLineBytes: options.maxLineBytes ?? MAX_LINE_BYTES, raw: true });
  try {
    for await (const chunk of stdout) for (const event of decoder.push(chunk)) options.online(rawLineOf(event));
  } catch {
    // A stream that fails ends like one that closes.
  }
  for (const event of decoder.end()) options.online(rawLineOf(event));
}

/** A tail for the last {@link STDERR_TAIL_LINES} stderr lines. */
export function stderrTail(): StderrTail {
  return new StderrTail({ maxLines: STDERR_TAIL_LINES });
}

/** Reads `stderr` into `tail` to its end; a stream that fails ends like one that closes. */
export async function readStderr(stderr: AsyncIterable<Uint8Array>, tail: StderrTail): Promise<void> {
  try {
    for await (const chunk of stderr) tail.push(chunk);
  } catch {
    // As for stdout.
  }
  tail.end();
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
