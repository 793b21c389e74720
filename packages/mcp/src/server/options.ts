/**
 * What a server is configured with: {@link McpServerOptions} (limits, eras, caching, request state, tasks, stores)
 * and the options of one connection ({@link ConnectOptions}).
 */
import type { ContextRequest, Logger, TransportMessageExtra } from '@switchboard/jsonrpc';
import { shownValue } from '@switchboard/jsonrpc/internal';
import type { ClientChannel } from './channel.js';
import type { RequestFacts } from './requestFacts.js';
import { isProtocolRevision, PROTOCOL_REVISIONS, type ProtocolRevision } from '../protocol/revisions.js';
import type { Implementation, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../protocol/types.js';
import type { Era } from '../protocol/revisions.js';
import type { NotificationBus } from '../stores/notificationBus.js';
import type { ClusterBus } from '../stores/clusterBus.js';
import type { LeaseStore } from '../stores/leaseStore.js';
import type { TaskStore } from '../stores/taskStore.js';
import type { CachePolicy } from './cachePolicy.js';
import type { CacheableMethod } from '../protocol/methods.js';
import type { RequestStateOptions } from './requestState.js';
import type { RequestStateStore } from '../stores/requestStateStore.js';

/** Task limits and defaults of a server ({@link McpServerOptions.tasks}). */
export interface ServerTaskOptions {
  /** Tasks live (started, not final) at once in this process; one more is refused (2025-11-25: -32603 `TaskLimitError`) or, on 2026-07-28, the call runs on its request. @default 1000 */
  readonly maxLiveTasks?: number;
  /**
   * Tasks one caller (the authenticated client, else the remote address; see `callerKeyOf`) may have live at once:
   * its share of `maxLiveTasks`, so that one caller's long tasks never keep another's calls from becoming tasks.
   * One more is refused as `maxLiveTasks` is (2025-11-25: -32603 `TaskLimitError`; 2026-07-28: the call runs on
   * its request). @default 100
   */
  readonly maxLiveTasksPerCaller?: number;
  /** Milliseconds a task is kept from its creation when its tool names none. @default 3,600,000 (1 h) */
  readonly defaultTtlMs?: number;
  /** The most milliseconds a task is kept, whatever the tool or a 2025-11-25 client's `params.task.ttl` ask. @default 86,400,000 (24 h) */
  readonly maxTtlMs?: number;
  /** The polling interval suggested to clients, in milliseconds. @default 1000 */
  readonly pollIntervalMs?: number;
}

/**
 * Several instances serving one set of tasks (`McpServerOptions.cluster`): each is given the same shared
 * `taskStore`, the same `bus` and `leases`, and its own `instanceId` — the same id as its HTTP handler's `cluster`
 * option (`redisStores` fills both alike).
 */
export interface ServerClusterOptions {
  /** Carries a `tasks/update` to the instance running the task, and its answer back. */
  readonly bus: ClusterBus;
  /** This instance's id: 1 to 64 letters, digits, `_` or `-`, unique in the cluster. */
  readonly instanceId: string;
  /**
   * Which instance is alive: the server renews the lease of its `instanceId` every third of `leaseTtlMs` (as the
   * HTTP handler's cluster does with the same id; both renewing is harmless). A `tasks/update` for a task whose
   * instance's lease lapsed fails the task at once. Absent: such an update waits `forwardTimeoutMs`, then is refused.
   */
  readonly leases?: LeaseStore;
  /** How long (ms) the instance's lease lasts unless renewed. @default 10_000 */
  readonly leaseTtlMs?: number;
  /** How long (ms) a forwarded `tasks/update` waits for the running instance's answer. @default 5000 */
  readonly forwardTimeoutMs?: number;
}

/**
 * Tool-search mode ({@link McpServerOptions.toolSearch}): `tools/list` answers the search tool, the call tool and
 * the pinned tools only. The search tool takes `{ query, limit?, regex? }` and returns the matching tools' full
 * `tools/list` entries (a JSON array in one text block), ranked by BM25 over names and titles, descriptions and
 * argument names, or, with `regex: true`, every tool whose name, an argument name or description matches the
 * case-insensitive RE2 expression. The call tool takes `{ name, arguments? }` and answers as `tools/call` of that
 * tool would. Every tool stays callable directly with `tools/call`.
 *
 * @example
 * const server = new McpServer({ name: 'gateway', version: '1.0.0' }, { toolSearch: { pinned: ['get_time'] } });
 * // tools/list → search_tools, call_tool, get_time
 */
export interface ToolSearchOptions {
  /** Tools listed as usual besides the two (names; a name not registered is ignored until it is). @default [] */
  readonly pinned?: readonly string[];
  /** Tools a search returns when its `limit` is absent, a positive integer. @default 5 */
  readonly defaultResults?: number;
  /** Most tools one search returns; a larger `limit` is lowered to it. A positive integer. @default 20 */
  readonly maxResults?: number;
  /**
   * Name of the search tool. Registering a tool of this name is refused (TypeError), as is this name equal to
   * `callToolName`. @default "search_tools"
   */
  readonly searchToolName?: string;
  /** Name of the call tool, refused like `searchToolName`. @default "call_tool" */
  readonly callToolName?: string;
}

/** {@link McpServer} options. */
export interface McpServerOptions {
  /** Free-text instructions returned by `initialize`. */
  readonly instructions?: string;
  /**
   * Extra capabilities to advertise, merged over those derived from what is registered (tools, resources,
   * prompts, completions when any completion handler exists, logging always).
   *
   * A session's capabilities are the ones its `initialize` advertised, for its whole life: a method of a
   * capability it was not told about stays -32601 even if a primitive is registered later, and it never gets that
   * list's `list_changed` notification. A server that registers tools, prompts or resources only after clients
   * connect declares them here up front; `listChanged: true` then tells clients to re-list when they appear.
   * @default derived from what is registered when each session initializes
   * @see MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation"
   * @example
   * // No tools yet: they are loaded from a plugin directory after start-up.
   * const server = new McpServer({ name: 'plugins', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
   * // tools/list answers { tools: [] } until the plugins register; then sessions get notifications/tools/list_changed.
   */
  readonly capabilities?: ServerCapabilities;
  /** Where handler failures and protocol anomalies are reported. @default a logger writing to stderr */
  readonly logger?: Logger;
  /**
   * Who may see what: called with an item (a tool, prompt, resource or resource template, and its descriptor) and
   * the caller (`authInfo`, `clientInfo`, era, revision, session), `true` shows it. One rule for every path: the
   * lists leave out what it hides, and a `tools/call`, `prompts/get`, `resources/read` or `completion/complete`
   * naming a hidden item is answered exactly as one naming an unknown item (same code, message and data), so
   * existence does not leak. Items of mounted servers are included (under their names here).
   *
   * Cost: without it the lists are frozen arrays built once per change; with it each list request calls it once
   * per item, and modern-era list results are `cacheScope: "private"` (MCP 2026-07-28
   * server/utilities/caching.mdx). It is synchronous and must not throw (a throw fails the request, -32603).
   * @default every item visible to every caller
   * @example
   * // Admin tools only for tokens with the "admin" scope.
   * new McpServer(info, { visibility: (item, caller) => !item.name.startsWith('admin_') || hasScope(caller.authInfo, 'admin') });
   */
  readonly visibility?: Visibility;
  /** Page size of the list methods (`tools/list` …), a positive integer. @default 100 */
  readonly pageSize?: number;
  /** Inbound requests handled at once per session, a positive integer. @default 64 */
  readonly maxConcurrentRequestsPerSession?: number;
  /**
   * Requests per session that may wait for a slot before the transport stops reading (stdio pauses stdin, so a
   * client that pipelines thousands of calls fills the pipe, not the server's memory). @default 1024
   */
  readonly maxQueuedRequestsPerSession?: number;
  /**
   * Distinct URIs one session may be subscribed to at once (`resources/subscribe`; subscribing again to a URI
   * the session holds does not count). One more is refused with -32602 `Invalid params: too many
   * subscriptions: …` and `data: { uri, maxSubscriptionsPerSession }` (the URI cut to 200 characters); the
   * session keeps what it has. A positive integer.
   *
   * The default is far above what a host subscribes to (one URI per open document or watched file), and with
   * {@link McpServerOptions.maxSubscriptionUriLength} it bounds a session's subscription set to about 8 MiB
   * of ASCII URIs (16 MiB at worst), in line with the SSE event store's 16 MiB per session.
   * @default 1000
   * @see MCP 2025-11-25 server/resources.mdx "Subscriptions"
   */
  readonly maxSubscriptionsPerSession?: number;
  /**
   * Longest URI (UTF-16 units) `resources/subscribe` accepts. A longer one is refused with -32602
   * `Invalid params: "uri" is too long to subscribe to: …` and `data: { uri, maxSubscriptionUriLength }` (the URI
   * cut to 200 characters) and is not stored. A positive integer.
   *
   * The default is the length past which resource templates never match (`resources/read` of a longer URI can
   * only hit a static resource), and the request-line length RFC 9110 §4.1 asks HTTP software to support at
   * least (8000 octets), so a URI that works anywhere on the web fits.
   * @default 8192
   * @see MCP 2025-11-25 server/resources.mdx "Subscriptions"
   */
  readonly maxSubscriptionUriLength?: number;
  /**
   * The subscribed URIs of all sessions together, in UTF-16 units: past it `resources/subscribe` of a new URI is
   * -32602 with `data: { uri, maxSubscriptionCharsTotal }` (per-session caps times `maxSessions` alone would allow
   * gigabytes). Released as sessions unsubscribe or close. @default 16,777,216 (about 32 MiB)
   */
  readonly maxSubscriptionCharsTotal?: number;
  /**
   * Modern era: most `subscriptions/listen` streams open at once on this server; past it a new one is -32602.
   * Each stream's `resourceSubscriptions` obey `maxSubscriptionsPerSession` and `maxSubscriptionUriLength`, and all
   * open streams' URIs together a budget of `maxSubscriptionCharsTotal` of their own. On stdio each open stream
   * holds one of the connection's `maxConcurrentRequestsPerSession` slots.
   * When the open streams (or their URIs) fill the budget, a new stream of a caller within its share is still
   * served: the caller holding most gives up its longest-held streams, each ended with the graceful listen result
   * `{ resultType: "complete" }` (MCP 2026-07-28 basic/patterns/subscriptions.mdx), and may listen again.
   * @default 10,000
   */
  readonly maxListenStreams?: number;
  /**
   * Modern era: `subscriptions/listen` streams one caller (the authenticated client, else the remote address; see
   * `callerKeyOf`) may hold open at once, its share of `maxListenStreams`; past it a new one is -32602 with
   * `data: { maxListenStreamsPerCaller }`. @default 1000
   */
  readonly maxListenStreamsPerCaller?: number;
  /**
   * Modern era: the subscribed URIs (`resourceSubscriptions`) of one caller's open listen streams together, in
   * UTF-16 units, its share of `maxSubscriptionCharsTotal`; past it a new stream is -32602 with
   * `data: { maxListenUriCharsPerCaller }`. @default 1,048,576 (about 2 MiB)
   */
  readonly maxListenUriCharsPerCaller?: number;
  /**
   * Check the members of handler results before sending them: content blocks (type and required fields),
   * prompt messages, resource contents (`uri` and `text` or `blob`). A bad result is logged (naming the tool,
   * prompt or resource and the problem) and answered -32603 "Internal error". The outer shape (an object with
   * its `content` / `messages` / `contents` array) and `outputSchema` conformance are checked always.
   * @default true, except when `NODE_ENV` is `"production"`
   */
  readonly checkResults?: boolean;
  /**
   * Carries list-changed and resource-updated events from this server to its connections; a shared bus
   * carries them between instances. @default a new `InMemoryNotificationBus`
   */
  readonly bus?: NotificationBus;
  /**
   * The revisions served. A server that serves legacy and modern revisions is dual-era: a request carrying the
   * 2026-07-28 `_meta` envelope is served statelessly, an `initialize` opens a session, on every transport at
   * once. Without a legacy revision, `initialize` is refused with -32022 naming the supported versions (and HTTP
   * answers GET and DELETE 405); without a modern one, a modern request is -32022.
   * @default every revision of `PROTOCOL_REVISIONS` (dual-era)
   * @see MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility"
   */
  readonly revisions?: readonly ProtocolRevision[];
  /**
   * Modern era: the cache hint (`ttlMs`, `cacheScope`) of every cacheable result (`server/discover`, the four
   * lists, `resources/read`) unless `cacheByMethod` or the resource sets its own.
   * @default `{ ttlMs: 0, scope: 'private' }`
   * @see MCP 2026-07-28 server/utilities/caching.mdx
   */
  readonly cache?: CachePolicy;
  /** Modern era: the cache hint of one cacheable method, over {@link McpServerOptions.cache}. */
  readonly cacheByMethod?: Partial<Record<CacheableMethod, CachePolicy>>;
  /**
   * Modern era: how `requestState` of multi round-trip requests is signed (and, optionally, encrypted). Give every
   * instance behind one endpoint the same keys so any of them can serve a retry.
   * @default a `RequestStateCodec` with a random key of this server, made when it first seals or opens a state
   * @see MCP 2026-07-28 basic/patterns/mrtr.mdx
   */
  readonly requestState?: RequestStateOptions;
  /**
   * Modern era: where the ids of used `requestState` values are kept, so each state continues one retry only (a
   * replay is -32602). Give every instance that shares the state keys the same shared store.
   * @default a new `InMemoryRequestStateStore` (100,000 states, 32 MiB as estimated) on the clock of `requestState.now`
   * @see MCP 2026-07-28 basic/patterns/mrtr.mdx "Security Considerations"
   */
  readonly requestStateStore?: RequestStateStore;
  /** Where tasks are kept (a shared store lets any instance answer for any task). @default a new `InMemoryTaskStore` */
  readonly taskStore?: TaskStore;
  /** Task limits and defaults. */
  readonly tasks?: ServerTaskOptions;
  /**
   * Several instances serving one set of tasks (a shared `taskStore`): a 2026-07-28 `tasks/update` that lands on an
   * instance other than the one running the task is forwarded to it over `cluster.bus`; when that instance is gone
   * the task is stored `failed` (-32603, `data.reason: 'instance_lost'`) and the update is answered with that error.
   * See {@link ServerClusterOptions}; `redisStores(…).serverOptions` fills it.
   * @default none: input reaches a task running in this process only
   * @throws TypeError, RangeError from the constructor when malformed
   * @see the extension `io.modelcontextprotocol/tasks` "Task Update Requests"
   */
  readonly cluster?: ServerClusterOptions;
  /**
   * Tool-search mode, for catalogs too large for a model's context: `tools/list` answers only a search tool
   * (`search_tools`: BM25 or a regular expression over names, descriptions and argument names, returning the
   * matches' full definitions), a call tool (`call_tool`: `{ name, arguments }`, answered as `tools/call` of that
   * tool, with the least permissive annotations of the tools it reaches) and the `pinned` tools. Every tool stays
   * callable with `tools/call`. See {@link ToolSearchOptions}.
   * @default off: `tools/list` lists every tool
   */
  readonly toolSearch?: ToolSearchOptions;
}

/** Options of {@link McpServer.connect}. */
export interface ConnectOptions {
  /** The session id (Streamable HTTP `Mcp-Session-Id`); stdio sessions have none. */
  readonly sessionId?: string;
  /** Authentication facts, exposed to handlers as `ctx.authInfo`. */
  readonly authInfo?: unknown;
  /** Whether the transport can receive JSON-RPC batches at all (HTTP POST bodies: yes; stdio: yes). @default true */
  readonly batches?: boolean;
  /**
   * The state of a session another instance opened (`initialize` ran there), read from a shared session store
   * (`SessionRecord.state`, the output of the session's `toJSON`): the connection starts as that session, initialized
   * at its revision with its client's capabilities, log level and subscriptions, with no `initialize` exchange. What
   * the HTTP handler hands over when a request lands on an instance that does not hold its session yet.
   * @default none: the connection waits for `initialize`
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
   */
  readonly sessionState?: Readonly<Record<string, unknown>>;
}

/** One item a visibility function is asked about: its kind, its name (a resource's URI, a template's URI template) and its listed descriptor. */
export type VisibilityItem =
  | { readonly kind: 'tool'; readonly name: string; readonly descriptor: Tool }
  | { readonly kind: 'prompt'; readonly name: string; readonly descriptor: Prompt }
  | { readonly kind: 'resource'; readonly name: string; readonly descriptor: Resource }
  | { readonly kind: 'resourceTemplate'; readonly name: string; readonly descriptor: ResourceTemplate };

/** Who is asking: the request's facts, as its handler's `ctx` has them. */
export interface VisibilityCaller {
  /** The transport's authentication facts (`ctx.authInfo`), untouched; `undefined` without authentication. */
  readonly authInfo: unknown;
  /** The client's self-reported `clientInfo` (not an identity: anyone may claim any name). */
  readonly clientInfo: Implementation | undefined;
  /** `modern` for a 2026-07-28 request, else `legacy`. */
  readonly era: Era;
  /** The revision the request is served at; `undefined` before a session negotiated one. */
  readonly protocolVersion: string | undefined;
  /** The id of the session the request arrived on (legacy era, a transport that names sessions); else `undefined`. */
  readonly sessionId: string | undefined;
}

/**
 * Decides whether `item` exists for `caller`: `true` shows it. Called synchronously on every list request (once per
 * item) and on every call, read, `get` and completion naming an item; it must not throw (an exception fails the
 * request with -32603) and should be a pure function of its arguments, or lists and calls disagree.
 */
export type Visibility = (item: VisibilityItem, caller: VisibilityCaller) => boolean;

/** Default for {@link McpServerOptions.maxListenStreams}. */
export const DEFAULT_MAX_LISTEN_STREAMS = 10_000;
/** Default for {@link McpServerOptions.maxListenStreamsPerCaller}. */
export const DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER = 1000;
/** Default for {@link McpServerOptions.maxListenUriCharsPerCaller}: 1 Mi UTF-16 units (about 2 MiB). */
export const DEFAULT_MAX_LISTEN_URI_CHARS_PER_CALLER = 1024 * 1024;

/** The `revisions` option, checked: the served revisions, oldest first.
 * @throws TypeError when it is not a non-empty array of protocol revisions */
export function servedRevisionsOption(value: readonly ProtocolRevision[] | undefined): readonly ProtocolRevision[] {
  if (value === undefined) return PROTOCOL_REVISIONS;
  if (!Array.isArray(value) || value.length === 0) throw new TypeError('Invalid revisions: expected a non-empty array of protocol revisions');
  for (const revision of value) {
    if (!isProtocolRevision(revision)) throw new TypeError(`Invalid revisions: ${shownValue(revision)} is not one of ${PROTOCOL_REVISIONS.join(', ')}`);
  }
  // Oldest first, as PROTOCOL_REVISIONS lists them.
  return Object.freeze(PROTOCOL_REVISIONS.filter((r) => value.includes(r)));
}

/** Default for {@link McpServerOptions.pageSize}. */
export const DEFAULT_PAGE_SIZE = 100;
/** Default for {@link McpServerOptions.maxSubscriptionsPerSession}. */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION = 1000;
/** Default for {@link McpServerOptions.maxSubscriptionUriLength} (UTF-16 units). */
export const DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH = 8192;
/** Default for {@link McpServerOptions.maxSubscriptionCharsTotal}: 16 Mi UTF-16 units (about 32 MiB). */
export const DEFAULT_MAX_SUBSCRIPTION_CHARS_TOTAL = 16 * 1024 * 1024;

/** Options of {@link McpServer.handle}. */
export interface HandleOptions {
  /**
   * How the handler reaches the client (notifications on the request's stream). Modern-era requests only ever
   * notify through it. @default a channel that drops notifications and refuses requests
   */
  readonly channel?: ClientChannel;
  /** Aborted when the client goes (Streamable HTTP at 2026-07-28: its response stream closed is cancellation). */
  readonly signal?: AbortSignal;
  /**
   * For transports, instead of `signal`: the request (its `id`, `method` and a `signal` getter read only when the
   * handler reads `ctx.signal`, so a transport makes its `AbortController` only then). The response is returned
   * even when that signal aborted: the transport, which knows its client left, drops it.
   * @internal
   */
  readonly contextRequest?: ContextRequest;
  /** The transport's facts about the message (authentication), exposed as `ctx.authInfo`. */
  readonly extra?: TransportMessageExtra;
  /**
   * For transports: the message already passed the inbound step (`protocol/inbound.ts`) over this server's
   * `servedRevisions` and `capabilities`, so the server's gate does not run it again (`server/inboundGate.ts`).
   * The Streamable HTTP ladder sets it on the modern messages it accepted.
   * @default false
   * @internal
   */
  readonly judged?: boolean;
  /**
   * Legacy-era messages only (answered with no session): what is known about the client. A modern-era message's
   * facts come from its own `_meta` envelope and this is ignored.
   * @default the revision unknown, no client capabilities, the server's current capabilities
   */
  readonly facts?: RequestFacts;
}
