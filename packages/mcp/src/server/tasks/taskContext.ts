/**
 * The request context a tool handler gets while it runs as a task: the request's own context, except that its
 * `signal` is the task's (aborted by `tasks/cancel`, the TTL or the server closing, never by the request or
 * connection going away) and, once the task exists, its client requests go through the task:
 * - 2026-07-28 (the extension): `ctx.elicit` / `ctx.sample` / `ctx.listRoots` become input requests of the
 *   task (`input_required` with `inputRequests`, answered by `tasks/update`); progress and log messages are not
 *   sent (the extension defines none for tasks).
 * - 2025-11-25 (core tasks): they are live requests on the session, tagged with the related-task `_meta`; the
 *   task is `input_required` while one is outstanding.
 * Before the task exists (a 2026-07-28 call that may still answer on the request), everything is the request's.
 *
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx "Input Required Status", "Related Task Metadata"; the extension
 *   `io.modelcontextprotocol/tasks` "Task Update Requests", "Task Status Notifications"
 */
import { JsonRpcError } from '@switchboard/jsonrpc';
import { ClientRequestError, MissingClientCapabilityError } from '../../protocol/errors.js';
import { missingClientCapability } from '../../protocol/notifications.js';
import { isModernRevision } from '../../protocol/revisions.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, LoggingLevel } from '../../protocol/types.js';
import { ServerRequestContext } from '../context.js';
import { checkInputResponse, InvalidInputResponseError } from '../inputResponses.js';
import type { ClientRequestOptions } from '../types.js';
import type { TaskHandle } from './runner.js';
import { RELATED_TASK_META } from './wire.js';

/** The default input request key prefix per client request method. */
const KEY_PREFIX: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Options of a client request made from a task: the request options, plus the input request key (2026-07-28). */
type TaskClientRequestOptions = ClientRequestOptions & { readonly key?: string };

/** See the module comment. */
export class TaskRequestContext extends ServerRequestContext {
  readonly #origin: ServerRequestContext;
  readonly #task: TaskHandle;
  readonly #modern: boolean;
  readonly #counters = new Map<string, number>();

  /**
   * @param origin the context of the request that starts the task
   * @param task the task's handle
   */
  constructor(origin: ServerRequestContext, task: TaskHandle) {
    super({ facts: origin.facts, channel: origin.channel, connection: origin.connection, extra: origin.extra }, { id: origin.id, method: origin.method, signal: task.signal });
    this.requestMeta = origin.requestMeta;
    this.#origin = origin;
    this.#task = task;
    this.#modern = isModernRevision(origin.facts.protocolVersion);
  }

  /** The task's id. */
  override get taskId(): string {
    return this.#task.taskId;
  }

  override progress(progress: number, total?: number, message?: string): Promise<void> {
    if (!this.#task.committed) return this.#origin.progress(progress, total, message);
    if (this.#modern) return Promise.resolve();
    // The request that carried the progress token has been answered; a lost notification must not fail the task.
    return super.progress(progress, total, message).catch(() => {});
  }

  override log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!this.#task.committed) return this.#origin.log(level, data, logger);
    if (this.#modern) return Promise.resolve();
    return super.log(level, data, logger).catch((error: unknown) => {
      if (error instanceof TypeError) throw error;
    });
  }

  override sample(params: CreateMessageParams, options?: TaskClientRequestOptions): Promise<CreateMessageResult> {
    if (!this.#task.committed) return this.#origin.sample(params, options);
    return this.#clientRequest('sampling/createMessage', params, options);
  }

  override elicit(params: ElicitParams, options?: TaskClientRequestOptions): Promise<ElicitResult> {
    if (!this.#task.committed) return this.#origin.elicit(params, options);
    return this.#clientRequest('elicitation/create', params, options);
  }

  override listRoots(options?: TaskClientRequestOptions): Promise<ListRootsResult> {
    if (!this.#task.committed) return this.#origin.listRoots(options);
    return this.#clientRequest('roots/list', undefined, options);
  }

  async #clientRequest<T>(method: string, params: object | undefined, options: TaskClientRequestOptions | undefined): Promise<T> {
    const missing = missingClientCapability(this.facts.clientCapabilities, method);
    if (missing !== undefined) throw new MissingClientCapabilityError({ [missing]: {} });
    if (this.#modern) {
      const key = options?.key ?? this.#nextKey(method);
      const request = params === undefined ? { method } : { method, params: params as Readonly<Record<string, unknown>> };
      return (await this.#task.requestInput(key, request)) as T;
    }
    const p = (params ?? {}) as Record<string, unknown>;
    const meta = { ...(p._meta as Record<string, unknown> | undefined), [RELATED_TASK_META]: { taskId: this.#task.taskId } };
    await this.#task.waitOnClient(1);
    try {
      // No related request: the one that started the task has been answered (over HTTP, this goes on the GET stream).
      const result = await this.channel.request<T>(method, { ...p, _meta: meta }, { timeoutMs: options?.timeoutMs, signal: options?.signal ?? this.signal });
      checkInputResponse({ method, params: p }, result);
      return result;
    } catch (error) {
      if (error instanceof InvalidInputResponseError) throw error;
      throw error instanceof JsonRpcError ? new ClientRequestError({ method, error: error.toJSON() }) : error;
    } finally {
      await this.#task.waitOnClient(-1);
    }
  }

  /** `elicitation-0`, `elicitation-1` … per method, in call order: unique over the task's life. */
  #nextKey(method: string): string {
    const prefix = KEY_PREFIX[method] ?? method;
    const n = this.#counters.get(prefix) ?? 0;
    this.#counters.set(prefix, n + 1);
    return `${prefix}-${n}`;
  }
}
