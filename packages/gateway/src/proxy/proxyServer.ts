/**
 * `createProxyServer`: one upstream MCP server, of any era and transport, served by a front `McpServer` of any era
 * (dual-era by default). The front is an ordinary server (serve it with `serveStdio`, `serveHttp` or
 * `createMcpHttpHandler`): the upstream's catalog is mirrored into its registry (mirror.ts), each request is
 * forwarded on one upstream session opened once and reused by every front client (forward.ts), and the upstream's
 * notifications come back: progress to its request, logs to the request in flight (frontCall.ts), list changes
 * re-synced, resource updates published to the front's subscribers (subscriptions.ts).
 *
 * The bridge is stateful toward a session-based upstream: one upstream session (one `initialize`) serves every
 * front client, of both eras, for the proxy's life; the upstream client reconnects by itself when the process dies
 * or the session expires. It scales by running more proxies (one upstream each).
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility"
 */
import type { JsonRpcRequest, Logger, Transport } from '@switchboard/jsonrpc';
import { McpError, McpErrorCode, type Implementation, type ServerCapabilities } from '@switchboard/mcp';
import { McpClient, type ClientConnector, type ClientNotificationHandlers, type InputContext, type LogMessageParams } from '@switchboard/mcp/client';
import { McpServer, type ConnectOptions, type HandleOptions, type McpServerOptions, type ServerSession } from '@switchboard/mcp/server';
import type { JsonRpcNotification, JsonRpcResponse } from '@switchboard/jsonrpc';
import { Forwarder } from './forward.js';
import { Mirror, type MirroredList } from './mirror.js';
import { DEFAULT_HOLD_TIMEOUT_MS, DEFAULT_MAX_HELD_REQUESTS, DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS, DEFAULT_UPSTREAM_CAPABILITIES, type ProxyServerOptions } from './options.js';
import type { UpstreamQuestion } from './questions.js';
import { UpstreamSubscriptions } from './subscriptions.js';
import { TaskBridge } from './taskBridge.js';

/** What the proxy wires between its front and its upstream, made before either exists. */
class Bridge {
  forward: Forwarder | undefined;
  mirror: Mirror | undefined;
  server: McpServer | undefined;
  subscriptions: UpstreamSubscriptions | undefined;
  tasks: TaskBridge | undefined;
  logger: Logger | undefined;

  question(method: UpstreamQuestion['method'], params: unknown, ctx: InputContext): Promise<never> {
    // A question of an upstream task goes to the front task that follows it (taskBridge.ts).
    const ofTask = this.tasks?.question(method, params, ctx);
    if (ofTask !== undefined) return ofTask as Promise<never>;
    const forward = this.forward;
    if (forward === undefined) return Promise.reject(new McpError(McpErrorCode.InternalError, 'The proxy is not ready'));
    return forward.question({ method, params: params as Record<string, unknown> | undefined, signal: ctx.signal }) as Promise<never>;
  }

  changed(list: MirroredList): void {
    void this.mirror?.sync(list);
  }

  /** An upstream log: to the newest front request in flight (its level and era rules apply), else to every session. */
  log(params: LogMessageParams): void {
    const call = this.forward?.inFlight.newest();
    if (call !== undefined) {
      void call.ctx.log(params.level, params.data, params.logger).catch(() => {});
      return;
    }
    // Nothing in flight: the upstream session's own log goes to every live front session (they share the upstream).
    for (const session of this.server?.sessions ?? []) {
      if (session.initialized) void session.notify('notifications/message', { ...params }).catch(() => {});
    }
  }

  handlers(): ClientNotificationHandlers {
    return {
      message: (p) => this.log(p),
      toolsListChanged: () => this.changed('tools'),
      promptsListChanged: () => this.changed('prompts'),
      resourcesListChanged: () => {
        this.changed('resources');
        this.changed('resourceTemplates');
      },
      resourceUpdated: (p) => void this.server?.notifyResourceUpdated(p.uri),
    };
  }
}

/** What a {@link ProxyServer} is made with. */
interface ProxyInit {
  readonly info: Implementation;
  readonly options: McpServerOptions;
  readonly client: McpClient;
  readonly owned: boolean;
  readonly bridge: Bridge;
  readonly proxy: ProxyServerOptions;
}

function isClient(upstream: ClientConnector | McpClient): upstream is McpClient {
  return upstream instanceof McpClient;
}

/** The front's capabilities: what the upstream advertises, for what the proxy forwards. */
function frontCapabilities(upstream: ServerCapabilities): ServerCapabilities {
  const out: Record<string, unknown> = {};
  const copy = (name: 'tools' | 'prompts' | 'resources'): void => {
    const value = upstream[name];
    if (typeof value === 'object' && value !== null) out[name] = { ...value };
  };
  copy('tools');
  copy('prompts');
  copy('resources');
  if (upstream.completions !== undefined) out.completions = {};
  out.logging = {};
  return out;
}

/**
 * The front server of one upstream: an `McpServer` whose catalog is the upstream's. Made by
 * {@link createProxyServer}; `close()` ends the front's connections and, when the proxy opened it, the upstream.
 */
export class ProxyServer extends McpServer {
  /** The upstream client (one session, reused by every front request). */
  readonly upstream: McpClient;
  readonly #owned: boolean;
  readonly #forward: Forwarder;
  readonly #mirror: Mirror;
  readonly #subscriptions: UpstreamSubscriptions;
  readonly #tasks: TaskBridge;

  /**
   * Made by {@link createProxyServer} only (its upstream must be connected first).
   * @internal
   */
  static make(init: ProxyInit): ProxyServer {
    return new ProxyServer(init);
  }

  private constructor(init: ProxyInit) {
    super(init.info, init.options);
    const logger = init.proxy.logger ?? this.logger;
    this.upstream = init.client;
    this.#owned = init.owned;
    this.#forward = new Forwarder({ maxHeld: init.proxy.maxHeldRequests ?? DEFAULT_MAX_HELD_REQUESTS, holdTimeoutMs: init.proxy.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS, logger });
    const completions = init.client.serverCapabilities.completions !== undefined;
    this.#tasks = new TaskBridge({ client: init.client, logger });
    this.#mirror = new Mirror({ server: this, client: init.client, forward: this.#forward, logger, completions, tasks: this.#tasks });
    this.#subscriptions = new UpstreamSubscriptions({ client: init.client, max: init.proxy.maxUpstreamSubscriptions ?? DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS, logger });
    const bridge = init.bridge;
    bridge.forward = this.#forward;
    bridge.mirror = this.#mirror;
    bridge.server = this;
    bridge.subscriptions = this.#subscriptions;
    bridge.tasks = this.#tasks;
    bridge.logger = logger;
  }

  /** Front requests waiting on the upstream now, upstream requests held for a 2026-07-28 client's retry, and upstream tasks a front task follows. */
  get stats(): { readonly inFlight: number; readonly held: number; readonly upstreamSubscriptions: number; readonly upstreamTasks: number } {
    return { inFlight: this.#forward.inFlight.size, held: this.#forward.heldCount, upstreamSubscriptions: this.#subscriptions.size, upstreamTasks: this.#tasks.size };
  }

  /** Reads every upstream list into the front (the proxy does it once at creation; list changes do it after). */
  async sync(): Promise<void> {
    const caps = this.upstream.serverCapabilities;
    const lists: MirroredList[] = [];
    if (caps.tools !== undefined) lists.push('tools');
    if (caps.resources !== undefined) lists.push('resources', 'resourceTemplates');
    if (caps.prompts !== undefined) lists.push('prompts');
    await Promise.all(lists.map((list) => this.#mirror.sync(list)));
  }

  /** Serves one session-era connection (see `McpServer.connect`), watching its resource subscriptions. */
  override async connect(transport: Transport, options?: ConnectOptions): Promise<ServerSession> {
    const session = await super.connect(transport, options);
    this.#watch(transport);
    return session;
  }

  /** Answers one message (see `McpServer.handle`); a `subscriptions/listen` holds its URIs upstream while it lasts. */
  override async handle(message: JsonRpcRequest | JsonRpcNotification, options?: HandleOptions): Promise<JsonRpcResponse | undefined> {
    const uris = message.method === 'subscriptions/listen' ? listenUris(message.params) : undefined;
    if (uris === undefined) return super.handle(message, options);
    for (const uri of uris) this.#subscriptions.acquire(uri);
    try {
      return await super.handle(message, options);
    } finally {
      for (const uri of uris) this.#subscriptions.release(uri);
    }
  }

  /** Closes the front (its connections and listen streams), then the upstream when the proxy opened it. */
  override async close(): Promise<void> {
    this.#forward.close();
    await super.close();
    this.#mirror.clear();
    if (this.#owned) await this.upstream.close();
  }

  /** Follows one connection's `resources/subscribe`, `resources/unsubscribe` and `subscriptions/listen`. */
  #watch(transport: Transport): void {
    const held: string[] = [];
    const subscriptions = this.#subscriptions;
    const see = (request: JsonRpcRequest): void => {
      const method = request.method;
      if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
        const uri = (request.params as { uri?: unknown } | undefined)?.uri;
        if (typeof uri !== 'string') return;
        const index = held.indexOf(uri);
        if (method === 'resources/subscribe' && index === -1) {
          held.push(uri);
          subscriptions.acquire(uri);
        } else if (method === 'resources/unsubscribe' && index !== -1) {
          held.splice(index, 1);
          subscriptions.release(uri);
        }
      } else if (method === 'subscriptions/listen') {
        for (const uri of listenUris(request.params) ?? []) {
          held.push(uri);
          subscriptions.acquire(uri);
        }
      }
    };
    const deliver = transport.onmessage;
    transport.onmessage = (inbound, extra) => {
      if (inbound.kind === 'request') see(inbound.message);
      else if (inbound.kind === 'batch') for (const item of inbound.items) if (item.kind === 'request') see(item.message);
      deliver?.(inbound, extra);
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      for (const uri of held.splice(0)) subscriptions.release(uri);
      closed?.();
    };
  }
}

/** The URIs a `subscriptions/listen` asks for, if any. */
function listenUris(params: unknown): string[] | undefined {
  const notifications = (params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications;
  const uris = notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return undefined;
  return [...new Set(uris.filter((u): u is string => typeof u === 'string'))];
}

/**
 * Connects to the upstream once and makes the front server of it: every tool, resource, template and prompt the
 * upstream lists, served in every era the front serves, with completion, progress, logging, cancellation, the
 * upstream's sampling, elicitation and roots requests asked of the front's client, and list changes and resource
 * updates relayed. Serve the result as any `McpServer`.
 *
 * @example
 * const front = await createProxyServer({ upstream: spawnStdio({ command: 'node', args: ['old-server.js'] }) });
 * const http = await serveHttp(front, { port: 3000 }); // 2026-07-28 and 2025 clients alike
 * @throws what `McpClient.connect` throws for the upstream (SpawnError, ConnectionRefusedError, NegotiationError…)
 * @throws RangeError when `maxHeldRequests`, `holdTimeoutMs` or `maxUpstreamSubscriptions` is not a positive number
 */
export async function createProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  for (const name of ['maxHeldRequests', 'holdTimeoutMs', 'maxUpstreamSubscriptions'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && value > 0)) throw new RangeError(`Invalid ${name}: expected a positive number, got ${String(value)}`);
  }
  const bridge = new Bridge();
  const upstream = options.upstream;
  const owned = !isClient(upstream);
  const client = isClient(upstream)
    ? upstream
    : await McpClient.connect({
        ...options.client,
        connector: upstream,
        cache: false,
        capabilities: options.upstreamCapabilities ?? DEFAULT_UPSTREAM_CAPABILITIES,
        onElicitation: (params, ctx) => bridge.question('elicitation/create', params, ctx),
        onSampling: (params, ctx) => bridge.question('sampling/createMessage', params, ctx),
        onListRoots: (ctx) => bridge.question('roots/list', undefined, ctx),
        notifications: bridge.handlers(),
      });
  try {
    const caps = client.serverCapabilities;
    const serverOptions: McpServerOptions = {
      ...options.server,
      capabilities: options.server?.capabilities ?? frontCapabilities(caps),
      ...(options.server?.instructions === undefined && client.instructions === undefined ? {} : { instructions: options.server?.instructions ?? client.instructions }),
    };
    const info = options.info ?? client.serverInfo ?? { name: 'switchboard-proxy', version: '0.1.0' };
    const front = ProxyServer.make({ info, options: serverOptions, client, owned, bridge, proxy: options });
    // Every upstream log is wanted: the front filters per client (its sessions' levels, a modern request's logLevel).
    if (owned && caps.logging !== undefined) await client.setLoggingLevel('debug').catch(() => {});
    // A 2026-07-28 upstream tells of list changes only on a listen stream.
    if (owned && client.era === 'modern') {
      await client.listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true }).catch((error: unknown) => front.logger.warn('Proxy: the upstream refused subscriptions/listen; list changes will not be followed', { error }));
    }
    await front.sync();
    return front;
  } catch (error) {
    if (owned) await client.close();
    throw error;
  }
}
