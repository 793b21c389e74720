/**
 * @switchboard/mcp/stores — what a server keeps between messages, as interfaces with their in-memory
 * implementations: sessions ({@link SessionStore}), resumable stream events ({@link EventStore}), tasks
 * ({@link TaskStore}), the notification bus between instances ({@link NotificationBus}), single-use request
 * states ({@link RequestStateStore}), the rate limit's token buckets ({@link RateLimitStore}), and what a cluster of instances shares to serve any session's request on any
 * instance: the {@link ClusterBus} (answers, cancellations and state changes that landed on the wrong instance) and
 * the {@link LeaseStore} (which instance is alive, which holds a response stream). A Redis or Postgres store implements one interface from here and is handed to
 * `McpServer` or `createMcpHttpHandler` through their options.
 *
 * @example
 * import { InMemoryEventStore } from '@switchboard/mcp/stores';
 * const eventStore = new InMemoryEventStore({ maxEventsPerStream: 500 });
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_BYTES_PER_SESSION,
  DEFAULT_MAX_EVENTS_PER_STREAM,
  DEFAULT_MAX_STREAMS,
  DEFAULT_MAX_STREAMS_PER_SESSION,
  InMemoryEventStore,
} from './eventStore.js';
export type { EventReplaySink, EventStore, InMemoryEventStoreOptions, PrimingEvent } from './eventStore.js';
export { InMemorySessionStore } from './sessionStore.js';
export type { SessionActivity, SessionPhase, SessionQuery, SessionRecord, SessionStateJson, SessionStore, SessionTransportKind } from './sessionStore.js';
export {
  appChannel,
  InMemoryClusterBus,
  instanceChannel,
  sessionChannel,
  taskChannel,
  type ClusterAppMessage,
  type ClusterBus,
  type ClusterBusMessage,
  type ClusterJsonRpcMessage,
  type ClusterListener,
  type ClusterMessage,
  type ClusterTaskMessage,
} from './clusterBus.js';
export {
  InMemoryLeaseStore,
  instanceLeaseKey,
  streamLeaseKey,
  type InMemoryLeaseStoreOptions,
  type Lease,
  type LeaseRequest,
  type LeaseStore,
} from './leaseStore.js';
export {
  FINAL_TASK_STATUSES,
  InMemoryTaskStore,
  isFinalTaskStatus,
  type InMemoryTaskStoreOptions,
  type NewTask,
  type TaskErrorObject,
  type TaskInputRequest,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  type TaskUpdate,
} from './taskStore.js';
export {
  DEFAULT_MAX_STORED_TASKS,
  DEFAULT_MAX_STORED_TASKS_PER_CALLER,
  DEFAULT_MAX_STORED_TASK_BYTES,
  DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER,
} from './taskQuota.js';
export { InMemoryNotificationBus, type BusListener, type BusMessage, type NotificationBus } from './notificationBus.js';
export { InMemoryRateLimitStore, type InMemoryRateLimitStoreOptions, type RateLimit, type RateLimitStore } from './rateLimitStore.js';
export { InMemoryRequestStateStore, type InMemoryRequestStateStoreOptions, type RequestStateStore } from './requestStateStore.js';
