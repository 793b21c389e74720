/**
 * The MCP client facade: connect (negotiating the era), then one method per operation of the spec. It speaks
 * both eras over any {@link ClientConnector}; failures are typed local errors (`protocol/clientErrors.ts`,
 * `client/errors.ts`) or the server's typed MCP errors.
 *
 * @example
 * const client = await McpClient.connect({ connector: spawnStdio({ command: 'node', args: ['server.js'] }) });
 * const { tools } = await client.listTools();
 * const result = await client.callTool({ name: tools[0].name, arguments: {} });
 * await client.close();
 */
import { echo, neverThrowing, type JsonRpcNotification, type Logger } from '@switchboard/jsonrpc';
import { checkCountOption, checkMsOption } from '@switchboard/jsonrpc/internal';
import type { ClientTransportKind } from '../protocol/transport.js';
import type { Era, ProtocolRevision } from '../protocol/revisions.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../protocol/types.js';
import { createStderrLogger } from '../logger.js';
import { noCallback } from './connection.js';
import { ServerLink } from './serverLink.js';
import { ClientCoreView, type ClientCore, type CoreSendOptions, type InputQuestion, type NotificationListener } from './clientCore.js';
import { routeNotification } from './notificationRoutes.js';
import { compileParamHeaders, type ParamHeader } from '../protocol/paramHeaders.js';
import type { CallToolParams, CompleteParams, GetPromptParams, ListParams, ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, ListToolsResult } from './operations.js';
import { InvalidResultError, NotSupportedError } from './errors.js';
import { ListenSubscriptions, type ListenFilter, type ListenOptions, type ListenSubscription } from './listen.js';
import { modernRequest } from './modernRequest.js';
import {
  DEFAULT_MAX_LIST_BYTES,
  DEFAULT_MAX_PAGES,
  type InputContext,
  type McpClientOptions,
  type RequestOptions,
} from './options.js';
import { collectPages } from './pagination.js';
import { ResponseCache } from './responseCache.js';
import { callToolAsTask, type CallToolAsTaskOptions, type ClientTask } from './tasks.js';
import { OutputSchemas } from './toolResults.js';

/** The `clientInfo` sent when none is given. */
export const DEFAULT_CLIENT_INFO: Implementation = Object.freeze({ name: 'switchboard-client', version: '0.1.0' });

type Params = Record<string, unknown>;

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The capabilities the callbacks imply (MCP 2025-11-25 schema.ts `ClientCapabilities`). */
function derivedCapabilities(options: McpClientOptions): ClientCapabilities {
  const capabilities: Record<string, unknown> = {};
  if (options.onElicitation !== undefined) capabilities.elicitation = {};
  if (options.onSampling !== undefined) capabilities.sampling = {};
  if (options.onListRoots !== undefined) capabilities.roots = {};
  return capabilities;
}

/** An MCP client connected to one server; see the module comment. Made by {@link McpClient.connect}. */
export class McpClient {
  readonly #options: McpClientOptions;
  readonly #logger: Logger;
  readonly #clientInfo: Implementation;
  readonly #capabilities: ClientCapabilities;
  readonly #listeners = new Set<NotificationListener>();
  readonly #outputSchemas: OutputSchemas;
  readonly #core: ClientCore;
  /** The 2026-07-28 response cache; `undefined` with `cache: false`. */
  readonly #cache: ResponseCache | undefined;
  readonly #listens: ListenSubscriptions;
  /** 2025-11-25: each listed tool's `execution.taskSupport` (`'none'` when it has none), for callToolAsTask. */
  readonly #taskSupport = new Map<string, string>();
  #link!: ServerLink;
  #closed = false;

  private constructor(options: McpClientOptions) {
    this.#options = options;
    this.#logger = neverThrowing(options.logger ?? createStderrLogger({ name: 'switchboard-client' }));
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.#capabilities = options.capabilities ?? derivedCapabilities(options);
    this.#outputSchemas = new OutputSchemas(this.#logger);
    this.#core = new ClientCoreView({
      era: () => this.era,
      revision: () => this.protocolVersion,
      logger: this.#logger,
      options,
      send: (method, params, opts) => this.#send(method, params, opts),
      answerInput: (question, ctx) => this.#answer(question, ctx),
      onNotification: (listener) => {
        this.#listeners.add(listener);
        return () => this.#listeners.delete(listener);
      },
    });
    const cache = options.cache;
    this.#cache = cache === false ? undefined : new ResponseCache({ origin: options.connector.verdictKey, ...(cache?.maxEntries === undefined ? {} : { maxEntries: cache.maxEntries }), ...(cache?.store === undefined ? {} : { shared: cache.store }) });
    this.#listens = new ListenSubscriptions(this.#core);
  }

  /**
   * Connects to the server: opens the connector's channel and negotiates the era and revision (probe, fallback,
   * cached verdict, or `pin`).
   * @throws SpawnError (stdio: command not found, exited at once), NegotiationError (no revision in common, a pin
   *   refused), ConnectionRefusedError (HTTP: nothing listens at the URL), ConnectionClosedError, HttpStatusError,
   *   RequestTimeoutError (`initialize` unanswered), or the
   *   server's McpError
   * @throws TypeError when a numeric option is not a number; RangeError when it is out of range (durations 0 or more,
   *   `Infinity` allowed; `maxInputRounds` a whole number, `maxPages` and `maxListBytes` positive ones, `maxListBytes`
   *   may be `Infinity`)
   */
  static async connect(options: McpClientOptions): Promise<McpClient> {
    for (const name of ['probeTimeoutMs', 'timeoutMs', 'maxTotalTimeoutMs'] as const) checkMsOption(name, options[name], { max: Infinity });
    checkCountOption('maxInputRounds', options.maxInputRounds, { min: 0 });
    checkCountOption('maxPages', options.maxPages);
    checkCountOption('maxListBytes', options.maxListBytes, { infinite: true });
    const client = new McpClient(options);
    client.#link = await ServerLink.open({
      options,
      logger: client.#logger,
      clientInfo: client.#clientInfo,
      capabilities: client.#capabilities,
      answer: (question, ctx) => client.#answer(question, ctx),
      onNotification: (notification, requestTag) => client.#notification(notification, requestTag),
    });
    return client;
  }

  /** The negotiated era: `legacy` (an `initialize` session) or `modern` (2026-07-28, per-request `_meta`). */
  get era(): Era {
    return this.#link.negotiated.era;
  }

  /** The negotiated revision (legacy) or the one every request claims (modern). */
  get protocolVersion(): ProtocolRevision {
    return this.#link.negotiated.revision;
  }

  /** The server's name and version, when it said (the `initialize` result, or the discover result's `_meta`). */
  get serverInfo(): Implementation | undefined {
    return this.#link.negotiated.serverInfo;
  }

  /** The server's capabilities (`{}` when it gave none). */
  get serverCapabilities(): ServerCapabilities {
    return this.#link.negotiated.serverCapabilities;
  }

  /** The server's instructions, when it gave any. */
  get instructions(): string | undefined {
    return this.#link.negotiated.instructions;
  }

  /** The transport in use (`'http-sse'` after a fall back from Streamable HTTP). */
  get transportKind(): ClientTransportKind {
    return this.#link.connection.transport.kind;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Checks that the server answers: `ping` on a session; in the modern era, which has no `ping` (MCP 2026-07-28
   * changelog.mdx), a `server/discover`.
   * @throws the typed errors of {@link request}
   */
  async ping(options?: RequestOptions): Promise<void> {
    await this.#send(this.era === 'modern' ? 'server/discover' : 'ping', undefined, options);
  }

  /** One page of `tools/list`; the output schemas listed are kept to check later results. @throws see {@link request} */
  async listTools(params?: ListParams, options?: RequestOptions): Promise<ListToolsResult> {
    const listed = await this.#list<ListToolsResult>('tools/list', 'tools', { params, options });
    const result = this.era === 'modern' ? this.#withParamHeaders(listed) : listed;
    this.#outputSchemas.remember(result.tools);
    for (const tool of result.tools as readonly { name: string; execution?: { taskSupport?: unknown } }[]) {
      const support = tool.execution?.taskSupport;
      this.#taskSupport.set(tool.name, typeof support === 'string' ? support : 'none');
    }
    return result;
  }

  /** Every tool, following `nextCursor`. @throws PaginationLimitError (items so far attached); see {@link request} */
  listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return this.#all('tools/list', (cursor) => this.listTools(cursor === undefined ? undefined : { cursor }, options).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })));
  }

  /** One page of `resources/list`. @throws see {@link request} */
  listResources(params?: ListParams, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.#list<ListResourcesResult>('resources/list', 'resources', { params, options });
  }

  /** Every resource, following `nextCursor`. @throws PaginationLimitError; see {@link request} */
  listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return this.#all('resources/list', (cursor) => this.listResources(cursor === undefined ? undefined : { cursor }, options).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })));
  }

  /** One page of `resources/templates/list`. @throws see {@link request} */
  listResourceTemplates(params?: ListParams, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.#list<ListResourceTemplatesResult>('resources/templates/list', 'resourceTemplates', { params, options });
  }

  /** Every resource template, following `nextCursor`. @throws PaginationLimitError; see {@link request} */
  listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.#all('resources/templates/list', (cursor) =>
      this.listResourceTemplates(cursor === undefined ? undefined : { cursor }, options).then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })),
    );
  }

  /** One page of `prompts/list`. @throws see {@link request} */
  listPrompts(params?: ListParams, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.#list<ListPromptsResult>('prompts/list', 'prompts', { params, options });
  }

  /** Every prompt, following `nextCursor`. @throws PaginationLimitError; see {@link request} */
  listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.#all('prompts/list', (cursor) => this.listPrompts(cursor === undefined ? undefined : { cursor }, options).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })));
  }

  /**
   * Calls a tool. A result with `isError: true` is the tool's failure and is returned, not thrown (its
   * `structuredContent` is not checked, B41); otherwise, when the tool's `outputSchema` is known from a listing,
   * `structuredContent` is checked against it.
   * @throws InvalidResultError (no `content`, or `structuredContent` missing or against the schema; the result attached)
   * @throws the typed errors of {@link request}
   */
  async callTool(params: CallToolParams, options?: RequestOptions): Promise<CallToolResult> {
    const wire: Params = params.arguments === undefined ? { name: params.name } : { name: params.name, arguments: params.arguments };
    return this.#outputSchemas.check(params.name, await this.#complete('tools/call', wire, options));
  }

  /** Reads a resource. @throws ResourceNotFoundError (legacy -32002) or McpError -32602 (modern); see {@link request} */
  async readResource(params: { readonly uri: string }, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.#complete<ReadResourceResult>('resources/read', { uri: params.uri }, options);
  }

  /** Gets a prompt. @throws see {@link request} */
  async getPrompt(params: GetPromptParams, options?: RequestOptions): Promise<GetPromptResult> {
    const wire: Params = params.arguments === undefined ? { name: params.name } : { name: params.name, arguments: params.arguments };
    return this.#complete<GetPromptResult>('prompts/get', wire, options);
  }

  /** Asks for completions of an argument (`completion/complete`). @throws see {@link request} */
  async complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    return this.#complete<CompleteResult>('completion/complete', { ...params }, options);
  }

  /**
   * Sets the lowest level of `notifications/message` wanted: `logging/setLevel` on a session; in the modern era the
   * `logLevel` every later request carries in its `_meta` (MCP 2026-07-28 server/utilities/logging.mdx).
   * @throws the typed errors of {@link request} (legacy)
   */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    if (this.era === 'modern') {
      this.#link.logLevel = level;
      return;
    }
    await this.#send('logging/setLevel', { level }, options);
  }

  /**
   * Subscribes to `notifications/resources/updated` for `uri` (legacy; the modern era has `listen`).
   * @throws NotSupportedError in the modern era; the typed errors of {@link request}
   */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.#legacyOnly('resources/subscribe');
    await this.#send('resources/subscribe', { uri }, options);
  }

  /** Ends a subscription made with {@link subscribeResource}. @throws NotSupportedError in the modern era */
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.#legacyOnly('resources/unsubscribe');
    await this.#send('resources/unsubscribe', { uri }, options);
  }

  /**
   * Opens a `subscriptions/listen` subscription (2026-07-28); resolves once the server acknowledged it, with the
   * subset it honours. Its notifications reach the subscription (`on`, async iteration) and the client's
   * `notifications` handlers; re-listened after a connection loss when `reconnect` allows.
   * @throws NotSupportedError in the legacy era (use {@link subscribeResource}); RequestTimeoutError (no
   *   acknowledgement within `timeoutMs`); the server's McpError; the typed errors of {@link request}
   * @see MCP 2026-07-28 basic/patterns/subscriptions.mdx
   */
  listen(filter: ListenFilter, options?: ListenOptions): Promise<ListenSubscription> {
    return this.#listens.listen(filter, options);
  }

  /**
   * Calls a tool so that the server may run it as a task: the 2026-07-28 tasks extension (declared on this call
   * and the task's requests), or 2025-11-25 core tasks (`params.task`). `result()` polls with backoff, answers input
   * requests with the callbacks and resolves with the tool result (an `isError` result included).
   * @throws NotSupportedError on a legacy revision without core tasks or a server that did not advertise
   *   `tasks.requests.tools.call`; InvalidResultError; the errors of {@link callTool}
   */
  callToolAsTask(params: CallToolParams, options?: CallToolAsTaskOptions): Promise<ClientTask> {
    const start = { host: this.#core, serverCapabilities: this.serverCapabilities, clientCapabilities: this.#capabilities, taskSupport: this.#taskSupport.get(params.name) };
    return callToolAsTask(start, params, options);
  }

  /**
   * Sends any request, with the era's envelope (modern `_meta`, progress token), the timeouts and cancellation of
   * `options`; the result is returned as received.
   * @throws RequestTimeoutError (no response or progress within `timeoutMs`, or past `maxTotalTimeoutMs`),
   *   RequestAbortedError, ConnectionClosedError (with exit code and stderr tail), HttpStatusError,
   *   SessionExpiredError (local); McpError and its subclasses (the server's error answer)
   */
  request<T = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<T> {
    return this.#send<T>(method, params, options);
  }

  /** Sends any notification (modern: with the revision claim in `_meta`). @throws ConnectionClosedError */
  notify(method: string, params?: Params): Promise<void> {
    return this.#link.notify(method, params);
  }

  /** Closes the connection (stdio: the process is stopped); pending requests fail with `ConnectionClosedError`. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) await this.#listens.closeAll();
    this.#closed = true;
    await this.#link.close();
  }

  // ---- internals ----

  /** The seam of the modern-era parts (see `core.ts`). @internal */
  get core(): ClientCore {
    return this.#core;
  }

  #send<T>(method: string, params: Params | undefined, options: CoreSendOptions = {}): Promise<T> {
    return this.#link.send<T>(method, params, options);
  }

  /**
   * One request whose result must be complete: `resultType` absent or `complete` (MCP 2026-07-28 basic/index.mdx
   * "ResultType": absent means complete; an unknown value is invalid).
   */
  async #complete<T>(method: string, params: Params, options: RequestOptions | undefined): Promise<T> {
    // Modern: a fresh cached result, or the request with its input rounds (modernRequest.ts).
    const result = await modernRequest({ core: this.#core, cache: this.#cache }, { method, params }, options);
    if (!isRecord(result)) throw new InvalidResultError({ method, reason: 'the result is not an object', result });
    const type = result.resultType;
    if (type === undefined || type === 'complete') return result as T;
    // MCP 2026-07-28 basic/patterns/mrtr.mdx: only tools/call, prompts/get and resources/read may ask for input.
    if (type === 'input_required') throw new InvalidResultError({ method, reason: '"input_required" is not an answer this request may get', result });
    throw new InvalidResultError({ method, reason: `unknown "resultType" ${JSON.stringify(type)}`, result });
  }

  async #list<T>(method: string, key: string, call: { readonly params: ListParams | undefined; readonly options: RequestOptions | undefined }): Promise<T> {
    const { params, options } = call;
    const result = await this.#complete<Params>(method, params?.cursor === undefined ? {} : { cursor: params.cursor }, options);
    if (!Array.isArray(result[key])) throw new InvalidResultError({ method, reason: `the result has no "${key}" array`, result });
    const cursor = result.nextCursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidResultError({ method, reason: '"nextCursor" is not a string', result });
    return result as T;
  }

  #all<T>(method: string, page: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor: string | undefined }>): Promise<T[]> {
    return collectPages({ method, maxPages: this.#options.maxPages ?? DEFAULT_MAX_PAGES, maxBytes: this.#options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES, page });
  }

  /**
   * Modern era: each tool's `x-mcp-header` annotations compiled and handed to the transport (HTTP mirrors those
   * arguments into `Mcp-Param-*` headers of its `tools/call`); a tool whose annotations are invalid is dropped from
   * the list with a warning (MCP 2026-07-28 basic/transports/streamable-http.mdx "Custom Headers from Tool
   * Parameters": clients MUST reject such a tool definition).
   */
  #withParamHeaders(result: ListToolsResult): ListToolsResult {
    const transport = this.#link.connection.transport;
    const kept: Tool[] = [];
    for (const tool of result.tools) {
      let headers: readonly ParamHeader[];
      try {
        headers = compileParamHeaders(tool.inputSchema, { toolName: tool.name });
      } catch (error) {
        this.#logger.warn(`Tool "${echo(tool.name)}" dropped: its x-mcp-header annotations are invalid`, { tool: echo(tool.name), error: echo((error as Error).message) });
        transport.setToolParamHeaders?.(tool.name, undefined);
        continue;
      }
      transport.setToolParamHeaders?.(tool.name, headers.length === 0 ? undefined : headers);
      kept.push(tool);
    }
    return kept.length === result.tools.length ? result : { ...result, tools: kept };
  }

  #legacyOnly(operation: string): void {
    if (this.era === 'modern') {
      throw new NotSupportedError({ operation, era: 'modern', revision: this.protocolVersion, reason: 'does not exist in the modern era (use listen)' });
    }
  }

  /** Answers one question (a live request on a session, or a modern input request) with the application's callback. */
  #answer(question: InputQuestion, ctx: InputContext): Promise<unknown> {
    const options = this.#options;
    switch (question.method) {
      case 'elicitation/create':
        if (options.onElicitation !== undefined) return options.onElicitation(question.params as Parameters<NonNullable<McpClientOptions['onElicitation']>>[0], ctx);
        break;
      case 'sampling/createMessage':
        if (options.onSampling !== undefined) return options.onSampling(question.params as Parameters<NonNullable<McpClientOptions['onSampling']>>[0], ctx);
        break;
      case 'roots/list':
        if (options.onListRoots !== undefined) return options.onListRoots(ctx);
        break;
    }
    return Promise.reject(noCallback(question.method));
  }

  #notification(notification: JsonRpcNotification, requestTag: unknown): void {
    if (notification.method === 'notifications/tools/list_changed') this.#outputSchemas.clear();
    // MCP 2026-07-28 server/utilities/caching.mdx: a change notification makes the cached results it concerns stale.
    this.#cache?.invalidate(notification.method, notification.params).catch((error: unknown) => this.#logger.warn('Response cache invalidation failed', { error }));
    const handlers = this.#options.notifications;
    if (handlers !== undefined) {
      try {
        routeNotification(handlers, notification, requestTag);
        handlers.any?.(notification.method, notification.params);
      } catch (error) {
        this.#logger.error('Notification handler failed', { method: notification.method, error });
      }
    }
    for (const listener of this.#listeners) {
      try {
        listener(notification);
      } catch (error) {
        this.#logger.error('Notification listener failed', { method: notification.method, error });
      }
    }
  }
}
