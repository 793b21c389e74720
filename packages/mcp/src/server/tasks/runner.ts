/**
 * The task runner: runs a request's work detached from the request that started it. Each task has its own
 * AbortController, owned here (not by the Peer nor the HTTP exchange), so a task outlives the request and the
 * connection that started it; it ends when its work settles, when it is cancelled, or when its TTL runs out.
 * Everything a client can observe is written to the {@link TaskStore} first (status, result or error, the
 * outstanding input requests), one write at a time per task, so any instance sharing the store answers for it.
 *
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx "Task Status Lifecycle"; the 2026-07-28 extension
 *   `io.modelcontextprotocol/tasks` "Task Status", "Task Update Requests", "Task Cancellation"
 */
import { type Logger, type TimerHandle } from '@switchboard/jsonrpc';
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import { McpError, McpErrorCode } from '../../protocol/errors.js';
import { isFinalTaskStatus, type TaskErrorObject, type TaskInputRequest, type TaskRecord, type TaskStore, type TaskUpdate } from '../../stores/taskStore.js';

/** Default of {@link TaskRunnerOptions.maxLiveTasks}. */
export const DEFAULT_MAX_LIVE_TASKS = 1000;
/** Default of {@link TaskRunnerOptions.maxLiveTasksPerCaller}. */
export const DEFAULT_MAX_LIVE_TASKS_PER_CALLER = 100;
/** Default of {@link TaskRunnerOptions.pollIntervalMs}, the `pollInterval` a task suggests to its client: 1 s. */
export const DEFAULT_SUGGESTED_POLL_INTERVAL_MS = 1000;

/**
 * How a task's work ended: a result (`failed` marks a result that still fails the task: a 2025-11-25 tool
 * result with `isError`), or a JSON-RPC error.
 */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: Readonly<Record<string, unknown>>; readonly failed: boolean }
  | { readonly kind: 'error'; readonly error: TaskErrorObject };

/** Options of {@link TaskRunner}. */
export interface TaskRunnerOptions {
  readonly store: TaskStore;
  /** Receives failures to write to the store. */
  readonly logger: Logger;
  /** Tasks that may be live (started, not final) at once in this process. @default 1000 */
  readonly maxLiveTasks?: number;
  /** Tasks one caller ({@link TaskSpec.caller}) may have live at once in this process. @default 100 */
  readonly maxLiveTasksPerCaller?: number;
  /** The polling interval suggested to clients, in milliseconds. @default 1000 */
  readonly pollIntervalMs?: number;
  /** This instance's id in a cluster, stored as each task's `runner`. @default none (not in a cluster) */
  readonly instanceId?: string;
}

/** What a new task needs. */
export interface TaskSpec {
  /** Milliseconds the task is kept from its creation; its work is aborted when they run out. */
  readonly ttlMs: number;
  /** See `TaskRecord.owner`. */
  readonly owner?: string;
  /**
   * Who starts the task, for the per-caller share of live tasks and the store's quotas (see `TaskRecord.caller`);
   * `undefined`: no share, the totals alone.
   */
  readonly caller?: string;
  /** The polling interval suggested for this task, in milliseconds. @default the runner's */
  readonly pollIntervalMs?: number;
  /** Hears of every stored change of the task after its creation (for status notifications). */
  readonly onChange?: (record: TaskRecord) => void;
}

/**
 * The refusal of a new task when {@link TaskRunnerOptions.maxLiveTasks} are live, or the caller's share
 * ({@link TaskRunnerOptions.maxLiveTasksPerCaller}): -32603 with `data: { maxLiveTasks }` or
 * `data: { maxLiveTasksPerCaller }`.
 */
export class TaskLimitError extends McpError {
  /** @param maxLiveTasks the configured limit; `perCaller`: the caller's share was the limit reached */
  constructor(maxLiveTasks: number, perCaller?: number) {
    super(
      McpErrorCode.InternalError,
      perCaller === undefined ? `Too many live tasks: this server runs at most "${maxLiveTasks}" at once` : `Too many live tasks: this server runs at most "${perCaller}" at once per caller`,
      perCaller === undefined ? { maxLiveTasks } : { maxLiveTasksPerCaller: perCaller },
    );
    this.name = 'TaskLimitError';
  }
}

interface PendingInput {
  readonly request: TaskInputRequest;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** Runs tasks and keeps the live ones (see the module comment). */
export class TaskRunner {
  readonly store: TaskStore;
  readonly logger: Logger;
  readonly maxLiveTasks: number;
  readonly maxLiveTasksPerCaller: number;
  readonly pollIntervalMs: number;
  readonly instanceId: string | undefined;
  /** @internal the live tasks of this process, by id (read by {@link TaskHandle}) */
  readonly live = new Map<string, TaskHandle>();
  /** @internal live tasks per caller key (`''`: tasks that name none) */
  readonly liveByCaller = new Map<string, number>();

  /** @param options see {@link TaskRunnerOptions} */
  constructor(options: TaskRunnerOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.maxLiveTasks = options.maxLiveTasks ?? DEFAULT_MAX_LIVE_TASKS;
    this.maxLiveTasksPerCaller = options.maxLiveTasksPerCaller ?? DEFAULT_MAX_LIVE_TASKS_PER_CALLER;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_SUGGESTED_POLL_INTERVAL_MS;
    this.instanceId = options.instanceId;
  }

  /**
   * Reserves a live slot for a new task: its id and abort signal exist now, its record once
   * {@link TaskHandle.commit} resolves. `undefined` when {@link TaskRunnerOptions.maxLiveTasks} are live, or the
   * caller's share {@link TaskRunnerOptions.maxLiveTasksPerCaller} (see {@link TaskRunner.refusal}).
   */
  begin(spec: TaskSpec): TaskHandle | undefined {
    if (this.refusal(spec.caller) !== undefined) return undefined;
    const handle = new TaskHandle(this, spec);
    this.live.set(handle.taskId, handle);
    const caller = spec.caller ?? '';
    this.liveByCaller.set(caller, (this.liveByCaller.get(caller) ?? 0) + 1);
    return handle;
  }

  /** Why a new task of `caller` would be refused now: its share, or the total; `undefined` when it would not. */
  refusal(caller: string | undefined): TaskLimitError | undefined {
    if (caller !== undefined && (this.liveByCaller.get(caller) ?? 0) >= this.maxLiveTasksPerCaller) return new TaskLimitError(this.maxLiveTasks, this.maxLiveTasksPerCaller);
    return this.live.size >= this.maxLiveTasks ? new TaskLimitError(this.maxLiveTasks) : undefined;
  }

  /**
   * Cancels a task: aborts its work when it runs here and stores `cancelled` unless it is already final.
   * @returns the task afterwards; `undefined` when unknown or expired
   */
  async cancel(taskId: string): Promise<TaskRecord | undefined> {
    const live = this.live.get(taskId);
    if (live !== undefined && live.committed) return live.cancel();
    const record = await this.store.get(taskId);
    if (record === undefined || isFinalTaskStatus(record.status)) return record;
    // Started by another instance: the store is where the cancellation is seen (cooperatively).
    return this.store.update(taskId, CANCELLED).catch(() => this.store.get(taskId));
  }

  /**
   * Hands `responses` (by input request key) to the task's outstanding input requests; keys not outstanding are
   * ignored. Resolves once the task's stored state reflects them.
   * @returns whether the task runs here
   */
  async provide(taskId: string, responses: Readonly<Record<string, unknown>>): Promise<boolean> {
    const live = this.live.get(taskId);
    if (live === undefined) return false;
    await live.provide(responses);
    return true;
  }

  /**
   * The task once final: at once when it is, else when its work ends (a task of another instance is polled in
   * the store at its polling interval). `undefined` when unknown, expired, or `signal` aborted first.
   */
  async whenFinal(taskId: string, signal?: AbortSignal): Promise<TaskRecord | undefined> {
    for (;;) {
      const live = this.live.get(taskId);
      if (live !== undefined && live.committed) return abortable(live.final, signal);
      const record = await this.store.get(taskId);
      if (record === undefined || isFinalTaskStatus(record.status) || signal?.aborted === true) return signal?.aborted === true ? undefined : record;
      if ((await abortable(delay(record.pollIntervalMs ?? this.pollIntervalMs), signal)) === undefined) return undefined;
    }
  }

  /** Aborts every live task of this process (the server is closing); their records stay as they are. */
  close(): void {
    for (const handle of [...this.live.values()]) handle.abandon();
  }
}

const CANCELLED: TaskUpdate = { status: 'cancelled', statusMessage: 'The task was cancelled' };

/**
 * One task of a {@link TaskRunner}, from its reserved slot to its final state. The work holds it (through the
 * task's request context) to wait for client input and to read the task's `signal`.
 */
export class TaskHandle {
  /** The task's id: a random UUID (unguessable, since a task id may be all that guards a task). */
  readonly taskId: string = globalThis.crypto.randomUUID();
  /** Resolves with the final record (or `undefined` when the task expired or was abandoned first). */
  readonly final: Promise<TaskRecord | undefined>;
  readonly #runner: TaskRunner;
  readonly #spec: TaskSpec;
  readonly #controller = new AbortController();
  readonly #pending = new Map<string, PendingInput>();
  readonly #usedKeys = new Set<string>();
  #resolveFinal!: (record: TaskRecord | undefined) => void;
  #created: Promise<TaskRecord> | undefined;
  #writes: Promise<unknown> = Promise.resolve();
  #timer: TimerHandle | undefined;
  #waitsOnClient = 0;
  #done = false;

  /** @internal made by {@link TaskRunner.begin} */
  constructor(runner: TaskRunner, spec: TaskSpec) {
    this.#runner = runner;
    this.#spec = spec;
    this.final = new Promise((resolve) => (this.#resolveFinal = resolve));
  }

  /** Aborted when the task is cancelled, expires, or the server closes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether {@link TaskHandle.commit} was called: the request has been (or is being) answered with the task. */
  get committed(): boolean {
    return this.#created !== undefined;
  }

  /**
   * Stores the task (`working`) and starts its TTL. Resolves once a `tasks/get` would find it: only then may the
   * request be answered with it. Idempotent.
   * @throws TypeError (rejection) from the store; the slot is then given back
   */
  commit(): Promise<TaskRecord> {
    const runner = this.#runner;
    const { ttlMs, owner, caller } = this.#spec;
    const pollIntervalMs = this.#spec.pollIntervalMs ?? runner.pollIntervalMs;
    const parties = {
      ...(owner === undefined ? {} : { owner }),
      ...(caller === undefined ? {} : { caller }),
      ...(runner.instanceId === undefined ? {} : { runner: runner.instanceId }),
    };
    this.#created ??= runner.store.create({ taskId: this.taskId, ttlMs, pollIntervalMs, ...parties }).then(
      (record) => {
        this.#expireAt(performance.now() + ttlMs);
        return record;
      },
      (error: unknown) => {
        this.#end(undefined);
        throw error;
      },
    );
    return this.#created;
  }

  /** Gives the slot back: the work ended before the task was committed (its answer went on the request itself). */
  release(): void {
    if (!this.committed) this.#end(undefined);
  }

  /** Stores the outcome of the work once it settles (a rejection is stored as -32603). */
  settle(work: Promise<TaskOutcome>): void {
    void work
      .catch((): TaskOutcome => ({ kind: 'error', error: { code: McpErrorCode.InternalError, message: 'Internal error' } }))
      .then((outcome) => this.#write(outcomeUpdate(outcome)));
  }

  /**
   * Waits for the client's answer to `request`, surfaced as the input request `key` (status
   * `input_required` while any is outstanding). Rejects with the abort reason when the task is aborted.
   * @throws TypeError (rejection) when `key` was already used in this task (keys are unique over its life)
   */
  requestInput(key: string, request: TaskInputRequest): Promise<unknown> {
    if (this.#usedKeys.has(key)) return Promise.reject(new TypeError(`Input request key already used in this task: "${key}"`));
    if (this.signal.aborted) return Promise.reject(abortReason(this.signal));
    this.#usedKeys.add(key);
    return new Promise((resolve, reject) => {
      this.#pending.set(key, { request, resolve, reject });
      void this.#write(this.#waiting());
    });
  }

  /**
   * Marks a live server → client request of the work (a session's `elicitation/create` …) as begun (`+1`) or
   * answered (`-1`): the task is `input_required` while one is outstanding.
   */
  waitOnClient(delta: 1 | -1): Promise<void> {
    this.#waitsOnClient += delta;
    return this.#write(this.#waiting());
  }

  /** @internal see {@link TaskRunner.provide} */
  provide(responses: Readonly<Record<string, unknown>>): Promise<void> {
    let answered = false;
    for (const key of Object.keys(responses)) {
      const pending = this.#pending.get(key);
      if (pending === undefined) continue;
      this.#pending.delete(key);
      pending.resolve(responses[key]);
      answered = true;
    }
    return answered ? this.#write(this.#waiting()) : this.#writes.then(() => undefined);
  }

  /** @internal see {@link TaskRunner.cancel} */
  async cancel(): Promise<TaskRecord | undefined> {
    this.#controller.abort(new DOMException('The task was cancelled', 'AbortError'));
    await this.#write(CANCELLED);
    return this.#runner.store.get(this.taskId);
  }

  /** @internal see {@link TaskRunner.close} */
  abandon(): void {
    this.#controller.abort(new DOMException('The server closed', 'AbortError'));
    this.#end(undefined);
  }

  #waiting(): TaskUpdate {
    if (this.#pending.size === 0) return this.#waitsOnClient > 0 ? { status: 'input_required' } : { status: 'working' };
    const inputRequests: Record<string, TaskInputRequest> = {};
    for (const [key, pending] of this.#pending) inputRequests[key] = pending.request;
    return { status: 'input_required', inputRequests };
  }

  /** Queues one store write after the creation and every earlier write; a write to a final task is dropped. */
  #write(update: TaskUpdate): Promise<void> {
    const created = this.#created;
    if (created === undefined || this.#done) return Promise.resolve();
    const store = this.#runner.store;
    const next = this.#writes.then(async () => {
      if (this.#done) return;
      await created;
      const record = await store.update(this.taskId, update);
      if (record === undefined) return this.#end(undefined);
      this.#spec.onChange?.(record);
      if (isFinalTaskStatus(record.status)) this.#end(record);
    });
    this.#writes = next.catch(async (error: unknown) => {
      if (!(error instanceof TypeError)) return this.#runner.logger.error('Task state not stored', { taskId: this.taskId, error });
      // The store refuses writes to a final task: it was finished elsewhere (another instance cancelled it).
      const stored = await store.get(this.taskId).catch(() => undefined);
      if (stored !== undefined && !isFinalTaskStatus(stored.status)) return;
      this.#controller.abort(new DOMException('The task was cancelled', 'AbortError'));
      this.#end(stored);
    });
    return this.#writes as Promise<void>;
  }

  /**
   * Expires the task at `deadline` (`performance.now()` ms, a clock no wall-clock step moves; `Infinity`: never). A
   * timer holds at most 2^31 - 1 ms (about 24.8 days; `setUnrefTimeout` clamps to it), so a longer TTL re-arms until
   * its deadline rather than ending early. Nothing is armed once the task has ended (it may end before it is stored).
   */
  #expireAt(deadline: number): void {
    if (this.#done) return;
    this.#timer = setUnrefTimeout(() => (performance.now() < deadline ? this.#expireAt(deadline) : this.#expire()), deadline - performance.now());
  }

  /** The TTL ran out: the store forgets the task; its work stops. */
  #expire(): void {
    this.#controller.abort(new DOMException('The task expired', 'AbortError'));
    this.#end(undefined);
  }

  #end(record: TaskRecord | undefined): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const runner = this.#runner;
    runner.live.delete(this.taskId);
    const caller = this.#spec.caller ?? '';
    const left = (runner.liveByCaller.get(caller) ?? 1) - 1;
    if (left > 0) runner.liveByCaller.set(caller, left);
    else runner.liveByCaller.delete(caller);
    const reason = this.signal.aborted ? abortReason(this.signal) : new DOMException('The task ended', 'AbortError');
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#resolveFinal(record);
  }
}

function outcomeUpdate(outcome: TaskOutcome): TaskUpdate {
  if (outcome.kind === 'error') return { status: 'failed', statusMessage: outcome.error.message, error: outcome.error };
  return outcome.failed ? { status: 'failed', statusMessage: 'The tool reported an error', result: outcome.result } : { status: 'completed', result: outcome.result };
}

/** The reason `signal` aborted, as an Error. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('The task was aborted', 'AbortError');
}

function delay(ms: number): Promise<true> {
  return new Promise((resolve) => setUnrefTimeout(() => resolve(true), ms));
}

/** `promise`, or `undefined` as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
