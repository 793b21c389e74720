/**
 * Client input quoted back in an error (a tool name, a URI, a header value) is capped, so an error answer never
 * costs more than the request: a 4 MB unknown tool name was answered with an 8 MB error (message and data).
 */

/** Longest piece of client input an error message or `data` member echoes (UTF-16 units). */
export const MAX_ECHO_CHARS = 200;

/**
 * `text` as an error may quote it: unchanged up to {@link MAX_ECHO_CHARS}, else cut there with `…` appended.
 * @example
 * echo('x'.repeat(1000)).length; // 201
 */
export function echo(text: string): string {
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text;
}
