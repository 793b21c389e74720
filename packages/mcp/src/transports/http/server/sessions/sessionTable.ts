/**
 * The HTTP handler's session table: admission (the `maxSessions` cap, the per-caller budget, reclaiming sessions
 * under a flood from whoever holds most: `reclaimer.ts` chooses which), the idle and handshake reaper, and the live
 * transports of both HTTP transports.
 *
 * The records (when a session was opened and last used, how far it got, whose it is) live in a
 * {@link SessionStore}; the live transport objects stay here, in the process that serves them. Decisions read the
 * store; a session with a request in flight or an open stream is never closed by them, whatever its record says.
 * Internal to the package (not a public entry).
 */
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import type { Logger, TimerHandle } from '@switchboard/jsonrpc';
import { refusalOutput } from '../refusals.js';
import type { SessionPhase, SessionRecord, SessionStore } from '../../../../stores/sessionStore.js';
import type { HttpOutput } from '../inputOutput.js';
import type { SessionRecordLink } from './sessionTransportBase.js';
import type { ClusterHub } from './clusterHub.js';
import { isBusy, Reclaimer } from './reclaimer.js';
import type { AdmitRequest, AdoptableRecord, HttpSseEntry, SessionEntry, SessionTableInit, StreamableEntry } from './sessionEntry.js';

/** The `Retry-After` (seconds) of a refusal because the session store failed: a reconnecting store is back soon or not. */
export const STORE_RETRY_AFTER_SECONDS = 1;
// Where other modules (and branches) have always found them.
export type { HttpSseEntry, SessionEntry, StreamableEntry } from './sessionEntry.js';

/**
 * What {@link SessionTable.adoptable} answers for a record this request could be served from once it is complete,
 * but that does not hold the session's protocol revision and state yet.
 */
export const UNSETTLED = Symbol('session record unsettled');

/** What a session id can be (visible ASCII, bounded): anything else names no session, on any instance. */
const SESSION_ID = /^[\x21-\x7E]{1,256}$/;

/** A timeout option as a comparable span: `0` (or less) means never. */
function positiveOr(ms: number): number {
  return ms > 0 ? ms : Infinity;
}

const RANK: Readonly<Record<SessionPhase, number>> = { opened: 0, initialized: 1, active: 2 };

/** @internal See the module documentation. */
export class SessionTable {
  readonly #store: SessionStore;
  readonly #logger: Logger;
  readonly #max: number;
  readonly #maxPerCaller: number;
  readonly #idleMs: number;
  readonly #handshakeMs: number;
  /** The reaper's period (ms); `0` when nothing is ever reaped. */
  readonly #reapEvery: number;
  readonly #entries = new Map<string, SessionEntry>();
  /** The phase of each live session as last written to the store (so a touch writes a phase change only once). */
  readonly #phases = new Map<string, SessionPhase>();
  /** Chooses the session that gives its slot up when the table or a caller's budget is full. */
  readonly #reclaim: Reclaimer;
  /** Admissions run one after another, so two of them never both take the last slot. */
  #admitting: Promise<unknown> = Promise.resolve();
  #reaper: TimerHandle | undefined = undefined;
  #closed = false;
  /** Set while the server drains before it closes: live sessions are served, new ones refused. */
  #admissionsStopped = false;
  readonly #hub: () => ClusterHub | undefined;
  /** Sessions closing here only (they live on elsewhere, or ended elsewhere): their record is not touched. */
  readonly #localOnly = new Set<string>();
  /** Set when the table closes with a cluster: every session closes here only. */
  #detachAll = false;

  constructor(init: SessionTableInit) {
    this.#store = init.store;
    this.#logger = init.logger;
    this.#max = init.maxSessions;
    this.#maxPerCaller = init.maxSessionsPerCaller;
    this.#idleMs = init.idleMs;
    this.#handshakeMs = init.handshakeMs;
    this.#reclaim = new Reclaimer({ entries: this.#entries, phases: this.#phases, graceMs: init.graceMs });
    this.#hub = init.hub ?? (() => undefined);
    const shortest = Math.min(positiveOr(this.#idleMs), positiveOr(this.#handshakeMs));
    this.#reapEvery = Number.isFinite(shortest) ? Math.min(Math.max(Math.floor(shortest / 2), 10), 60_000) : 0;
  }

  /** Live sessions (both transports). */
  get size(): number {
    return this.#entries.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Refuses new sessions from now on (503) while the live ones go on being served: a graceful close drains. */
  stopAdmitting(): void {
    this.#admissionsStopped = true;
  }

  streamable(sessionId: string): StreamableEntry | undefined {
    const entry = this.#entries.get(sessionId);
    return entry?.kind === 'streamable-http' ? entry : undefined;
  }

  httpSse(sessionId: string): HttpSseEntry | undefined {
    const entry = this.#entries.get(sessionId);
    return entry?.kind === 'legacy-sse' ? entry : undefined;
  }

  /**
   * Admits a new session for its caller, making room when the caller's budget or the table is full by closing a
   * reclaimable session (see {@link Reclaimer.victim}). Resolves with the refusal to send, or with
   * `undefined` once the record of the session is stored (the slot is taken; {@link add} the live entry next).
   */
  admit(request: AdmitRequest): Promise<HttpOutput | undefined> {
    // A store that fails (a shared store whose server is unreachable) is a temporary refusal, not a crash: 503.
    const run = this.#admitting.then(() => this.#admitNow(request)).catch((error: unknown) => {
      this.#logger.error('Session store failed admitting a session', { error });
      return refusalOutput('sessionStoreUnavailable', { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
    });
    this.#admitting = run.catch(() => undefined);
    return run;
  }

  /**
   * The link of a session's transport to the session's record (see {@link SessionRecordLink}). A state change is
   * stamped with the time of the request that made it (the live copy's last activity), never later: a record whose
   * last activity ran ahead of its copy's would outlive it, and the reaper would let go of the copy here only (see
   * {@link #letGoOfIdleCopies}) and leave the record behind, from which a later request would rebuild a session
   * past its idle timeout.
   */
  link(sessionId: string): SessionRecordLink {
    const at = (): number => this.#entries.get(sessionId)?.transport.lastActivity ?? Date.now();
    return {
      recordProtocolVersion: (protocolVersion) => {
        if (this.#phases.has(sessionId)) this.#settle(this.#store.touch(sessionId, { at: at(), protocolVersion }));
      },
      recordedStreamPrefix: async () => (await this.#store.get(sessionId))?.streamPrefix ?? undefined,
      recordState: (state) => {
        if (!this.#phases.has(sessionId)) return Promise.resolve(true);
        // The record first, then the word: an instance that hears of the change and reads the record finds it.
        return this.#store.touch(sessionId, { at: at(), state, protocolVersion: state.protocolVersion }).then(
          async () => {
            await this.#hub()?.stateChanged(sessionId, state);
            return true;
          },
          (error: unknown) => {
            this.#logger.error('Session store failed', { error });
            return false;
          },
        );
      },
    };
  }

  /**
   * The record of a session this instance does not hold, when it can serve it (a Streamable HTTP session whose
   * `initialize` succeeded on some instance sharing the store, opened by `opener`); `null` when the store has no
   * such record; `undefined` when it has one this request may not be served from; {@link UNSETTLED} (with a cluster)
   * when it has one this request may be served from once its revision and state are stored. One store read.
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management" item 4 (an unknown or ended session is 404)
   */
  async adoptable(sessionId: string, opener: string | null): Promise<AdoptableRecord | null | undefined | typeof UNSETTLED> {
    if (this.#closed) return undefined;
    // MCP 2025-11-25 basic/transports.mdx "Session Management": a session ID "MUST only contain visible ASCII
    // characters (ranging from 0x21 to 0x7E)"; no session has another, so a shared store is not asked for one.
    if (!SESSION_ID.test(sessionId)) return null;
    const record = await this.#store.get(sessionId);
    if (record === undefined) return null;
    // MCP 2025-11-25 basic/security_best_practices.mdx "Session Hijacking": a session id is no credential of its own;
    // the session is served only to whoever opened it.
    // Fail closed: a record without an opener (a store that dropped it) is served only to requests with none.
    if ((record.opener ?? null) !== opener) return undefined;
    if (record.transport !== 'streamable-http') return undefined;
    // Its handshake is under way elsewhere, or the instance that holds it has not managed to store its state yet (a
    // store that refused the write): it may be live there, so it is no 404 (which would make the client drop it).
    // Only with a cluster, where every session's record gets its state (without one, such a record is never served).
    if (record.protocolVersion === null || record.state === undefined || record.state === null) return this.#hub() === undefined ? undefined : UNSETTLED;
    return record as AdoptableRecord;
  }

  /**
   * Registers the live entry of a session rebuilt from `record` (no admission: the session exists, its slot was
   * taken when it was opened). It counts as a session that did work, so it is not reclaimed before its grace.
   */
  addAdopted(entry: StreamableEntry, record: SessionRecord): void {
    const id = entry.transport.sessionId;
    this.#phases.set(id, record.phase);
    this.#reclaim.count(id, record.caller ?? '', 2);
    this.add(entry);
  }

  /** The session ended on another instance: its copy here closes, its record (already gone) is not touched. */
  closedElsewhere(sessionId: string): void {
    const entry = this.#entries.get(sessionId);
    if (entry === undefined) return;
    this.#localOnly.add(sessionId);
    void this.remove(sessionId, entry.transport);
    void this.closeEntry(entry);
  }

  async #admitNow(request: AdmitRequest): Promise<HttpOutput | undefined> {
    const { sessionId, kind, caller, group, streamPrefix, opener } = request;
    if (this.#closed) return refusalOutput('handlerClosed');
    if (this.#admissionsStopped) return refusalOutput('shuttingDown');
    const now = Date.now();
    if (caller !== undefined && this.#maxPerCaller < this.#max && (await this.#store.count({ caller })) >= this.#maxPerCaller) {
      const wait = await this.#makeRoom(now, caller);
      if (wait !== undefined) {
        return this.#refusal('tooManyCallerSessions', `${this.#maxPerCaller} sessions of this caller are live`, wait);
      }
    }
    if ((await this.#store.count()) >= this.#max) {
      const wait = await this.#makeRoom(now, undefined);
      if (wait !== undefined) return this.#refusal('tooManySessions', `${this.#max} sessions are live`, wait);
    }
    if (this.#closed) return refusalOutput('handlerClosed');
    const handshake = Math.min(positiveOr(this.#idleMs), positiveOr(this.#handshakeMs));
    const record: SessionRecord = {
      sessionId,
      transport: kind,
      caller: caller ?? null,
      createdAt: now,
      lastActivity: now,
      phase: 'opened',
      ttlMs: Number.isFinite(handshake) ? handshake : 0,
      streamPrefix,
      protocolVersion: null,
      ...(opener === null ? {} : { opener }),
    };
    await this.#store.create(record);
    this.#phases.set(sessionId, 'opened');
    this.#reclaim.count(sessionId, group, 0);
    return undefined;
  }

  /** Registers the live entry of an admitted session and starts the reaper. */
  add(entry: SessionEntry): void {
    this.#entries.set(entry.transport.sessionId, entry);
    // A new session is reclaimable at once until its handshake completes: what the last scans found is stale.
    this.#reclaim.stale();
    this.#startReaper();
    if (entry.kind === 'streamable-http') this.#hub()?.hold(entry.transport.sessionId);
  }

  /**
   * Records a request on a session: its time and, when it moved the session on, its phase (a phase never goes
   * back). Without a cluster nothing waits for the store's write (a failure is logged) and `undefined` is returned.
   * With one, resolves whether the session's record is still there (`false`: it ended elsewhere, and the word may
   * not have reached this instance yet; a store failure counts as there, and is logged): the caller awaits it
   * before serving the request (MCP 2025-11-25 basic/transports.mdx "Session Management" item 5).
   */
  touch(entry: SessionEntry, phase: SessionPhase): Promise<boolean> | undefined {
    const id = entry.transport.sessionId;
    const current = this.#phases.get(id);
    if (current === undefined) return undefined;
    const at = Date.now();
    if (phase === 'active') this.#reclaim.worked(id);
    let write: Promise<boolean | void>;
    if (RANK[phase] > RANK[current]) {
      this.#phases.set(id, phase);
      // A legacy session lives as long as its stream: once used, only the stream's end closes it.
      const ttlMs = entry.kind === 'legacy-sse' ? 0 : this.#idleMs;
      write = this.#store.touch(id, { at, phase, ttlMs });
    } else {
      write = this.#store.touch(id, { at });
    }
    if (this.#hub() === undefined) {
      this.#settle(write);
      return undefined;
    }
    return write.then(
      (found) => found !== false,
      (error: unknown) => {
        this.#logger.error('Session store failed', { error });
        return true;
      },
    );
  }

  /**
   * Ends a session on a DELETE: its record is deleted first, and only once that is done is the session closed here
   * and its end told to the other instances. Resolves `'ended'`; `'gone'` when (with a cluster) its record was
   * already gone (it ended elsewhere: the caller answers 404); `'unavailable'` when the store failed: the session
   * then stays live here and everywhere (the caller answers 503, and a retried DELETE ends it).
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management" item 5 (after termination, 404 on every instance)
   */
  async terminate(entry: StreamableEntry, touch: boolean): Promise<'ended' | 'gone' | 'unavailable'> {
    const id = entry.transport.sessionId;
    const recorded = this.#phases.has(id) && !this.#localOnly.has(id) && !this.#detachAll;
    if (recorded) {
      try {
        // A copy of a session that already ended elsewhere (the word may not have reached this instance yet).
        if (touch && !(await this.#store.touch(id, { at: Date.now() }))) return 'gone';
        await this.#store.delete(id);
      } catch (error) {
        this.#logger.error('Session store failed ending a session', { error });
        return 'unavailable';
      }
    }
    if (this.#entries.get(id) === entry) {
      // The record is deleted: what is left is local.
      this.#localOnly.add(id);
      void this.remove(id, entry.transport);
      // Once ended, the session's id gets 404 on every instance: the others close their copies.
      if (recorded) this.#hub()?.sessionClosed(id);
    }
    await this.closeEntry(entry);
    return 'ended';
  }

  /**
   * Forgets a session at once (its transport closed, or is closing): its slot is free now. With `transport`, only
   * when the live entry of `sessionId` (if any) is that transport's. Idempotent.
   */
  remove(sessionId: string, transport?: SessionEntry['transport']): Promise<void> | undefined {
    const entry = this.#entries.get(sessionId);
    if (transport !== undefined && entry !== undefined && entry.transport !== transport) return undefined;
    this.#entries.delete(sessionId);
    this.#reclaim.forget(sessionId);
    const hub = this.#hub();
    hub?.drop(sessionId);
    const here = this.#localOnly.delete(sessionId) || this.#detachAll;
    if (!this.#phases.delete(sessionId) || here) return undefined;
    const deleted = this.#store.delete(sessionId).catch((error: unknown) => this.#logger.error('Session store failed', { error }));
    // MCP 2025-11-25 basic/transports.mdx "Session Management" item 5: once ended, the session's id gets 404 on
    // every instance: the others close their copies.
    hub?.sessionClosed(sessionId);
    return deleted;
  }

  /** Closes a session (its McpServer session when connected, else its transport); never rejects. */
  async closeEntry(entry: SessionEntry): Promise<void> {
    try {
      if (entry.session !== undefined) await entry.session.close();
      else await entry.transport.close();
    } catch (error) {
      this.#logger.warn('Closing an HTTP session failed', { sessionId: entry.transport.sessionId, error });
      await entry.transport.close();
    }
  }

  /** Closes every session and stops the reaper; later admissions are refused. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#reaper !== undefined) clearTimeout(this.#reaper);
    this.#reaper = undefined;
    const hub = this.#hub();
    if (hub !== undefined) {
      // With a cluster the sessions live on: this instance gives its lease up first (the others then fail what it
      // was running as soon as a client resumes there) and lets go of them (records, history and its streams'
      // records kept).
      this.#detachAll = true;
      await hub.close();
      for (const entry of this.#entries.values()) if (entry.kind === 'streamable-http') entry.transport._detach();
    }
    await Promise.allSettled([...this.#entries.values()].map((entry) => this.closeEntry(entry)));
  }

  /**
   * Closes the session {@link Reclaimer.victim} chooses (of `caller`, when given) and resolves with `undefined`; when
   * none is reclaimable now, resolves with the seconds until one will be (`null`: none will while every session is busy).
   */
  async #makeRoom(now: number, caller: string | undefined): Promise<number | null | undefined> {
    const victim = this.#reclaim.victim(now, caller);
    if (typeof victim !== 'object' || victim === null) return victim;
    const id = victim.transport.sessionId;
    this.#logger.debug('Closing an HTTP session to make room', { sessionId: id, phase: this.#phases.get(id), group: this.#reclaim.groupOf(id) });
    this.#entries.delete(id);
    this.#phases.delete(id);
    this.#reclaim.forget(id);
    await this.#store.delete(id);
    this.#hub()?.drop(id);
    this.#hub()?.sessionClosed(id);
    void this.closeEntry(victim);
    return undefined;
  }

  #refusal(name: 'tooManySessions' | 'tooManyCallerSessions', detail: string, retryAfter: number | null | undefined): HttpOutput {
    return refusalOutput(name, { detail, retryAfterSeconds: typeof retryAfter === 'number' ? retryAfter : undefined });
  }

  #startReaper(): void {
    if (this.#reaper !== undefined || this.#closed || this.#reapEvery === 0) return;
    this.#reaper = setUnrefTimeout(this.#reapTick, this.#reapEvery);
  }

  /** One reaping pass, then the next one armed (until the table closes). */
  readonly #reapTick = (): void => {
    this.#reaper = undefined;
    this.#reap(Date.now()).catch((error: unknown) => this.#logger.error('Reaping HTTP sessions failed', { error }));
    this.#startReaper();
  };

  /** Closes the sessions whose TTL since their last request passed, unless busy. */
  async #reap(now: number): Promise<void> {
    const expired: SessionEntry[] = [];
    await this.#store.scan((record) => {
      if (record.ttlMs <= 0 || record.lastActivity + record.ttlMs > now) return true;
      const entry = this.#entries.get(record.sessionId);
      if (entry !== undefined && !isBusy(entry)) expired.push(entry);
      return true;
    });
    for (const entry of expired) {
      const id = entry.transport.sessionId;
      this.#logger.debug(this.#phases.get(id) === 'opened' ? 'Reaping HTTP session that never completed its handshake' : 'Reaping idle HTTP session', { sessionId: id });
      void this.remove(id, entry.transport);
      void this.closeEntry(entry);
    }
    this.#letGoOfIdleCopies(now);
  }

  /**
   * Lets go (here only) of the Streamable HTTP sessions unused *on this instance* for `idleMs` while their record
   * lives on (they are used on other instances, or a shared store expired their record by TTL and the scan no longer
   * meets them): a request that comes back here rebuilds the session from its record. Bounds the copies an instance
   * keeps to the sessions it served lately. With one instance, the scan above has already reaped these.
   */
  #letGoOfIdleCopies(now: number): void {
    if (this.#idleMs <= 0 || this.#closed) return;
    for (const entry of [...this.#entries.values()]) {
      if (entry.kind !== 'streamable-http' || entry.transport.lastActivity + this.#idleMs > now || isBusy(entry)) continue;
      const id = entry.transport.sessionId;
      this.#logger.debug('Letting go of an HTTP session idle on this instance', { sessionId: id });
      entry.transport._detach();
      this.#localOnly.add(id);
      void this.remove(id, entry.transport);
      void this.closeEntry(entry);
    }
  }

  #settle(write: Promise<unknown>): void {
    write.catch((error: unknown) => this.#logger.error('Session store failed', { error }));
  }
}

