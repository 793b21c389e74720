/**
 * Input from the peer that an error answer or a log line quotes (a method name, an id, a tool name, a URI, a header
 * value) is capped, so neither ever costs more than the message that caused it: a 4 MB unknown tool name was once
 * answered with an 8 MB error, and a 5 KB method name was written whole to the log. The one home of the cap for
 * both packages: `@switchboard/mcp` quotes through these functions too.
 */
import type { JsonRpcId } from './message.js';

/** Longest piece of peer input an error message, a `data` member or a log field quotes (UTF-16 units). */
export const MAX_ECHO_CHARS = 200;

/**
 * `text` as an error or a log line may quote it: unchanged up to {@link MAX_ECHO_CHARS}, else cut there with `…`
 * appended.
 * @param text - Peer input.
 * @returns At most {@link MAX_ECHO_CHARS} + 1 characters.
 * @example
 * echo('x'.repeat(1000)).length; // 201
 */
export function echo(text: string): string {
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text;
}

/**
 * A request id as a log line may show it: a number as it is, a string through {@link echo}. Log sites only: an
 * id sent back on the wire is always the id as received (JSON-RPC 2.0 §5).
 * @param id - The id (or `null`/`undefined` when there is none).
 * @returns The id, a string one capped.
 */
export function echoId<T extends JsonRpcId | null | undefined>(id: T): T {
  return (typeof id === 'string' && id.length > MAX_ECHO_CHARS ? echo(id) : id) as T;
}
