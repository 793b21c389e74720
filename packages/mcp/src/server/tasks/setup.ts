/**
 * Wiring of tasks into a server, in one call: the {@link TaskRunner} over the server's {@link TaskStore}, the
 * `tools/call` branch ({@link ToolTasks}) and the `tasks/*` methods of both flavours.
 */
import type { Dispatcher, Logger } from '@switchboard/jsonrpc';
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import type { NotificationBus } from '../../stores/notificationBus.js';
import { InMemoryTaskStore, type TaskStore } from '../../stores/taskStore.js';
import type { DispatchContext } from '../connection.js';
import type { ServerClusterOptions, ServerTaskOptions } from '../options.js';
import { registerTaskMethods, type MethodWrapper } from './taskMethods.js';
import { DEFAULT_MAX_LIVE_TASKS, DEFAULT_MAX_LIVE_TASKS_PER_CALLER, DEFAULT_SUGGESTED_POLL_INTERVAL_MS, TaskRunner } from './runner.js';
import { TaskRelay } from './taskRelay.js';
import { DEFAULT_MAX_TASK_TTL_MS, DEFAULT_TASK_TTL_MS, ToolTasks } from './toolTasks.js';

/**
 * Makes the server's tasks and registers `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` and
 * `tasks/update` on `dispatcher`.
 * @throws TypeError when an option of `options` is not a number; RangeError when not a positive integer
 */
export function createToolTasks(setup: {
  readonly dispatcher: Dispatcher<DispatchContext>;
  readonly bus: NotificationBus;
  readonly logger: Logger;
  readonly store: TaskStore | undefined;
  readonly options: ServerTaskOptions | undefined;
  /** Whether any registered tool is task-capable. */
  readonly hasTaskTools: () => boolean;
  /** How the server decorates its operations' handlers. @default none */
  readonly wrap?: MethodWrapper;
  /** The server's `cluster` option (checked). @default none */
  readonly cluster?: ServerClusterOptions;
}): ToolTasks {
  const options = setup.options ?? {};
  const cluster = setup.cluster;
  const runner = new TaskRunner({
    ...(cluster === undefined ? {} : { instanceId: cluster.instanceId }),
    store: setup.store ?? new InMemoryTaskStore(),
    logger: setup.logger,
    maxLiveTasks: checkCountOption('tasks.maxLiveTasks', options.maxLiveTasks ?? DEFAULT_MAX_LIVE_TASKS),
    maxLiveTasksPerCaller: checkCountOption('tasks.maxLiveTasksPerCaller', options.maxLiveTasksPerCaller ?? DEFAULT_MAX_LIVE_TASKS_PER_CALLER),
    pollIntervalMs: checkCountOption('tasks.pollIntervalMs', options.pollIntervalMs ?? DEFAULT_SUGGESTED_POLL_INTERVAL_MS),
  });
  const tasks = new ToolTasks({
    runner,
    bus: setup.bus,
    logger: setup.logger,
    defaultTtlMs: checkCountOption('tasks.defaultTtlMs', options.defaultTtlMs ?? DEFAULT_TASK_TTL_MS),
    maxTtlMs: checkCountOption('tasks.maxTtlMs', options.maxTtlMs ?? DEFAULT_MAX_TASK_TTL_MS),
    hasTaskTools: setup.hasTaskTools,
    ...(cluster === undefined ? {} : { relay: new TaskRelay(cluster, runner, setup.logger) }),
  });
  registerTaskMethods(setup.dispatcher, tasks, setup.wrap);
  return tasks;
}
