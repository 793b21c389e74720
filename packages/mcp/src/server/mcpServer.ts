/**
 * The MCP server facade: the registration API, `connect` (one session-era connection per transport) and
 * `handle` (one request, no session). The work lives in the modules it wires together (`serverParts.ts` makes and
 * wires them): `registry.ts`, `capabilities.ts`, `features/*` (the era-neutral operations), `eras/legacy.ts` (the
 * session-era rules), `connection.ts`, and the {@link NotificationBus} that carries list and resource changes to
 * connections.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx, server/tools.mdx, server/resources.mdx, server/prompts.mdx,
 *   server/utilities/{completion,logging,pagination}.mdx
 */
import { type Dispatcher, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type Logger, type Transport } from '@switchboard/jsonrpc';
import { protocolVersionClaim } from '../protocol/envelope.js';
import type { ParamHeader } from '../protocol/paramHeaders.js';
import { isLegacyRevision, isModernRevision, type Era, type ProtocolRevision } from '../protocol/revisions.js';
import type { PromptArgument, ServerCapabilities, Implementation } from '../protocol/types.js';
import type { NotificationBus } from '../stores/notificationBus.js';
import type { CapabilityCache } from './capabilities.js';
import type { ClientChannel } from './channel.js';
import { Connection, modernDispatchOf, type ConnectionHost } from './connection.js';
import type { DispatchContext } from './connection.js';
import { restoredSessionState } from './sessionState.js';
import type { RequestFacts } from './requestFacts.js';
import type { ListenStreams } from './features/listen.js';
import type { GateContext } from './inboundGate.js';
import type { InboundRefusalEvent, InboundRefusalListener } from './refusalEvents.js';
import type { Listeners } from './listeners.js';
import type { Middleware, MiddlewareFilter } from './middleware/call.js';
import type { MiddlewareChain } from './middleware/chain.js';
import type { ToolSearch } from './features/toolSearch.js';
import type { ListKind } from './pagination.js';
import type { Registry } from './registry.js';
import { mountServer, type MountPoint } from './mount.js';
import { toolScopesFor, visibleToCaller, type VisibilityHost } from './visibility.js';
import type { ConnectOptions, HandleOptions, McpServerOptions, VisibilityCaller } from './options.js';
import { buildServerParts } from './serverParts.js';
import type { ToolTasks } from './tasks/toolTasks.js';
import type {
  PromptArgs,
  PromptDefinition,
  PromptHandler,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  SchemaLike,
  ServerSession,
  TemplateVariables,
  ToolArgs,
  ToolDefinition,
  ToolHandler,
  ToolResult,
} from './types.js';

export { ToolError } from './features/tools.js';

const UNREACHABLE_CLIENT: ClientChannel = {
  notify: () => Promise.resolve(),
  request: () => Promise.reject(new TypeError('No channel to the client: McpServer.handle was given none')),
};

const NO_FACTS: RequestFacts = Object.freeze({
  protocolVersion: undefined,
  clientInfo: undefined,
  clientCapabilities: Object.freeze({}),
  serverCapabilities: undefined,
  logLevelRank: 0,
});

/** The server capability whose `listChanged` flag announces each list's notification. */
const LIST_CAPABILITY: Readonly<Record<ListKind, 'tools' | 'resources' | 'prompts'>> = {
  tools: 'tools',
  resources: 'resources',
  resourceTemplates: 'resources',
  prompts: 'prompts',
};

/**
 * An MCP server definition: tools, resources, resource templates, prompts and completions registered once
 * and compiled once (JSON Schemas compiled to validators at registration), served to any number of
 * connections over any transport, or one request at a time with {@link McpServer.handle}. Per-request work is
 * a `Map` lookup, argument validation and the handler.
 *
 * @example
 * const server = new McpServer({ name: 'demo', version: '1.0.0' });
 * // `a` and `b` are typed `number` from the schema (see ToolArgs): no annotation needed.
 * server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
 *   ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
 * await serveStdio(server);
 */
export class McpServer {
  /** The `serverInfo` sent in the `initialize` result. */
  readonly info: Implementation;
  readonly #logger: Logger;
  readonly #registry: Registry;
  readonly #capabilities: CapabilityCache;
  readonly #listens: ListenStreams;
  readonly #served: readonly ProtocolRevision[];
  readonly #bus: NotificationBus;
  readonly #dispatcher: Dispatcher<DispatchContext>;
  readonly #connections: Set<Connection>;
  readonly #pendingListChanged = new Set<'tools' | 'resources' | 'prompts'>();
  readonly #host: ConnectionHost;
  readonly #tasks: ToolTasks;
  readonly #mounts: MountPoint;
  /** Tool-search mode ({@link McpServerOptions.toolSearch}), when on. */
  readonly #toolSearch: ToolSearch | undefined;
  readonly #middleware: MiddlewareChain;
  readonly #refusalListeners: Listeners<InboundRefusalEvent>;
  readonly #sessionClosedListeners: Listeners<ServerSession>;

  /**
   * @param info name and version (and optional title, description, icons, websiteUrl) sent as `serverInfo`
   * @param options see {@link McpServerOptions}
   * @throws TypeError when `pageSize`, `maxConcurrentRequestsPerSession`, `maxQueuedRequestsPerSession`,
   *   `maxSubscriptionsPerSession`, `maxSubscriptionUriLength` or `maxSubscriptionCharsTotal` is not a number
   * @throws RangeError when one of them is not a positive integer
   */
  constructor(info: Implementation, options: McpServerOptions = {}) {
    this.info = info;
    const parts = buildServerParts(info, options, {
      changed: (kind) => this.#changed(kind),
      capabilities: () => this.capabilities,
      notifyResourceUpdated: (uri) => this.notifyResourceUpdated(uri),
    });
    this.#logger = parts.logger;
    this.#registry = parts.registry;
    this.#capabilities = parts.capabilities;
    this.#listens = parts.listens;
    this.#served = parts.served;
    this.#bus = parts.bus;
    this.#dispatcher = parts.dispatcher;
    this.#connections = parts.connections;
    this.#host = parts.host;
    this.#tasks = parts.tasks;
    this.#mounts = parts.mounts;
    this.#toolSearch = parts.toolSearch;
    this.#middleware = parts.middleware;
    this.#refusalListeners = parts.refusalListeners;
    this.#sessionClosedListeners = parts.sessionClosedListeners;
  }

  /** The logger handlers' failures go to. */
  get logger(): Logger {
    return this.#logger;
  }

  /** The revisions this server serves, oldest first (see {@link McpServerOptions.revisions}). */
  get servedRevisions(): readonly ProtocolRevision[] {
    return this.#served;
  }

  /** The eras this server serves: both for a dual-era server. */
  get eras(): readonly Era[] {
    const eras: Era[] = [];
    if (this.#served.some(isLegacyRevision)) eras.push('legacy');
    if (this.#served.some(isModernRevision)) eras.push('modern');
    return eras;
  }

  /**
   * The arguments of tool `toolName` that Streamable HTTP clients mirror into `Mcp-Param-*` headers (its
   * `x-mcp-header` annotations, compiled at registration), or `undefined` for an unknown tool, and, when `caller`
   * is given, for a tool hidden from it ({@link McpServerOptions.visibility}), so that a transport checking the
   * headers before the call answers a hidden tool as an unknown one.
   * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata Headers"
   */
  paramHeaders(toolName: string, caller?: VisibilityCaller): readonly ParamHeader[] | undefined {
    return caller === undefined ? this.#registry.tools.get(toolName)?.paramHeaders : visibleToCaller(this.#mounts.options, toolName, caller)?.paramHeaders;
  }

  /**
   * The OAuth scopes tool `toolName` needs ({@link ToolDefinition.scopes}), for a transport that refuses a caller
   * lacking one before dispatch (the HTTP handler's 403 `insufficient_scope`); `undefined` for an unknown tool, one
   * that needs none, or, when `caller` is given, one hidden from it by {@link McpServerOptions.visibility} (so the
   * refusal never reveals a hidden tool).
   * @see MCP 2026-07-28 basic/authorization/index.mdx "Scope Challenge Handling"
   */
  toolScopes(toolName: string, caller?: VisibilityCaller): readonly string[] | undefined {
    return toolScopesFor(this.#mounts.options, toolName, caller);
  }

  /** This server's registry and visibility function, for a catalog search (`visibility.ts`). @internal */
  get visibilityHost(): VisibilityHost {
    return this.#mounts.options;
  }

  /** Live sessions (one per connected transport). */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#connections;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Registration

  /**
   * Registers a tool. Its `inputSchema` (default `{ type: "object" }`) and `outputSchema` are compiled now.
   * Live sessions get `notifications/tools/list_changed`.
   *
   * @returns a disposer that removes the tool
   * @throws TypeError when the name is empty, longer than 128 characters or holds whitespace or control
   *   characters (a name outside MCP's naming rule is only a logged warning), the handler is not a function,
   *   a schema is invalid for its dialect (keyword types, regular expressions, dangling `$ref`), a raw zod
   *   shape or a schema library without JSON Schema output, its root is not `type: "object"` (required through
   *   2025-11-25, server/tools.mdx), an `x-mcp-header` annotation breaks its rules (MCP 2026-07-28
   *   basic/transports/streamable-http.mdx "Schema Extension"), the name is already registered, or a `task` option
   *   duration is not a number
   * @throws RangeError when a `task` option duration is out of range (`ttlMs`, `pollIntervalMs` above 0; `afterMs` 0
   *   or more)
   * @typeParam In the `inputSchema` type (inferred): the handler's `args` are {@link ToolArgs}`<In>`
   * @typeParam Out the `outputSchema` type (inferred): the handler returns {@link ToolResult}`<Out>`
   */
  tool<const In extends SchemaLike | undefined = undefined, const Out extends SchemaLike | undefined = undefined>(
    name: string,
    definition: ToolDefinition<In, Out>,
    handler: ToolHandler<ToolArgs<In>, ToolResult<Out>>,
  ): () => void;
  tool(name: string, definition: ToolDefinition, handler: ToolHandler<never>): () => void {
    this.#toolSearch?.refuseName(name);
    return this.#registry.addTool(name, definition, handler);
  }

  /**
   * Registers a static resource at `uri`. A handler throws {@link ResourceNotFoundError} for "no such
   * resource" (-32002); any other exception is answered -32603 with none of its text.
   * @returns a disposer
   * @throws TypeError when `uri` is not a URI, the handler is not a function, or the URI is already registered
   */
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): () => void {
    return this.#registry.addResource(uri, definition, handler);
  }

  /**
   * Registers a resource template (RFC 6570). `resources/read` of a URI no static resource has tries the
   * templates in registration order.
   * @returns a disposer
   * @throws TypeError when the template is malformed or already registered, or the handler or a completion
   *   is not a function
   * @typeParam T the template string (inferred): the handler's `variables` are {@link TemplateVariables}`<T>`
   */
  resourceTemplate<const T extends string>(
    uriTemplate: T,
    definition: ResourceTemplateDefinition,
    handler: ResourceTemplateHandler<TemplateVariables<T>>,
  ): () => void;
  resourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: ResourceTemplateHandler): () => void {
    return this.#registry.addTemplate(uriTemplate, definition, handler);
  }

  /**
   * Registers a prompt.
   * @returns a disposer
   * @throws TypeError when the name is already registered, the handler or a completion is not a function, or
   *   an argument declaration has no string `name` or repeats one
   * @typeParam A the `arguments` list type (inferred, kept literal): the handler's `args` are {@link PromptArgs}`<A>`
   */
  prompt<const A extends readonly PromptArgument[] = readonly []>(
    name: string,
    definition: PromptDefinition<A>,
    handler: PromptHandler<PromptArgs<A>>,
  ): () => void;
  prompt(name: string, definition: PromptDefinition, handler: PromptHandler): () => void {
    return this.#registry.addPrompt(name, definition, handler);
  }

  /**
   * Publishes a change of the resource at `uri` on the {@link NotificationBus}: every connection subscribed to
   * it sends `notifications/resources/updated` (MCP 2025-11-25 server/resources.mdx "Subscriptions"). Resolves
   * once the local connections handed it to their transports; failures to reach one are logged at debug level.
   */
  notifyResourceUpdated(uri: string): Promise<void> {
    // Where this server is mounted, the servers above publish it too, under their name for the URI (mount.ts).
    return this.#mounts.resourceUpdated(uri, this.#bus.publish({ type: 'resource_updated', uri }));
  }

  /**
   * Serves `server`'s tools, prompts, resources, templates and completions from this one, renamed under `prefix`
   * (`<prefix>_<name>`, `<prefix>+scheme:rest`; `namespace.ts`), its handlers run with this server's `ctx`; later
   * changes on it, its resource updates and its capabilities propagate here (`mount.ts`). A name that would exist
   * twice is refused at mount time (nothing mounted) and later by the registration that would cause it, on either
   * server (it throws and registers nothing).
   * @param prefix a lower-case letter, then lower-case letters, digits or `-`
   * @param server the server to serve from this one (it keeps serving its own connections too)
   * @returns the unmount function: its entries leave this server (idempotent)
   * @throws TypeError for a bad prefix, a prefix already mounted here, a cycle (this server or one mounted on it),
   *   a name that would exist twice (the message names both owners), a renamed tool name over 128 characters,
   *   or a resource template that does not begin with a literal scheme
   * @see MCP 2025-11-25 server/tools.mdx "Tool Names"
   */
  mount(prefix: string, server: McpServer): () => void {
    if (!(server instanceof McpServer)) throw new TypeError('Invalid mount: expected an McpServer to mount');
    return mountServer({ parent: this.#mounts, child: server.#mounts, prefix });
  }

  /**
   * Adds a middleware around every inbound request and notification (or those `filter.methods` names), in both eras
   * and on every transport; the first added is the outermost. It runs after the protocol judged the message (what
   * the inbound step refuses never reaches it) and before the operation (see `server/middleware/chain.ts`).
   * Allowed at any time; a message keeps the chain it started with.
   * @returns a disposer that removes it
   * @throws TypeError when the middleware is not a function or the filter is malformed
   * @example
   * server.use(timingMiddleware());
   * server.use({ methods: ['tools/call'] }, (call, next) => (call.name === 'rm' ? { content: [], isError: true } : next()));
   */
  use(middleware: Middleware): () => void;
  use(filter: MiddlewareFilter, middleware: Middleware): () => void;
  use(first: Middleware | MiddlewareFilter, second?: Middleware): () => void {
    if (typeof first === 'function') return this.#middleware.add(undefined, first);
    return this.#middleware.add(first, second as Middleware);
  }

  /**
   * Tells `listener` of every request the inbound step refuses (-32022 unsupported revision, a malformed
   * `_meta` envelope, a method its era or session state does not serve, an undeclared client capability): what
   * no middleware sees. Failure analytics use it (`attachAnalytics` of `@switchboard/mcp/analytics`). Costs
   * nothing while no listener is added. A listener that throws is logged and ignored.
   * @returns a disposer that removes it
   * @throws TypeError when `listener` is not a function
   */
  onRefused(listener: InboundRefusalListener): () => void {
    return this.#refusalListeners.add(listener);
  }

  /**
   * Tells `listener` of every session-era connection ({@link McpServer.connect}) that closes, whoever closed it
   * (the client, the transport, {@link McpServer.close}), once, after it left {@link McpServer.sessions}; the
   * session's facts (`protocolVersion`, `clientInfo`) are still readable. Session telemetry uses it
   * (`mcp.server.session.duration` of `@switchboard/otel`). Unlike `ServerSession.onclose` (one slot, the
   * host's), any number of listeners. A listener that throws is logged and ignored.
   * @returns a disposer that removes it
   * @throws TypeError when `listener` is not a function
   */
  onSessionClosed(listener: (session: ServerSession) => void): () => void {
    return this.#sessionClosedListeners.add(listener);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Serving

  /**
   * Serves one session-era connection over `transport` and starts the transport. The session begins
   * uninitialized: only `initialize` and `ping` are answered until `initialize` succeeds.
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<ServerSession> {
    // A session opened on another instance: its state is checked before anything is made for it.
    const restored = options.sessionState === undefined ? undefined : restoredSessionState(options.sessionState);
    const connection = new Connection(this.#host, transport, options);
    if (restored !== undefined) connection.session = restored;
    this.#connections.add(connection);
    await connection.peer.start();
    return connection;
  }

  /**
   * Answers one message with no `connect()`. A modern-era request (2026-07-28: it carries its revision and the
   * client's capabilities in `params._meta`) is served statelessly from its own envelope: every operation, plus
   * `server/discover` and `subscriptions/listen`, each result with `resultType` and the server's identity in
   * `_meta`; its refusals are the inbound step's (-32602 envelope, -32022 revision, -32601 method, -32021 client
   * capability). A legacy-era message is answered with no session from `options.facts`: the era-neutral
   * operations and `ping`; the session-only requests (`initialize`, `logging/setLevel`, `resources/subscribe`,
   * `resources/unsubscribe`) are -32601.
   *
   * @param message a valid request or notification
   * @param options the channel back to the client, the cancellation signal, the transport's facts
   * @returns the response, or `undefined` for a notification or a request whose `signal` aborted; never rejects
   * @see MCP 2026-07-28 basic/index.mdx "Statelessness"
   */
  handle(message: JsonRpcRequest | JsonRpcNotification, options: HandleOptions = {}): Promise<JsonRpcResponse | undefined> {
    // Not an async function: its promise would settle two turns after the dispatcher's (this runs per request).
    try {
      const channel = options.channel ?? UNREACHABLE_CLIENT;
      const judged = options.judged === true;
      const claim = protocolVersionClaim(message);
      const ctx: GateContext =
        claim === undefined
          ? { facts: options.facts ?? NO_FACTS, channel, connection: undefined, extra: options.extra, judged }
          : modernDispatchOf(message, { channel, arrivedOn: undefined, extra: options.extra, judged, claim });
      const request = options.contextRequest;
      if (request !== undefined) {
        const reply = this.#dispatcher.dispatchNow(message, ctx, request);
        return reply instanceof Promise ? reply : Promise.resolve(reply);
      }
      const signal = options.signal;
      const response = this.#dispatcher.dispatch(message, ctx, signal);
      return signal === undefined ? response : response.then((r) => (signal.aborted ? undefined : r));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Ends every listen stream with its graceful result, then closes every connection (their pending requests
   * reject with `connection_closed`).
   */
  async close(): Promise<void> {
    this.#listens.closeAll();
    this.#tasks.close();
    await this.#tasks.relay?.close();
    // Let the listen results reach their transports before the connections close.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    await Promise.allSettled([...this.#connections].map((c) => c.close()));
  }

  /**
   * The capabilities the next `initialize` advertises: derived from what is registered now, merged with
   * {@link McpServerOptions.capabilities}. Each session keeps the value its own `initialize` advertised for its
   * whole life (see `McpServerOptions.capabilities` for servers that register primitives later).
   */
  get capabilities(): ServerCapabilities {
    return this.#capabilities.capabilities;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Internals

  /** A list changed: forget what was derived, and publish one list-changed message per capability per burst. */
  #changed(kind: ListKind): void {
    this.#capabilities.invalidate();
    if (kind === 'tools') this.#toolSearch?.changed();
    // Coalesce a burst of registrations into one notification per list (MCP 2025-11-25 "List Changed Notification").
    if (this.#pendingListChanged.size === 0) queueMicrotask(() => this.#flushListChanged());
    this.#pendingListChanged.add(LIST_CAPABILITY[kind]);
  }

  #flushListChanged(): void {
    const capabilities = [...this.#pendingListChanged];
    this.#pendingListChanged.clear();
    for (const capability of capabilities) void this.#bus.publish({ type: 'list_changed', capability });
  }

}
