/**
 * `createGateway`: one MCP endpoint over many upstream servers. A front `McpServer` (dual-era: it serves every
 * revision whatever each upstream speaks) serves each ready upstream under the upstream's namespace. Upstreams are
 * connected and listed in parallel by the pool (`fanout/`), each under its own deadline; a hung or dead one is
 * reported and left out, and tried again with backoff; when one comes or goes, the front's hosts get a
 * list-changed notification.
 *
 * Two ways an upstream is served, chosen per upstream:
 * - **mounted** (the default): the attempt makes a proxy server of the upstream (`createProxyServer`: every
 *   primitive, completions, templates, subscriptions, progress, logs, the upstream's sampling, elicitation and roots
 *   requests asked of the front's client), mounted on the front under the prefix (`server.mount`: `<prefix>_<tool>`,
 *   resource URIs `<prefix>+<scheme>:…`, list changes propagated); `tools.allow` / `tools.deny` are the proxy's
 *   visibility function (a hidden tool is neither listed nor callable);
 * - **forwarded**, for an upstream whose tools are renamed or given fixed arguments (which a mirror of the
 *   upstream cannot express) or whose prefix is not a mount prefix: its tools, prompts and static resources are
 *   registered on the front from the merged catalog (`fanout/catalog.ts`, `fanout/front.ts`), forwarding to its
 *   client (progress and cancellation pass; the upstream's own requests to the client do not).
 */
import { neverThrowing, type Logger } from '@switchboard/jsonrpc';
import { createStderrLogger, type Implementation } from '@switchboard/mcp';
import { McpServer, rateLimitMiddleware, toolTimeoutMiddleware, type McpServerOptions } from '@switchboard/mcp/server';
import { InMemoryNotificationBus, type RateLimitStore } from '@switchboard/mcp/stores';
import type { McpClient } from '@switchboard/mcp/client';
import { connectorFor, type UpstreamEndpoint } from './config/connector.js';
import type { BackoffOptions } from './fanout/backoff.js';
import { DEFAULT_MAX_CATALOG_TOOLS, MergedCatalog, type CatalogSnapshot, type NamespaceRule } from './fanout/catalog.js';
import { FrontRegistrar } from './fanout/front.js';
import { DEFAULT_MAX_UPSTREAMS, UpstreamPool, type HealthListener } from './fanout/pool.js';
import { CompiledToolPolicy, type ToolPolicy } from './fanout/toolPolicy.js';
import type { UpstreamHealth, UpstreamLink, UpstreamLinkInit, UpstreamSpec } from './fanout/upstream.js';
import type { SessionPerCallerOptions } from './proxy/callerSessions.js';
import { createProxyServer, type ProxyServer } from './proxy/proxyServer.js';
import { upstreamLogger } from './upstreamLogger.js';

/** The front's `serverInfo` by default. */
export const DEFAULT_GATEWAY_INFO: Implementation = Object.freeze({ name: 'switchboard-gateway', version: '0.1.0' });

/** One upstream of a gateway: how to reach it (see {@link UpstreamEndpoint}), its namespace and its tool rules. */
export interface GatewayUpstreamOptions extends UpstreamEndpoint {
  /** Put before each of its tool and prompt names with `_` (`files_read`); `''` for none. @default the upstream's name */
  readonly prefix?: string;
  /** Which of its tools are served, renamed, with which hidden fixed arguments. @default every tool as it is */
  readonly tools?: ToolPolicy;
  /** The deadline of one attempt to connect and list it, in ms. @default the gateway's `connectTimeoutMs` */
  readonly connectTimeoutMs?: number;
  /** More options of its client (era, pin, call timeouts). @default none */
  readonly client?: UpstreamSpec['client'];
  /**
   * An upstream session per front caller (the proxy's `sessionPerCaller`: the authenticated identity, else the front
   * session; LRU-bounded, closed when idle), for an upstream that keeps state per session. Mounted upstreams only: a
   * forwarded one (renames, fixed arguments) keeps one session and says so in a warning.
   * @default false (one upstream session for every caller)
   */
  readonly sessionPerCaller?: boolean | Omit<SessionPerCallerOptions, 'connector'>;
}

/**
 * Catalog search: the front lists `search_tools` + `call_tool` (and the pinned tools) instead of every upstream's
 * schemas — the server's tool-search mode (`McpServerOptions.toolSearch`), over the whole merged front, mounted and
 * forwarded upstreams alike. `server.toolSearch`, when given, wins.
 */
export interface GatewaySearchOptions {
  /** @default false */
  readonly enabled?: boolean;
  /** Front tool names (`<prefix>_<name>`) that stay listed in search mode. @default none */
  readonly pinned?: readonly string[];
}

/**
 * Middleware of the front (the server's built-ins, installed with `server.use` in this order: rate limit, then tool
 * timeouts). More can be added with `gateway.server.use(…)`.
 */
export interface GatewayMiddlewareOptions {
  /**
   * A deadline per call in ms, by front tool name (`<prefix>_<name>`); `*` for every other tool. Past it the call is
   * answered `isError` and cancelled upstream (`toolTimeoutMiddleware`).
   * @default none (the upstream clients' own idle budget, 60_000)
   */
  readonly toolTimeoutsMs?: Readonly<Record<string, number>>;
  /**
   * A token bucket per caller (the authenticated identity, else the remote address): `requestsPerSecond` sustained
   * (default 10), `burst` at once (default 20), counted in `store` (default: this process's memory; a shared one such
   * as `redisStores(…).rateLimitStore` makes it the deployment's limit) (`rateLimitMiddleware`). @default none
   */
  readonly rateLimit?: { readonly requestsPerSecond?: number; readonly burst?: number; readonly store?: RateLimitStore };
}

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** The upstreams by name (the name is the default namespace prefix). */
  readonly upstreams: Readonly<Record<string, GatewayUpstreamOptions>>;
  /** The front's `serverInfo`. @default {@link DEFAULT_GATEWAY_INFO} */
  readonly info?: Implementation;
  /** Options of the front `McpServer` (revisions, limits, cache hints). Its list capabilities always say `listChanged`. @default none */
  readonly server?: McpServerOptions;
  /** See {@link GatewaySearchOptions}. @default off (every tool listed) */
  readonly search?: GatewaySearchOptions;
  /** See {@link GatewayMiddlewareOptions}. @default none */
  readonly middleware?: GatewayMiddlewareOptions;
  /** The deadline of one attempt of each upstream (connect, negotiate, list), in ms. @default 10_000 */
  readonly connectTimeoutMs?: number;
  /**
   * When a failed or dead upstream is tried again. The delay grows with each failure, and starts over only after the
   * upstream stayed ready for 30 s (one that dies right after each listing is tried less and less often).
   * @default `{ initialDelayMs: 250, maxDelayMs: 30_000, multiplier: 2, jitter: 0.5 }`
   */
  readonly backoff?: BackoffOptions;
  /** How often a ready upstream is pinged, in ms; 0 disables. @default 15_000 */
  readonly healthCheckIntervalMs?: number;
  /** The most upstreams. @default 100 */
  readonly maxUpstreams?: number;
  /** The most items served per list of one upstream. @default 1_000 */
  readonly maxItemsPerList?: number;
  /** The most tools the merged catalog (the forwarded upstreams) holds. @default 10_000 */
  readonly maxCatalogTools?: number;
  /** Called with an upstream's health on every change (also {@link Gateway.pool}'s `onHealth`). @default none */
  readonly onHealth?: HealthListener;
  /** Where the gateway logs (upstream state changes, left-out items). @default stderr */
  readonly logger?: Logger;
  /** The random source of the backoff jitter. @default Math.random */
  readonly random?: () => number;
}

/** What {@link Gateway.update} changed. */
export interface GatewayChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Upstreams whose settings changed: closed and started again. */
  readonly replaced: readonly string[];
  /** Upstreams left running (settings unchanged). */
  readonly kept: readonly string[];
}

/** A running gateway. */
export interface Gateway {
  /** The front server: serve it with `serveHttp({ server })`, `serveStdio(server)` or `server.handle(…)`. */
  readonly server: McpServer;
  /** The upstream pool (health, clients, listings). */
  readonly pool: UpstreamPool;
  /** A snapshot of every upstream's health. */
  health(): UpstreamHealth[];
  /**
   * The merged catalog of the forwarded upstreams (those whose tools are renamed or given fixed arguments) as
   * served now; the mounted upstreams are served by their proxy servers (list the front to see everything).
   */
  catalog(): CatalogSnapshot;
  /** The upstreams mounted on the front now (ready, served by their proxy server), by name. */
  mounted(): string[];
  /** Resolves once every upstream's first attempt ended (ready, or down after its deadline). */
  settled(): Promise<void>;
  /**
   * Applies a new set of upstreams: new ones are started, missing ones closed, changed ones restarted; upstreams
   * whose settings are unchanged keep their connection (a config reload does not drop healthy upstreams). Updates
   * called while another is being applied wait for it and are applied in call order: the last one given wins.
   * @throws TypeError or RangeError as {@link createGateway} for a bad upstream, RangeError for more than
   *   `maxUpstreams` (nothing is changed then); Error once the gateway is closed
   */
  update(upstreams: Readonly<Record<string, GatewayUpstreamOptions>>): Promise<GatewayChanges>;
  /** Closes the front's sessions and every upstream (stdio process groups stopped). Idempotent. */
  close(): Promise<void>;
}

/** A comparable fingerprint of an upstream's settings (a given connector compared by identity). */
function fingerprint(options: GatewayUpstreamOptions, connectors: { readonly ids: WeakMap<object, number>; next: number }): string {
  const { connector, ...rest } = options;
  let id = 0;
  if (connector !== undefined) {
    id = connectors.ids.get(connector) ?? ++connectors.next;
    connectors.ids.set(connector, id);
  }
  return JSON.stringify({ ...rest, connector: id });
}

interface Prepared {
  readonly spec: UpstreamSpec;
  readonly rule: NamespaceRule;
  readonly fingerprint: string;
  /** How the front serves it (see the module comment). */
  readonly mode: 'mounted' | 'forwarded';
}

/** A mount prefix (`server.mount`): a lower-case letter, then lower-case letters, digits or `-`. */
const MOUNT_PREFIX = /^[a-z][a-z0-9-]*$/;

/** How an upstream is served: mounted unless its tools are rewritten or its prefix cannot be mounted. */
function modeOf(prefix: string, tools: ToolPolicy | undefined): Prepared['mode'] {
  const rewritten = Object.keys(tools?.rename ?? {}).length > 0 || Object.keys(tools?.fixedArguments ?? {}).length > 0;
  return rewritten || !MOUNT_PREFIX.test(prefix) ? 'forwarded' : 'mounted';
}

/** The configured built-ins on the front: the rate limit first (a refused call costs nothing more), then the tool timeouts. */
function installMiddleware(server: McpServer, middleware: GatewayMiddlewareOptions | undefined): void {
  const rate = middleware?.rateLimit;
  if (rate !== undefined) {
    server.use(rateLimitMiddleware({
      ...(rate.requestsPerSecond === undefined ? {} : { requestsPerSecond: rate.requestsPerSecond }),
      ...(rate.burst === undefined ? {} : { burst: rate.burst }),
      ...(rate.store === undefined ? {} : { store: rate.store }),
    }));
  }
  const timeouts = middleware?.toolTimeoutsMs;
  if (timeouts !== undefined) {
    const { '*': every, ...tools } = timeouts;
    server.use(toolTimeoutMiddleware({ timeoutMs: every ?? Infinity, tools }));
  }
}

/**
 * Makes a gateway and starts connecting every upstream at once (the call returns at once; hosts may connect to
 * the front while upstreams come up, and see them appear).
 * @throws TypeError when an upstream has none or several of `connector`, `command`, `url`, a bad rename, or a
 *   duplicate name; RangeError for an out-of-range number (named)
 * @example
 * const gateway = createGateway({ upstreams: { files: { command: 'mcp-files' }, search: { url: 'https://search.example/mcp' } } });
 * const http = await serveHttp({ server: gateway.server, port: 3000 });
 */
export function createGateway(options: GatewayOptions): Gateway {
  const logger = neverThrowing(options.logger ?? createStderrLogger({ name: 'switchboard-gateway' }));
  const connectorIds = { ids: new WeakMap<object, number>(), next: 0 };
  /** The proxy server of each mounted upstream's current connection, by its client. */
  const proxies = new Map<McpClient, ProxyServer>();
  const prepare = (name: string, upstream: GatewayUpstreamOptions): Prepared => {
    const prefix = upstream.prefix ?? name;
    const tools = new CompiledToolPolicy(upstream.tools);
    const mode = modeOf(prefix, upstream.tools);
    const connector = connectorFor(name, upstream);
    const perCaller = upstream.sessionPerCaller ?? false;
    if (perCaller !== false && mode === 'forwarded') logger.warn(`Upstream "${name}": sessionPerCaller applies to mounted upstreams only; its renamed or fixed tools are served on one session`);
    // Caller sessions open on the upstream's own connector, not the pool's watched one: a caller's session that
    // ends is not the upstream's end.
    const sessions = perCaller === false ? undefined : { ...(perCaller === true ? {} : perCaller), connector };
    return {
      spec: {
        name,
        connector,
        ...(upstream.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: upstream.connectTimeoutMs }),
        ...(upstream.client === undefined ? {} : { client: upstream.client }),
        ...(mode === 'mounted' ? { link: (init: UpstreamLinkInit) => proxyLink(init, { name, tools, sessionPerCaller: sessions }) } : {}),
      },
      rule: { prefix, tools },
      fingerprint: fingerprint(upstream, connectorIds),
      mode,
    };
  };
  /** One attempt of a mounted upstream: its proxy server, which owns the client. */
  const proxyLink = async (init: UpstreamLinkInit, upstream: { readonly name: string; readonly tools: CompiledToolPolicy; readonly sessionPerCaller: SessionPerCallerOptions | undefined }): Promise<UpstreamLink> => {
    const { tools, sessionPerCaller } = upstream;
    const { onElicitation: _e, onSampling: _s, onListRoots: _r, capabilities: _c, ...client } = init.client;
    const proxyLogger = upstreamLogger(logger, upstream.name);
    // The proxy server's own bus: its list changes (the mirror re-synced) also refresh the pool's listing.
    const bus = new InMemoryNotificationBus();
    const proxy = await createProxyServer({
      upstream: init.connector,
      client,
      server: { logger: proxyLogger, bus, ...(tools.filters ? { visibility: (item) => item.kind !== 'tool' || tools.visible(item.name) } : {}) },
      logger: proxyLogger,
      ...(sessionPerCaller === undefined ? {} : { sessionPerCaller }),
    });
    proxies.set(proxy.upstream, proxy);
    // Mounted, the proxy does not see the front's sessions: a caller session ends with its front session here.
    const unfollow =
      sessionPerCaller === undefined
        ? undefined
        : server.onSessionClosed((session) => {
            if (session.id !== undefined) proxy.endCallerSession(session.id);
          });
    return {
      client: proxy.upstream,
      listing: () => proxy.listed,
      followsListChanges: true,
      onListChanged: (listener) => {
        bus.subscribe((message) => {
          if (message.type === 'list_changed') listener(message.capability);
        });
      },
      close: async () => {
        unfollow?.();
        proxies.delete(proxy.upstream);
        await proxy.close();
      },
    };
  };
  const prepareAll = (upstreams: Readonly<Record<string, GatewayUpstreamOptions>>): Map<string, Prepared> => new Map(Object.entries(upstreams).map(([name, upstream]) => [name, prepare(name, upstream)]));
  let prepared = prepareAll(options.upstreams);

  const serverOptions = options.server ?? {};
  const search = options.search?.enabled === true ? { toolSearch: { pinned: options.search.pinned ?? [] } } : {};
  const server = new McpServer(options.info ?? DEFAULT_GATEWAY_INFO, {
    logger,
    ...search,
    ...serverOptions,
    // Upstreams come and go after a host initialized: each list may change (MCP 2025-11-25 server/tools.mdx
    // "Capabilities": listChanged indicates whether the server will emit notifications when the list changes).
    capabilities: {
      ...serverOptions.capabilities,
      tools: { ...serverOptions.capabilities?.tools, listChanged: true },
      prompts: { ...serverOptions.capabilities?.prompts, listChanged: true },
      resources: { ...serverOptions.capabilities?.resources, listChanged: true },
    },
  });
  const pool = new UpstreamPool({
    logger,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
    ...(options.healthCheckIntervalMs === undefined ? {} : { healthCheckIntervalMs: options.healthCheckIntervalMs }),
    ...(options.maxUpstreams === undefined ? {} : { maxUpstreams: options.maxUpstreams }),
    ...(options.maxItemsPerList === undefined ? {} : { maxItemsPerList: options.maxItemsPerList }),
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  if (options.onHealth !== undefined) pool.onHealth(options.onHealth);
  const maxTools = options.maxCatalogTools ?? DEFAULT_MAX_CATALOG_TOOLS;
  if (!Number.isSafeInteger(maxTools) || maxTools < 1) throw new RangeError(`Invalid maxCatalogTools: expected a positive integer, got ${String(maxTools)}`);
  let closed = false;
  const catalog = new MergedCatalog({
    pool,
    maxTools,
    logger,
    rule: (name) => prepared.get(name)?.rule ?? { prefix: name, tools: new CompiledToolPolicy() },
    includes: (name) => prepared.get(name)?.mode === 'forwarded',
  });
  /** The mounted upstreams: the client whose proxy is mounted, and how to unmount it. */
  const mounts = new Map<string, { readonly client: McpClient; readonly unmount: () => void }>();
  /** Mounts a mounted upstream's proxy once it is ready; unmounts it when it is not (or no longer the same connection). */
  const remount = (name: string): void => {
    const client = pool.client(name);
    const current = mounts.get(name);
    if (current !== undefined && current.client !== client) {
      current.unmount();
      mounts.delete(name);
    }
    const entry = prepared.get(name);
    if (closed || entry?.mode !== 'mounted' || client === undefined || mounts.has(name)) return;
    const proxy = proxies.get(client);
    if (proxy === undefined) return;
    try {
      mounts.set(name, { client, unmount: server.mount(entry.rule.prefix, proxy) });
    } catch (error) {
      logger.warn(`Upstream "${name}" cannot be served: ${(error as Error).message}`);
    }
  };
  const front = new FrontRegistrar({ server, pool, logger });
  installMiddleware(server, options.middleware);
  let syncQueued = false;
  const sync = (): void => {
    catalog.invalidate();
    if (syncQueued) return;
    syncQueued = true;
    // One sync per burst of listing changes (twenty upstreams ready in the same turn register once).
    queueMicrotask(() => {
      syncQueued = false;
      if (!closed) front.sync(catalog.snapshot);
    });
  };
  pool.onListing((name) => {
    remount(name);
    sync();
  });
  for (const { spec } of prepared.values()) pool.add(spec);
  pool.start();
  /** The last {@link Gateway.update} applied or being applied (settled either way). */
  let updating: Promise<unknown> = Promise.resolve();

  return {
    server,
    pool,
    health: () => pool.health(),
    catalog: () => catalog.snapshot,
    mounted: () => [...mounts.keys()],
    settled: () => pool.settled(),
    async update(upstreams) {
      // Checked at once (a bad configuration changes nothing), applied after the updates before it: each one's
      // differences are taken against what the one before left, so the last configuration given is what runs.
      const next = prepareAll(upstreams);
      const most = options.maxUpstreams ?? DEFAULT_MAX_UPSTREAMS;
      if (next.size > most) throw new RangeError(`Too many upstreams: the gateway holds at most ${most} (maxUpstreams)`);
      const applied = updating.then(() => apply(next));
      updating = applied.catch(() => undefined);
      return applied;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const { unmount } of mounts.values()) unmount();
      mounts.clear();
      await Promise.all([server.close(), pool.close()]);
    },
  };

  /** One update: its upstreams against those running now (see {@link Gateway.update}). */
  async function apply(next: Map<string, Prepared>): Promise<GatewayChanges> {
    if (closed) throw new Error('The gateway is closed');
    const changes = { added: [] as string[], removed: [] as string[], replaced: [] as string[], kept: [] as string[] };
    const closing: Promise<void>[] = [];
    for (const name of prepared.keys()) {
      const wanted = next.get(name);
      if (wanted === undefined) changes.removed.push(name);
      else if (wanted.fingerprint !== prepared.get(name)?.fingerprint) changes.replaced.push(name);
      else changes.kept.push(name);
    }
    for (const name of next.keys()) if (!prepared.has(name)) changes.added.push(name);
    for (const name of [...changes.removed, ...changes.replaced]) closing.push(pool.remove(name));
    await Promise.all(closing);
    // Kept upstreams keep their spec (and connection); their rules are the same by the fingerprint.
    const merged = new Map<string, Prepared>();
    for (const [name, entry] of next) merged.set(name, changes.kept.includes(name) ? (prepared.get(name) ?? entry) : entry);
    prepared = merged;
    for (const name of [...changes.replaced, ...changes.added]) {
      const entry = prepared.get(name);
      if (entry !== undefined) pool.add(entry.spec);
    }
    sync();
    return changes;
  }
}
