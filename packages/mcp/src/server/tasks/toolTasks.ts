/**
 * `tools/call` as a task: whether a call of a task-capable tool becomes a task, and starting it on the
 * {@link TaskRunner}. The same handler runs either way; only its context differs ({@link TaskRequestContext}).
 * - 2025-11-25 (core tasks): the client asks with `params.task` (`{ ttl? }`) and gets `CreateTaskResult`
 *   (`{ task }`); a `required` tool called without it is -32601, `params.task` on a tool without task support is
 *   -32601 when the session was told of the `tasks` capability, and ignored otherwise.
 * - 2026-07-28 (the extension): the server decides. A client that declared `io.modelcontextprotocol/tasks` in
 *   the request's capabilities gets the flat `CreateTaskResult` (`resultType: "task"`), at once or after the
 *   tool's `afterMs` on the request; one that did not gets the plain result, or -32021 for a `required` tool.
 *   `params.task` means nothing here.
 * - Earlier revisions have no tasks: the tool runs as a plain call.
 *
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation", "Creating Tasks"; the extension
 *   `io.modelcontextprotocol/tasks` "Capability Negotiation", "Task Creation"
 */
import { ErrorCode, JsonRpcError, type Logger } from '@switchboard/jsonrpc';
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import { MissingClientCapabilityError } from '../../protocol/errors.js';
import { isModernRevision } from '../../protocol/revisions.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { BusMessage, NotificationBus } from '../../stores/notificationBus.js';
import type { TaskRecord } from '../../stores/taskStore.js';
import type { ServerRequestContext } from '../context.js';
import { callerKeyOf } from '../callerKey.js';
import { invalidParams, isRecord } from '../params.js';
import type { ToolTaskSettings } from './toolOption.js';
import { TaskLimitError, type TaskHandle, type TaskOutcome, type TaskRunner } from './runner.js';
import type { TaskRelay } from './taskRelay.js';
import { TaskRequestContext } from './taskContext.js';
import { CORE_TASKS_REVISION, coreTask, declaresTasksExtension, detailedTask, extensionCreateTaskResult, TASKS_EXTENSION_REQUIRED } from './wire.js';

/** Default of `McpServerOptions.tasks.defaultTtlMs`: 1 h. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** Default of `McpServerOptions.tasks.maxTtlMs`: 24 h. */
export const DEFAULT_MAX_TASK_TTL_MS = 86_400_000;

/** One `tools/call` that may become a task. */
export interface ToolTaskCall {
  readonly name: string;
  /** The tool's task settings; `undefined` when it is not task-capable. */
  readonly task: ToolTaskSettings | undefined;
  readonly params: Readonly<Record<string, unknown>>;
  readonly ctx: ServerRequestContext;
  /** Validates the arguments and runs the handler with `ctx`, mapping its failures to tool results. */
  readonly run: (ctx: ServerRequestContext) => CallToolResult | Promise<CallToolResult>;
}

/** What {@link ToolTasks} is made of. */
export interface ToolTasksOptions {
  readonly runner: TaskRunner;
  readonly bus: NotificationBus;
  readonly logger: Logger;
  /** @default {@link DEFAULT_TASK_TTL_MS} */
  readonly defaultTtlMs?: number;
  /** @default {@link DEFAULT_MAX_TASK_TTL_MS} */
  readonly maxTtlMs?: number;
  /** Whether any registered tool is task-capable (then 2025-11-25 sessions are told of the `tasks` capability). */
  readonly hasTaskTools: () => boolean;
  /** In a cluster: carries input for tasks that run on other instances. @default none */
  readonly relay?: TaskRelay;
}

const sessionScopes = new WeakMap<object, string>();

/**
 * Who may list a task the request starts: the authenticated client (`authInfo.clientId`), else on a session
 * the session; `undefined` for a request with neither (then only its id reaches the task).
 */
export function taskOwner(ctx: ServerRequestContext): string | undefined {
  const principal = principalOf(ctx.authInfo);
  if (principal !== undefined) return principal;
  const connection = ctx.connection;
  if (connection === undefined) return undefined;
  let scope = sessionScopes.get(connection);
  if (scope === undefined) sessionScopes.set(connection, (scope = `session:${globalThis.crypto.randomUUID()}`));
  return scope;
}

/** `client:<clientId>` of authentication facts that name a client. */
export function principalOf(authInfo: unknown): string | undefined {
  return isRecord(authInfo) && typeof authInfo.clientId === 'string' ? `client:${authInfo.clientId}` : undefined;
}

/** Starts task-capable tool calls as tasks (see the module comment). */
export class ToolTasks {
  readonly runner: TaskRunner;
  readonly relay: TaskRelay | undefined;
  readonly #bus: NotificationBus;
  readonly #logger: Logger;
  readonly #defaultTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #hasTaskTools: () => boolean;
  readonly #unsubscribe: () => void;

  /** @param options see {@link ToolTasksOptions} */
  constructor(options: ToolTasksOptions) {
    this.runner = options.runner;
    this.relay = options.relay;
    this.#bus = options.bus;
    this.#logger = options.logger;
    this.#maxTtlMs = options.maxTtlMs ?? DEFAULT_MAX_TASK_TTL_MS;
    this.#hasTaskTools = options.hasTaskTools;
    this.#defaultTtlMs = Math.min(options.defaultTtlMs ?? DEFAULT_TASK_TTL_MS, this.#maxTtlMs);
    this.#unsubscribe = this.#bus.subscribe((message) => this.#heard(message));
  }

  /**
   * Cancels a task ({@link TaskRunner.cancel}); when it runs on another instance, that instance hears of it on the
   * bus and aborts the work at once (the store's `cancelled` alone stops it only at its next write).
   * @returns the task afterwards; `undefined` when unknown or expired
   */
  async cancel(taskId: string): Promise<TaskRecord | undefined> {
    const here = this.runner.live.get(taskId)?.committed === true;
    const after = await this.runner.cancel(taskId);
    if (!here) await this.#bus.publish({ type: 'task_cancel', taskId });
    return after;
  }

  /** Stops hearing the bus and closes the runner (its live tasks are aborted). */
  close(): void {
    this.#unsubscribe();
    this.runner.close();
  }

  /**
   * A `tasks/cancel` another instance received, for a task that may run here (input responses come by the
   * {@link TaskRelay}, which answers whether they were delivered).
   */
  #heard(message: BusMessage): Promise<void> | undefined {
    if (message.type !== 'task_cancel') return undefined;
    const live = this.runner.live.get(message.taskId);
    if (live === undefined || !live.committed) return undefined;
    return live.cancel().then(
      () => undefined,
      (error: unknown) => this.#logger.debug('Cancellation from another instance not applied', { taskId: message.taskId, error }),
    );
  }

  /**
   * The answer of `call` when it is (or may become) a task; `undefined` to run it as a plain call.
   * @throws JsonRpcError -32601 (2025-11-25: a `required` tool without `params.task`, or `params.task` on a tool
   *   without task support), -32602 (a malformed `params.task`), {@link TaskLimitError} (2025-11-25, at the limit),
   *   {@link MissingClientCapabilityError} -32021 (2026-07-28: a `required` tool, no extension declared)
   */
  route(call: ToolTaskCall): Promise<Record<string, unknown>> | undefined {
    const revision = call.ctx.facts.protocolVersion;
    if (isModernRevision(revision)) return this.#modern(call);
    if (revision === CORE_TASKS_REVISION) return this.#core(call);
    return undefined;
  }

  #core(call: ToolTaskCall): Promise<Record<string, unknown>> | undefined {
    const { name, task, params, ctx } = call;
    const requested = params.task;
    if (requested === undefined) {
      // MCP 2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation": a required tool MUST be called as a task.
      if (task?.required === true) throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: tool "${name}" must be called as a task (with "params.task")`);
      return undefined;
    }
    if (task === undefined) {
      // Only a receiver that declared task support for tools/call answers the augmentation; others ignore it.
      const configured = ctx.facts.serverCapabilities?.tasks as { requests?: { tools?: { call?: unknown } } } | undefined;
      if (configured?.requests?.tools?.call === undefined && !this.#hasTaskTools()) return undefined;
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: tool "${name}" does not support task-augmented execution`);
    }
    if (!isRecord(requested)) throw invalidParams('"task" must be an object');
    const ttl = requested.ttl;
    if (ttl !== undefined && ttl !== null && !(typeof ttl === 'number' && ttl >= 0)) throw invalidParams('"task.ttl" must be a number of milliseconds');
    const ttlMs = typeof ttl === 'number' ? Math.min(Math.max(ttl, 1), this.#maxTtlMs) : this.#ttlOf(task);
    const caller = callerKeyOf(ctx);
    const handle = this.runner.begin({
      ttlMs,
      owner: taskOwner(ctx),
      caller,
      pollIntervalMs: task.pollIntervalMs,
      onChange: (record) => void ctx.channel.notify('notifications/tasks/status', coreTask(record)).catch(() => {}),
    });
    if (handle === undefined) throw this.runner.refusal(caller) ?? new TaskLimitError(this.runner.maxLiveTasks);
    return handle.commit().then((record) => {
      handle.settle(outcomeOf(() => call.run(new TaskRequestContext(ctx, handle)), true));
      return { task: coreTask(record) };
    });
  }

  #modern(call: ToolTaskCall): Promise<Record<string, unknown>> | undefined {
    const { name, task, ctx } = call;
    if (task === undefined) return undefined;
    if (!declaresTasksExtension(ctx.clientCapabilities)) {
      // The extension: a server that cannot serve the call without a task MUST answer -32021 naming it.
      if (task.required) throw new MissingClientCapabilityError(TASKS_EXTENSION_REQUIRED);
      return undefined;
    }
    const caller = callerKeyOf(ctx);
    const handle = this.runner.begin({ ttlMs: this.#ttlOf(task), owner: principalOf(ctx.authInfo), caller, pollIntervalMs: task.pollIntervalMs, onChange: (record) => this.#publish(record) });
    if (handle === undefined) {
      this.#logger.warn(`Tool "${name}" runs on the request: ${this.runner.refusal(caller)?.message ?? 'too many live tasks'}`);
      return undefined;
    }
    if (task.afterMs === 0) {
      return handle.commit().then((record) => {
        handle.settle(outcomeOf(() => call.run(new TaskRequestContext(ctx, handle)), false));
        return extensionCreateTaskResult(record);
      });
    }
    return this.#later(call, handle, task.afterMs);
  }

  /**
   * The call runs on the request first (its answer, or its `input_required`, goes on the request as usual); if it
   * is still running after `afterMs`, it becomes a task and the request is answered with it.
   */
  async #later(call: ToolTaskCall, handle: TaskHandle, afterMs: number): Promise<Record<string, unknown>> {
    const taskCtx = new TaskRequestContext(call.ctx, handle);
    // Until it is a task, the work is the request's: the client going away stops it.
    const requestSignal = call.ctx.signal;
    const onGone = (): void => handle.abandon();
    requestSignal.addEventListener('abort', onGone, { once: true });
    let running: Promise<CallToolResult>;
    try {
      let result: CallToolResult | Promise<CallToolResult>;
      try {
        result = call.run(taskCtx);
      } catch (error) {
        handle.release();
        throw error;
      }
      if (!(result instanceof Promise)) {
        handle.release();
        return result as unknown as Record<string, unknown>;
      }
      running = result;
      let timer: ReturnType<typeof setUnrefTimeout> = undefined;
      const late = new Promise<undefined>((resolve) => (timer = setUnrefTimeout(() => resolve(undefined), afterMs)));
      const first = await Promise.race([running.then((r) => ({ result: r }), (error: unknown) => ({ error })), late]);
      if (first !== undefined) {
        clearTimeout(timer);
        handle.release();
        if ('error' in first) throw first.error;
        return first.result as unknown as Record<string, unknown>;
      }
    } finally {
      requestSignal.removeEventListener('abort', onGone);
    }
    if (handle.signal.aborted) throw handle.signal.reason;
    const record = await handle.commit();
    handle.settle(outcomeOf(() => running, false));
    return extensionCreateTaskResult(record);
  }

  #ttlOf(task: ToolTaskSettings): number {
    return Math.min(task.ttlMs ?? this.#defaultTtlMs, this.#maxTtlMs);
  }

  /** 2026-07-28: `notifications/tasks` reach listen streams through the bus (the listen side filters by task id). */
  #publish(record: TaskRecord): void {
    void this.#bus.publish({ type: 'task', task: detailedTask(record) }).catch((error: unknown) => this.#logger.debug('Task notification not published', { error }));
  }
}

/**
 * The outcome of a tool's work: its result (with `failOnToolError`, a result with `isError` fails the task, as
 * 2025-11-25 has it; the extension completes it), or the JSON-RPC error it ended with (anything else is -32603).
 */
function outcomeOf(work: () => CallToolResult | Promise<CallToolResult>, failOnToolError: boolean): Promise<TaskOutcome> {
  return Promise.resolve()
    .then(work)
    .then(
      (result): TaskOutcome => ({ kind: 'result', result: result as unknown as Record<string, unknown>, failed: failOnToolError && result.isError === true }),
      (error: unknown): TaskOutcome => ({ kind: 'error', error: error instanceof JsonRpcError ? error.toJSON() : { code: ErrorCode.InternalError, message: 'Internal error' } }),
    );
}
