/**
 * Reclaiming sessions to make room: when a caller's budget or the session table is full, which live session of
 * this process gives its slot up. Sessions that did no work (never completed the handshake, or made at most one
 * request after it: what a flood's sessions do) go first, at once; one that did more only `graceMs` after its last
 * request; a busy one (a request in flight, a stream open) never. Among those, the group (caller, else address)
 * holding most sessions gives one up first, then the cheapest, then the longest idle. A scan that found nothing is
 * remembered for a second per key, which bounds what a flood against a full table costs.
 * Internal to the package (not a public entry).
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management" (a server MAY terminate a session at any time)
 */
import type { SessionPhase } from '../../../../stores/sessionStore.js';
import type { SessionEntry } from './sessionEntry.js';

/** How long a scan that found nothing reclaimable stands (ms); see `#nothingUntil`. */
const MEMO_MS = 1000;
/** The most callers remembered that way at once. */
const MAX_MEMOS = 10_000;

/** RFC 9110 §10.2.3 `Retry-After`: whole seconds until `at`, rounded up, at least 1; `null` for never. */
function secondsUntil(at: number, now: number): number | null {
  return Number.isFinite(at) ? Math.max(1, Math.ceil((at - now) / 1000)) : null;
}

/** What is known of one live session for reclaiming it. */
interface Usage {
  readonly group: string;
  /** Requests that did work (not `ping`) since the session opened. */
  requests: number;
}

/** Whether a session must not be closed by admission or the reaper: its lease has a request in flight or a stream open. */
export function isBusy(entry: SessionEntry): boolean {
  const lease = entry.transport;
  return lease.requestInFlight || lease.streamOpen;
}

/** {@link Reclaimer} construction: the session table's own maps, read (never written) here. */
export interface ReclaimerInit {
  /** The live entries of the table, by session id. */
  readonly entries: ReadonlyMap<string, SessionEntry>;
  /** The phase of each live session as last written to the store. */
  readonly phases: ReadonlyMap<string, SessionPhase>;
  /** How long after its last request a session that made two or more requests is kept from being reclaimed. */
  readonly graceMs: number;
}

/** @internal See the module documentation. One per session table. */
export class Reclaimer {
  readonly #entries: ReadonlyMap<string, SessionEntry>;
  readonly #phases: ReadonlyMap<string, SessionPhase>;
  readonly #graceMs: number;
  /** Per live session of this process: its group and how many requests it made after the handshake. */
  readonly #usage = new Map<string, Usage>();
  /** Live sessions of this process per group (see `AdmitRequest.group`). */
  readonly #groups = new Map<string, number>();
  /**
   * After a scan found nothing reclaimable: until when (ms) the same question is answered from its result
   * (`earliest`: when the first session becomes reclaimable) instead of scanning again. Keyed by caller (`''`: the
   * whole table). Bounds the work a flood against a full table can cause to one scan per key per second; the
   * price is that a busy session that goes idle past its timeout is taken back up to a second later.
   */
  readonly #nothingUntil = new Map<string, { readonly until: number; readonly earliest: number }>();

  constructor(init: ReclaimerInit) {
    this.#entries = init.entries;
    this.#phases = init.phases;
    this.#graceMs = init.graceMs;
  }

  /** Counts a session admitted (or adopted) for `group`, with the requests it is known to have made. */
  count(sessionId: string, group: string, requests: number): void {
    this.#usage.set(sessionId, { group, requests });
    this.#groups.set(group, (this.#groups.get(group) ?? 0) + 1);
  }

  /** One more request that did work on the session (a `ping` does not count). */
  worked(sessionId: string): void {
    const usage = this.#usage.get(sessionId);
    if (usage !== undefined) usage.requests++;
  }

  /** The group a session counts for, if it is counted. */
  groupOf(sessionId: string): string | undefined {
    return this.#usage.get(sessionId)?.group;
  }

  /** Stops counting a session (it is gone from this process). Idempotent. */
  forget(sessionId: string): void {
    const usage = this.#usage.get(sessionId);
    if (usage === undefined) return;
    this.#usage.delete(sessionId);
    const left = (this.#groups.get(usage.group) ?? 1) - 1;
    if (left <= 0) this.#groups.delete(usage.group);
    else this.#groups.set(usage.group, left);
  }

  /** A new session is reclaimable at once until its handshake completes: what the last scans found is stale. */
  stale(): void {
    this.#nothingUntil.clear();
  }

  /**
   * The session to close to make room (of `caller`, when given; see {@link #pick}); when none is reclaimable now,
   * the seconds until one will be (`null`: none will while every session is busy).
   */
  victim(now: number, caller: string | undefined): SessionEntry | number | null {
    const key = caller ?? '';
    const memo = this.#nothingUntil.get(key);
    if (memo !== undefined && now < memo.until && now < memo.earliest) return secondsUntil(memo.earliest, now);
    const { victim, earliest } = this.#pick(now, caller);
    if (victim === undefined) {
      if (this.#nothingUntil.size >= MAX_MEMOS) this.#nothingUntil.clear();
      this.#nothingUntil.set(key, { until: now + MEMO_MS, earliest });
      return secondsUntil(earliest, now);
    }
    this.#nothingUntil.delete(key);
    return victim;
  }

  /**
   * When a live session may be reclaimed to make room (ms since the epoch): at once when it never completed the
   * handshake or made at most one request after it (a flood's sessions do no more than that), else `graceMs` after
   * its last request.
   */
  #reclaimableAt(entry: SessionEntry, usage: Usage): number {
    const phase = this.#phases.get(entry.transport.sessionId) ?? 'opened';
    if (phase !== 'active' || usage.requests <= 1) return -Infinity;
    return entry.transport.lastActivity + this.#graceMs;
  }

  /**
   * The session to reclaim (of `group`, when given): among the sessions neither busy nor within their grace, those
   * of the group holding most live sessions first, then the cheapest (never completed the handshake, or at most one
   * request after it) before the others, then the longest idle. With `earliest`: when the first one still within its
   * grace leaves it (`Infinity`: none will; busy sessions are never taken).
   */
  #pick(now: number, group: string | undefined): { victim: SessionEntry | undefined; earliest: number } {
    let victim: SessionEntry | undefined;
    let bestHeld = 0;
    let bestCheap = false;
    let bestIdleSince = Infinity;
    let earliest = Infinity;
    for (const [id, usage] of this.#usage) {
      if (group !== undefined && usage.group !== group) continue;
      const entry = this.#entries.get(id);
      // A session admitted but not registered yet (connecting) is skipped, like a busy one.
      if (entry === undefined || isBusy(entry)) continue;
      const at = this.#reclaimableAt(entry, usage);
      if (at > now) {
        if (at < earliest) earliest = at;
        continue;
      }
      const held = this.#groups.get(usage.group) ?? 0;
      const cheap = at === -Infinity;
      const idleSince = entry.transport.lastActivity;
      const better = held !== bestHeld ? held > bestHeld : cheap !== bestCheap ? cheap : idleSince < bestIdleSince;
      if (victim === undefined || better) {
        victim = entry;
        bestHeld = held;
        bestCheap = cheap;
        bestIdleSince = idleSince;
      }
    }
    return { victim, earliest };
  }
}
