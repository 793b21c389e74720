/**
 * Where long-running tasks are kept: their status, result and expiry, behind an interface so that a shared
 * store lets any instance answer for a task another one started. Only the store exists yet; no MCP method
 * serves tasks.
 *
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx
 */

/** A task's state: `working` until it reaches one of the final states. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** One stored task. Plain JSON. */
export interface TaskRecord {
  /** The task's id, unique in its store. */
  readonly taskId: string;
  /** Where the task is in its life ({@link TaskStatus}). */
  readonly status: TaskStatus;
  /** A human-readable note on the status, if any. */
  readonly statusMessage?: string;
  /** The result (or error object) once `completed` or `failed`. */
  readonly result?: unknown;
  /** When the task was created, in milliseconds since the epoch. */
  readonly createdAtMs: number;
  /** When the task was last changed, in milliseconds since the epoch. */
  readonly updatedAtMs: number;
  /** How long the task is kept after its creation, in milliseconds. */
  readonly ttlMs: number;
}

/** What {@link TaskStore.update} may change. */
export interface TaskUpdate {
  /** The new status. */
  readonly status: TaskStatus;
  /** A human-readable note on it; omitted means none. */
  readonly statusMessage?: string;
  /** The result (or error object) when the task completed or failed. */
  readonly result?: unknown;
}

/** Keeps tasks until their TTL runs out. Every method is asynchronous so a remote store fits. */
export interface TaskStore {
  /**
   * Stores a new `working` task.
   * @throws TypeError (rejection) when `taskId` is already stored, or `ttlMs` is not a positive number
   */
  create(task: { readonly taskId: string; readonly ttlMs: number }): Promise<TaskRecord>;
  /** The task, or `undefined` when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Changes a task's status (and result); `undefined` when unknown or expired.
   * @throws TypeError (rejection) when the task is already in a final state
   */
  update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined>;
  /** The live tasks, oldest first. */
  list(): Promise<readonly TaskRecord[]>;
  /** Forgets a task; whether it was stored. */
  delete(taskId: string): Promise<boolean>;
}

const FINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** The in-memory {@link TaskStore}: expired tasks are dropped when next read. */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #now: () => number;

  /** @param options `now`: the clock, in milliseconds since the epoch @default Date.now */
  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  create(task: { readonly taskId: string; readonly ttlMs: number }): Promise<TaskRecord> {
    if (!(typeof task.ttlMs === 'number' && task.ttlMs > 0)) return Promise.reject(new TypeError(`Invalid task TTL: expected a positive number of milliseconds, got "${String(task.ttlMs)}"`));
    if (this.#live(task.taskId) !== undefined) return Promise.reject(new TypeError(`Task already exists: "${task.taskId}"`));
    const now = this.#now();
    const record: TaskRecord = { taskId: task.taskId, status: 'working', createdAtMs: now, updatedAtMs: now, ttlMs: task.ttlMs };
    this.#tasks.set(task.taskId, record);
    return Promise.resolve(record);
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.#live(taskId));
  }

  update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined> {
    const current = this.#live(taskId);
    if (current === undefined) return Promise.resolve(undefined);
    if (FINAL.has(current.status)) return Promise.reject(new TypeError(`Task is already final: "${taskId}" is "${current.status}"`));
    const next: TaskRecord = { ...current, ...update, updatedAtMs: this.#now() };
    this.#tasks.set(taskId, next);
    return Promise.resolve(next);
  }

  list(): Promise<readonly TaskRecord[]> {
    const out: TaskRecord[] = [];
    for (const id of [...this.#tasks.keys()]) {
      const task = this.#live(id);
      if (task !== undefined) out.push(task);
    }
    return Promise.resolve(out);
  }

  delete(taskId: string): Promise<boolean> {
    return Promise.resolve(this.#live(taskId) !== undefined && this.#tasks.delete(taskId));
  }

  #live(taskId: string): TaskRecord | undefined {
    const task = this.#tasks.get(taskId);
    if (task === undefined) return undefined;
    if (this.#now() >= task.createdAtMs + task.ttlMs) {
      this.#tasks.delete(taskId);
      return undefined;
    }
    return task;
  }
}
