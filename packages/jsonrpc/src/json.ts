/**
 * The one JSON parse entry of the engine: `JSON.parse` behind the caps that must run before it.
 *
 * **Nesting depth.** `JSON.parse` is cheap per byte but not per container: 4 MiB of `[` blocks the event loop
 * for about a quarter of a second (about 17 times the cost of 4 MiB of ordinary JSON, measured on Node 20), and
 * a handful of such bodies push every other client's latency up. Text nested deeper than the limit is refused
 * before `JSON.parse` sees it. The pre-scan is linear and skips string contents with `indexOf` (native speed),
 * so an ordinary message costs a few structural characters, not its byte length; a deep payload is refused
 * as soon as the limit is crossed, without reading the rest.
 *
 * @see https://www.jsonrpc.org/specification §5.1 (-32700, -32600); RFC 8259 §9 (parsers MAY limit nesting depth)
 */
import { ErrorCode, ErrorMessage } from './errors.js';
import type { JsonRpcErrorResponse } from './message.js';

/** Default nesting limit of {@link parseJson} (arrays and objects, the outermost counts as 1). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** {@link parseJson} options. */
export interface ParseJsonOptions {
  /**
   * Arrays and objects may nest this deep (the outermost value counts as 1); deeper text is refused with
   * -32600 before it is parsed. @default 64 ({@link DEFAULT_MAX_JSON_DEPTH})
   */
  readonly maxDepth?: number;
}

/** What {@link parseJson} returns: the value, or the error response to send for the text. */
export type ParsedJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reply: JsonRpcErrorResponse };

/**
 * Whether `text` nests arrays/objects deeper than `maxDepth`. Brackets inside strings do not count. Text that
 * is not JSON may give either answer (`JSON.parse` then reports it).
 *
 * @example
 * exceedsJsonDepth('[[1]]', 1); // true
 * exceedsJsonDepth('["[[["]', 1); // false
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  // Fast path: text with at most maxDepth opening brackets anywhere (strings included) cannot nest deeper.
  // Two native indexOf sweeps cost less than walking the characters of an ordinary message.
  let openers = 0;
  for (let i = text.indexOf('['); i >= 0 && openers <= maxDepth; i = text.indexOf('[', i + 1)) openers++;
  for (let i = text.indexOf('{'); i >= 0 && openers <= maxDepth; i = text.indexOf('{', i + 1)) openers++;
  if (openers <= maxDepth) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to the quote that closes it (one preceded by an even number of backslashes).
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return false;
        let k = j - 1;
        while (k > i && text.charCodeAt(k) === 0x5c) k--;
        if ((j - 1 - k) % 2 === 0) break;
      }
      i = j;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

const PARSE_ERROR_MESSAGE = ErrorMessage[ErrorCode.ParseError];

/**
 * Parses one unit of inbound text (an NDJSON line, an HTTP body). Never throws. A leading U+FEFF (BOM) is
 * ignored (RFC 8259 §8.1). Text that is not exactly one JSON value gives -32700 "Parse error"; text nested
 * deeper than `maxDepth` gives -32600 "Invalid Request" with `data: { maxDepth }`; both with `id: null`
 * (JSON-RPC 2.0 §5: the id cannot be read).
 *
 * @example
 * const parsed = parseJson('{"jsonrpc":"2.0","id":1,"method":"ping"}');
 * if (parsed.ok) classifyValue(parsed.value);
 */
export function parseJson(text: string, options?: ParseJsonOptions): ParsedJson {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (exceedsJsonDepth(body, maxDepth)) {
    return {
      ok: false,
      reply: {
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: JSON nested deeper than ${maxDepth} levels`, data: { maxDepth } },
      },
    };
  }
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false, reply: { jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message: PARSE_ERROR_MESSAGE } } };
  }
}
