/**
 * The bounded store of the failure analytics: counts per class, error ratios, latency percentiles and the top
 * wire error messages, per tool, method, client, revision, user and server version (each a dimension of rows:
 * `dimension.ts`), plus per-minute buckets and the live tail of the latest failures.
 *
 * Fixed memory whatever the traffic: every dimension holds at most its cap of distinct keys, and what comes after
 * is counted in one `(other)` row; each tool keeps at most `maxMessagesPerTool` distinct messages, each cut to
 * `maxMessageLength` characters, and at most `maxFailingPerTool` clients and users behind its failures; latency
 * lives in fixed-size histograms (`histogram.ts`); the time buckets are a ring. So the largest store is about (sum
 * of the caps + 7) × 1.1 KB plus the messages and each tool's failing clients and users.
 */
import { OUTCOME_CLASSES, type ClassifiedOutcome, type OutcomeClass } from './classify.js';
import { classRecord, copied, Dimension, Row, type AnalyticsRow } from './dimension.js';
import { HISTOGRAM_RELATIVE_ERROR, bucketOf } from './histogram.js';

/** Bounds of an {@link AnalyticsStore}. */
export interface AnalyticsLimits {
  /** Distinct tool names kept (then `(other)`). @default 200 */
  readonly maxTools?: number;
  /** Distinct methods kept. @default 64 */
  readonly maxMethods?: number;
  /** Distinct client `name/version` pairs kept. @default 100 */
  readonly maxClients?: number;
  /** Distinct users kept. @default 500 */
  readonly maxUsers?: number;
  /** Distinct revisions kept. @default 16 */
  readonly maxRevisions?: number;
  /** Distinct server versions kept. @default 16 */
  readonly maxServerVersions?: number;
  /** Distinct error messages kept per tool (then counted as `otherMessages`). @default 10 */
  readonly maxMessagesPerTool?: number;
  /**
   * Distinct clients, and distinct users, kept per tool among its failed calls (then counted as `otherClients` /
   * `otherUsers`): who is behind a tool's failures. @default 10
   */
  readonly maxFailingPerTool?: number;
  /** Characters of an error message kept. @default 200 */
  readonly maxMessageLength?: number;
  /**
   * Characters of a key kept (a tool name, method, client `name/version`, user, revision or server version, all
   * from the wire): a longer one is cut and ends with `…`, so a client cannot make the store hold long names.
   * @default 200
   */
  readonly maxKeyLength?: number;
  /** Width of a time bucket in milliseconds. @default 60000 */
  readonly bucketMs?: number;
  /** Time buckets kept (the newest ones). @default 60 */
  readonly buckets?: number;
  /** The latest failed requests kept for a live tail (`recentFailures`), newest first. @default 50 */
  readonly recentFailures?: number;
}

/** The default {@link AnalyticsLimits}. */
export const DEFAULT_ANALYTICS_LIMITS: Required<AnalyticsLimits> = Object.freeze({
  maxTools: 200,
  maxMethods: 64,
  maxClients: 100,
  maxUsers: 500,
  maxRevisions: 16,
  maxServerVersions: 16,
  maxMessagesPerTool: 10,
  maxFailingPerTool: 10,
  maxMessageLength: 200,
  maxKeyLength: 200,
  bucketMs: 60_000,
  buckets: 60,
  recentFailures: 50,
});

/** One ended request as the store records it. */
export interface AnalyticsEntry {
  readonly method: string;
  /** The tool of a `tools/call`. */
  readonly tool?: string | undefined;
  /** `name/version` of the client's `clientInfo`. */
  readonly client?: string | undefined;
  readonly revision?: string | undefined;
  /** The authenticated identity, if any. */
  readonly user?: string | undefined;
  readonly serverVersion?: string | undefined;
  readonly outcome: ClassifiedOutcome;
  /** Milliseconds from arrival to answer. */
  readonly durationMs: number;
  /** The error message that went on the wire (an `isError` text or a JSON-RPC error message), if any. */
  readonly message?: string | undefined;
  /**
   * The W3C trace id the request carried (`params._meta.traceparent`, MCP 2026-07-28 basic/index.mdx "`_meta`"), kept
   * with a failure so its trace can be found. @default none
   */
  readonly traceId?: string | undefined;
}

/** One failed request of the live tail (`recentFailures`). */
export interface RecentFailure {
  /** When it was recorded, ISO 8601. */
  readonly at: string;
  readonly method: string;
  readonly tool?: string;
  readonly class: OutcomeClass;
  readonly code?: number;
  readonly client?: string;
  readonly user?: string;
  readonly durationMs: number;
  /** What went on the wire, cut to `maxMessageLength`. */
  readonly message?: string;
  readonly traceId?: string;
}

/** One time bucket. */
export interface AnalyticsBucket {
  /** Start of the bucket, ISO 8601. */
  readonly start: string;
  readonly classes: Readonly<Record<OutcomeClass, number>>;
}

/**
 * What `snapshot()` returns: plain JSON (`JSON.stringify` it as is). `version` changes only when a member is
 * removed or changes meaning.
 */
export interface AnalyticsSnapshot {
  readonly version: 1;
  /** When the store began counting, ISO 8601. */
  readonly since: string;
  /** When this snapshot was taken, ISO 8601. */
  readonly at: string;
  /** Relative error bound of every `latencyMs` percentile (0.044 = 4.4 %). */
  readonly latencyRelativeError: number;
  readonly total: AnalyticsRow;
  /** Rows sorted by count, most first; `(other)` last when present. */
  readonly byTool: readonly AnalyticsRow[];
  readonly byMethod: readonly AnalyticsRow[];
  readonly byClient: readonly AnalyticsRow[];
  readonly byRevision: readonly AnalyticsRow[];
  readonly byUser: readonly AnalyticsRow[];
  readonly byServerVersion: readonly AnalyticsRow[];
  /** Oldest first, one per `bucketMs`, only the buckets that saw a request. */
  readonly overTime: { readonly bucketMs: number; readonly buckets: readonly AnalyticsBucket[] };
  /** The latest failed requests (every class but `ok`), newest first, at most `limits.recentFailures`. */
  readonly recentFailures: readonly RecentFailure[];
  readonly limits: Required<AnalyticsLimits>;
}

const CLASS_INDEX: Readonly<Record<OutcomeClass, number>> = Object.freeze(Object.fromEntries(OUTCOME_CLASSES.map((c, i) => [c, i])) as Record<OutcomeClass, number>);

/**
 * One failure of the live tail as kept: the entry's facts copied (never the entry itself, whose message may be a
 * long text), the message cut to `maxLength` and copied out of it (`copied`).
 */
class TailItem {
  readonly method: string;
  readonly tool: string | undefined;
  readonly outcome: ClassifiedOutcome;
  readonly client: string | undefined;
  readonly user: string | undefined;
  readonly durationMs: number;
  readonly message: string | undefined;
  readonly traceId: string | undefined;

  constructor(
    readonly wall: number,
    entry: AnalyticsEntry,
    maxLength: number,
  ) {
    this.method = entry.method;
    this.tool = entry.tool;
    this.outcome = entry.outcome;
    this.client = entry.client;
    this.user = entry.user;
    this.durationMs = entry.durationMs;
    const message = entry.message;
    this.message = message === undefined || message.length <= maxLength ? message : copied(message.slice(0, maxLength));
    this.traceId = entry.traceId;
  }

  toJSON(): RecentFailure {
    const { outcome, tool, client, user, message, traceId } = this;
    return {
      at: new Date(this.wall).toISOString(),
      method: this.method,
      ...(tool === undefined ? {} : { tool }),
      class: outcome.class,
      ...(outcome.code === undefined ? {} : { code: outcome.code }),
      ...(client === undefined ? {} : { client }),
      ...(user === undefined ? {} : { user }),
      durationMs: Math.round(this.durationMs * 1000) / 1000,
      ...(message === undefined ? {} : { message }),
      ...(traceId === undefined ? {} : { traceId }),
    };
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`Invalid ${name}: expected an integer ≥ 1, got ${String(value)}`);
  return value;
}

/** The counting side of the analytics, fed one {@link AnalyticsEntry} per ended request. */
export class AnalyticsStore {
  readonly limits: Required<AnalyticsLimits>;
  readonly #total = new Row('total');
  readonly #tools: Dimension;
  readonly #methods: Dimension;
  readonly #clients: Dimension;
  readonly #users: Dimension;
  readonly #revisions: Dimension;
  readonly #serverVersions: Dimension;
  /** Ring of time buckets: the bucket number (time / bucketMs) and its counts per class. */
  readonly #bucketIds: Float64Array;
  readonly #bucketCounts: Uint32Array[];
  readonly #now: () => number;
  #since: number;
  /** Ring of the latest failures; `#nextFailure` is where the next one goes. */
  readonly #failures: (TailItem | undefined)[];
  #nextFailure = 0;

  /** @param now the wall clock in milliseconds since the epoch @default `Date.now` */
  constructor(limits: AnalyticsLimits = {}, now: () => number = Date.now) {
    const l = { ...DEFAULT_ANALYTICS_LIMITS, ...limits };
    for (const [name, value] of Object.entries(l)) positiveInteger(name, value);
    this.limits = Object.freeze(l);
    this.#tools = new Dimension(l.maxTools);
    this.#methods = new Dimension(l.maxMethods);
    this.#clients = new Dimension(l.maxClients);
    this.#users = new Dimension(l.maxUsers);
    this.#revisions = new Dimension(l.maxRevisions);
    this.#serverVersions = new Dimension(l.maxServerVersions);
    this.#bucketIds = new Float64Array(l.buckets).fill(-1);
    this.#bucketCounts = Array.from({ length: l.buckets }, () => new Uint32Array(OUTCOME_CLASSES.length));
    this.#now = now;
    this.#since = now();
    this.#failures = new Array<TailItem | undefined>(l.recentFailures);
  }

  /** Counts one ended request. */
  record(input: AnalyticsEntry): void {
    const entry = this.#bounded(input);
    const c = CLASS_INDEX[entry.outcome.class];
    const b = bucketOf(entry.durationMs);
    this.#total.add(entry, c, b);
    this.#methods.row(entry.method).add(entry, c, b);
    if (entry.tool !== undefined) {
      const row = this.#tools.row(entry.tool);
      row.add(entry, c, b);
      if (c !== 0) {
        if (entry.message !== undefined) row.addMessage(entry.message, this.limits.maxMessagesPerTool, this.limits.maxMessageLength);
        row.addFailure(entry, this.limits.maxFailingPerTool);
      }
    }
    if (entry.client !== undefined) this.#clients.row(entry.client).add(entry, c, b);
    if (entry.revision !== undefined) this.#revisions.row(entry.revision).add(entry, c, b);
    if (entry.user !== undefined) this.#users.row(entry.user).add(entry, c, b);
    if (entry.serverVersion !== undefined) this.#serverVersions.row(entry.serverVersion).add(entry, c, b);
    const wall = this.#now();
    const id = Math.floor(wall / this.limits.bucketMs);
    const slot = id % this.limits.buckets;
    if (this.#bucketIds[slot] !== id) {
      this.#bucketIds[slot] = id;
      this.#bucketCounts[slot]!.fill(0);
    }
    this.#bucketCounts[slot]![c]!++;
    if (c !== 0) this.#tail(entry, wall);
  }

  /** `entry` itself when every key fits `maxKeyLength` (the usual case: six length checks), else a copy with them cut. */
  #bounded(entry: AnalyticsEntry): AnalyticsEntry {
    const max = this.limits.maxKeyLength;
    const { method, tool, client, user, revision, serverVersion } = entry;
    if (method.length <= max && (tool?.length ?? 0) <= max && (client?.length ?? 0) <= max && (user?.length ?? 0) <= max && (revision?.length ?? 0) <= max && (serverVersion?.length ?? 0) <= max) return entry;
    const cut = <T extends string | undefined>(key: T): T => (key === undefined || key.length <= max ? key : (`${copied(key.slice(0, max - 1))}…` as T));
    return { ...entry, method: cut(method), tool: cut(tool), client: cut(client), user: cut(user), revision: cut(revision), serverVersion: cut(serverVersion) };
  }

  /** Keeps a failure in the live tail's ring (overwriting the oldest); its JSON shape is made only by `snapshot()`. */
  #tail(entry: AnalyticsEntry, wall: number): void {
    this.#failures[this.#nextFailure] = new TailItem(wall, entry, this.limits.maxMessageLength);
    this.#nextFailure = (this.#nextFailure + 1) % this.#failures.length;
  }

  /**
   * Requests recorded so far (the total row's count). It only grows: a reader that saw it unchanged has nothing
   * new to read (the dashboard's live feed polls it).
   */
  get recorded(): number {
    return this.#total.latency.count;
  }

  /** Rows held per dimension (each at most its cap + 1): what bounds the store's memory. */
  get sizes(): Readonly<Record<'tools' | 'methods' | 'clients' | 'users' | 'revisions' | 'serverVersions', number>> {
    return { tools: this.#tools.size, methods: this.#methods.size, clients: this.#clients.size, users: this.#users.size, revisions: this.#revisions.size, serverVersions: this.#serverVersions.size };
  }

  /** The live tail, newest first. */
  #recentFailures(): RecentFailure[] {
    const ring = this.#failures;
    const out: RecentFailure[] = [];
    for (let i = 1; i <= ring.length; i++) {
      const failure = ring[(this.#nextFailure - i + ring.length) % ring.length];
      if (failure !== undefined) out.push(failure.toJSON());
    }
    return out;
  }

  /** Everything counted so far, as plain JSON. */
  snapshot(): AnalyticsSnapshot {
    const now = this.#now();
    const current = Math.floor(now / this.limits.bucketMs);
    const buckets: AnalyticsBucket[] = [];
    for (let slot = 0; slot < this.limits.buckets; slot++) {
      const id = this.#bucketIds[slot]!;
      if (id >= 0 && id > current - this.limits.buckets) buckets.push({ start: new Date(id * this.limits.bucketMs).toISOString(), classes: classRecord(this.#bucketCounts[slot]!) });
    }
    buckets.sort((a, b) => (a.start < b.start ? -1 : 1));
    return {
      version: 1,
      since: new Date(this.#since).toISOString(),
      at: new Date(now).toISOString(),
      latencyRelativeError: Math.round(HISTOGRAM_RELATIVE_ERROR * 1000) / 1000,
      total: this.#total.snapshot(false),
      byTool: this.#tools.snapshot(true),
      byMethod: this.#methods.snapshot(false),
      byClient: this.#clients.snapshot(false),
      byRevision: this.#revisions.snapshot(false),
      byUser: this.#users.snapshot(false),
      byServerVersion: this.#serverVersions.snapshot(false),
      overTime: { bucketMs: this.limits.bucketMs, buckets },
      recentFailures: this.#recentFailures(),
      limits: this.limits,
    };
  }
}
