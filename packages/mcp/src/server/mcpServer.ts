/**
 * The MCP server definition: a compiled registry of tools, resources, resource templates, prompts and
 * completions, and the legacy-era method handlers serving it to any number of sessions.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx, server/tools.mdx, server/resources.mdx, server/prompts.mdx,
 *   server/utilities/{completion,logging,pagination}.mdx
 */
import {
  DEFAULT_MAX_QUEUED_INBOUND,
  Dispatcher,
  ErrorCode,
  JsonRpcError,
  type HandlerContext,
  type JsonRpcParams,
  type MethodHandler,
  type Logger,
  type Transport,
} from '@switchboard/jsonrpc';
import { echo } from '../protocol/echo.js';
import { LATEST_LEGACY_REVISION, REVISION_FEATURES, isLegacyRevision, type LegacyRevision } from '../protocol/revisions.js';
import type {
  CallToolResult,
  CompleteResult,
  Implementation,
  InitializeResult,
  Prompt,
  PromptArgument,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../protocol/types.js';
import { createStderrLogger } from '../logger.js';
import { createSchemaCompiler, type CompiledSchema, type ValidationOutcome } from './schema.js';
import { LOGGING_LEVEL_RANK, Session, SessionRequestContext, type SessionContext, type SessionHost } from './session.js';
import type {
  CompletionHandler,
  ConnectOptions,
  McpServerOptions,
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
import { UriTemplate } from './uriTemplate.js';
import { checkPromptDefinition, checkResourceDefinition, checkResourceTemplateDefinition, checkToolDefinition } from './definitions.js';
import { ResourceNotFoundError, resourceNotFound } from './errors.js';
import { invalidResult, promptResultProblem, resourceResultProblem, resultChecksEnabled, toolContentProblem } from './results.js';

/**
 * A model-visible tool failure. Thrown from a tool handler it becomes
 * `{ isError: true, content: [{ type: "text", text: message }] }` (MCP 2025-11-25 server/tools.mdx "Error Handling");
 * any other exception is logged and answered with a generic `isError` result carrying none of its text.
 */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}

/** Default for {@link McpServerOptions.pageSize}. */
export const DEFAULT_PAGE_SIZE = 100;
/** Maximum number of values in a `completion/complete` result (MCP 2025-11-25 server/utilities/completion.mdx). */
export const MAX_COMPLETION_VALUES = 100;
/** Default for {@link McpServerOptions.maxSubscriptionsPerSession}. */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION = 1000;
/** Default for {@link McpServerOptions.maxSubscriptionUriLength} (UTF-16 units). */
export const DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH = 8192;
/** Default for {@link McpServerOptions.maxSubscriptionCharsTotal}: 16 Mi UTF-16 units (about 32 MiB). */
export const DEFAULT_MAX_SUBSCRIPTION_CHARS_TOTAL = 16 * 1024 * 1024;

/** `value` when it is `undefined` or a positive safe integer; otherwise the option is refused. */
function positiveIntegerOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`Invalid option ${name}: expected a number, got "${String(value)}"`);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`Invalid option ${name}: expected a positive integer, got "${String(value)}"`);
  return value;
}

interface ToolEntry {
  readonly descriptor: Tool;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  readonly handler: ToolHandler<never>;
}
interface ResourceEntry { readonly descriptor: Resource; readonly handler: ResourceHandler }
interface TemplateEntry {
  readonly descriptor: ResourceTemplate;
  readonly template: UriTemplate;
  readonly handler: ResourceTemplateHandler;
  readonly complete: Readonly<Record<string, CompletionHandler>> | undefined;
}
interface PromptEntry {
  readonly descriptor: Prompt;
  readonly required: readonly string[];
  readonly handler: PromptHandler;
  readonly complete: Readonly<Record<string, CompletionHandler>> | undefined;
}

type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';
const LIST_CHANGED_METHOD: Readonly<Record<ListKind, string>> = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  resourceTemplates: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
};

/** The server capability whose `listChanged` flag announces each list's notification. */
const LIST_CAPABILITY: Readonly<Record<ListKind, 'tools' | 'resources' | 'prompts'>> = {
  tools: 'tools',
  resources: 'resources',
  resourceTemplates: 'resources',
  prompts: 'prompts',
};

const EMPTY_RESULT: Readonly<Record<string, never>> = Object.freeze({});

/** The server capability (and flag) each capability-bound request needs (MCP 2025-11-25 schema.ts ServerCapabilities). */
const METHOD_CAPABILITY: ReadonlyMap<string, readonly [capability: string, flag?: string]> = new Map([
  ['tools/list', ['tools']],
  ['tools/call', ['tools']],
  ['resources/list', ['resources']],
  ['resources/templates/list', ['resources']],
  ['resources/read', ['resources']],
  ['resources/subscribe', ['resources', 'subscribe']],
  ['resources/unsubscribe', ['resources', 'subscribe']],
  ['prompts/list', ['prompts']],
  ['prompts/get', ['prompts']],
  ['completion/complete', ['completions']],
  ['logging/setLevel', ['logging']],
]);

function invalidParams(detail: string, data?: unknown): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function paramsRecord(params: JsonRpcParams | undefined): Record<string, unknown> {
  if (params === undefined) return EMPTY_RESULT;
  if (!isRecord(params)) throw invalidParams('params must be an object');
  return params;
}

function requireString(params: Record<string, unknown>, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalidParams(`"${echo(key)}" must be a string`);
  return value;
}

/**
 * The `name` and `arguments` of a `tools/call` or `prompts/get`: an unknown name is -32602 (MCP 2025-11-25
 * server/tools.mdx and server/prompts.mdx "Error Handling"); `arguments` is optional, but when present it is an
 * object, `null` included as not one (B09; MCP 2025-11-25 schema.ts CallToolRequestParams, GetPromptRequestParams).
 */
function namedCall<E>(p: Record<string, unknown>, registry: ReadonlyMap<string, E>, what: 'tool' | 'prompt'): { name: string; entry: E; args: Record<string, unknown> } {
  const name = requireString(p, 'name');
  const entry = registry.get(name);
  if (entry === undefined) throw invalidParams(`unknown ${what} "${echo(name)}"`, { name: echo(name) });
  const args = p.arguments === undefined ? EMPTY_RESULT : p.arguments;
  if (!isRecord(args)) throw invalidParams('"arguments" must be an object');
  return { name, entry, args };
}

/** Drops keys whose value is undefined, so descriptors serialize without them. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

/**
 * An MCP server definition: tools, resources, resource templates, prompts and completions registered once
 * and compiled once (JSON Schemas compiled to validators at registration), served to any number of sessions
 * over any transport. Per-request work is a `Map` lookup, argument validation and the handler.
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
  readonly #options: McpServerOptions;
  readonly #logger: Logger;
  readonly #pageSize: number;
  readonly #maxSubscriptionChars: number;
  /** The total length of every session's subscribed URIs. */
  #subscriptionChars = 0;
  readonly #checkResults: boolean;
  readonly #maxSubscriptions: number;
  readonly #maxSubscriptionUriLength: number;
  readonly #compile = createSchemaCompiler();
  readonly #tools = new Map<string, ToolEntry>();
  readonly #resources = new Map<string, ResourceEntry>();
  readonly #templates = new Map<string, TemplateEntry>();
  readonly #prompts = new Map<string, PromptEntry>();
  readonly #sessions = new Set<Session>();
  readonly #lists = new Map<ListKind, readonly unknown[]>();
  readonly #initializeResults = new Map<LegacyRevision, InitializeResult>();
  readonly #pendingListChanged = new Set<ListKind>();
  readonly #host: SessionHost;
  #capabilities: ServerCapabilities | undefined;

  /**
   * @param info name and version (and optional title, description, icons, websiteUrl) sent as `serverInfo`
   * @param options see {@link McpServerOptions}
   * @throws TypeError when `pageSize`, `maxConcurrentRequestsPerSession`, `maxQueuedRequestsPerSession`,
   *   `maxSubscriptionsPerSession`, `maxSubscriptionUriLength` or `maxSubscriptionCharsTotal` is not a number
   * @throws RangeError when one of them is not a positive integer
   */
  constructor(info: Implementation, options: McpServerOptions = {}) {
    this.info = info;
    this.#options = options;
    this.#maxSubscriptions = positiveIntegerOption('maxSubscriptionsPerSession', options.maxSubscriptionsPerSession, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION);
    this.#maxSubscriptionUriLength = positiveIntegerOption('maxSubscriptionUriLength', options.maxSubscriptionUriLength, DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH);
    this.#maxSubscriptionChars = positiveIntegerOption('maxSubscriptionCharsTotal', options.maxSubscriptionCharsTotal, DEFAULT_MAX_SUBSCRIPTION_CHARS_TOTAL);
    const maxConcurrent = positiveIntegerOption('maxConcurrentRequestsPerSession', options.maxConcurrentRequestsPerSession, 64);
    const maxQueued = positiveIntegerOption('maxQueuedRequestsPerSession', options.maxQueuedRequestsPerSession, DEFAULT_MAX_QUEUED_INBOUND);
    this.#logger = options.logger ?? createStderrLogger({ name: info.name });
    this.#pageSize = positiveIntegerOption('pageSize', options.pageSize, DEFAULT_PAGE_SIZE);
    this.#checkResults = resultChecksEnabled(options.checkResults);
    const dispatcher = new Dispatcher<SessionContext>({
      logger: this.#logger,
      guard: (message, ctx) => this.#lifecycleGuard(message.method, 'id' in message, ctx.session),
      createContext: (ctx, request) => new SessionRequestContext(ctx.session, ctx.extra, request),
    });
    this.#registerHandlers(dispatcher);
    this.#host = {
      dispatcher,
      logger: this.#logger,
      maxConcurrentInbound: maxConcurrent,
      maxQueuedInbound: maxQueued,
      sessionClosed: (session) => {
        this.#sessions.delete(session);
        for (const uri of session.subscriptions) this.#subscriptionChars -= uri.length;
        session.subscriptions.clear();
      },
    };
  }

  /** The logger handlers' failures go to. */
  get logger(): Logger {
    return this.#logger;
  }

  /** Live sessions. */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#sessions;
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
   *   2025-11-25, server/tools.mdx), or the name is already registered
   * @typeParam In the `inputSchema` type (inferred): the handler's `args` are {@link ToolArgs}`<In>`
   * @typeParam Out the `outputSchema` type (inferred): the handler returns {@link ToolResult}`<Out>`
   */
  tool<const In extends SchemaLike | undefined = undefined, const Out extends SchemaLike | undefined = undefined>(
    name: string,
    definition: ToolDefinition<In, Out>,
    handler: ToolHandler<ToolArgs<In>, ToolResult<Out>>,
  ): () => void;
  tool(name: string, definition: ToolDefinition, handler: ToolHandler<never>): () => void {
    checkToolDefinition(name, definition, handler, this.#logger);
    this.#refuseDuplicate(this.#tools, name, 'Tool');
    const input = this.#compile(definition.inputSchema ?? { type: 'object' }, `inputSchema of tool "${name}"`);
    // B42 / MCP 2025-11-25 server/tools.mdx: every advertised inputSchema has an object root.
    if (input.json.type === undefined) {
      throw new TypeError(`Invalid inputSchema of tool "${name}": the root must declare "type": "object"`);
    }
    if (input.json.type !== 'object') throw new TypeError(`Invalid inputSchema of tool "${name}": the root type must be "object"`);
    const output = definition.outputSchema === undefined ? undefined : this.#compile(definition.outputSchema, `outputSchema of tool "${name}"`);
    if (output !== undefined && output.json.type !== 'object') {
      throw new TypeError(`Invalid outputSchema of tool "${name}": the root type must be "object"`);
    }
    const descriptor: Tool = compact({
      name,
      title: definition.title,
      description: definition.description,
      inputSchema: input.json,
      outputSchema: output?.json,
      annotations: definition.annotations,
      icons: definition.icons,
      _meta: definition._meta,
    });
    return this.#add(this.#tools, name, { descriptor, input, output, handler: handler as ToolHandler<never> }, 'tools');
  }

  /**
   * Registers a static resource at `uri`. A handler throws {@link ResourceNotFoundError} for "no such
   * resource" (-32002); any other exception is answered -32603 with none of its text.
   * @returns a disposer
   * @throws TypeError when `uri` is not a URI, the handler is not a function, or the URI is already registered
   */
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): () => void {
    checkResourceDefinition(uri, definition, handler);
    this.#refuseDuplicate(this.#resources, uri, 'Resource');
    return this.#add(this.#resources, uri, { descriptor: compact({ uri, ...definition }), handler }, 'resources');
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
    checkResourceTemplateDefinition(uriTemplate, definition, handler);
    this.#refuseDuplicate(this.#templates, uriTemplate, 'Resource template');
    const { complete, ...rest } = definition;
    const entry: TemplateEntry = { descriptor: compact({ uriTemplate, ...rest }), template: new UriTemplate(uriTemplate), handler, complete };
    return this.#add(this.#templates, uriTemplate, entry, 'resourceTemplates');
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
    checkPromptDefinition(name, definition, handler);
    this.#refuseDuplicate(this.#prompts, name, 'Prompt');
    const { complete, ...rest } = definition;
    const required = (definition.arguments ?? []).filter((a) => a.required === true).map((a) => a.name);
    return this.#add(this.#prompts, name, { descriptor: compact({ name, ...rest }), required, handler, complete }, 'prompts');
  }

  /**
   * Sends `notifications/resources/updated` to every session subscribed to `uri`
   * (MCP 2025-11-25 server/resources.mdx "Subscriptions"). Failures to reach a session are logged.
   */
  async notifyResourceUpdated(uri: string): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const session of this.#sessions) {
      if (session.subscriptions.has(uri)) sends.push(session.peer.notify('notifications/resources/updated', { uri }));
    }
    const results = await Promise.allSettled(sends);
    for (const r of results) if (r.status === 'rejected') this.#logger.debug('Resource update not delivered', { uri, error: r.reason });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Sessions

  /**
   * Serves one legacy-era session over `transport` and starts the transport. The session begins
   * uninitialized: only `initialize` and `ping` are answered until `initialize` succeeds.
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<ServerSession> {
    const session = new Session(this.#host, transport, options);
    this.#sessions.add(session);
    await session.peer.start();
    return session;
  }

  /** Closes every session (their pending requests reject with `connection_closed`). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sessions].map((s) => s.close()));
  }

  /**
   * The capabilities the next `initialize` advertises: derived from what is registered now, merged with
   * {@link McpServerOptions.capabilities}. Each session keeps the value its own `initialize` advertised for its
   * whole life (see `McpServerOptions.capabilities` for servers that register primitives later).
   */
  get capabilities(): ServerCapabilities {
    return (this.#capabilities ??= this.#deriveCapabilities());
  }

  #deriveCapabilities(): ServerCapabilities {
    const derived: Record<string, unknown> = { logging: {} };
    if (this.#tools.size > 0) derived.tools = { listChanged: true };
    if (this.#resources.size > 0 || this.#templates.size > 0) derived.resources = { subscribe: true, listChanged: true };
    if (this.#prompts.size > 0) derived.prompts = { listChanged: true };
    if (this.#prompts.size > 0 || this.#templates.size > 0) derived.completions = {};
    return { ...derived, ...this.#options.capabilities };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Internals

  #refuseDuplicate(map: ReadonlyMap<string, unknown>, key: string, what: string): void {
    if (map.has(key)) throw new TypeError(`${what} already registered: "${key}"`);
  }

  /** Adds a registry entry and announces the list change; the disposer removes that very entry once. */
  #add<E>(map: Map<string, E>, key: string, entry: E, kind: ListKind): () => void {
    map.set(key, entry);
    this.#changed(kind);
    return () => {
      if (map.get(key) === entry && map.delete(key)) this.#changed(kind);
    };
  }

  #changed(kind: ListKind): void {
    this.#lists.delete(kind);
    this.#capabilities = undefined;
    this.#initializeResults.clear();
    if (this.#sessions.size === 0) return;
    // Coalesce a burst of registrations into one notification per list (MCP 2025-11-25 "List Changed Notification").
    if (this.#pendingListChanged.size === 0) queueMicrotask(() => this.#flushListChanged());
    this.#pendingListChanged.add(kind);
  }

  /**
   * Sends each pending list-changed notification to the initialized sessions whose `initialize` advertised that
   * capability with `listChanged: true` (MCP 2025-11-25 server/tools.mdx, server/prompts.mdx,
   * server/resources.mdx "List Changed Notification"): a session told nothing about `tools` never hears of them.
   */
  #flushListChanged(): void {
    const methods = new Map([...this.#pendingListChanged].map((k) => [LIST_CHANGED_METHOD[k], LIST_CAPABILITY[k]] as const));
    this.#pendingListChanged.clear();
    for (const session of this.#sessions) {
      const advertised = session.serverCapabilities;
      if (!session.initialized || advertised === undefined) continue;
      for (const [method, capability] of methods) {
        if ((advertised[capability] as Record<string, unknown> | undefined)?.listChanged !== true) continue;
        session.peer.notify(method).catch(() => {});
      }
    }
  }

  #list(kind: ListKind): readonly unknown[] {
    let list = this.#lists.get(kind);
    if (list === undefined) {
      const source =
        kind === 'tools' ? this.#tools : kind === 'resources' ? this.#resources : kind === 'resourceTemplates' ? this.#templates : this.#prompts;
      list = Object.freeze([...source.values()].map((e) => e.descriptor));
      this.#lists.set(kind, list);
    }
    return list;
  }

  /**
   * One page of a list. Cursors are opaque to clients (MCP 2025-11-25 server/utilities/pagination.mdx); an
   * invalid or never-issued cursor gets -32602 (B44), never page one.
   */
  #page(kind: ListKind, params: JsonRpcParams | undefined): Record<string, unknown> {
    const items = this.#list(kind);
    const cursor = params === undefined ? undefined : paramsRecord(params).cursor;
    let offset = 0;
    if (cursor !== undefined) {
      offset = decodeCursor(kind, cursor, items.length);
    }
    const end = offset + this.#pageSize;
    if (offset === 0 && end >= items.length) return { [kind]: items };
    const result: Record<string, unknown> = { [kind]: items.slice(offset, end) };
    if (end < items.length) result.nextCursor = encodeCursor(kind, end);
    return result;
  }

  #initializeResult(version: LegacyRevision): InitializeResult {
    let result = this.#initializeResults.get(version);
    if (result === undefined) {
      let capabilities = this.capabilities;
      // The `completions` capability exists from 2025-03-26 (changelog); 2024-11-05 has completion/complete without it.
      if (!REVISION_FEATURES[version].completionsCapability && capabilities.completions !== undefined) {
        const { completions: _absent, ...rest } = capabilities;
        capabilities = rest;
      }
      result = compact({
        protocolVersion: version,
        capabilities,
        serverInfo: this.info,
        instructions: this.#options.instructions,
      });
      this.#initializeResults.set(version, result);
    }
    return result;
  }

  /**
   * Lifecycle gating (MCP 2025-11-25 basic/lifecycle.mdx): `initialize` must come first and only once (B30:
   * a second one gets -32600 and the negotiated state is kept); `ping` is exempt (B31); other requests
   * before `initialize` get -32600 with their id.
   */
  #lifecycleGuard(method: string, isRequest: boolean, session: Session): JsonRpcError | undefined {
    if (method === 'initialize') {
      return session.protocolVersion === undefined ? undefined : ALREADY_INITIALIZED;
    }
    if (session.protocolVersion === undefined && isRequest && method !== 'ping') return NOT_INITIALIZED;
    // B08 / MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation": a method whose server capability is not
    // advertised does not exist on this server: -32601, not -32602.
    // The capabilities are the ones this session's initialize advertised, for its whole life: a tool registered
    // later does not open tools/* to a session told there are none, and removing the last tool leaves an empty
    // tools/list (not -32601) for a session told there are some.
    const needs = METHOD_CAPABILITY.get(method);
    if (needs !== undefined && isRequest) {
      const [capability, flag] = needs;
      const value = (session.serverCapabilities ?? this.capabilities)[capability] as Record<string, unknown> | undefined;
      if (value === undefined || (flag !== undefined && value[flag] !== true)) {
        return new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: "${method}" (the server does not advertise the "${capability}${flag === undefined ? '' : `.${flag}`}" capability)`);
      }
    }
    return undefined;
  }

  #registerHandlers(dispatcher: Dispatcher<SessionContext>): void {
    // MCP methods are either requests or notifications (MCP 2025-11-25 schema.ts ClientRequest /
    // ClientNotification): a request naming a notification is -32601 (B07), a notification naming a request is ignored.
    const d = {
      request: (method: string, handler: MethodHandler<SessionContext>) => dispatcher.register(method, handler, { kind: 'request' }),
      notification: (method: string, handler: MethodHandler<SessionContext>) => dispatcher.register(method, handler, { kind: 'notification' }),
    };
    // MCP 2025-11-25 basic/lifecycle.mdx "Initialization" and "Version Negotiation": answer the requested
    // revision when supported, otherwise counter-offer the latest one we support.
    d.request('initialize', (params, ctx) => {
      const p = paramsRecord(params);
      const requested = requireString(p, 'protocolVersion');
      if (p.capabilities !== undefined && !isRecord(p.capabilities)) throw invalidParams('"capabilities" must be an object');
      if (p.clientInfo !== undefined && !isRecord(p.clientInfo)) throw invalidParams('"clientInfo" must be an object');
      const version = isLegacyRevision(requested) ? requested : LATEST_LEGACY_REVISION;
      const session = ctx.session;
      session.protocolVersion = version;
      session.clientCapabilities = (p.capabilities as Record<string, unknown> | undefined) ?? {};
      session.clientInfo = p.clientInfo as Implementation | undefined;
      session.initializeRequestId = ctx.id;
      session.serverCapabilities = this.capabilities;
      return this.#initializeResult(version);
    });
    d.notification('notifications/initialized', (_params, ctx) => {
      ctx.session.initialized = true;
    });
    // MCP 2025-11-25 basic/utilities/ping.mdx: answer promptly with an empty result, before initialize too.
    d.request('ping', () => EMPTY_RESULT);
    // MCP 2025-11-25 basic/utilities/cancellation.mdx: abort the handler, send no response; unknown or finished
    // ids are ignored (B36); `initialize` is never cancelled.
    d.notification('notifications/cancelled', (params, ctx) => {
      if (!isRecord(params)) return;
      const id = params.requestId;
      if ((typeof id !== 'string' && typeof id !== 'number') || id === ctx.session.initializeRequestId) return;
      ctx.session.peer.cancelInbound(id, typeof params.reason === 'string' ? params.reason : 'cancelled by the client');
    });
    // Progress for our own server → client requests (MCP 2025-11-25 basic/utilities/progress.mdx).
    d.notification('notifications/progress', (params, ctx) => {
      if (!isRecord(params)) return;
      const token = params.progressToken;
      if (typeof token === 'string' || typeof token === 'number') ctx.session.peer.reportProgress(token, params);
    });
    d.notification('notifications/roots/list_changed', () => {});

    d.request('tools/list', (params) => this.#page('tools', params));
    d.request('tools/call', (params, ctx) => this.#callTool(params, ctx));
    d.request('resources/list', (params) => this.#page('resources', params));
    d.request('resources/templates/list', (params) => this.#page('resourceTemplates', params));
    d.request('resources/read', (params, ctx) => this.#readResource(params, ctx));
    // MCP 2025-11-25 server/resources.mdx "Subscriptions": both answer an empty result. Subscribing is capped
    // per session (count and URI length, see #subscribe); unsubscribing from a URI never subscribed is `{}` too.
    d.request('resources/subscribe', (params, ctx) => this.#subscribe(requireString(paramsRecord(params), 'uri'), ctx.session));
    d.request('resources/unsubscribe', (params, ctx) => {
      const uri = requireString(paramsRecord(params), 'uri');
      if (ctx.session.subscriptions.delete(uri)) this.#subscriptionChars -= uri.length;
      return EMPTY_RESULT;
    });
    d.request('prompts/list', (params) => this.#page('prompts', params));
    d.request('prompts/get', (params, ctx) => this.#getPrompt(params, ctx));
    d.request('completion/complete', (params) => this.#complete(params));
    // MCP 2025-11-25 server/utilities/logging.mdx: an unknown level is -32602.
    d.request('logging/setLevel', (params, ctx) => {
      const level = requireString(paramsRecord(params), 'level');
      const rank = LOGGING_LEVEL_RANK.get(level);
      if (rank === undefined) throw invalidParams(`unknown logging level "${echo(level)}"`);
      ctx.session.logLevelRank = rank;
      return EMPTY_RESULT;
    });
  }

  /**
   * `resources/subscribe`: one session's set is bounded (a session once held 129 URIs of 4 MiB and took a
   * 512 MiB heap down). A URI over `maxSubscriptionUriLength`, or a new URI past `maxSubscriptionsPerSession`, is
   * -32602 naming the limit in `data`, with the URI echoed at most 200 characters long; a URI already held is
   * accepted at the cap (subscribing is idempotent).
   */
  #subscribe(uri: string, session: Session): Readonly<Record<string, never>> {
    const subscriptions = session.subscriptions;
    if (uri.length > this.#maxSubscriptionUriLength) {
      throw invalidParams(`"uri" is too long to subscribe to: ${uri.length} characters, the limit is ${this.#maxSubscriptionUriLength}`, {
        uri: echo(uri),
        maxSubscriptionUriLength: this.#maxSubscriptionUriLength,
      });
    }
    if (subscriptions.size >= this.#maxSubscriptions && !subscriptions.has(uri)) {
      throw invalidParams(`too many subscriptions: this session already holds the limit of ${this.#maxSubscriptions}: unsubscribe from one first`, {
        uri: echo(uri),
        maxSubscriptionsPerSession: this.#maxSubscriptions,
      });
    }
    if (!subscriptions.has(uri)) {
      // All sessions together are bounded too: per-session caps times the session cap would be gigabytes.
      if (this.#subscriptionChars + uri.length > this.#maxSubscriptionChars) {
        throw invalidParams(`too many subscriptions on this server: the URIs of all sessions reached the limit of ${this.#maxSubscriptionChars} characters`, {
          uri: echo(uri),
          maxSubscriptionCharsTotal: this.#maxSubscriptionChars,
        });
      }
      subscriptions.add(uri);
      this.#subscriptionChars += uri.length;
    }
    return EMPTY_RESULT;
  }

  /** The handler's context is the dispatcher's (see `createContext`); this records the request's `_meta` on it. */
  #context(ctx: SessionContext & HandlerContext, p: Record<string, unknown>): SessionRequestContext {
    const call = ctx as SessionRequestContext;
    const meta = p._meta;
    if (isRecord(meta)) call.requestMeta = meta;
    return call;
  }

  /**
   * `tools/call` (MCP 2025-11-25 server/tools.mdx "Error Handling"): unknown tool → -32602; arguments that
   * fail the inputSchema → `isError: true` with the validation message (SEP-1303, B40 — applied to every
   * revision so the behaviour is deterministic); a {@link ToolError} → `isError: true` with its message; any
   * other exception → `isError: true` with a generic text (the exception goes to the logger only).
   */
  #callTool(params: JsonRpcParams | undefined, ctx: SessionContext & HandlerContext): CallToolResult | Promise<CallToolResult> {
    const p = paramsRecord(params);
    const { name, entry: tool, args: rawArgs } = namedCall(p, this.#tools, 'tool');
    const call = this.#context(ctx, p);
    // No async layer unless something is asynchronous: a synchronous tool is answered in the same turn.
    const outcome = tool.input.validate(rawArgs);
    return outcome instanceof Promise
      ? outcome.then((o) => this.#runTool(tool, name, rawArgs, o, call))
      : this.#runTool(tool, name, rawArgs, outcome, call);
  }

  #runTool(tool: ToolEntry, name: string, rawArgs: Record<string, unknown>, outcome: ValidationOutcome | undefined, call: SessionRequestContext): CallToolResult | Promise<CallToolResult> {
    if (outcome !== undefined && outcome.error !== undefined) return toolErrorResult(`Invalid arguments for tool "${name}": ${outcome.error}`);
    let result: CallToolResult | Promise<CallToolResult>;
    try {
      result = tool.handler((outcome === undefined ? rawArgs : outcome.value) as never, call);
    } catch (error) {
      return this.#toolFailure(name, error, call);
    }
    return result instanceof Promise
      ? result.then(
          (r) => this.#checkToolResult(tool, name, r),
          (error: unknown) => this.#toolFailure(name, error, call),
        )
      : this.#checkToolResult(tool, name, result);
  }

  #toolFailure(name: string, error: unknown, call: SessionRequestContext): CallToolResult {
    if (error instanceof ToolError) return toolErrorResult(error.message);
    if (error instanceof JsonRpcError) throw error;
    // A cancelled call gets no response at all (the Peer suppresses it); its abort is not a failure to report.
    if (call.signal.aborted) this.#logger.debug(`Tool "${name}" stopped after cancellation`, { error });
    else this.#logger.error(`Tool "${name}" failed`, { error });
    return toolErrorResult(`Tool "${name}" failed: internal error`);
  }

  #checkToolResult(tool: ToolEntry, name: string, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
    if (!isRecord(result) || !Array.isArray(result.content)) {
      this.#logger.error(`Tool "${name}" returned a value that is not a CallToolResult (an object with a "content" array)`);
      throw new JsonRpcError(ErrorCode.InternalError, 'Internal error');
    }
    const problem = this.#checkResults ? toolContentProblem(result.content) : undefined;
    if (problem !== undefined) throw invalidResult(this.#logger, `Tool "${name}"`, problem);
    // B41 / MCP 2025-06-18+ server/tools.mdx "Output Schema": a success result MUST conform to the outputSchema.
    if (tool.output === undefined || result.isError === true) return result;
    if (result.structuredContent === undefined) {
      throw invalidResult(this.#logger, `Tool "${name}"`, 'no "structuredContent", which its outputSchema requires on success');
    }
    const verdict = (check: ValidationOutcome | undefined): CallToolResult => {
      if (check !== undefined && check.error !== undefined) {
        this.#logger.error(`Tool "${name}" returned structuredContent that does not match its outputSchema: ${check.error}`);
        throw new JsonRpcError(ErrorCode.InternalError, 'Internal error');
      }
      return result;
    };
    const check = tool.output.validate(result.structuredContent);
    return check instanceof Promise ? check.then(verdict) : verdict(check);
  }

  /** `resources/read`: a static resource, else the first matching template; none → -32002 (≤ 2025-11-25). */
  async #readResource(params: JsonRpcParams | undefined, ctx: SessionContext & HandlerContext): Promise<unknown> {
    const p = paramsRecord(params);
    const uri = requireString(p, 'uri');
    const fixed = this.#resources.get(uri);
    let result: unknown;
    try {
      if (fixed !== undefined) {
        result = await fixed.handler(uri, this.#context(ctx, p));
      } else {
        let found = false;
        for (const entry of this.#templates.values()) {
          const variables = entry.template.match(uri);
          if (variables === undefined) continue;
          found = true;
          result = await entry.handler(uri, variables, this.#context(ctx, p));
          break;
        }
        // MCP 2025-11-25 server/resources.mdx "Error Handling": resource not found is -32002, with the uri in data.
        if (!found) throw new ResourceNotFoundError(uri);
      }
    } catch (error) {
      // A plain Error stays -32603 with no text (the dispatcher logs it).
      throw error instanceof ResourceNotFoundError ? resourceNotFound(error.uri, ctx.session.protocolVersion) : error;
    }
    const problem = resourceResultProblem(result, this.#checkResults);
    if (problem !== undefined) throw invalidResult(this.#logger, `Resource handler for "${uri}"`, problem);
    return result;
  }

  /** `prompts/get`: unknown prompt or a missing required argument → -32602 (MCP 2025-11-25 server/prompts.mdx). */
  async #getPrompt(params: JsonRpcParams | undefined, ctx: SessionContext & HandlerContext): Promise<unknown> {
    const p = paramsRecord(params);
    const { name, entry: prompt, args } = namedCall(p, this.#prompts, 'prompt');
    for (const key of Object.keys(args)) {
      if (typeof args[key] !== 'string') throw invalidParams(`argument "${echo(key)}" of prompt "${name}" must be a string`);
    }
    for (const key of prompt.required) {
      if (!Object.hasOwn(args, key)) throw invalidParams(`missing required argument "${key}" of prompt "${name}"`);
    }
    const result: unknown = await prompt.handler(args as Record<string, string>, this.#context(ctx, p));
    const problem = promptResultProblem(result, this.#checkResults);
    if (problem !== undefined) throw invalidResult(this.#logger, `Prompt "${name}"`, problem);
    return result;
  }

  /** `completion/complete` (MCP 2025-11-25 server/utilities/completion.mdx): at most 100 values, with total/hasMore. */
  async #complete(params: JsonRpcParams | undefined): Promise<CompleteResult> {
    const p = paramsRecord(params);
    const ref = p.ref;
    const argument = p.argument;
    if (!isRecord(ref) || typeof ref.type !== 'string') throw invalidParams('"ref" must be an object with a "type"');
    if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw invalidParams('"argument" must be an object with string "name" and "value"');
    }
    let completers: Readonly<Record<string, CompletionHandler>> | undefined;
    if (ref.type === 'ref/prompt') {
      if (typeof ref.name !== 'string') throw invalidParams('"ref.name" must be a string');
      const prompt = this.#prompts.get(ref.name);
      if (prompt === undefined) throw invalidParams(`unknown prompt "${echo(ref.name)}"`);
      completers = prompt.complete;
    } else if (ref.type === 'ref/resource') {
      if (typeof ref.uri !== 'string') throw invalidParams('"ref.uri" must be a string');
      const template = this.#templates.get(ref.uri);
      if (template === undefined && !this.#resources.has(ref.uri)) throw invalidParams(`unknown resource template "${echo(ref.uri)}"`);
      completers = template?.complete;
    } else {
      throw invalidParams(`unknown reference type "${echo(ref.type)}"`);
    }
    const completer = completers !== undefined && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
    if (completer === undefined) return { completion: { values: [], total: 0, hasMore: false } };
    const context = p.context;
    const contextArgs = isRecord(context) && isRecord(context.arguments) ? (context.arguments as Record<string, string>) : EMPTY_RESULT;
    const values = await completer(argument.value, { arguments: contextArgs });
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES),
        total: values.length,
        hasMore: values.length > MAX_COMPLETION_VALUES,
      },
    };
  }
}

const ALREADY_INITIALIZED = new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: the session is already initialized');
const NOT_INITIALIZED = new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: the session is not initialized: send "initialize" first');

function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function encodeCursor(kind: ListKind, offset: number): string {
  return btoa(`${kind}:${offset}`);
}

function decodeCursor(kind: ListKind, cursor: unknown, length: number): number {
  if (typeof cursor !== 'string') throw invalidParams('"cursor" must be a string');
  let decoded: string;
  try {
    decoded = atob(cursor);
  } catch {
    throw invalidParams('invalid cursor', { cursor: echo(cursor) });
  }
  const sep = decoded.indexOf(':');
  const offset = Number(decoded.slice(sep + 1));
  if (sep < 0 || decoded.slice(0, sep) !== kind || !Number.isSafeInteger(offset) || offset <= 0 || offset > length) {
    throw invalidParams('invalid cursor', { cursor: echo(cursor) });
  }
  return offset;
}
