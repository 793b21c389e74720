/**
 * {@link RecurringLog}: one log line per class of a failure that can repeat once per message (a response the
 * transport refused to send, say), then a summary with the count at most once per interval, and a last one when
 * the connection ends. A peer that refuses every answer of a burst of requests made one or two error lines per
 * request; now it makes one per class.
 */
import type { Logger } from './logger.js';

/** How often (ms) a class that keeps recurring gets a summary line. */
export const RECURRING_LOG_INTERVAL_MS = 10_000;
/** Classes kept apart; more are counted together under `other`. */
const MAX_CLASSES = 32;

interface Tally {
  readonly level: 'warn' | 'error';
  readonly message: string;
  count: number;
  reported: number;
  lastAt: number;
  fields: Record<string, unknown>;
}

/** The class of a failure: its `code` (a string or number) and HTTP `status` when it has them, else its name. */
export function failureClass(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { code, status, name } = error as { readonly code?: unknown; readonly status?: unknown; readonly name?: unknown };
  const parts = [typeof code === 'string' || typeof code === 'number' ? String(code) : typeof name === 'string' ? name : 'error'];
  if (typeof status === 'number') parts.push(String(status));
  return parts.join(' ');
}

/** Rate-limited logging of a failure that recurs per message; see the module comment. */
export class RecurringLog {
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #tallies = new Map<string, Tally>();

  constructor(logger: Logger, intervalMs = RECURRING_LOG_INTERVAL_MS) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
  }

  /**
   * Counts one occurrence of `message` for the class of `error`: the first is logged as it is (with `fields`), later
   * ones only in a summary (`count` in all, `since` the last line) once {@link RECURRING_LOG_INTERVAL_MS} passed.
   */
  note(level: 'warn' | 'error', message: string, fields: { readonly error: unknown } & Record<string, unknown>): void {
    let key = `${level} ${message} ${failureClass(fields.error)}`;
    if (!this.#tallies.has(key) && this.#tallies.size >= MAX_CLASSES) key = `${level} ${message} other`;
    const now = Date.now();
    let tally = this.#tallies.get(key);
    if (tally === undefined) {
      tally = { level, message, count: 0, reported: 0, lastAt: now, fields };
      this.#tallies.set(key, tally);
    }
    tally.count++;
    tally.fields = fields;
    if (tally.count === 1) {
      tally.reported = 1;
      this.#log(tally.level, message, fields);
    } else if (now - tally.lastAt >= this.#intervalMs) this.#summary(tally, now);
  }

  /** Logs the summary of every class with occurrences not yet reported (at the end of the connection). */
  flush(): void {
    const now = Date.now();
    for (const tally of this.#tallies.values()) if (tally.count > tally.reported) this.#summary(tally, now);
  }

  #summary(tally: Tally, now: number): void {
    const since = tally.count - tally.reported;
    tally.reported = tally.count;
    tally.lastAt = now;
    this.#log(tally.level, `${tally.message} (${since} more times, ${tally.count} in all; the latest error attached)`, { ...tally.fields, count: tally.count, since });
  }

  #log(level: 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
    try {
      this.#logger[level](message, fields);
    } catch {
      // Logging never crashes the peer.
    }
  }
}
