/**
 * The CLI's output layer, shared by every command (and by the doctor): colours (picocolors, off unless the io
 * asks), tables fitted to the terminal width (cli-table3), JSON on stdout, notes and errors on stderr.
 */
import Table from 'cli-table3';
import pc from 'picocolors';
import type { CliIo } from './cliIo.js';

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

/** Cuts `text` to `width` characters, ending with `…` when cut; newlines become spaces. */
export function cut(text: string, width: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  if (flat.length <= width) return flat;
  return width <= 1 ? flat.slice(0, Math.max(0, width)) : `${flat.slice(0, width - 1)}…`;
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

  /** Writes a value as indented JSON on stdout. */
  json(value: unknown): void {
    this.#io.stdout(`${JSON.stringify(value, null, 2)}\n`);
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
   * to `max`), flexible columns cut to what is left of the terminal width.
   */
  table(columns: readonly Column[], rows: readonly (readonly string[])[]): void {
    const gap = 2;
    const fixed = columns.map((column, i) => (column.flexible === true ? 0 : Math.min(column.max ?? 40, Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)))));
    const flexibleCount = columns.filter((column) => column.flexible === true).length;
    const gaps = gap * (columns.length - 1);
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
    const widths = columns.map((column, i) => (column.flexible === true ? room : fixed[i]!));
    const table = new Table({
      head: columns.map((column) => this.colors.bold(column.header)),
      chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: ' '.repeat(gap) },
      style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
    });
    for (const row of rows) table.push(columns.map((_, i) => cut(row[i] ?? '', widths[i]!)));
    this.line(table.toString().split('\n').map((line) => line.trimEnd()).join('\n'));
  }
}
