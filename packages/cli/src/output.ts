/**
 * The CLI's output layer, shared by every command (and by the doctor): colours (picocolors, off unless the io
 * asks), tables fitted to the terminal width, JSON on stdout, notes and errors on stderr. Server-controlled text is
 * made safe by `terminalText.ts` before it is coloured; table cells and JSON are made safe here.
 */
import pc from 'picocolors';
import type { CliIo } from './cliIo.js';
import { terminalJson, terminalText } from './terminalText.js';

/** The width used when stdout is not a terminal. */
export const DEFAULT_COLUMNS = 100;

/** The fewest characters a flexible column is given. */
const MIN_FLEXIBLE = 10;

/** The colour functions of one run (identity functions when colour is off). */
export type Colors = ReturnType<typeof pc.createColors>;

/** One column of {@link Output.table}. */
export interface Column {
  readonly header: string;
  /** Cut to the room left once the fixed columns are laid out (the description column). @default false */
  readonly flexible?: boolean;
  /** Longest a fixed column may be, in characters. @default 40 */
  readonly max?: number;
}

/**
 * Text on one line: each line feed, with the white space around it, becomes one space. The same as replacing the
 * pattern "white space, line feed, white space" with a space, in linear time: that regular expression backtracks
 * quadratically on a long run of spaces without a line feed.
 */
function flatten(text: string): string {
  if (!text.includes('\n')) return text;
  const parts = text.split('\n');
  const last = parts.length - 1;
  const kept: string[] = [];
  parts.forEach((part, i) => {
    const trimmed = i === 0 ? part.trimEnd() : i === last ? part.trimStart() : part.trim();
    // A blank line between two others adds nothing: the space that joins them stands for it.
    if (trimmed !== '' || i === 0 || i === last) kept.push(trimmed);
  });
  return kept.join(' ');
}

/**
 * Server text for one line of `width` characters: newlines become spaces, every other control is escaped
 * (`terminalText`), then it is cut, ending with `…` when cut. Only the head that can show is escaped.
 */
export function cut(text: string, width: number): string {
  const flat = flatten(text);
  const head = terminalText(flat.slice(0, Math.max(0, width) + 1), 'line');
  if (head.length <= width) return head;
  return width <= 1 ? head.slice(0, Math.max(0, width)) : `${head.slice(0, width - 1)}…`;
}

/** Where a command writes; see the module comment. */
export class Output {
  readonly colors: Colors;
  readonly #io: CliIo;

  constructor(io: CliIo) {
    this.#io = io;
    this.colors = pc.createColors(io.color === true);
  }

  /** The terminal width in columns ({@link DEFAULT_COLUMNS} when not a terminal). */
  get columns(): number {
    return this.#io.columns ?? DEFAULT_COLUMNS;
  }

  /** Writes one line (or several) to stdout. */
  line(text = ''): void {
    this.#io.stdout(`${text}\n`);
  }

  /** Writes text to stdout as it is. */
  raw(text: string): void {
    this.#io.stdout(text);
  }

  /** Writes a value as indented JSON on stdout (DEL, C1 controls and bidi overrides escaped too: `terminalJson`). */
  json(value: unknown): void {
    this.#io.stdout(`${terminalJson(value)}\n`);
  }

  /** Writes one line to stderr (progress, logs, notes). */
  note(text: string): void {
    this.#io.stderr(`${text}\n`);
  }

  /** Writes an error line to stderr: `switchboard: <text>`. */
  error(text: string): void {
    this.#io.stderr(`${this.colors.red('switchboard:')} ${text}\n`);
  }

  /** A heading line on stdout. */
  heading(text: string): void {
    this.line(this.colors.bold(text));
  }

  /**
   * Writes rows as a table without borders, each row on one line: fixed columns as wide as their longest cell (up
   * to `max`), flexible columns cut to what is left of the terminal width. Every cell is server text, made safe and
   * cut by {@link cut}. Linear in the number of cells (a catalog of tens of thousands of tools stays fast): one pass
   * for the widths, one to lay out the lines.
   */
  table(columns: readonly Column[], rows: readonly (readonly string[])[]): void {
    const gap = ' '.repeat(2);
    const fixed = columns.map((column) => (column.flexible === true ? 0 : column.header.length));
    for (const row of rows) {
      columns.forEach((column, i) => {
        if (column.flexible !== true) fixed[i] = Math.max(fixed[i]!, Math.min(column.max ?? 40, (row[i] ?? '').length));
      });
    }
    const flexibleCount = columns.filter((column) => column.flexible === true).length;
    const gaps = gap.length * (columns.length - 1);
    // On a narrow terminal the fixed columns give way first, down to their headers, so the flexible ones keep 10.
    const least = Math.max(MIN_FLEXIBLE, ...columns.filter((column) => column.flexible === true).map((column) => column.header.length));
    const budget = this.columns - gaps - least * flexibleCount;
    for (let total = fixed.reduce((sum, width) => sum + width, 0); total > budget; total--) {
      const widest = fixed.indexOf(Math.max(...fixed));
      if (fixed[widest]! <= columns[widest]!.header.length) break;
      fixed[widest]! -= 1;
    }
    const used = fixed.reduce((sum, width) => sum + width, 0) + gaps;
    const room = Math.max(least, Math.floor((this.columns - used) / Math.max(1, flexibleCount)));
    const limits = columns.map((column, i) => (column.flexible === true ? room : fixed[i]!));
    const cells = rows.map((row) => columns.map((_, i) => cut(row[i] ?? '', limits[i]!)));
    // Each column as wide as its widest cut cell (or its header); the last one is not padded.
    const widths = columns.map((column) => column.header.length);
    for (const row of cells) row.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, cell.length)));
    const last = columns.length - 1;
    const lines = [columns.map((column, i) => this.colors.bold(i === last ? column.header : column.header.padEnd(widths[i]!))).join(gap).trimEnd()];
    for (const row of cells) lines.push(row.map((cell, i) => (i === last ? cell : cell.padEnd(widths[i]!))).join(gap).trimEnd());
    this.line(lines.join('\n'));
  }
}
