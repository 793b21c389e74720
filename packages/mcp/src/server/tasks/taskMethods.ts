/**
 * The `tasks/*` methods of both flavours, on one dispatcher, chosen per request by its revision:
 * - 2025-11-25 core tasks: `tasks/get` (the `Task`), `tasks/result` (waits until the task is final, then answers
 *   exactly what the call would have: its result with the related-task `_meta`, or its JSON-RPC error),
 *   `tasks/list` (the requester's tasks, paged), `tasks/cancel` (the `Task`, now `cancelled`; -32602 when final).
 * - 2026-07-28 extension: `tasks/get` (`DetailedTask`), `tasks/update` (hands `inputResponses` to the task; empty
 *   ack), `tasks/cancel` (empty ack, also for a final task); -32021 when the request did not declare the
 *   extension; `tasks/result` and `tasks/list` do not exist (-32601).
 * An unknown (or expired, or another client's) task id is -32602 in both.
 *
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx "Protocol Messages", "Error Handling"; the extension
 *   `io.modelcontextprotocol/tasks` "Task Polling", "Task Update Requests", "Task Cancellation"
 */
import { ErrorCode, JsonRpcError, type Dispatcher, type JsonRpcParams, type MethodHandler } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { MissingClientCapabilityError } from '../../protocol/errors.js';
import { isModernRevision } from '../../protocol/revisions.js';
import { isFinalTaskStatus, type TaskInputRequest, type TaskRecord } from '../../stores/taskStore.js';
import type { DispatchContext } from '../connection.js';
import type { ServerRequestContext } from '../context.js';
import { invalidParams, isRecord, paramsRecord, requireString } from '../params.js';
import { checkInputResponse } from '../inputResponses.js';
import { principalOf, taskOwner, type ToolTasks } from './toolTasks.js';
import { coreTask, declaresTasksExtension, detailedTask, RELATED_TASK_META, TASKS_EXTENSION_REQUIRED } from './wire.js';

/**
 * The error of a task whose instance stopped before it ended (stored as the task's `error`, and the answer to the
 * `tasks/update` that found it so): -32603 with `data.reason: 'instance_lost'`.
 */
export const TASK_LOST_ERROR = Object.freeze({
  code: ErrorCode.InternalError,
  message: 'Internal error: the server instance running this task stopped before it ended',
  data: Object.freeze({ reason: 'instance_lost' }),
});

/** The empty acknowledgement of `tasks/update` and `tasks/cancel` (2026-07-28). */
const ACK = Object.freeze({ resultType: 'complete' });

/** How the server decorates an operation's handler (the modern era's `resultType` and `_meta`); identity by default. */
export type MethodWrapper = (method: string, handler: MethodHandler<DispatchContext>) => MethodHandler<DispatchContext>;

/**
 * Registers `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` and `tasks/update` on `dispatcher`, each
 * through `wrap` (as the server's other operations are).
 */
export function registerTaskMethods(dispatcher: Dispatcher<DispatchContext>, tasks: ToolTasks, wrap: MethodWrapper = (_method, handler) => handler): void {
  const methods = new TaskMethods(tasks);
  const request = (method: string, handler: (params: JsonRpcParams | undefined, ctx: ServerRequestContext) => Promise<Record<string, unknown>>): void => {
    dispatcher.register(method, wrap(method, (params, ctx) => handler(params, ctx as unknown as ServerRequestContext)), { kind: 'request' });
  };
  request('tasks/get', (params, ctx) => (modern(ctx) ? methods.getDetailed(params, ctx) : methods.get(params, ctx)));
  request('tasks/result', (params, ctx) => (modern(ctx) ? notInExtension('tasks/result') : methods.result(params, ctx)));
  request('tasks/list', (params, ctx) => (modern(ctx) ? notInExtension('tasks/list') : methods.list(params, ctx)));
  request('tasks/cancel', (params, ctx) => (modern(ctx) ? methods.cancelAck(params, ctx) : methods.cancel(params, ctx)));
  request('tasks/update', (params, ctx) => (modern(ctx) ? methods.update(params, ctx) : notInExtension('tasks/update')));
}

function modern(ctx: ServerRequestContext): boolean {
  return isModernRevision(ctx.facts.protocolVersion);
}

function notInExtension(method: string): Promise<never> {
  return Promise.reject(new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: "${method}"`));
}

class TaskMethods {
  readonly #tasks: ToolTasks;

  constructor(tasks: ToolTasks) {
    this.#tasks = tasks;
  }

  async get(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    return coreTask(await this.#find(params, ctx));
  }

  async result(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    const { taskId } = await this.#find(params, ctx);
    const final = await this.#tasks.runner.whenFinal(taskId, ctx.signal);
    if (final === undefined) throw unknownTask(taskId);
    if (final.error !== undefined) throw new JsonRpcError(final.error.code, final.error.message, final.error.data);
    if (final.status === 'cancelled' || !isRecord(final.result)) throw invalidParams(`task "${echo(taskId)}" was cancelled: it has no result`);
    const result = final.result;
    const meta = isRecord(result._meta) ? result._meta : undefined;
    return { ...result, _meta: { ...meta, [RELATED_TASK_META]: { taskId } } };
  }

  async list(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    const cursor = paramsRecord(params).cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw invalidParams('"cursor" must be a string');
    const owner = taskOwner(ctx);
    // A request with no owner to list by (no session, no authenticated client) sees no task.
    if (owner === undefined) return { tasks: [] };
    const page = await this.#tasks.runner.store.list({ owner, cursor, limit: 100 }).catch((error: unknown) => {
      throw error instanceof TypeError ? invalidParams('invalid cursor', { cursor: echo(String(cursor)) }) : error;
    });
    return page.nextCursor === undefined ? { tasks: page.tasks.map(coreTask) } : { tasks: page.tasks.map(coreTask), nextCursor: page.nextCursor };
  }

  async cancel(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    const record = await this.#find(params, ctx);
    // MCP 2025-11-25 basic/utilities/tasks.mdx "Cancelling Tasks": a final task cannot be cancelled.
    if (isFinalTaskStatus(record.status)) throw invalidParams(`task "${echo(record.taskId)}" is already "${record.status}"`);
    const after = await this.#tasks.cancel(record.taskId);
    if (after === undefined) throw unknownTask(record.taskId);
    return coreTask(after);
  }

  async getDetailed(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    requireExtension(ctx);
    return { resultType: 'complete', ...detailedTask(await this.#find(params, ctx)) };
  }

  async update(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    requireExtension(ctx);
    const responses = paramsRecord(params).inputResponses;
    if (!isRecord(responses)) throw invalidParams('"inputResponses" must be an object');
    const record = await this.#find(params, ctx);
    // Each answer to an outstanding input request is checked against it first (inputResponses.ts): a malformed
    // one is -32602 and the task gets none of this update's answers (MCP 2026-07-28 basic/patterns/mrtr.mdx).
    const outstanding = record.inputRequests ?? {};
    for (const key of Object.keys(responses)) if (Object.hasOwn(outstanding, key)) checkInputResponse(outstanding[key] as TaskInputRequest, responses[key], key);
    // Keys not outstanding are ignored. The ack is given once the task has the responses ("eventually consistent"
    // in the extension's "Task Update Requests"), wherever it runs: never for input that no task will see.
    if (isFinalTaskStatus(record.status) || (await this.#tasks.runner.provide(record.taskId, responses))) return ACK;
    const relay = this.#tasks.relay;
    const runner = record.runner;
    if (relay === undefined || runner === undefined) {
      this.#tasks.runner.logger.debug('Input responses for a task not running here', { taskId: record.taskId });
      return ACK;
    }
    const outcome = runner === relay.instanceId ? 'lost' : await relay.forward(record.taskId, runner, responses);
    if (outcome === 'delivered') return ACK;
    if (outcome === 'unreachable') throw new JsonRpcError(ErrorCode.InternalError, 'Internal error: the server instance running this task did not answer', { reason: 'instance_unreachable', taskId: record.taskId });
    // Its instance is gone (or no longer runs it): the task will never end, so it ends now, failed, as pollers see.
    const failed = await this.#tasks.runner.store.update(record.taskId, { status: 'failed', statusMessage: TASK_LOST_ERROR.message, error: TASK_LOST_ERROR }).catch((error: unknown) => {
      // A TypeError: the task became final meanwhile (it ended after all), and the input is moot.
      if (error instanceof TypeError) return undefined;
      throw error;
    });
    if (failed === undefined) return ACK;
    throw new JsonRpcError(TASK_LOST_ERROR.code, TASK_LOST_ERROR.message, { ...TASK_LOST_ERROR.data, taskId: record.taskId });
  }

  async cancelAck(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    requireExtension(ctx);
    const record = await this.#find(params, ctx);
    if (!isFinalTaskStatus(record.status)) await this.#tasks.cancel(record.taskId);
    return ACK;
  }

  /** The task `params.taskId` names, if this requester may see it; else -32602. */
  async #find(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<TaskRecord> {
    const taskId = requireString(paramsRecord(params), 'taskId');
    const record = await this.#tasks.runner.store.get(taskId);
    // A task bound to an authenticated client is invisible to any other (MCP 2025-11-25 "Security Considerations").
    if (record === undefined || (record.owner?.startsWith('client:') === true && record.owner !== principalOf(ctx.authInfo))) throw unknownTask(taskId);
    return record;
  }
}

function requireExtension(ctx: ServerRequestContext): void {
  if (!declaresTasksExtension(ctx.clientCapabilities)) throw new MissingClientCapabilityError(TASKS_EXTENSION_REQUIRED);
}

function unknownTask(taskId: string): JsonRpcError {
  return invalidParams(`unknown task "${echo(taskId)}"`, { taskId: echo(taskId) });
}
