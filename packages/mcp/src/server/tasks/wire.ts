/**
 * The wire shapes of a stored task, per flavour: the 2025-11-25 core `Task` (`ttl`, `pollInterval`, nested in
 * `CreateTaskResult.task`) and the 2026-07-28 extension's flat `Task` / `DetailedTask` (`ttlMs`,
 * `pollIntervalMs`, `resultType`). Also the names both flavours share.
 *
 * @see MCP 2025-11-25 schema.ts Task, CreateTaskResult, ServerCapabilities.tasks; the extension
 *   `io.modelcontextprotocol/tasks` "Tasks", "Task Creation", "Task Polling"
 */
import { TASKS_EXTENSION } from '../../protocol/inbound.js';
import type { TaskRecord } from '../../stores/taskStore.js';
import { isRecord } from '../params.js';

/** The identifier of the 2026-07-28 tasks extension, in `capabilities.extensions` of both sides. */
export { TASKS_EXTENSION };

/** The revision whose core protocol has the experimental tasks (`params.task`, `tasks/result`, `tasks/list`). */
export const CORE_TASKS_REVISION = '2025-11-25';

/** The `_meta` key that ties a 2025-11-25 message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The 2025-11-25 server capability of a server with task-capable tools (MCP 2025-11-25 schema.ts ServerCapabilities). */
export const CORE_TASKS_CAPABILITY = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

/** `data.requiredCapabilities` of the -32021 a client without the extension gets. */
export const TASKS_EXTENSION_REQUIRED = Object.freeze({ extensions: { [TASKS_EXTENSION]: {} } });

/** Whether a client declared the 2026-07-28 tasks extension in its capabilities. */
export function declaresTasksExtension(clientCapabilities: unknown): boolean {
  if (!isRecord(clientCapabilities) || !Object.hasOwn(clientCapabilities, 'extensions')) return false;
  const extensions = clientCapabilities.extensions;
  return isRecord(extensions) && Object.hasOwn(extensions, TASKS_EXTENSION) && extensions[TASKS_EXTENSION] !== undefined;
}

/** A task on the wire: a JSON object with its `taskId`. */
export type WireTask = Record<string, unknown> & { readonly taskId: string };

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The 2025-11-25 `Task` of a record. */
export function coreTask(record: TaskRecord): WireTask {
  const task: WireTask = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = iso(record.createdAtMs);
  task.lastUpdatedAt = iso(record.updatedAtMs);
  task.ttl = record.ttlMs;
  if (record.pollIntervalMs !== undefined) task.pollInterval = record.pollIntervalMs;
  return task;
}

/** The 2026-07-28 extension's `Task` of a record (no status payload). */
export function extensionTask(record: TaskRecord): WireTask {
  const task: WireTask = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = iso(record.createdAtMs);
  task.lastUpdatedAt = iso(record.updatedAtMs);
  task.ttlMs = record.ttlMs;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  return task;
}

/**
 * The extension's `DetailedTask`: `input_required` with `inputRequests`, `completed` with `result`, `failed` with
 * `error` (only JSON-RPC errors fail an extension task; a record failed otherwise reads as -32603).
 */
export function detailedTask(record: TaskRecord): WireTask {
  const task = extensionTask(record);
  if (record.status === 'input_required') task.inputRequests = record.inputRequests ?? {};
  else if (record.status === 'completed') task.result = record.result ?? { content: [] };
  else if (record.status === 'failed') task.error = record.error ?? { code: -32603, message: 'Internal error' };
  return task;
}

/** The 2026-07-28 `CreateTaskResult`: the flat task with `resultType: "task"`. */
export function extensionCreateTaskResult(record: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...extensionTask(record) };
}
