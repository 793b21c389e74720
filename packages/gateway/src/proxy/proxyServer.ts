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
import { MAX_TIMER_MS, neverThrowing, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type Logger, type Transport } from '@switchboard/jsonrpc';
import { McpError, McpErrorCode, type Implementation, type Prompt, type Resource, type ResourceTemplate, type ServerCapabilities, type Tool } from '@switchboard/mcp';
import { McpClient, type ClientConnector, type ClientNotificationHandlers, type InputContext, type LogMessageParams } from '@switchboard/mcp/client';
import { McpServer, type ConnectOptions, type HandleOptions, type McpServerOptions, type ServerSession } from '@switchboard/mcp/server';
import { CallerSessions, type UpstreamSession } from './callerSessions.js';
import { Forwarder } from './forward.js';
import { taggedCall } from './frontCall.js';
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

  /** A question of upstream session `caller` (`undefined`: the shared one). */
  question(asked: { readonly method: UpstreamQuestion['method']; readonly params: unknown; readonly caller: string | undefined }, ctx: InputContext): Promise<never> {
    const { method, params, caller } = asked;
    // A question of an upstream task goes to the front task that follows it (taskBridge.ts; tasks run on the shared session).
    const ofTask = caller === undefined ? this.tasks?.question(method, params, ctx) : undefined;
    if (ofTask !== undefined) return ofTask as Promise<never>;
    const forward = this.forward;
    if (forward === undefined) return Promise.reject(new McpError(McpErrorCode.InternalError, 'The proxy is not ready'));
    return forward.question({ method, params: params as Record<string, unknown> | undefined, signal: ctx.signal }, caller, ctx.requestTag) as Promise<never>;
  }

  changed(list: MirroredList): void {
    void this.mirror?.sync(list);
  }

  /**
   * An upstream log of session `caller`: to the front request whose upstream request it was sent for when the client
   * says (`tag`, see frontCall.ts "Attribution"; dropped once that request has ended), else to the newest front request
   * in flight on it (its level and era rules apply), else to every front session (the shared session), or to the
   * caller's own front session.
   */
  log(params: LogMessageParams, caller: string | undefined, tag: unknown): void {
    const related = taggedCall(tag);
    if (related !== undefined) {
      if (related.open) void related.ctx.log(params.level, params.data, params.logger).catch(() => {});
      return;
    }
    const call = this.forward?.inFlight.newest((c) => c.caller === caller);
    if (call !== undefined) {
      void call.ctx.log(params.level, params.data, params.logger).catch(() => {});
      return;
    }
    // Nothing in flight: the shared session's own log goes to every live front session (they share the upstream),
    // a caller session's to its front session when it is keyed by one (an identity's has none to go to).
    for (const session of this.server?.sessions ?? []) {
      if (session.initialized && (caller === undefined || caller === `session:${String(session.id)}`)) void session.notify('notifications/message', { ...params }).catch(() => {});
    }
  }

  /** The listeners of a caller session's client: its logs; its catalog and subscriptions are the shared session's. */
  callerHandlers(caller: string): ClientNotificationHandlers {
    return { message: (p, ctx) => this.log(p, caller, ctx.requestTag) };
  }

  handlers(): ClientNotificationHandlers {
    return {
      message: (p, ctx) => this.log(p, undefined, ctx.requestTag),
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
  /** Opens a caller's upstream session (`sessionPerCaller`). */
  readonly openCaller: (session: UpstreamSession) => Promise<McpClient>;
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
  readonly #sessions: CallerSessions;

  /**
   * Made by {@link createProxyServer} only (its upstream must be connected first).
   * @internal
   */
  static make(init: ProxyInit): ProxyServer {
    return new ProxyServer(init);
  }

  private constructor(init: ProxyInit) {
    super(init.info, init.options);
    const logger = neverThrowing(init.proxy.logger ?? this.logger);
    this.upstream = init.client;
    this.#owned = init.owned;
    this.#sessions = new CallerSessions({ client: init.client, options: init.proxy.sessionPerCaller, open: init.openCaller, logger });
    if (this.#sessions.perCaller) this.onSessionClosed((session) => this.#sessions.sessionClosed(session.id));
    this.#forward = new Forwarder({ maxHeld: init.proxy.maxHeldRequests ?? DEFAULT_MAX_HELD_REQUESTS, holdTimeoutMs: init.proxy.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS, logger, sessions: this.#sessions });
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

  /**
   * Front requests waiting on the upstream now, upstream requests held for a 2026-07-28 client's retry, upstream
   * tasks a front task follows, and upstream sessions open per caller (`sessionPerCaller`; the shared one not counted).
   */
  get stats(): { readonly inFlight: number; readonly held: number; readonly upstreamSubscriptions: number; readonly upstreamTasks: number; readonly callerSessions: number } {
    return { inFlight: this.#forward.inFlight.size, held: this.#forward.heldCount, upstreamSubscriptions: this.#subscriptions.size, upstreamTasks: this.#tasks.size, callerSessions: this.#sessions.size };
  }

  /**
   * What the upstream listed at the last read of each list (every page, as listed; a list the upstream does not
   * have is empty): the mirror's own reads, so that a gateway need not list the upstream once more.
   */
  get listed(): { readonly tools: readonly Tool[]; readonly resources: readonly Resource[]; readonly resourceTemplates: readonly ResourceTemplate[]; readonly prompts: readonly Prompt[] } {
    const mirror = this.#mirror;
    return { tools: mirror.listed('tools') as Tool[], resources: mirror.listed('resources') as Resource[], resourceTemplates: mirror.listed('resourceTemplates') as ResourceTemplate[], prompts: mirror.listed('prompts') };
  }

  /**
   * A front session ended where the proxy does not see it (the proxy mounted on another server, whose sessions are
   * that server's): its upstream session per caller (`sessionPerCaller`), if any, is closed now rather than when
   * idle. The proxy's own sessions are followed without it.
   */
  endCallerSession(sessionId: string): void {
    this.#sessions.sessionClosed(sessionId);
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
    await this.#sessions.close();
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
 * @throws RangeError when `maxHeldRequests`, `holdTimeoutMs`, `maxUpstreamSubscriptions` or a `sessionPerCaller`
 *   bound is not a positive number; TypeError for `sessionPerCaller` over an `McpClient` without its `connector`
 */
export async function createProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  for (const name of ['maxHeldRequests', 'holdTimeoutMs', 'maxUpstreamSubscriptions'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && value > 0)) throw new RangeError(`Invalid ${name}: expected a positive number, got ${String(value)}`);
  }
  // holdTimeoutMs becomes a timer, which fires at once past 2^31 - 1 ms.
  if (options.holdTimeoutMs !== undefined && options.holdTimeoutMs > MAX_TIMER_MS) {
    throw new RangeError(`Invalid holdTimeoutMs: expected at most ${MAX_TIMER_MS} ms, got ${String(options.holdTimeoutMs)}`);
  }
  const bridge = new Bridge();
  const upstream = options.upstream;
  const owned = !isClient(upstream);
  const perCaller = options.sessionPerCaller;
  const callerConnector = (typeof perCaller === 'object' ? perCaller.connector : undefined) ?? (isClient(upstream) ? undefined : upstream);
  if (perCaller !== undefined && perCaller !== false && callerConnector === undefined) throw new TypeError('sessionPerCaller with an McpClient upstream needs sessionPerCaller.connector');
  /** An upstream session with the proxy's callbacks; `caller`: a caller's (see callerSessions.ts), else the shared one. */
  const connect = (connector: ClientConnector, caller: string | undefined): Promise<McpClient> =>
    McpClient.connect({
      ...options.client,
      connector,
      cache: false,
      capabilities: options.upstreamCapabilities ?? DEFAULT_UPSTREAM_CAPABILITIES,
      onElicitation: (params, ctx) => bridge.question({ method: 'elicitation/create', params, caller }, ctx),
      onSampling: (params, ctx) => bridge.question({ method: 'sampling/createMessage', params, caller }, ctx),
      onListRoots: (ctx) => bridge.question({ method: 'roots/list', params: undefined, caller }, ctx),
      notifications: caller === undefined ? bridge.handlers() : bridge.callerHandlers(caller),
    });
  const openCaller = async (session: UpstreamSession): Promise<McpClient> => {
    const opened = await connect(callerConnector as ClientConnector, session.key);
    if (opened.serverCapabilities.logging !== undefined) await opened.setLoggingLevel('debug').catch(() => {});
    return opened;
  };
  const client = isClient(upstream) ? upstream : await connect(upstream, undefined);
  try {
    const caps = client.serverCapabilities;
    const serverOptions: McpServerOptions = {
      ...options.server,
      capabilities: options.server?.capabilities ?? frontCapabilities(caps),
      ...(options.server?.instructions === undefined && client.instructions === undefined ? {} : { instructions: options.server?.instructions ?? client.instructions }),
    };
    const info = options.info ?? client.serverInfo ?? { name: 'switchboard-proxy', version: '0.1.0' };
    const front = ProxyServer.make({ info, options: serverOptions, client, owned, bridge, proxy: options, openCaller });
    // Every upstream log is wanted: the front filters per client (its sessions' levels, a modern request's logLevel).
    const logging = owned && caps.logging !== undefined ? client.setLoggingLevel('debug').catch(() => {}) : undefined;
    // The lists at once (on the connection the negotiation warmed), the level too. A 2026-07-28 upstream tells of list
    // changes only on a listen stream: opened once the first lists are in, not waited for (on HTTP it holds a
    // connection of its own: opened first, it would take the warm one and send the lists to a new connection), then
    // the lists are read once more, so a change made before the stream existed is not missed (unchanged definitions
    // stay as they are, unannounced).
    const lists = front.sync();
    if (owned && client.era === 'modern') {
      void lists
        .then(() => client.listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true }))
        .then(
          () => (client.closed ? undefined : front.sync()),
          (error: unknown) => {
            if (!client.closed) front.logger.warn('Proxy: the upstream refused subscriptions/listen; list changes will not be followed', { error });
          },
        );
    }
    // Ready one round trip after the negotiation.
    await Promise.all([lists, logging]);
    return front;
  } catch (error) {
    if (owned) await client.close();
    throw error;
  }
}
