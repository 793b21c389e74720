/**
 * One upstream of the gateway: its connection, its listing and its health, on a timeline of its own. Each attempt
 * (connect, negotiate, list) runs under one deadline; past it the attempt is abandoned (the spawn killed, the
 * channel closed) and the upstream is `down` until its next attempt, which backoff schedules (`backoff.ts`). A
 * ready upstream that dies (its channel closes, a health check or a call fails on the connection) is dropped from
 * the catalog at once and tried again the same way. A list change the upstream announces re-reads that list.
 * Nothing here waits on another upstream: the pool starts every upstream's first attempt in the same turn.
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@switchboard/mcp';
import { McpClient, type ClientConnector, type ClientTransport, type ListenSubscription, type McpClientOptions, type RequestOptions } from '@switchboard/mcp/client';
import { backoffDelayMs, type BackoffPolicy } from './backoff.js';
import { describeEnd, watchedConnector } from './watchedConnector.js';

/**
 * Where an upstream stands: `connecting` (an attempt under way), `ready` (connected and listed: in the catalog),
 * `down` (the last attempt failed or the connection died: out of the catalog, next attempt scheduled), `closed`
 * (removed or the pool closed).
 */
export type UpstreamState = 'connecting' | 'ready' | 'down' | 'closed';

/** A snapshot of one upstream's health. Times are epoch milliseconds (`Date.now()`). */
export interface UpstreamHealth {
  /** The upstream's name in the gateway configuration. */
  readonly name: string;
  readonly state: UpstreamState;
  /** When the upstream entered `state`. */
  readonly since: number;
  /** Failed attempts since it was last ready (0 when ready). */
  readonly failures: number;
  /** Why the last attempt failed or the connection died, when one did. */
  readonly lastError?: string;
  /** When {@link lastError} happened. */
  readonly lastErrorAt?: number;
  /** `down`: when the next attempt starts. */
  readonly nextAttemptAt?: number;
  /** `ready`: the era and revision negotiated. */
  readonly era?: 'legacy' | 'modern';
  readonly revision?: string;
  /** `ready`: how many tools, resources and prompts the upstream listed (before the gateway's tool rules). */
  readonly tools: number;
  readonly resources: number;
  readonly prompts: number;
}

/** What a ready upstream lists, each list bounded by the pool's `maxItemsPerList`. */
export interface UpstreamListing {
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
}

/** One upstream as the pool is given it. */
export interface UpstreamSpec {
  /** Its name: unique in the pool; the default namespace prefix of its tools. */
  readonly name: string;
  /** How to reach it: `spawnStdio(…)`, `streamableHttp(…)`, `httpSse(…)` or any `ClientConnector`. */
  readonly connector: ClientConnector;
  /** The deadline of one attempt (connect, negotiate, list every list), in ms. @default the pool's `connectTimeoutMs` */
  readonly connectTimeoutMs?: number;
  /**
   * More options of its `McpClient` (era, pin, clientInfo, callbacks, timeouts of calls). The pool sets
   * `connector`, `notifications` and `reconnect` (off: the pool reconnects, with backoff).
   * @default none
   */
  readonly client?: Omit<McpClientOptions, 'connector' | 'notifications' | 'reconnect'>;
  /**
   * Makes the connection of one attempt from the pool's connector and client options, when something else owns the
   * client (the gateway's proxy server, which sets the client's callbacks and follows list changes itself).
   * @default `McpClient.connect` with the pool's options
   */
  readonly link?: (init: UpstreamLinkInit) => Promise<UpstreamLink>;
}

/** What an {@link UpstreamSpec.link} is given for one attempt. */
export interface UpstreamLinkInit {
  /** The upstream's connector, watched by the pool (its channels abandoned past the deadline, their end seen). */
  readonly connector: ClientConnector;
  /** The client options the pool wants (the spec's, reconnection off, the probe bounded by the deadline). */
  readonly client: Omit<McpClientOptions, 'connector' | 'notifications'>;
}

/** One attempt's connection: the client the pool lists, pings and reports on, and how to end it. */
export interface UpstreamLink {
  readonly client: McpClient;
  /** Ends the connection (and whatever owns the client). */
  close(): Promise<void>;
  /** Whether the owner follows the upstream's list changes itself (the pool then does not listen for them). @default false */
  readonly followsListChanges?: boolean;
  /** With `followsListChanges`: tells the pool when a list changed, so that its listing (and health counts) follow. @default none */
  readonly onListChanged?: (listener: (list: 'tools' | 'resources' | 'prompts') => void) => void;
  /**
   * What the owner listed already (the gateway's proxy server reads every list to mirror it): the pool takes it
   * instead of listing the upstream once more, after the connection and after each list change the owner tells of.
   * @default none (the pool lists the upstream itself)
   */
  readonly listing?: () => UpstreamListing;
}

/** What an {@link Upstream} is run with (the pool's settings and listeners). @internal */
export interface UpstreamRuntime {
  readonly logger: Logger;
  readonly backoff: BackoffPolicy;
  readonly connectTimeoutMs: number;
  /** 0: no health checks. */
  readonly healthCheckIntervalMs: number;
  readonly maxItemsPerList: number;
  readonly random: () => number;
  readonly onHealth: (health: UpstreamHealth) => void;
  readonly onListing: (name: string) => void;
}

/** How long (ms) an upstream must stay ready for its next failure to start the backoff over. */
const STABLE_READY_MS = 30_000;

/** The failure of an attempt that outlived its deadline. */
export class UpstreamDeadlineError extends Error {
  constructor(readonly upstream: string, readonly deadlineMs: number) {
    super(`No answer within ${deadlineMs} ms (connect and list)`);
    this.name = 'UpstreamDeadlineError';
  }
}

type ListKind = 'tools' | 'resources' | 'prompts';

/** The list each list-changed notification is about (MCP 2025-11-25 schema.ts `ServerNotification`). */
const LIST_CHANGED: Readonly<Record<string, ListKind>> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/resources/list_changed': 'resources',
  'notifications/prompts/list_changed': 'prompts',
};

/** The message of anything thrown. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One upstream's life; see the module comment. Made and driven by the pool. @internal */
export class Upstream {
  readonly spec: UpstreamSpec;
  readonly #rt: UpstreamRuntime;
  #state: UpstreamState = 'down';
  #since = Date.now();
  #failures = 0;
  /**
   * The backoff's attempt number: like {@link #failures}, but not reset by a ready spell shorter than
   * {@link STABLE_READY_MS}, so an upstream that dies right after each listing is tried less and less often.
   */
  #backoffAttempt = 0;
  #lastError: string | undefined;
  #lastErrorAt: number | undefined;
  #nextAttemptAt: number | undefined;
  #link: UpstreamLink | undefined;
  #listing: UpstreamListing | undefined;
  /** Bumped by every attempt and by close: callbacks of an older one are ignored. */
  #generation = 0;
  #abort: AbortController | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #healthTimer: ReturnType<typeof setInterval> | undefined;
  readonly #relisting = new Map<ListKind, 'running' | 'again'>();
  /** Lists the upstream said changed while the attempt was still reading them: read again once it is ready. */
  readonly #changedWhileConnecting = new Set<ListKind>();
  #settle!: () => void;
  /** Settles when the first attempt ended (ready or down) or the upstream closed. */
  readonly firstAttempt: Promise<void>;

  constructor(spec: UpstreamSpec, runtime: UpstreamRuntime) {
    this.spec = spec;
    this.#rt = runtime;
    this.firstAttempt = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
  }

  get name(): string {
    return this.spec.name;
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** The connected client while `ready`. */
  get client(): McpClient | undefined {
    return this.#state === 'ready' ? this.#link?.client : undefined;
  }

  /** The listing while `ready`. */
  get listing(): UpstreamListing | undefined {
    return this.#state === 'ready' ? this.#listing : undefined;
  }

  get health(): UpstreamHealth {
    const listing = this.listing;
    const client = this.client;
    return {
      name: this.name,
      state: this.#state,
      since: this.#since,
      failures: this.#failures,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError, lastErrorAt: this.#lastErrorAt }),
      ...(this.#state === 'down' && this.#nextAttemptAt !== undefined ? { nextAttemptAt: this.#nextAttemptAt } : {}),
      ...(client === undefined ? {} : { era: client.era, revision: client.protocolVersion }),
      tools: listing?.tools.length ?? 0,
      resources: listing?.resources.length ?? 0,
      prompts: listing?.prompts.length ?? 0,
    };
  }

  /** Starts the first attempt (once). */
  start(): void {
    if (this.#generation === 0) void this.#attempt();
  }

  /**
   * A call through the gateway failed on the connection (closed, refused, session gone): the upstream is taken as
   * dead, out of the catalog, and tried again with backoff. Ignored unless it is `ready`.
   */
  reportFailure(error: unknown): void {
    this.#lost(this.#generation, error);
  }

  /** Stops everything: the attempt under way, the timers, the connection (a stdio process group is stopped). */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#generation++;
    clearTimeout(this.#retryTimer);
    clearInterval(this.#healthTimer);
    this.#abort?.abort();
    const link = this.#link;
    const hadListing = this.#listing !== undefined && this.#state === 'ready';
    this.#link = undefined;
    this.#listing = undefined;
    this.#setState('closed');
    this.#settle();
    if (hadListing) this.#rt.onListing(this.name);
    await link?.close().catch(() => undefined);
  }

  async #attempt(): Promise<void> {
    const generation = ++this.#generation;
    const deadlineMs = this.spec.connectTimeoutMs ?? this.#rt.connectTimeoutMs;
    const abort = new AbortController();
    this.#abort = abort;
    this.#nextAttemptAt = undefined;
    this.#changedWhileConnecting.clear();
    this.#setState('connecting');
    const started = Date.now();
    let transport: ClientTransport | undefined;
    let link: UpstreamLink | undefined;
    /**
     * How each channel of the attempt ended. Only the channel the client runs on (the last opened) counts: negotiation
     * may close others of its own (a probe, a transport it fell back from).
     */
    const ended = new WeakMap<ClientTransport, Error>();
    const connector = watchedConnector(this.spec.connector, {
      signal: abort.signal,
      opened: (opened) => {
        transport = opened;
      },
      closed: (which) => {
        const error = new Error(`The connection ended${describeEnd(which)}`);
        ended.set(which, error);
        if (which === transport) this.#lost(generation, error);
      },
    });
    const client: UpstreamLinkInit['client'] = {
      logger: this.#rt.logger,
      ...this.spec.client,
      // The negotiation is bounded by the attempt's deadline (past it the channel is closed, which fails the
      // pending initialize); the calls keep the client's own budget (`timeoutMs`).
      probeTimeoutMs: Math.min(deadlineMs, this.spec.client?.probeTimeoutMs ?? deadlineMs),
      reconnect: false,
    };
    const work = (async () => {
      link =
        this.spec.link === undefined
          ? ownLink(
              await McpClient.connect({
                ...client,
                connector,
                notifications: {
                  toolsListChanged: () => this.#relist('tools', generation),
                  resourcesListChanged: () => this.#relist('resources', generation),
                  promptsListChanged: () => this.#relist('prompts', generation),
                },
              }),
            )
          : await this.spec.link({ connector, client });
      // Registered before the owner's listing is taken: a change it applies from now on is replayed once ready.
      link.onListChanged?.((list) => this.#relist(list, generation));
      if (link.listing !== undefined) return this.#boundedListing(link.listing());
      const remaining = Math.max(0, deadlineMs - (Date.now() - started));
      return this.#readAll(link.client, { signal: abort.signal, timeoutMs: remaining, maxTotalTimeoutMs: remaining });
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UpstreamDeadlineError(this.name, deadlineMs)), deadlineMs);
    });
    try {
      const listing = await Promise.race([work, deadline]);
      const ready = link as UpstreamLink;
      if (generation !== this.#generation) {
        await ready.close().catch(() => undefined);
        return;
      }
      // The client's channel may have ended right behind the last listing: not ready, then, but down.
      const gone = transport === undefined ? undefined : ended.get(transport);
      if (gone !== undefined || ready.client.closed) throw gone ?? new Error('The connection ended');
      this.#link = ready;
      this.#listing = listing;
      this.#failures = 0;
      this.#setState('ready');
      this.#rt.logger.info(`Upstream "${this.name}" is ready`, { era: ready.client.era, revision: ready.client.protocolVersion, tools: listing.tools.length, ms: Date.now() - started });
      this.#rt.onListing(this.name);
      this.#startHealthChecks(generation);
      if (ready.client.era === 'modern' && ready.followsListChanges !== true) void this.#listen(ready.client, generation);
      for (const kind of this.#changedWhileConnecting) this.#relist(kind, generation);
      this.#changedWhileConnecting.clear();
    } catch (error) {
      // Abandon the attempt: abort the opening, close the channel (a pending initialize fails at once), and close
      // the connection if it still comes up.
      abort.abort();
      void transport?.close().catch(() => undefined);
      void work.then(
        () => link?.close(),
        () => link?.close(),
      ).catch(() => undefined);
      if (generation !== this.#generation) return;
      this.#down(error);
    } finally {
      clearTimeout(timer);
      if (generation === this.#generation || this.#state === 'closed') this.#settle();
    }
  }

  /** Every list the upstream has, bounded. */
  async #readAll(client: McpClient, options: RequestOptions): Promise<UpstreamListing> {
    const capabilities = client.serverCapabilities;
    const [tools, resources, resourceTemplates, prompts] = await Promise.all([
      capabilities.tools === undefined ? [] : client.listAllTools(options),
      capabilities.resources === undefined ? [] : client.listAllResources(options),
      capabilities.resources === undefined ? [] : client.listAllResourceTemplates(options),
      capabilities.prompts === undefined ? [] : client.listAllPrompts(options),
    ]);
    return this.#boundedListing({ tools, resources, resourceTemplates, prompts });
  }

  #boundedListing(listing: UpstreamListing): UpstreamListing {
    const { tools, resources, resourceTemplates, prompts } = listing;
    return { tools: this.#bounded('tools', tools), resources: this.#bounded('resources', resources), resourceTemplates: this.#bounded('resource templates', resourceTemplates), prompts: this.#bounded('prompts', prompts) };
  }

  #bounded<T>(what: string, items: readonly T[]): readonly T[] {
    const max = this.#rt.maxItemsPerList;
    if (items.length <= max) return items;
    this.#rt.logger.warn(`Upstream "${this.name}" lists ${items.length} ${what}: the first ${max} are served (maxItemsPerList)`);
    return items.slice(0, max);
  }

  /** A list-changed notification: read that list again (one read at a time per list; a burst reads twice at most). */
  #relist(kind: ListKind, generation: number): void {
    if (generation !== this.#generation) return;
    if (this.#state === 'connecting') {
      // Told while the attempt reads (or has just read) the lists, which may be older than the change.
      this.#changedWhileConnecting.add(kind);
      return;
    }
    if (this.#relisting.has(kind)) {
      this.#relisting.set(kind, 'again');
      return;
    }
    this.#relisting.set(kind, 'running');
    void this.#reread(kind, generation).finally(() => {
      const again = this.#relisting.get(kind) === 'again';
      this.#relisting.delete(kind);
      // A change told meanwhile, maybe on a newer connection: read for the current one.
      if (again) this.#relist(kind, this.#generation);
    });
  }

  async #reread(kind: ListKind, generation: number): Promise<void> {
    const client = this.#link?.client;
    const listing = this.#listing;
    if (client === undefined || listing === undefined || this.#state !== 'ready') return;
    const listed = this.#link?.listing;
    if (listed !== undefined) {
      // The owner read the list already (it tells of the change once its read is in).
      this.#listing = this.#boundedListing(listed());
      this.#rt.onListing(this.name);
      this.#rt.onHealth(this.health);
      return;
    }
    const options: RequestOptions = { timeoutMs: this.spec.connectTimeoutMs ?? this.#rt.connectTimeoutMs };
    try {
      let next: UpstreamListing;
      if (kind === 'tools') next = { ...listing, tools: this.#bounded('tools', await client.listAllTools(options)) };
      else if (kind === 'prompts') next = { ...listing, prompts: this.#bounded('prompts', await client.listAllPrompts(options)) };
      else {
        const [resources, templates] = await Promise.all([client.listAllResources(options), client.listAllResourceTemplates(options)]);
        next = { ...listing, resources: this.#bounded('resources', resources), resourceTemplates: this.#bounded('resource templates', templates) };
      }
      if (generation !== this.#generation || this.#state !== 'ready') return;
      this.#listing = next;
      this.#rt.onListing(this.name);
      this.#rt.onHealth(this.health);
    } catch (error) {
      this.#lost(generation, error);
    }
  }

  /**
   * Modern era: list changes come only on a `subscriptions/listen` stream (MCP 2026-07-28
   * basic/patterns/subscriptions.mdx: the server sends notifications only on a stream the client opened), so one is
   * opened for the lists the upstream says change. A stream that ends with its connection takes the upstream down.
   */
  async #listen(client: McpClient, generation: number): Promise<void> {
    const capabilities = client.serverCapabilities;
    const filter = {
      ...(capabilities.tools?.listChanged === true ? { toolsListChanged: true } : {}),
      ...(capabilities.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
      ...(capabilities.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    let subscription: ListenSubscription;
    try {
      subscription = await client.listen(filter, { timeoutMs: this.spec.connectTimeoutMs ?? this.#rt.connectTimeoutMs });
    } catch (error) {
      if (generation === this.#generation) this.#rt.logger.info(`Upstream "${this.name}" does not stream list changes: its lists are read at each reconnection`, { error: describe(error) });
      return;
    }
    if (generation !== this.#generation) {
      void subscription.close();
      return;
    }
    subscription.on((notification) => {
      const kind = LIST_CHANGED[notification.method];
      if (kind !== undefined) this.#relist(kind, generation);
    });
    // A change made after the attempt read the lists and before the stream existed was told to no one: the lists the
    // stream follows are read once more (as the proxy does, proxyServer.ts).
    if (filter.toolsListChanged === true) this.#relist('tools', generation);
    if (filter.promptsListChanged === true) this.#relist('prompts', generation);
    if (filter.resourcesListChanged === true) this.#relist('resources', generation);
    void subscription.closed.then((end) => {
      if (end.reason === 'connection') this.#lost(generation, end.error);
    });
  }

  #startHealthChecks(generation: number): void {
    const every = this.#rt.healthCheckIntervalMs;
    if (every <= 0) return;
    clearInterval(this.#healthTimer);
    this.#healthTimer = setInterval(() => {
      const client = this.#link?.client;
      if (generation !== this.#generation || client === undefined) return;
      client.ping({ timeoutMs: Math.min(every, this.spec.connectTimeoutMs ?? this.#rt.connectTimeoutMs) }).catch((error: unknown) => this.#lost(generation, error));
    }, every);
  }

  /** The connection of attempt `generation` died: out of the catalog, and another attempt later. */
  #lost(generation: number, error: unknown): void {
    if (generation !== this.#generation || this.#state !== 'ready') return;
    this.#generation++;
    clearInterval(this.#healthTimer);
    const link = this.#link;
    this.#link = undefined;
    this.#listing = undefined;
    void link?.close().catch(() => undefined);
    this.#down(error);
    this.#rt.onListing(this.name);
  }

  #down(error: unknown): void {
    this.#failures++;
    // Ready for a while until now (`#since` is when it became so): a new failure, not one more of a flapping upstream.
    if (this.#state === 'ready' && Date.now() - this.#since >= STABLE_READY_MS) this.#backoffAttempt = 0;
    this.#backoffAttempt++;
    this.#lastError = describe(error);
    this.#lastErrorAt = Date.now();
    const delay = backoffDelayMs(this.#rt.backoff, this.#backoffAttempt, this.#rt.random);
    this.#nextAttemptAt = Date.now() + delay;
    this.#setState('down');
    this.#rt.logger.warn(`Upstream "${this.name}" is down: ${this.#lastError}`, { failures: this.#failures, retryInMs: delay });
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      if (this.#state === 'down') void this.#attempt();
    }, delay);
  }

  #setState(state: UpstreamState): void {
    this.#state = state;
    this.#since = Date.now();
    this.#rt.onHealth(this.health);
  }
}

/** The link of a client the pool made itself. */
function ownLink(client: McpClient): UpstreamLink {
  return { client, close: () => client.close() };
}
