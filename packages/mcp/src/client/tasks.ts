/**
 * `tools/call` as a task, in both flavours the client may meet:
 * - 2026-07-28, the `io.modelcontextprotocol/tasks` extension: the call declares the extension in its
 *   `clientCapabilities`; the server decides whether to answer at once (`complete`) or with a task
 *   (`resultType: "task"`, flat). The client polls `tasks/get` (a `DetailedTask`: `result` when `completed` — tool
 *   results with `isError` included —, `error` when `failed`, `inputRequests` when `input_required`), answers input
 *   requests with the application's callbacks through `tasks/update`, and cancels with `tasks/cancel`.
 * - 2025-11-25 core tasks: the call carries `params.task` (`{ ttl? }`) when the server advertised
 *   `tasks.requests.tools.call`; the answer is `CreateTaskResult` (`{ task }`); the client polls `tasks/get`, reads
 *   the outcome with `tasks/result` (exactly what the call would have answered: a tool result, `isError` included,
 *   or the JSON-RPC error), and cancels with `tasks/cancel`. Input requests travel as live requests on the session,
 *   answered by the same callbacks; `notifications/tasks/status` wakes the poll early.
 * Polling honours the server's `pollIntervalMs` (`pollInterval` at 2025-11-25) as a floor and backs off while the
 * status stays the same.
 *
 * @see the extension `io.modelcontextprotocol/tasks` "Task Creation", "Task Polling", "Task Update Requests",
 *   "Task Cancellation"; MCP 2025-11-25 basic/utilities/tasks.mdx "Creating Tasks", "Getting Task Results"
 */
import { TASKS_EXTENSION } from '../protocol/inbound.js';
import type { JsonRpcNotification } from '@switchboard/jsonrpc';
import { clampTimerMs } from '@switchboard/jsonrpc/internal';
import { RequestAbortedError } from '../protocol/clientErrors.js';
import { mcpErrorFromWire } from '../protocol/errors.js';
import type { CallToolResult, ClientCapabilities, ServerCapabilities } from '../protocol/types.js';
import type { ClientCore, CoreSendOptions, InputQuestion } from './clientCore.js';
import { InvalidResultError, NotSupportedError } from './errors.js';
import { answerInputRequests, callSignal, requestWithInputRounds } from './inputRounds.js';
import type { RequestOptions } from './options.js';


/** The only revision whose core protocol has tasks (`params.task`, `tasks/result`). */
const CORE_TASKS_REVISION = '2025-11-25';

/** Default of {@link CallToolAsTaskOptions.pollIntervalMs}, in ms. */
export const DEFAULT_CLIENT_POLL_INTERVAL_MS = 1_000;
/** The shortest wait between two polls of a task, whatever `pollIntervalMs` the server asks for (ms). */
export const MIN_TASK_POLL_INTERVAL_MS = 100;
/** The longest delay a timer holds (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Default of {@link CallToolAsTaskOptions.maxPollIntervalMs}, in ms. */
export const DEFAULT_TASK_MAX_POLL_INTERVAL_MS = 30_000;
/** Each poll that finds the status unchanged waits this much longer than the one before. */
const BACKOFF = 1.5;

/** Where a task is in its life. `completed`, `failed` and `cancelled` are final. */
export type ClientTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const STATUSES: ReadonlySet<string> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** Options of `McpClient.callToolAsTask`: each request's options, plus how to poll. */
export interface CallToolAsTaskOptions extends RequestOptions {
  /**
   * Wait between polls in ms when the server suggests none; never shorter than the server's `pollIntervalMs`.
   * @default 1_000
   */
  readonly pollIntervalMs?: number;
  /** The longest wait between polls the backoff reaches, in ms (at least the first wait). @default 30_000 */
  readonly maxPollIntervalMs?: number;
  /** 2025-11-25 only: the task lifetime asked for (`params.task.ttl`), in ms; the 2026-07-28 server decides alone. @default the server's */
  readonly ttlMs?: number;
}

/**
 * A tool call the server may run as a task. Made by `McpClient.callToolAsTask`; the fields are the last status
 * seen (by {@link poll}, by {@link result}'s polling, or by a status notification).
 */
export interface ClientTask {
  /** The server's task id; `undefined` when the server answered the call at once without making a task. */
  readonly taskId: string | undefined;
  /** The last status seen. */
  readonly status: ClientTaskStatus;
  /** The server's last status message, if any. */
  readonly statusMessage: string | undefined;
  /** 2026-07-28: the input requests of an `input_required` task, by key (answered by {@link result} on its own). */
  readonly inputRequests: Readonly<Record<string, InputQuestion>> | undefined;
  /**
   * Waits for the outcome: polls with backoff, answers input requests with the application's callbacks, and
   * resolves with the tool result (an `isError` result included). Called again, the same promise.
   * @throws McpError the JSON-RPC error the task failed with
   * @throws RequestAbortedError when the task was cancelled, or the call's `signal` aborted (then `tasks/cancel` is sent)
   * @throws InvalidResultError when the server's task breaks the spec; the typed errors of each request
   */
  result(): Promise<CallToolResult>;
  /** One `tasks/get`; resolves with the status it read. @throws the typed errors of the request */
  poll(): Promise<ClientTaskStatus>;
  /** Asks the server to cancel the task (`tasks/cancel`; cooperative). A final task is left alone. @throws the typed errors of the request */
  cancel(): Promise<void>;
  /**
   * 2026-07-28: sends answers to the task's input requests (`tasks/update`), for an application that answers them
   * itself instead of through {@link result}.
   * @throws NotSupportedError on a 2025-11-25 task (its input requests are live requests on the session)
   */
  update(inputResponses: Readonly<Record<string, unknown>>): Promise<void>;
}

/** What tasks need from the client. */
export type TasksHost = Pick<ClientCore, 'era' | 'revision' | 'options' | 'send' | 'answerInput' | 'onNotification' | 'logger'>;

/** What {@link callToolAsTask} starts from: the client, and what the server advertised. */
export interface TaskStart {
  readonly host: TasksHost;
  /** The server's capabilities (2025-11-25: `tasks.requests.tools.call` says whether tasks exist). */
  readonly serverCapabilities: ServerCapabilities | undefined;
  /** The capabilities the client declares; the extension is added to them for the task's requests. */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * 2025-11-25: the tool's `execution.taskSupport` as last listed (`'none'`: listed without one), `undefined` when
   * the tool was never listed.
   */
  readonly taskSupport?: string | undefined;
}

type Params = Record<string, unknown>;

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `options` with the envelope's `clientCapabilities` replaced for that one request by `capabilities` plus the tasks
 * extension (declared on the task's own requests only: a 2025-11-25 `initialize` has no `extensions`).
 */
function declaringTasks(options: RequestOptions, capabilities: ClientCapabilities): CoreSendOptions {
  return { ...options, capabilities: withTasksExtension(capabilities) };
}

/** `clientCapabilities` with the tasks extension declared. */
export function withTasksExtension(capabilities: ClientCapabilities): ClientCapabilities {
  const extensions = isRecord(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/**
 * Calls a tool so that the server may run it as a task (see the module comment).
 * @throws NotSupportedError on a legacy revision without core tasks, or a 2025-11-25 server without
 *   `tasks.requests.tools.call`
 * @throws InvalidResultError when the answer is neither a task nor a tool result; the errors of the input rounds
 *   and of each request
 */
export async function callToolAsTask(start: TaskStart, call: { readonly name: string; readonly arguments?: Params }, options: CallToolAsTaskOptions = {}): Promise<ClientTask> {
  const { host } = start;
  const { pollIntervalMs: _poll, maxPollIntervalMs: _max, ttlMs, ...request } = options;
  const params: Params = call.arguments === undefined ? { name: call.name } : { name: call.name, arguments: call.arguments };
  if (host.era === 'modern') {
    const result = await requestWithInputRounds<unknown>(host, { method: 'tools/call', params }, declaringTasks(request, start.clientCapabilities));
    if (isRecord(result) && result.resultType === 'task') return new ToolTask({ start, flavour: 'extension', task: readTask(result, 'tools/call'), options });
    return settledTask(host, result);
  }
  // MCP 2025-11-25 basic/utilities/tasks.mdx "Capabilities": a requestor augments only what the receiver declared.
  const offered = start.serverCapabilities?.tasks;
  const requests = isRecord(offered) ? offered.requests : undefined;
  const tools = isRecord(requests) ? requests.tools : undefined;
  if (host.revision !== CORE_TASKS_REVISION || !isRecord(tools) || tools.call === undefined) {
    throw notSupported(host, 'is not offered by the server: it did not advertise tasks.requests.tools.call');
  }
  // MCP 2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation": a tool listed without taskSupport (or
  // "forbidden") MUST NOT be called as a task: it is called plainly, and its result is a completed task.
  if (start.taskSupport === 'none' || start.taskSupport === 'forbidden') return settledTask(host, await host.send<unknown>('tools/call', params, request));
  const result = await host.send<unknown>('tools/call', { ...params, task: ttlMs === undefined ? {} : { ttl: ttlMs } }, request);
  if (isRecord(result) && isRecord(result.task)) return new ToolTask({ start, flavour: 'core', task: readTask(result.task, 'tools/call'), options });
  return settledTask(host, result);
}

/** Whether `signal` has aborted (a function, so that a check after an `await` is not narrowed away). */
function aborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}

function notSupported(host: TasksHost, reason: string): NotSupportedError {
  return new NotSupportedError({ operation: 'callToolAsTask', era: host.era, revision: host.revision, reason });
}

/** The fields of a task as the client keeps them. */
interface TaskFacts {
  readonly taskId: string;
  readonly status: ClientTaskStatus;
  readonly statusMessage: string | undefined;
  readonly pollIntervalMs: number | undefined;
  readonly raw: Params;
}

/** Reads a wire task (either flavour). @throws InvalidResultError when it has no `taskId` or no known `status` */
function readTask(task: Params, method: string): TaskFacts {
  const { taskId, status, statusMessage } = task;
  if (typeof taskId !== 'string') throw new InvalidResultError({ method, reason: 'the task has no "taskId" string', result: task });
  if (typeof status !== 'string' || !STATUSES.has(status)) throw new InvalidResultError({ method, reason: `the task has an unknown "status" ${JSON.stringify(status)}`, result: task });
  const interval = task.pollIntervalMs ?? task.pollInterval;
  return {
    taskId,
    status: status as ClientTaskStatus,
    statusMessage: typeof statusMessage === 'string' ? statusMessage : undefined,
    pollIntervalMs: typeof interval === 'number' && interval >= 0 ? interval : undefined,
    raw: task,
  };
}

/** A call the server answered at once: a task that is already `completed`. */
function settledTask(host: TasksHost, result: unknown): ClientTask {
  if (!isRecord(result) || !Array.isArray(result.content)) throw new InvalidResultError({ method: 'tools/call', reason: 'the result is neither a task nor a tool result', result });
  const done = Promise.resolve(result as unknown as CallToolResult);
  return {
    taskId: undefined,
    status: 'completed',
    statusMessage: undefined,
    inputRequests: undefined,
    result: () => done,
    poll: () => Promise.resolve('completed'),
    cancel: () => Promise.resolve(),
    update: () => Promise.reject(notSupported(host, 'has no task to update: the server answered the call at once')),
  };
}

/** A task on the server, polled (see the module comment). */
class ToolTask implements ClientTask {
  readonly taskId: string;
  status: ClientTaskStatus;
  statusMessage: string | undefined;
  inputRequests: Readonly<Record<string, InputQuestion>> | undefined = undefined;
  readonly #host: TasksHost;
  readonly #flavour: 'extension' | 'core';
  readonly #options: CallToolAsTaskOptions;
  readonly #request: CoreSendOptions;
  #serverInterval: number | undefined;
  #raw: Params;
  #outcome: Promise<CallToolResult> | undefined = undefined;
  /** 2026-07-28: the input request keys already answered (keys are unique over the task's life). */
  readonly #answered = new Set<string>();
  #wake: (() => void) | undefined = undefined;

  constructor(init: { readonly start: TaskStart; readonly flavour: 'extension' | 'core'; readonly task: TaskFacts; readonly options: CallToolAsTaskOptions }) {
    const { start, flavour, task, options } = init;
    this.#host = start.host;
    this.#flavour = flavour;
    // The wait for the task follows the call's signal (made from its `cancellation` when only that was given).
    this.#options = options.cancellation === undefined || options.signal !== undefined ? options : { ...options, signal: callSignal(options) };
    const { pollIntervalMs: _p, maxPollIntervalMs: _m, ttlMs: _t, signal: _s, cancellation: _c, ...request } = options;
    // The extension's requests (tasks/get, tasks/update, tasks/cancel) declare it, as the call did.
    this.#request = flavour === 'extension' ? declaringTasks(request, start.clientCapabilities) : request;
    this.taskId = task.taskId;
    this.status = task.status;
    this.statusMessage = task.statusMessage;
    this.#serverInterval = task.pollIntervalMs;
    this.#raw = task.raw;
  }

  result(): Promise<CallToolResult> {
    this.#outcome ??= this.#run();
    return this.#outcome;
  }

  async poll(): Promise<ClientTaskStatus> {
    const answer = await this.#send('tasks/get', { taskId: this.taskId });
    if (!isRecord(answer)) throw new InvalidResultError({ method: 'tasks/get', reason: 'the result is not an object', result: answer });
    this.#see(readTask(answer, 'tasks/get'));
    if (this.#flavour === 'extension') {
      const asked = answer.inputRequests;
      this.inputRequests = this.status === 'input_required' && isRecord(asked) ? (asked as Record<string, InputQuestion>) : undefined;
    }
    return this.status;
  }

  async cancel(): Promise<void> {
    if (FINAL.has(this.status)) return;
    const answer = await this.#send('tasks/cancel', { taskId: this.taskId });
    // 2025-11-25 answers the task as it now is; the extension only acknowledges.
    if (this.#flavour === 'core' && isRecord(answer) && typeof answer.status === 'string') this.#see(readTask(answer, 'tasks/cancel'));
  }

  async update(inputResponses: Readonly<Record<string, unknown>>): Promise<void> {
    if (this.#flavour === 'core') throw notSupported(this.#host, 'cannot update a 2025-11-25 task: its input requests are live requests on the session');
    for (const key of Object.keys(inputResponses)) this.#answered.add(key);
    await this.#send('tasks/update', { taskId: this.taskId, inputResponses });
  }

  #see(task: TaskFacts): void {
    this.status = task.status;
    this.statusMessage = task.statusMessage;
    if (task.pollIntervalMs !== undefined) this.#serverInterval = task.pollIntervalMs;
    this.#raw = task.raw;
  }

  #send(method: string, params: Params): Promise<unknown> {
    return this.#host.send<unknown>(method, params, this.#request);
  }

  async #run(): Promise<CallToolResult> {
    const signal = this.#options.signal;
    // 2025-11-25: status notifications of this task wake the poll early.
    const stop = this.#flavour === 'core' ? this.#host.onNotification((n) => this.#heard(n)) : undefined;
    try {
      const first = this.#firstInterval();
      const max = Math.max(this.#maxInterval(), first);
      let interval = first;
      let last = this.status;
      for (;;) {
        if (aborted(signal)) throw await this.#abandon(signal);
        if (FINAL.has(this.status)) return await this.#final();
        if (this.status === 'input_required') {
          // 2025-11-25: tasks/result blocks until the task is final; meanwhile the server's questions arrive on the session.
          if (this.#flavour === 'core') return await this.#final();
          await this.#answer();
        }
        await this.#sleep(interval, signal);
        if (aborted(signal)) throw await this.#abandon(signal);
        await this.poll();
        if (this.status === last) interval = Math.min(interval * BACKOFF, max);
        else {
          interval = this.#firstInterval();
          last = this.status;
        }
      }
    } catch (error) {
      // Aborted while a request was out (a poll, an answer, 2025-11-25's tasks/result): the task is cancelled too.
      if (aborted(signal) && !FINAL.has(this.status) && !(error instanceof RequestAbortedError && error.method === 'tools/call')) throw await this.#abandon(signal);
      throw error;
    } finally {
      stop?.();
    }
  }

  /** The longest wait between two polls (ms), never above what a timer can hold. */
  #maxInterval(): number {
    return Math.min(MAX_TIMER_MS, Math.max(MIN_TASK_POLL_INTERVAL_MS, this.#options.maxPollIntervalMs ?? DEFAULT_TASK_MAX_POLL_INTERVAL_MS));
  }

  /**
   * The first wait: the server's `pollIntervalMs` or the caller's, whichever is longer, within
   * [MIN_TASK_POLL_INTERVAL_MS, 2^31 - 1 ms] (a server asking for 0 ms made ~400 `tasks/get` a second, and a
   * huge value overflowed the timer).
   */
  #firstInterval(): number {
    const asked = this.#options.pollIntervalMs;
    const server = this.#serverInterval;
    const wanted = server === undefined ? (asked ?? DEFAULT_CLIENT_POLL_INTERVAL_MS) : Math.max(server, asked ?? 0);
    return Math.min(MAX_TIMER_MS, Math.max(MIN_TASK_POLL_INTERVAL_MS, Number.isFinite(wanted) ? wanted : DEFAULT_CLIENT_POLL_INTERVAL_MS));
  }

  /** The outcome of a final (or, 2025-11-25, input-waiting) task. */
  async #final(): Promise<CallToolResult> {
    if (this.status === 'cancelled') throw new RequestAbortedError({ method: 'tools/call', cause: new Error(`Task "${this.taskId}" was cancelled`) });
    if (this.#flavour === 'core') {
      // tasks/result waits for the task; only the call's signal (not its idle budget) bounds it.
      const result = await this.#host.send<unknown>('tasks/result', { taskId: this.taskId }, { ...this.#request, timeoutMs: Number.POSITIVE_INFINITY, maxTotalTimeoutMs: this.#request.maxTotalTimeoutMs ?? Number.POSITIVE_INFINITY, ...(this.#options.signal === undefined ? {} : { signal: this.#options.signal }) });
      if (!isRecord(result) || !Array.isArray(result.content)) throw new InvalidResultError({ method: 'tasks/result', reason: 'the result is not a tool result', result });
      this.status = result.isError === true ? 'failed' : 'completed';
      return result as unknown as CallToolResult;
    }
    const raw = this.#raw;
    if (this.status === 'failed') {
      if (isRecord(raw.error) && typeof raw.error.code === 'number' && typeof raw.error.message === 'string') throw mcpErrorFromWire(raw.error as { code: number; message: string; data?: unknown });
      throw new InvalidResultError({ method: 'tasks/get', reason: 'a failed task has no "error"', result: raw });
    }
    const result = raw.result;
    if (!isRecord(result) || !Array.isArray(result.content)) throw new InvalidResultError({ method: 'tasks/get', reason: 'a completed task has no tool "result"', result: raw });
    return result as unknown as CallToolResult;
  }

  /** 2026-07-28: answers the input requests not answered yet, then hands the answers to the task. */
  async #answer(): Promise<void> {
    const pending = Object.entries(this.inputRequests ?? {}).filter(([key]) => !this.#answered.has(key));
    if (pending.length === 0) return;
    const responses = await answerInputRequests(this.#host, Object.fromEntries(pending), { method: 'tools/call', signal: this.#options.signal, taskId: this.taskId, tag: this.#options.tag });
    await this.update(responses);
  }

  /** The call's signal aborted: the task is cancelled (best effort) and the wait ends. */
  async #abandon(signal: AbortSignal): Promise<RequestAbortedError> {
    await this.cancel().catch((error: unknown) => this.#host.logger.debug('tasks/cancel after abort failed', { taskId: this.taskId, error }));
    return new RequestAbortedError({ method: 'tools/call', cause: signal.reason });
  }

  #heard(notification: JsonRpcNotification): void {
    const params = notification.params;
    if (notification.method !== 'notifications/tasks/status' || !isRecord(params) || params.taskId !== this.taskId) return;
    try {
      this.#see(readTask(params, notification.method));
    } catch (error) {
      this.#host.logger.debug('Malformed task status notification ignored', { error });
      return;
    }
    this.#wake?.();
  }

  #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    // A little jitter, so that many clients polling one server do not poll in step.
    const wait = clampTimerMs(ms * (0.9 + 0.2 * Math.random()));
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, wait);
      signal?.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }
}
