/**
 * The budgets of the in-memory task store, per caller and in total: how many tasks each caller keeps and how many
 * bytes their stored state takes (a finished task's result or error, a waiting task's input requests), and who
 * gives up a finished task when a budget is full. A caller's finished task is kept for its whole TTL unless that
 * caller's own quota pushes it out, oldest first; only when the store's total is full (more callers than the total
 * holds shares for) does the caller holding most give up its oldest finished task. A live task is never evicted
 * (the task runner bounds live tasks, per caller and in total).
 */

/** Default of `InMemoryTaskStore`'s `maxTasks`: tasks kept at most, all callers together. */
export const DEFAULT_MAX_STORED_TASKS = 10_000;
/** Default of `InMemoryTaskStore`'s `maxTasksPerCaller`: tasks one caller keeps at most. */
export const DEFAULT_MAX_STORED_TASKS_PER_CALLER = 1000;
/** Default of `InMemoryTaskStore`'s `maxStoredBytes`: 64 MiB of task state, all callers together. */
export const DEFAULT_MAX_STORED_TASK_BYTES = 64 * 1024 * 1024;
/** Default of `InMemoryTaskStore`'s `maxStoredBytesPerCaller`: 16 MiB of task state per caller. */
export const DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER = 16 * 1024 * 1024;

/** The budgets of {@link TaskQuotas}. */
export interface TaskQuotaLimits {
  readonly maxTasks: number;
  readonly maxTasksPerCaller: number;
  readonly maxBytes: number;
  readonly maxBytesPerCaller: number;
}

/** What one caller holds. Its task ids in creation order (the oldest first). */
interface Holding {
  readonly ids: Set<string>;
  bytes: number;
}

/** What the quotas need to know of a stored task. */
export interface QuotaEntry {
  readonly caller: string;
  bytes: number;
}

/** How {@link TaskQuotas.enforce} evicts: which tasks may go, how one goes, and the one to keep (just stored). */
export interface Eviction {
  evictable(taskId: string): boolean;
  /** Forgets the task; must call {@link TaskQuotas.removed}. */
  evict(taskId: string): void;
  readonly keep?: string;
}

/**
 * The accounting of {@link TaskQuotas}: it is told of every task stored, resized and forgotten, and names the
 * tasks to evict; the store does the evicting (through `evict`, which must call {@link TaskQuotas.removed}).
 */
export class TaskQuotas {
  readonly limits: TaskQuotaLimits;
  readonly #holdings = new Map<string, Holding>();
  #count = 0;
  #bytes = 0;

  constructor(limits: TaskQuotaLimits) {
    this.limits = limits;
  }

  /** Tasks stored, all callers. */
  get count(): number {
    return this.#count;
  }

  /** Bytes of task state stored, all callers. */
  get bytes(): number {
    return this.#bytes;
  }

  /** What `caller` holds now: tasks and bytes. */
  holding(caller: string): { readonly tasks: number; readonly bytes: number } {
    const holding = this.#holdings.get(caller);
    return holding === undefined ? { tasks: 0, bytes: 0 } : { tasks: holding.ids.size, bytes: holding.bytes };
  }

  added(taskId: string, entry: QuotaEntry): void {
    let holding = this.#holdings.get(entry.caller);
    if (holding === undefined) this.#holdings.set(entry.caller, (holding = { ids: new Set(), bytes: 0 }));
    holding.ids.add(taskId);
    holding.bytes += entry.bytes;
    this.#count++;
    this.#bytes += entry.bytes;
  }

  resized(entry: QuotaEntry, bytes: number): void {
    const holding = this.#holdings.get(entry.caller);
    if (holding !== undefined) holding.bytes += bytes - entry.bytes;
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  removed(taskId: string, entry: QuotaEntry): void {
    const holding = this.#holdings.get(entry.caller);
    if (holding === undefined || !holding.ids.delete(taskId)) return;
    holding.bytes -= entry.bytes;
    this.#count--;
    this.#bytes -= entry.bytes;
    if (holding.ids.size === 0) this.#holdings.delete(entry.caller);
  }

  /**
   * Brings `caller` within its own quotas, then the store within its totals, by evicting finished tasks
   * ({@link Eviction}).
   */
  enforce(caller: string, eviction: Eviction): void {
    const { maxTasks, maxTasksPerCaller, maxBytes, maxBytesPerCaller } = this.limits;
    // The caller's own quota: only its own finished tasks go, oldest first. Tasks that name no caller (`''`) have
    // no quota of their own, only the totals.
    const own = caller === '' ? undefined : this.#holdings.get(caller);
    while (own !== undefined && (own.ids.size > maxTasksPerCaller || own.bytes > maxBytesPerCaller)) {
      if (!this.#evictOldest(own, eviction)) break;
    }
    // The totals: the caller holding most (bytes when bytes are over, else tasks) gives up its oldest.
    while (this.#count > maxTasks || this.#bytes > maxBytes) {
      const byBytes = this.#bytes > maxBytes;
      const victims = [...this.#holdings.values()].sort((a, b) => (byBytes ? b.bytes - a.bytes : b.ids.size - a.ids.size));
      if (!victims.some((holding) => this.#evictOldest(holding, eviction))) break;
    }
  }

  #evictOldest(holding: Holding, eviction: Eviction): boolean {
    for (const id of holding.ids) {
      if (id !== eviction.keep && eviction.evictable(id)) {
        eviction.evict(id);
        return true;
      }
    }
    return false;
  }
}

/** The size of a task's stored state, in bytes: the length of its JSON text (one unit per character). */
export function taskStateBytes(state: { readonly statusMessage?: string; readonly result?: unknown; readonly error?: unknown; readonly inputRequests?: unknown }): number {
  let bytes = state.statusMessage?.length ?? 0;
  for (const part of [state.result, state.error, state.inputRequests]) {
    if (part === undefined) continue;
    try {
      bytes += JSON.stringify(part)?.length ?? 0;
    } catch {
      // Not JSON (a cycle, a BigInt): it could never be sent either; count it as the largest state.
      return Number.MAX_SAFE_INTEGER;
    }
  }
  return bytes;
}
