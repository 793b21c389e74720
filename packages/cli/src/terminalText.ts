/**
 * The one home of how a server-controlled string reaches a terminal. A server's names, descriptions, results, errors,
 * logs, progress messages, elicitation questions and stderr lines are text to show, never instructions to the
 * terminal: every character a terminal would act on is written as a visible escape, so an ESC/CSI/OSC sequence (a
 * colour, an OSC 8 link, an OSC 52 clipboard write, a window title), a BEL, a CR overwrite, a backspace, DEL or a C1
 * control (U+0080–U+009F, such as U+009B, the one-byte CSI) shows as `\x1b[31m`, `\x07`, `\r`, `\x08`, `\x7f`,
 * `\u009b`, and does nothing. Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069: "Trojan Source",
 * CVE-2021-42574) are escaped too, so a server cannot make text read in an order other than the one it has.
 * Backslashes are left as they are (paths and patterns read as written).
 *
 * Our own colouring is applied after this, around escaped text, so it stays. Runtime-neutral (the doctor's report
 * uses it as well).
 */

/** How a string is laid out where it is printed. */
export type TextLayout =
  /** One line (a table cell, a name, a log line): line feeds and tabs are escaped too (`\n`, `\t`). */
  | 'line'
  /** A block of text (a tool result, a resource's text): its line feeds and tabs stay. */
  | 'block'
  /**
   * Evidence shown exactly as seen (the doctor's report): line feeds stay, tabs are escaped, and characters that
   * would be invisible are shown too (no-break space, soft hyphen, zero-width and direction marks, line and
   * paragraph separators, word joiners, the byte order mark).
   */
  | 'evidence';

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/* eslint-disable no-control-regex -- matching control characters is the point */
const UNSAFE: Readonly<Record<TextLayout, RegExp>> = {
  line: /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
  block: /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
  evidence: /[\u0000-\u0009\u000b-\u001f\u007f-\u00a0\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
};
/** What `--json` leaves raw that a terminal would act on: DEL, C1 controls, bidi overrides (JSON escapes C0 itself). */
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/**
 * A server-controlled value made safe to print on a terminal (see the module comment).
 * @param value the text (anything else is printed as `String(value)`)
 * @param layout where it is printed. @default 'line'
 */
export function terminalText(value: unknown, layout: TextLayout = 'line'): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.replace(UNSAFE[layout], escapeChar);
}

/**
 * JSON for a terminal: `JSON.stringify` escapes C0 controls (ESC among them) but leaves DEL, the C1 controls and the
 * bidi overrides raw; here they are `\u007f`, `\u009b`, `\u202e` as well. Still JSON, and it parses back to the same
 * value.
 * @param indent spaces of indentation. @default 2
 */
export function terminalJson(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  return (text ?? 'null').replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
