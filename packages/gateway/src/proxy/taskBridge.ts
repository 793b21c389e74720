/**
 * Tasks across the bridge. A mirrored tool the upstream lists with `execution.taskSupport` `"optional"` or
 * `"required"` (MCP 2025-11-25 server/tools.mdx; basic/utilities/tasks.mdx "Tool-Level Negotiation") is registered
 * on the front as task-capable ({@link frontTaskOption}), so the front's own task machinery serves both flavours to
 * its clients: 2025-11-25 core tasks (`params.task`, `tasks/get|result|list|cancel`) and the 2026-07-28 extension
 * `io.modelcontextprotocol/tasks` (`resultType: "task"`, `tasks/get|update|cancel`). A front task's work
 * ({@link TaskBridge.run}) calls the upstream with `callToolAsTask`, so:
 * - status: the front task is `working` while the upstream task works, `input_required` while a question of it
 *   waits on the front client;
 * - result: the upstream task's outcome is the front task's (a tool result, `isError` included, or the JSON-RPC
 *   error it failed with); each front flavour then applies its own rule for `isError` (2025-11-25: `failed`; the
 *   extension: `completed`, TASKS "Task Status");
 * - input requests: the upstream task's questions (2026-07-28 `inputRequests`, answered upstream by `tasks/update`;
 *   2025-11-25 live requests tagged with the related-task `_meta`) are attributed to their front task by the
 *   upstream task id (`InputContext.taskId`), never by guesswork, and asked through the front task's context: an
 *   input request of the front task (answered by the front client's `tasks/update`) or a live request tagged with
 *   the front task's id. A 2026-07-28 upstream's input request key is kept as the front's key;
 * - cancellation: `tasks/cancel` on the front aborts the work's signal, which sends `tasks/cancel` upstream
 *   (`notifications/cancelled` MUST NOT be used for tasks: TASKS "Task Cancellation").
 * A `required` tool called plainly by a client that has no tasks (2024-11-05 … 2025-06-18) is run upstream as a task
 * and answered plainly once it ends.
 *
 * Not bridged: a 2026-07-28 upstream's tools/list says nothing of task support (TASKS "Task Creation": the server
 * decides per request), so its tools are mirrored as plain tools and a front client never gets a task from them;
 * the front's 2026-07-28 `afterMs` (input gathered on the request before a task exists) is not used: a front task
 * is made at once, so an upstream question before the upstream task exists is asked as the task's input request.
 */
import type { Logger } from '@switchboard/jsonrpc';
import { TASKS_EXTENSION, type CallToolResult, type Tool } from '@switchboard/mcp';
import type { ClientTask, InputContext, McpClient } from '@switchboard/mcp/client';
import type { RequestContext, ToolTaskOptions } from '@switchboard/mcp/server';
import { askFront, upstreamAnswerError, type UpstreamQuestion } from './questions.js';
import { failureForFront, forFront } from './results.js';

/** The `_meta` key that ties a 2025-11-25 message to its task (MCP 2025-11-25 basic/utilities/tasks.mdx). */
const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the upstream runs tool calls as tasks: 2025-11-25 `tasks.requests.tools.call`, or the 2026-07-28 extension. */
export function upstreamHasTasks(client: McpClient): boolean {
  const caps = client.serverCapabilities as Record<string, unknown>;
  if (client.era === 'modern') return isRecord(caps.extensions) && caps.extensions[TASKS_EXTENSION] !== undefined;
  const tasks = caps.tasks;
  const requests = isRecord(tasks) ? tasks.requests : undefined;
  const tools = isRecord(requests) ? requests.tools : undefined;
  return isRecord(tools) && tools.call !== undefined;
}

/**
 * The front's `task` option for a mirrored upstream tool: task-capable when the upstream lists it with
 * `execution.taskSupport` `"optional"` or `"required"` and runs tasks; `undefined` (a plain tool) otherwise.
 */
export function frontTaskOption(tool: Tool, client: McpClient): ToolTaskOptions | undefined {
  const support = (tool as Tool & { readonly execution?: { readonly taskSupport?: unknown } }).execution?.taskSupport;
  if ((support !== 'optional' && support !== 'required') || !upstreamHasTasks(client)) return undefined;
  return { required: support === 'required' };
}

/** Runs front tasks of mirrored tools as upstream tasks, and routes the upstream tasks' questions (see the module comment). */
export class TaskBridge {
  readonly #client: McpClient;
  readonly #logger: Logger;
  /** The front request (or task) context of each upstream task in flight, by upstream task id. */
  readonly #fronts = new Map<string, RequestContext>();
  /** Upstream `tools/call` not answered yet: a question may name their task before its id reached us. */
  readonly #starting = new Set<Promise<unknown>>();

  constructor(init: { readonly client: McpClient; readonly logger: Logger }) {
    this.#client = init.client;
    this.#logger = init.logger;
  }

  /** Upstream tasks in flight now. */
  get size(): number {
    return this.#fronts.size;
  }

  /** Whether a call of a task-capable mirrored tool goes through the bridge: it runs as a front task, or it must run upstream as one. */
  takes(ctx: RequestContext, option: ToolTaskOptions): boolean {
    return ctx.taskId !== undefined || option.required === true;
  }

  /**
   * The work of one front call: the upstream call as a task, followed to its end. Rejects with the upstream task's
   * JSON-RPC error as the front answers upstream failures (`failureForFront`: -32603 without its text, a lost
   * connection or a timeout in the proxy's words; for a plain call, an `isError` result), or `RequestAbortedError`
   * when the front cancelled (the upstream task is then cancelled too).
   */
  async run(name: string, args: Record<string, unknown>, ctx: RequestContext): Promise<CallToolResult> {
    let taskId: string | undefined;
    // The task is followed as soon as its id is known, in the same turn: its first question may be next in line.
    const starting: Promise<ClientTask> = this.#client
      .callToolAsTask({ name, arguments: args }, { signal: ctx.signal })
      .then((task) => {
        taskId = task.taskId;
        if (taskId !== undefined) this.#fronts.set(taskId, ctx);
        return task;
      })
      .finally(() => this.#starting.delete(starting));
    this.#starting.add(starting);
    try {
      const task = await starting;
      return forFront(withoutRelatedTask(await task.result()), ctx);
    } catch (error) {
      // A front task fails with a JSON-RPC error; a plain call (of a tool the upstream runs as a task only) with an
      // `isError` result, as any plain call does.
      throw failureForFront(error, ctx.taskId === undefined ? name : undefined, this.#logger);
    } finally {
      if (taskId !== undefined) this.#fronts.delete(taskId);
    }
  }

  /**
   * Routes an upstream question that belongs to an upstream task (its `InputContext.taskId`) to that task's front
   * context; `undefined` when it names no task of ours (the caller then routes it as a request's question).
   */
  question(method: UpstreamQuestion['method'], params: unknown, input: InputContext): Promise<unknown> | undefined {
    const taskId = input.taskId;
    if (taskId === undefined) return undefined;
    if (!this.#fronts.has(taskId) && this.#starting.size === 0) return undefined;
    return this.#ask(taskId, { method, params: isRecord(params) ? withoutRelatedTask(params) : undefined, signal: input.signal }, input.key);
  }

  /** Asks `question` of the front task that follows upstream task `taskId`; `key`: the upstream's input request key, if any. */
  async #ask(taskId: string, question: UpstreamQuestion, key: string | undefined): Promise<unknown> {
    // The upstream may ask before its CreateTaskResult reached us: wait for the calls being answered.
    if (!this.#fronts.has(taskId)) await Promise.allSettled([...this.#starting]);
    const ctx = this.#fronts.get(taskId);
    if (ctx === undefined) {
      this.#logger.warn('Proxy: an upstream task asked a question, but no front task follows it', { taskId: taskId.slice(0, 200), method: question.method });
      throw upstreamAnswerError(undefined);
    }
    // A 2026-07-28 upstream's key names its input request for the task's life: kept as the front task's key.
    return askFront(ctx, question, ctx.taskId === undefined ? undefined : key).catch((error: unknown) => Promise.reject(upstreamAnswerError(error)));
  }
}

/** `value` without the upstream's related-task `_meta` (the front tags its own messages with its own task). */
function withoutRelatedTask<T>(value: T): T {
  if (!isRecord(value) || !isRecord(value._meta) || value._meta[RELATED_TASK_META] === undefined) return value;
  const { [RELATED_TASK_META]: _related, ...meta } = value._meta;
  const { _meta: _old, ...rest } = value;
  return (Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta }) as T;
}
