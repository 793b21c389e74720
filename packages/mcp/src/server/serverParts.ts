/**
 * How an {@link McpServer} is put together: its options checked and defaulted, then each part made once and wired to
 * the others — the registry, the capability cache, both eras (`eras/legacy.ts`, `eras/modern.ts`), the listen
 * streams, the one {@link Dispatcher} with the inbound step as its guard and one context object per request, the
 * mount point, the tasks, the operations of `operations.ts`, the middleware chain, and the host every session-era
 * connection is served through. The facade (`mcpServer.ts`) holds the parts and answers its callers with them.
 */
import { DEFAULT_MAX_QUEUED_INBOUND, Dispatcher, neverThrowing, type JsonRpcError, type JsonRpcRequest, type Logger } from '@switchboard/jsonrpc';
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import { createStderrLogger } from '../logger.js';
import { InMemoryNotificationBus, type NotificationBus } from '../stores/notificationBus.js';
import { InMemoryRequestStateStore } from '../stores/requestStateStore.js';
import { CapabilityCache } from './capabilities.js';
import type { Connection, ConnectionHost, DispatchContext } from './connection.js';
import { ServerRequestContext } from './context.js';
import { LegacyEra } from './eras/legacy.js';
import { ModernEra, type RequestStateSealer } from './eras/modern.js';
import type { FeatureHost } from './features/featureHost.js';
import { ListenStreams } from './features/listen.js';
import type { ToolSearch } from './features/toolSearch.js';
import { gateInbound } from './inboundGate.js';
import { Listeners } from './listeners.js';
import { MiddlewareChain } from './middleware/chain.js';
import { MountPoint } from './mount.js';
import { registerOperations } from './operations.js';
import {
  DEFAULT_MAX_LISTEN_STREAMS,
  DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER,
  DEFAULT_MAX_LISTEN_URI_CHARS_PER_CALLER,
  DEFAULT_MAX_SUBSCRIPTION_CHARS_TOTAL,
  DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
  DEFAULT_PAGE_SIZE,
  servedRevisionsOption,
  type McpServerOptions,
} from './options.js';
import type { ListKind } from './pagination.js';
import { refusalEventOf, type InboundRefusalEvent } from './refusalEvents.js';
import { Registry } from './registry.js';
import { RequestStateCodec, type RequestStateOptions } from './requestState.js';
import { resultChecksEnabled } from './results.js';
import { createToolTasks } from './tasks/setup.js';
import { checkServerClusterOptions } from './tasks/taskRelay.js';
import type { ToolTasks } from './tasks/toolTasks.js';
import type { ServerSession } from './types.js';
import { visibilityOption } from './visibility.js';

/** What the parts need of the server that holds them (each called back, never while the parts are being made). */
export interface ServerPartsHooks {
  /** A list changed (the registry heard of an addition or removal). */
  changed(kind: ListKind): void;
  /** The capabilities the next `initialize` advertises (`McpServer.capabilities`). */
  capabilities(): ServerCapabilities;
  /** `McpServer.notifyResourceUpdated`, for what a mounted server publishes. */
  notifyResourceUpdated(uri: string): Promise<void>;
}

/** The parts of one {@link McpServer}; see the module documentation. */
export interface ServerParts {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly capabilities: CapabilityCache;
  readonly listens: ListenStreams;
  /** The revisions served, oldest first. */
  readonly served: readonly ProtocolRevision[];
  readonly bus: NotificationBus;
  readonly dispatcher: Dispatcher<DispatchContext>;
  /** The live session-era connections; a connection leaves it when it closes. */
  readonly connections: Set<Connection>;
  readonly host: ConnectionHost;
  readonly tasks: ToolTasks;
  readonly mounts: MountPoint;
  /** Tool-search mode ({@link McpServerOptions.toolSearch}), when on. */
  readonly toolSearch: ToolSearch | undefined;
  readonly middleware: MiddlewareChain;
  readonly refusalListeners: Listeners<InboundRefusalEvent>;
  readonly sessionClosedListeners: Listeners<ServerSession>;
}

/**
 * Makes the parts of a server.
 * @throws TypeError when `pageSize`, `maxConcurrentRequestsPerSession`, `maxQueuedRequestsPerSession`,
 *   `maxSubscriptionsPerSession`, `maxSubscriptionUriLength` or `maxSubscriptionCharsTotal` is not a number
 * @throws RangeError when one of them is not a positive integer
 */
export function buildServerParts(info: Implementation, options: McpServerOptions, hooks: ServerPartsHooks): ServerParts {
  const limits = {
    maxSubscriptionsPerSession: checkCountOption('maxSubscriptionsPerSession', options.maxSubscriptionsPerSession ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION),
    maxSubscriptionUriLength: checkCountOption('maxSubscriptionUriLength', options.maxSubscriptionUriLength ?? DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH),
    maxSubscriptionCharsTotal: checkCountOption('maxSubscriptionCharsTotal', options.maxSubscriptionCharsTotal ?? DEFAULT_MAX_SUBSCRIPTION_CHARS_TOTAL),
  };
  const maxConcurrent = checkCountOption('maxConcurrentRequestsPerSession', options.maxConcurrentRequestsPerSession ?? 64);
  const maxQueued = checkCountOption('maxQueuedRequestsPerSession', options.maxQueuedRequestsPerSession ?? DEFAULT_MAX_QUEUED_INBOUND);
  const logger = neverThrowing(options.logger ?? createStderrLogger({ name: info.name }));
  const pageSize = checkCountOption('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE);
  const bus = options.bus ?? new InMemoryNotificationBus();
  const registry = new Registry({ name: info.name, logger, onchange: (kind) => hooks.changed(kind) });
  const visibility = visibilityOption(options.visibility);
  // Tool-search mode lists its two tools even before any tool is registered: the tools capability is always on.
  const configured = options.toolSearch === undefined || options.capabilities?.tools !== undefined ? options.capabilities : { ...options.capabilities, tools: { listChanged: true } };
  const cache = new CapabilityCache({ registry, info, capabilities: configured, instructions: options.instructions });
  const served = servedRevisionsOption(options.revisions);
  const era = new LegacyEra({ capabilities: cache, limits, servedRevisions: served });
  const modern = new ModernEra({
    info,
    capabilities: cache,
    servedRevisions: served,
    cache: options.cache,
    cacheByMethod: options.cacheByMethod,
    requestState: requestStateSealer(options.requestState),
    // The default record of used states keeps the codec's clock: it forgets a state when the codec expires it.
    usedStates: options.requestStateStore ?? new InMemoryRequestStateStore({ now: options.requestState?.now }),
    // The tasks extension is advertised when a task-capable tool exists.
    tasks: () => registry.hasTaskTools,
  });
  const listens = new ListenStreams({
    bus,
    capabilities: () => modern.capabilities(cache.capabilities),
    maxSubscriptions: limits.maxSubscriptionsPerSession,
    maxUriLength: limits.maxSubscriptionUriLength,
    maxStreams: checkCountOption('maxListenStreams', options.maxListenStreams ?? DEFAULT_MAX_LISTEN_STREAMS),
    maxStreamsPerCaller: checkCountOption('maxListenStreamsPerCaller', options.maxListenStreamsPerCaller ?? DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER),
    maxUriCharsTotal: limits.maxSubscriptionCharsTotal,
    maxUriCharsPerCaller: checkCountOption('maxListenUriCharsPerCaller', options.maxListenUriCharsPerCaller ?? DEFAULT_MAX_LISTEN_URI_CHARS_PER_CALLER),
  });
  const refusalListeners = new Listeners<InboundRefusalEvent>('refusal');
  const sessionClosedListeners = new Listeners<ServerSession>('session');
  const tellRefused = (message: JsonRpcRequest, ctx: DispatchContext, refusal: JsonRpcError): void => {
    const event = refusalEventOf(message, ctx, refusal);
    refusalListeners.emit(event, { logger, facts: { method: event.method } });
  };
  const stateless = { servedRevisions: served, get serverCapabilities() { return cache.capabilities; } };
  const dispatcher = new Dispatcher<DispatchContext>({
    logger,
    // The inbound step, per message (era, envelope, lifecycle, method table, capabilities): inboundGate.ts.
    guard: (message, ctx) => {
      const refusal = gateInbound(message, ctx, stateless);
      if (refusal !== undefined && refusalListeners.size !== 0 && 'id' in message) tellRefused(message, ctx, refusal);
      return refusal;
    },
    // One object per request: methods on the prototype, the signal made only when read.
    createContext: (ctx, request) => new ServerRequestContext(ctx, request),
  });
  const host: FeatureHost = { registry, logger, checkResults: resultChecksEnabled(options.checkResults), pageSize, visibility };
  const mounts = new MountPoint({
    registry,
    visibility,
    capabilities: () => hooks.capabilities(),
    invalidateCapabilities: () => cache.invalidate(),
    notifyResourceUpdated: (uri) => hooks.notifyResourceUpdated(uri),
  });
  // Tasks (both flavours): the runner, the tools/call branch and the tasks/* methods (server/tasks/).
  checkServerClusterOptions(options.cluster);
  const tasks = createToolTasks({
    dispatcher,
    bus,
    logger,
    store: options.taskStore,
    options: options.tasks,
    hasTaskTools: () => registry.hasTaskTools,
    wrap: (method, handler) => modern.wrap(method, handler),
    ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
  });
  const toolSearch = registerOperations(dispatcher, { host, modern, listens, tasks, visibility: mounts.options, toolSearch: options.toolSearch });
  era.register(dispatcher);
  const middlewareHost = { logger, tool: (name: string) => registry.tools.get(name)?.descriptor };
  const middleware = new MiddlewareChain({ dispatcher, host: middlewareHost, complete: (method, result) => modern.decorate(method, result) });
  const connections = new Set<Connection>();
  const connectionHost: ConnectionHost = {
    dispatcher,
    logger,
    bus,
    maxConcurrentInbound: maxConcurrent,
    maxQueuedInbound: maxQueued,
    servedRevisions: served,
    get capabilities() {
      return cache.capabilities;
    },
    connectionClosed: (connection) => {
      connections.delete(connection);
      era.connectionClosed(connection);
      sessionClosedListeners.emit(connection, { logger, facts: { sessionId: connection.id } });
    },
  };
  return {
    logger,
    registry,
    capabilities: cache,
    listens,
    served,
    bus,
    dispatcher,
    connections,
    host: connectionHost,
    tasks,
    mounts,
    toolSearch,
    middleware,
    refusalListeners,
    sessionClosedListeners,
  };
}

/**
 * The server's `requestState` codec. Given options are checked now (the constructor throws on bad ones); the default
 * one, with a random key of this instance, is made on first use, so a server that never seals a state never loads
 * Web Crypto (`globalThis.crypto` and the random key: the constructor took 6.5 ms cold with it, 3.7 without).
 */
function requestStateSealer(options: RequestStateOptions | undefined): RequestStateSealer {
  if (options !== undefined) return new RequestStateCodec(options);
  let made: RequestStateCodec | undefined;
  const codec = (): RequestStateCodec => (made ??= new RequestStateCodec());
  // async: a runtime without Web Crypto rejects the request's promise instead of throwing where it is awaited.
  return { issue: async (payload, binding) => codec().issue(payload, binding), openState: async (token, binding) => codec().openState(token, binding) };
}
