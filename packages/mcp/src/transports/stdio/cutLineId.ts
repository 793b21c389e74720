/**
 * The `id` of a response the stdio client dropped as too long, read from the first bytes of its line: enough to
 * fail the request it answers at once rather than after its whole timeout. Cheap on purpose: one pass over at most
 * the head the line decoder kept (1 KiB), no parse of the line.
 */
import type { JsonRpcId } from '@switchboard/jsonrpc';

const ID_VALUE = /^\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/;

/**
 * The top-level `"id"` of the JSON object `head` starts (outside strings, at depth 1), when its value is complete in
 * `head` and no top-level `"method"` comes before it (that would be a request or a notification, not a response).
 * `undefined` otherwise (an `id` written after the large `result`, or a line that is not an object).
 */
export function responseIdAtHead(head: string): JsonRpcId | undefined {
  const first = head.search(/[^\s\uFEFF]/);
  if (first === -1 || head.charCodeAt(first) !== 0x7b /* { */) return undefined;
  let depth = 0;
  /** The last string read at depth 1, while only whitespace followed it: a key when a `:` comes next. */
  let key: string | undefined;
  for (let i = first; i < head.length; i++) {
    const c = head.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; i < head.length && head.charCodeAt(i) !== 0x22; i++) if (head.charCodeAt(i) === 0x5c /* \ */) i++;
      if (i >= head.length) return undefined;
      key = depth === 1 ? head.slice(start + 1, i) : undefined;
      continue;
    }
    if (c === 0x3a /* : */ && key !== undefined) {
      if (key === 'method') return undefined;
      if (key === 'id') return idValue(head.slice(i + 1));
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
    if (depth === 0) return undefined;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) key = undefined;
  }
  return undefined;
}

/** The id at the start of `text` (a JSON string or number followed by more of the line), if complete. */
function idValue(text: string): JsonRpcId | undefined {
  const match = ID_VALUE.exec(text);
  // A number cut by the end of the head ("id":12 of "id":123) is not taken: the next character must be there.
  if (match === null || match[0].length === text.length) return undefined;
  try {
    const value = JSON.parse(match[1]!) as unknown;
    return typeof value === 'string' || typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
