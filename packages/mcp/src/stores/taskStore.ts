/**
 * Where long-running tasks are kept: their status, result or error, outstanding input requests and expiry,
 * behind an interface so that a shared store lets any instance answer for a task another one started. The
 * task runner (`server/tasks/runner.ts`) writes here; the `tasks/*` methods of both flavours read here.
 *
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx; the 2026-07-28 extension `io.modelcontextprotocol/tasks`
 */
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import {
  DEFAULT_MAX_STORED_TASK_BYTES,
  DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER,
  DEFAULT_MAX_STORED_TASKS,
  DEFAULT_MAX_STORED_TASKS_PER_CALLER,
  TaskQuotas,
  taskStateBytes,
} from './taskQuota.js';

/** A task's state: `working` until it reaches one of the final states (`completed`, `failed`, `cancelled`). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The final states: a task in one of them never changes again. */
export const FINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Whether `status` is final (`completed`, `failed` or `cancelled`). */
export function isFinalTaskStatus(status: TaskStatus): boolean {
  return FINAL_TASK_STATUSES.has(status);
}

/** One request the task waits on the client for (an `elicitation/create`, `sampling/createMessage` …). Plain JSON. */
export interface TaskInputRequest {
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** A JSON-RPC error object, as a failed task keeps it. */
export interface TaskErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One stored task. Plain JSON. */
export interface TaskRecord {
  /** The task's id, unique in its store. */
  readonly taskId: string;
  /** Where the task is in its life ({@link TaskStatus}). */
  readonly status: TaskStatus;
  /** A human-readable note on the status, if any. */
  readonly statusMessage?: string;
  /** The result of the request the task runs (a `CallToolResult`), once it has one. */
  readonly result?: unknown;
  /** The JSON-RPC error the request ended with, when it ended with one (status `failed`). */
  readonly error?: TaskErrorObject;
  /** What the task waits on the client for, by key, while `input_required`. */
  readonly inputRequests?: Readonly<Record<string, TaskInputRequest>>;
  /** When the task was created, in milliseconds since the epoch. */
  readonly createdAtMs: number;
  /** When the task was last changed, in milliseconds since the epoch. */
  readonly updatedAtMs: number;
  /** How long the task is kept after its creation, in milliseconds. */
  readonly ttlMs: number;
  /** The polling interval suggested to clients, in milliseconds, if any. */
  readonly pollIntervalMs?: number;
  /**
   * Who may list the task (an authenticated principal, or the session that started it); `undefined`: nobody
   * lists it, though anyone who knows its id may read it.
   */
  readonly owner?: string;
  /**
   * Who started the task, for the store's per-caller quotas (the server's caller key: see `callerKeyOf`); not
   * sent to any client. `undefined`: no per-caller quota (the totals alone).
   */
  readonly caller?: string;
  /**
   * The instance running the task, in a cluster (the server's `cluster.instanceId`): where a `tasks/update` that
   * lands on another instance is forwarded. Not sent to any client. `undefined`: not in a cluster.
   */
  readonly runner?: string;
}

/**
 * What {@link TaskStore.update} changes: the status part of the record. Every update replaces the status,
 * its message, result, error and input requests together (what an update omits is gone).
 */
export interface TaskUpdate {
  /** The new status. */
  readonly status: TaskStatus;
  /** A human-readable note on it; omitted means none. */
  readonly statusMessage?: string;
  /** The request's result (`completed`, or `failed` for a 2025-11-25 tool result with `isError`). */
  readonly result?: unknown;
  /** The JSON-RPC error the request ended with (`failed`). */
  readonly error?: TaskErrorObject;
  /** The outstanding input requests (`input_required`). */
  readonly inputRequests?: Readonly<Record<string, TaskInputRequest>>;
}

/** What {@link TaskStore.create} stores. */
export interface NewTask {
  readonly taskId: string;
  /** Milliseconds to keep the task from now; a positive number. */
  readonly ttlMs: number;
  /** See {@link TaskRecord.pollIntervalMs}. */
  readonly pollIntervalMs?: number;
  /** See {@link TaskRecord.owner}. */
  readonly owner?: string;
  /** See {@link TaskRecord.caller}. */
  readonly caller?: string;
  /** See {@link TaskRecord.runner}. */
  readonly runner?: string;
}

/** One page of {@link TaskStore.list}. */
export interface TaskPage {
  /** The live tasks of this page, oldest first. */
  readonly tasks: readonly TaskRecord[];
  /** Where the next page starts (opaque); absent on the last page. */
  readonly nextCursor?: string;
}

/** Keeps tasks until their TTL runs out. Every method is asynchronous so a remote store fits. */
export interface TaskStore {
  /**
   * Stores a new `working` task. Resolves once a {@link TaskStore.get} of its id would find it.
   * @throws TypeError (rejection) when `taskId` is already stored, or `ttlMs` is not a positive number
   */
  create(task: NewTask): Promise<TaskRecord>;
  /** The task, or `undefined` when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Changes a task's status part ({@link TaskUpdate}); `undefined` when unknown or expired.
   * @throws TypeError (rejection) when the task is already in a final state
   */
  update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined>;
  /**
   * One page of the live tasks, oldest first: those of `owner` when given, else every task.
   * @param options `cursor`: a `nextCursor` this store returned; `limit`: the page size (default every task)
   * @throws TypeError (rejection) when `cursor` is not one this store issued
   */
  list(options?: { readonly owner?: string; readonly cursor?: string; readonly limit?: number }): Promise<TaskPage>;
  /** Forgets a task; whether it was stored. */
  delete(taskId: string): Promise<boolean>;
}

interface Stored {
  readonly seq: number;
  record: TaskRecord;
  /** The quota entry: who holds the task and how many bytes its state takes. */
  readonly quota: { readonly caller: string; bytes: number };
}

/** Options of {@link InMemoryTaskStore}. */
export interface InMemoryTaskStoreOptions {
  /** The clock, in milliseconds since the epoch. @default Date.now */
  readonly now?: () => number;
  /**
   * Tasks kept at most, all callers together. Past it the caller holding most tasks gives up its oldest finished
   * task before its TTL. @default 10_000
   */
  readonly maxTasks?: number;
  /**
   * Tasks one caller ({@link TaskRecord.caller}) keeps at most. Past it that caller's own oldest finished task is
   * forgotten before its TTL; no other caller's is. @default 1000
   */
  readonly maxTasksPerCaller?: number;
  /**
   * Bytes of task state kept at most, all callers together: results, errors, status messages and input requests,
   * measured as the length of their JSON text (the heap they take is about that, up to a few times it for results
   * made of many small values). Past it the caller holding the most bytes gives up its oldest finished task.
   * @default 64 MiB
   */
  readonly maxStoredBytes?: number;
  /**
   * Bytes of task state one caller keeps at most (measured as `maxStoredBytes`). Past it that caller's own oldest
   * finished task is forgotten. A result larger than this (or than `maxStoredBytes`) is not kept: the task is
   * stored `failed` with -32603 `Task result too large to keep` and `data: { resultBytes, maxResultBytes }`.
   * @default 16 MiB
   */
  readonly maxStoredBytesPerCaller?: number;
}

/**
 * The in-memory {@link TaskStore}: expired tasks are dropped when next read; finished tasks are bounded in count
 * and bytes, per caller and in total (see {@link InMemoryTaskStoreOptions}). A task forgotten before its TTL is
 * unknown from then on: `tasks/get` answers it -32602 (MCP 2026-07-28 extension `io.modelcontextprotocol/tasks`
 * "Task Polling": an unknown task id MUST be -32602), as an expired one.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Stored>();
  readonly #now: () => number;
  readonly #quotas: TaskQuotas;
  #seq = 0;

  /**
   * @param options see {@link InMemoryTaskStoreOptions}
   * @throws RangeError when `maxTasks`, `maxTasksPerCaller`, `maxStoredBytes` or `maxStoredBytesPerCaller` is not a
   *   positive integer (TypeError when not a number)
   */
  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#quotas = new TaskQuotas({
      maxTasks: checkCountOption('maxTasks', options.maxTasks ?? DEFAULT_MAX_STORED_TASKS),
      maxTasksPerCaller: checkCountOption('maxTasksPerCaller', options.maxTasksPerCaller ?? DEFAULT_MAX_STORED_TASKS_PER_CALLER),
      maxBytes: checkCountOption('maxStoredBytes', options.maxStoredBytes ?? DEFAULT_MAX_STORED_TASK_BYTES),
      maxBytesPerCaller: checkCountOption('maxStoredBytesPerCaller', options.maxStoredBytesPerCaller ?? DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER),
    });
  }

  /** Tasks kept now (expired ones not yet dropped included). */
  get size(): number {
    return this.#quotas.count;
  }

  /** Bytes of task state kept now, all callers (see {@link InMemoryTaskStoreOptions.maxStoredBytes}). */
  get storedBytes(): number {
    return this.#quotas.bytes;
  }

  /** What `caller` keeps now: tasks and bytes of state. */
  holding(caller: string | undefined): { readonly tasks: number; readonly bytes: number } {
    return this.#quotas.holding(caller ?? '');
  }

  create(task: NewTask): Promise<TaskRecord> {
    if (!(typeof task.ttlMs === 'number' && task.ttlMs > 0)) return Promise.reject(new TypeError(`Invalid task TTL: expected a positive number of milliseconds, got "${String(task.ttlMs)}"`));
    if (this.#live(task.taskId) !== undefined) return Promise.reject(new TypeError(`Task already exists: "${task.taskId}"`));
    const now = this.#now();
    const record: TaskRecord = {
      taskId: task.taskId,
      status: 'working',
      createdAtMs: now,
      updatedAtMs: now,
      ttlMs: task.ttlMs,
      ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
      ...(task.owner === undefined ? {} : { owner: task.owner }),
      ...(task.caller === undefined ? {} : { caller: task.caller }),
      ...(task.runner === undefined ? {} : { runner: task.runner }),
    };
    const stored: Stored = { seq: ++this.#seq, record, quota: { caller: task.caller ?? '', bytes: 0 } };
    this.#tasks.set(task.taskId, stored);
    this.#quotas.added(task.taskId, stored.quota);
    this.#enforce(stored.quota.caller, task.taskId);
    return Promise.resolve(record);
  }

  /** Brings the caller, then the store, within their budgets (expired tasks go first, then finished ones). */
  #enforce(caller: string, keep: string): void {
    const quotas = this.#quotas;
    const { maxTasks, maxBytes } = quotas.limits;
    const holding = quotas.holding(caller);
    const ownOver = caller !== '' && (holding.tasks > quotas.limits.maxTasksPerCaller || holding.bytes > quotas.limits.maxBytesPerCaller);
    if (!ownOver && quotas.count <= maxTasks && quotas.bytes <= maxBytes) return;
    for (const id of [...this.#tasks.keys()]) this.#live(id);
    quotas.enforce(caller, {
      evictable: (id) => {
        const stored = this.#tasks.get(id);
        return stored !== undefined && isFinalTaskStatus(stored.record.status);
      },
      evict: (id) => this.#forget(id),
      keep,
    });
  }

  #forget(taskId: string): void {
    const stored = this.#tasks.get(taskId);
    if (stored === undefined) return;
    this.#tasks.delete(taskId);
    this.#quotas.removed(taskId, stored.quota);
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.#live(taskId)?.record);
  }

  update(taskId: string, requested: TaskUpdate): Promise<TaskRecord | undefined> {
    let update = requested;
    const stored = this.#live(taskId);
    if (stored === undefined) return Promise.resolve(undefined);
    const current = stored.record;
    if (isFinalTaskStatus(current.status)) return Promise.reject(new TypeError(`Task is already final: "${taskId}" is "${current.status}"`));
    const { taskId: id, createdAtMs, ttlMs, pollIntervalMs, owner, caller, runner } = current;
    let bytes = taskStateBytes(update);
    const { maxBytes, maxBytesPerCaller } = this.#quotas.limits;
    const maxResultBytes = Math.min(maxBytes, maxBytesPerCaller);
    if (bytes > maxResultBytes && isFinalTaskStatus(update.status)) {
      // Not kept: no share could hold it. The task fails with why, instead of evicting every other task.
      const message = 'Task result too large to keep';
      update = { status: 'failed', statusMessage: message, error: { code: -32603, message, data: { resultBytes: bytes, maxResultBytes } } };
      bytes = taskStateBytes(update);
    }
    const next: TaskRecord = {
      taskId: id,
      status: update.status,
      ...(update.statusMessage === undefined ? {} : { statusMessage: update.statusMessage }),
      ...(update.result === undefined ? {} : { result: update.result }),
      ...(update.error === undefined ? {} : { error: update.error }),
      ...(update.inputRequests === undefined ? {} : { inputRequests: update.inputRequests }),
      createdAtMs,
      updatedAtMs: this.#now(),
      ttlMs,
      ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
      ...(owner === undefined ? {} : { owner }),
      ...(caller === undefined ? {} : { caller }),
      ...(runner === undefined ? {} : { runner }),
    };
    stored.record = next;
    this.#quotas.resized(stored.quota, bytes);
    this.#enforce(stored.quota.caller, taskId);
    return Promise.resolve(next);
  }

  list(options: { readonly owner?: string; readonly cursor?: string; readonly limit?: number } = {}): Promise<TaskPage> {
    const { owner, cursor, limit } = options;
    let after = 0;
    if (cursor !== undefined) {
      after = typeof cursor === 'string' && /^[1-9][0-9]{0,15}$/.test(cursor) ? Number(cursor) : NaN;
      if (!(after <= this.#seq)) return Promise.reject(new TypeError(`Invalid task cursor: "${String(cursor).slice(0, 200)}"`));
    }
    const max = limit ?? Infinity;
    const tasks: TaskRecord[] = [];
    let last = 0;
    let more = false;
    for (const id of [...this.#tasks.keys()]) {
      const stored = this.#live(id);
      if (stored === undefined || stored.seq <= after || (owner !== undefined && stored.record.owner !== owner)) continue;
      if (tasks.length >= max) {
        more = true;
        break;
      }
      tasks.push(stored.record);
      last = stored.seq;
    }
    return Promise.resolve(more ? { tasks, nextCursor: String(last) } : { tasks });
  }

  delete(taskId: string): Promise<boolean> {
    if (this.#live(taskId) === undefined) return Promise.resolve(false);
    this.#forget(taskId);
    return Promise.resolve(true);
  }

  #live(taskId: string): Stored | undefined {
    const stored = this.#tasks.get(taskId);
    if (stored === undefined) return undefined;
    if (this.#now() >= stored.record.createdAtMs + stored.record.ttlMs) {
      this.#forget(taskId);
      return undefined;
    }
    return stored;
  }
}
