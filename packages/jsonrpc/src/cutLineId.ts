/**
 * The `id` of a response an NDJSON reader did not read because its line was over the limit, read from the bytes
 * of the line it kept: enough to end the request it answers at once (with the size) rather than at its timeout.
 * Cheap on purpose: one pass over at most {@link ID_SCAN_CHARS} of the head, one match on the tail, no parse.
 */
import type { JsonRpcId } from './message.js';

/** How far into a cut line's head its top-level `"id"` is looked for, in UTF-16 units. */
const ID_SCAN_CHARS = 1024 * 1024;

const ID_TOKEN = '("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)';
const ID_VALUE = new RegExp(`^\\s*${ID_TOKEN}`);
/** An `"id"` member written last, just before the object's closing brace (`…,"id":7}`, the order some SDKs use). */
const ID_AT_END = new RegExp(`"id"\\s*:\\s*${ID_TOKEN}\\s*\\}\\s*\\r?$`);

/**
 * The top-level `"id"` of the JSON object a cut line holds: looked for in `head` (outside strings, at depth 1, when
 * its value is complete there and no top-level `"method"` comes before it: that would be a request or a
 * notification, not a response), else at the very end of `tail` (`,"id":7}`). `undefined` where it cannot be sure.
 *
 * @param cut - The `oversized` event of {@link NdjsonDecoder} (`tail` only in its `raw` mode), or its parts.
 * @example
 * if (event.kind === 'oversized') failRequest(oversizedLineId(event), event.bytes);
 */
export function oversizedLineId(cut: { readonly head: string; readonly tail?: string | undefined }): JsonRpcId | undefined {
  const atHead = idAtHead(cut.head);
  if (atHead !== UNDECIDED) return atHead;
  const match = cut.tail === undefined ? null : ID_AT_END.exec(cut.tail);
  return match === null ? undefined : idOf(match[1]!);
}

/** What {@link idAtHead} answers when the head ends before it could tell (the tail may). */
const UNDECIDED = Symbol('undecided');

/** The id read from the head; {@link UNDECIDED} when the head does not say, `undefined` when it has none. */
function idAtHead(head: string): JsonRpcId | undefined | typeof UNDECIDED {
  const first = head.search(/[^\s\uFEFF]/);
  if (first === -1 || head.charCodeAt(first) !== 0x7b /* { */) return undefined;
  const end = Math.min(head.length, ID_SCAN_CHARS);
  let depth = 0;
  /** The last string read at depth 1, while only whitespace followed it: a key when a `:` comes next. */
  let key: string | undefined;
  for (let i = first; i < end; i++) {
    const c = head.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; i < end && head.charCodeAt(i) !== 0x22; i++) if (head.charCodeAt(i) === 0x5c /* \ */) i++;
      if (i >= end) return UNDECIDED;
      key = depth === 1 ? head.slice(start + 1, i) : undefined;
      continue;
    }
    if (c === 0x3a /* : */ && key !== undefined) {
      if (key === 'method') return undefined;
      if (key === 'id') return idValue(head.slice(i + 1, i + 1 + 1024));
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
    if (depth === 0) return undefined;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) key = undefined;
  }
  return UNDECIDED;
}

/** The id at the start of `text` (a JSON string or number followed by more of the line), if complete. */
function idValue(text: string): JsonRpcId | undefined {
  const match = ID_VALUE.exec(text);
  // A number cut by the end of the head ("id":12 of "id":123) is not taken: the next character must be there.
  if (match === null || match[0].length === text.length) return undefined;
  return idOf(match[1]!);
}

function idOf(token: string): JsonRpcId | undefined {
  try {
    const value = JSON.parse(token) as unknown;
    return typeof value === 'string' || typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
