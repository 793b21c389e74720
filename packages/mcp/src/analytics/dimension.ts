/**
 * One dimension of the failure analytics (tools, methods, clients, revisions, users, server versions, or the
 * total): up to its cap of keyed rows, then one `(other)` row for every key past it. A row counts requests per
 * outcome class and per JSON-RPC code (at most 16 codes, then `other`), their latency in a fixed-size histogram,
 * and for a tool the top wire error messages and the clients and users behind its failures, each bounded; its
 * snapshot is the {@link AnalyticsRow} JSON. Memory stays fixed whatever the keys a client sends.
 */
import { OUTCOME_CLASSES, type ClassifiedOutcome, type OutcomeClass } from './classify.js';
import { LatencyHistogram } from './histogram.js';

/** The key of the row that counts every key past a dimension's cap. */
export const OTHER_KEY = '(other)';

/** Latency percentiles in milliseconds (`undefined` members: no sample). */
export interface LatencySnapshot {
  readonly p50?: number;
  readonly p95?: number;
  readonly p99?: number;
}

/** One row of a dimension in an `AnalyticsSnapshot` (`store.ts`). */
export interface AnalyticsRow {
  /** The tool, method, `client/version`, revision, user or server version; `(other)` for the overflow row. */
  readonly key: string;
  readonly count: number;
  /** Requests whose class is not `ok`. */
  readonly errors: number;
  /** `errors / count`, 0…1. */
  readonly errorRatio: number;
  /** Requests per class (every class present, 0 included). */
  readonly classes: Readonly<Record<OutcomeClass, number>>;
  /** Error responses per JSON-RPC code (as a string). */
  readonly codes: Readonly<Record<string, number>>;
  readonly latencyMs: LatencySnapshot;
  /** Tools only: the most frequent wire error messages, most frequent first. */
  readonly topMessages?: readonly { readonly message: string; readonly count: number }[];
  /** Tools only: failures whose message did not fit in the kept ones. */
  readonly otherMessages?: number;
  /**
   * Tools only: the clients (`name/version`) behind its failed calls (every class but `ok`), most failures first;
   * a failure with no client info is not in it.
   */
  readonly failingClients?: readonly FailingKey[];
  /** Tools only: failures of clients that did not fit in `failingClients`. */
  readonly otherFailingClients?: number;
  /** Tools only: the users behind its failed calls, most failures first (calls without a user are not in it). */
  readonly failingUsers?: readonly FailingKey[];
  /** Tools only: failures of users that did not fit in `failingUsers`. */
  readonly otherFailingUsers?: number;
}

/** A client or user behind a tool's failures, and how many. */
export interface FailingKey {
  readonly key: string;
  readonly failures: number;
}

/** What a row counts of one ended request (an `AnalyticsEntry` of `store.ts` is one). */
export interface CountedRequest {
  readonly outcome: ClassifiedOutcome;
  /** `name/version` of the client's `clientInfo`. */
  readonly client?: string | undefined;
  /** The authenticated identity, if any. */
  readonly user?: string | undefined;
}

/** Distinct codes kept per row (the rest count under `other`). */
const MAX_CODES = 16;

export function classRecord(counts: Uint32Array): Record<OutcomeClass, number> {
  const out = {} as Record<OutcomeClass, number>;
  for (let i = 0; i < OUTCOME_CLASSES.length; i++) out[OUTCOME_CLASSES[i]!] = counts[i]!;
  return out;
}

export class Row {
  readonly classes = new Uint32Array(OUTCOME_CLASSES.length);
  readonly latency = new LatencyHistogram();
  codes: Map<string, number> | undefined;
  messages: Map<string, number> | undefined;
  otherMessages = 0;
  /** Tools only, made at a first failure: who failed. */
  failing: Failing | undefined;

  constructor(readonly key: string) {}

  add(entry: CountedRequest, classIndex: number, bucket: number): void {
    this.classes[classIndex]!++;
    this.latency.recordBucket(bucket);
    const code = entry.outcome.code;
    if (code !== undefined) {
      const codes = (this.codes ??= new Map<string, number>());
      const key = codes.has(String(code)) || codes.size < MAX_CODES ? String(code) : 'other';
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }
  }

  addMessage(message: string, maxMessages: number, maxLength: number): void {
    const messages = (this.messages ??= new Map<string, number>());
    const text = message.length > maxLength ? message.slice(0, maxLength) : message;
    const seen = messages.get(text);
    if (seen !== undefined) messages.set(text, seen + 1);
    // A new key that was cut is kept as a copy (see `copied`); a counted one keeps its first key.
    else if (messages.size < maxMessages) messages.set(text === message ? text : copied(text), 1);
    else this.otherMessages++;
  }

  addFailure(entry: CountedRequest, max: number): void {
    const failing = (this.failing ??= new Failing());
    if (entry.client !== undefined && !countIn(failing.clients, entry.client, max)) failing.otherClients++;
    if (entry.user !== undefined && !countIn(failing.users, entry.user, max)) failing.otherUsers++;
  }

  snapshot(withMessages: boolean): AnalyticsRow {
    const count = this.latency.count;
    const errors = count - this.classes[0]!;
    const latencyMs: LatencySnapshot = count === 0 ? {} : { p50: this.latency.percentile(0.5)!, p95: this.latency.percentile(0.95)!, p99: this.latency.percentile(0.99)! };
    const row: AnalyticsRow = {
      key: this.key,
      count,
      errors,
      errorRatio: count === 0 ? 0 : errors / count,
      classes: classRecord(this.classes),
      codes: Object.fromEntries(this.codes ?? []),
      latencyMs,
    };
    if (!withMessages) return row;
    const topMessages = [...(this.messages ?? [])].sort((a, b) => b[1] - a[1]).map(([message, n]) => ({ message, count: n }));
    const failing = this.failing;
    return {
      ...row,
      topMessages,
      otherMessages: this.otherMessages,
      failingClients: failingKeys(failing?.clients),
      otherFailingClients: failing?.otherClients ?? 0,
      failingUsers: failingKeys(failing?.users),
      otherFailingUsers: failing?.otherUsers ?? 0,
    };
  }
}

/** Who is behind one tool's failures: bounded maps of client and user keys to failure counts. */
class Failing {
  readonly clients = new Map<string, number>();
  readonly users = new Map<string, number>();
  otherClients = 0;
  otherUsers = 0;
}

/**
 * `text` in a string of its own. V8 makes a slice of a long string a view that keeps the whole string alive, so a
 * kept cut of a long wire message would hold all of it: what the store keeps is copied out.
 */
export function copied(text: string): string {
  return text.split('').join('');
}

/** Counts `key` in `counts` when it is there or there is room for it (`max` keys); `false`: no room. */
function countIn(counts: Map<string, number>, key: string, max: number): boolean {
  const seen = counts.get(key);
  if (seen !== undefined) counts.set(key, seen + 1);
  else if (counts.size < max) counts.set(key, 1);
  else return false;
  return true;
}

function failingKeys(counts: Map<string, number> | undefined): FailingKey[] {
  return counts === undefined ? [] : [...counts].sort((a, b) => b[1] - a[1]).map(([key, failures]) => ({ key, failures }));
}

/** One dimension: up to `cap` keyed rows, then the `(other)` row. */
export class Dimension {
  readonly #rows = new Map<string, Row>();
  #other: Row | undefined;

  constructor(readonly cap: number) {}

  row(key: string): Row {
    const row = this.#rows.get(key);
    if (row !== undefined) return row;
    if (this.#rows.size < this.cap) {
      const created = new Row(key);
      this.#rows.set(key, created);
      return created;
    }
    return (this.#other ??= new Row(OTHER_KEY));
  }

  /** Distinct rows held, the `(other)` row included. */
  get size(): number {
    return this.#rows.size + (this.#other === undefined ? 0 : 1);
  }

  snapshot(withMessages: boolean): AnalyticsRow[] {
    const rows = [...this.#rows.values()].sort((a, b) => b.latency.count - a.latency.count).map((r) => r.snapshot(withMessages));
    if (this.#other !== undefined) rows.push(this.#other.snapshot(withMessages));
    return rows;
  }
}
