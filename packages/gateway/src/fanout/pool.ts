/**
 * The upstream pool: N upstreams connected and listed in parallel, each under its own deadline, each with its own
 * health and reconnection (`upstream.ts`). A hung or dead upstream is reported (its state, last error and since
 * when) and left out of what the pool lists; it never delays another. Bounded: the number of upstreams, the items
 * per list of each, the backoff cap.
 */
import { MAX_TIMER_MS, neverThrowing, type Logger } from '@switchboard/jsonrpc';
import { createStderrLogger } from '@switchboard/mcp';
import type { McpClient } from '@switchboard/mcp/client';
import { backoffPolicy, type BackoffOptions } from './backoff.js';
import { Upstream, type UpstreamHealth, type UpstreamListing, type UpstreamRuntime, type UpstreamSpec } from './upstream.js';

/** Default of {@link UpstreamPoolOptions.connectTimeoutMs}, in ms. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Default of {@link UpstreamPoolOptions.healthCheckIntervalMs}, in ms. */
export const DEFAULT_HEALTH_CHECK_INTERVAL_MS = 15_000;
/** Default of {@link UpstreamPoolOptions.maxUpstreams}. */
export const DEFAULT_MAX_UPSTREAMS = 100;
/** Default of {@link UpstreamPoolOptions.maxItemsPerList}. */
export const DEFAULT_MAX_ITEMS_PER_LIST = 1_000;

/** Options of {@link UpstreamPool}. */
export interface UpstreamPoolOptions {
  /** The upstreams to start with (more with {@link UpstreamPool.add}). @default none */
  readonly upstreams?: readonly UpstreamSpec[];
  /** The deadline of one attempt of each upstream (connect, negotiate, list), in ms; an upstream may set its own. @default 10_000 */
  readonly connectTimeoutMs?: number;
  /**
   * When a failed or dead upstream is tried again. The delay grows with each failure, and starts over only after the
   * upstream stayed ready for 30 s (one that dies right after each listing is tried less and less often).
   * @default `{ initialDelayMs: 250, maxDelayMs: 30_000, multiplier: 2, jitter: 0.5 }`
   */
  readonly backoff?: BackoffOptions;
  /**
   * How often a ready upstream is pinged (a `server/discover` in the modern era), in ms; a failure takes it out of
   * the catalog and reconnects it. Catches an HTTP upstream that went away, which closes no channel. 0 disables.
   * @default 15_000
   */
  readonly healthCheckIntervalMs?: number;
  /** The most upstreams the pool holds; {@link UpstreamPool.add} refuses more. @default 100 */
  readonly maxUpstreams?: number;
  /** The most tools (and resources, templates, prompts) served of one upstream; the rest are dropped with a warning. @default 1_000 */
  readonly maxItemsPerList?: number;
  /** Where upstream state changes are logged. @default `createStderrLogger({ name: 'switchboard-gateway' })` */
  readonly logger?: Logger;
  /** The random source of the backoff jitter, numbers in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** A listener of health changes: called with the snapshot of the upstream that changed. */
export type HealthListener = (health: UpstreamHealth) => void;

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`Invalid ${name}: expected a positive integer, got ${String(value)}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!(typeof value === 'number' && value >= 0 && value <= MAX_TIMER_MS)) throw new RangeError(`Invalid ${name}: expected a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${String(value)}`);
  return value;
}

/**
 * See the module comment.
 * @example
 * const pool = new UpstreamPool({ upstreams: [{ name: 'files', connector: spawnStdio({ command: 'mcp-files' }) }] });
 * pool.onHealth((h) => console.error(h.name, h.state, h.lastError ?? ''));
 * pool.start();
 */
export class UpstreamPool {
  readonly #upstreams = new Map<string, Upstream>();
  readonly #runtime: UpstreamRuntime;
  readonly #maxUpstreams: number;
  readonly #healthListeners = new Set<HealthListener>();
  readonly #listingListeners = new Set<(name: string) => void>();
  #started = false;
  #closed = false;

  /** @throws RangeError naming the option when a number is out of range; TypeError on a duplicate name */
  constructor(options: UpstreamPoolOptions = {}) {
    const logger = neverThrowing(options.logger ?? createStderrLogger({ name: 'switchboard-gateway' }));
    this.#maxUpstreams = positiveInteger('maxUpstreams', options.maxUpstreams ?? DEFAULT_MAX_UPSTREAMS);
    this.#runtime = {
      logger,
      backoff: backoffPolicy(options.backoff),
      connectTimeoutMs: nonNegative('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
      healthCheckIntervalMs: nonNegative('healthCheckIntervalMs', options.healthCheckIntervalMs ?? DEFAULT_HEALTH_CHECK_INTERVAL_MS),
      maxItemsPerList: positiveInteger('maxItemsPerList', options.maxItemsPerList ?? DEFAULT_MAX_ITEMS_PER_LIST),
      random: options.random ?? Math.random,
      onHealth: (health) => {
        for (const listener of this.#healthListeners) {
          try {
            listener(health);
          } catch (error) {
            logger.error('A health listener threw', { error });
          }
        }
      },
      onListing: (name) => {
        for (const listener of this.#listingListeners) {
          try {
            listener(name);
          } catch (error) {
            logger.error('A listing listener threw', { error });
          }
        }
      },
    };
    for (const spec of options.upstreams ?? []) this.add(spec);
  }

  /** Starts every upstream's first attempt, all in this turn; upstreams added later start as they are added. Idempotent. */
  start(): void {
    if (this.#closed) return;
    this.#started = true;
    for (const upstream of this.#upstreams.values()) upstream.start();
  }

  /**
   * Adds an upstream (started at once when the pool is).
   * @throws TypeError when the name is empty or taken; RangeError past `maxUpstreams` or a bad `connectTimeoutMs`
   */
  add(spec: UpstreamSpec): void {
    if (this.#closed) throw new Error('The pool is closed');
    if (typeof spec.name !== 'string' || spec.name.length === 0) throw new TypeError('Invalid upstream name: expected a non-empty string');
    if (this.#upstreams.has(spec.name)) throw new TypeError(`Upstream "${spec.name}" is already in the pool`);
    if (this.#upstreams.size >= this.#maxUpstreams) throw new RangeError(`Too many upstreams: the pool holds at most ${this.#maxUpstreams} (maxUpstreams)`);
    if (spec.connectTimeoutMs !== undefined) nonNegative(`connectTimeoutMs of upstream "${spec.name}"`, spec.connectTimeoutMs);
    const upstream = new Upstream(spec, this.#runtime);
    this.#upstreams.set(spec.name, upstream);
    if (this.#started) upstream.start();
  }

  /** Removes an upstream: it is closed (a stdio process group stopped) and leaves the catalog. Unknown names are ignored. */
  async remove(name: string): Promise<void> {
    const upstream = this.#upstreams.get(name);
    if (upstream === undefined) return;
    this.#upstreams.delete(name);
    await upstream.close();
  }

  /** The names of the upstreams, in the order they were added. */
  names(): string[] {
    return [...this.#upstreams.keys()];
  }

  /** The spec an upstream was added with. */
  spec(name: string): UpstreamSpec | undefined {
    return this.#upstreams.get(name)?.spec;
  }

  /** A snapshot of every upstream's health, in the order they were added. */
  health(): UpstreamHealth[] {
    return [...this.#upstreams.values()].map((upstream) => upstream.health);
  }

  /** The connected client of a `ready` upstream. */
  client(name: string): McpClient | undefined {
    return this.#upstreams.get(name)?.client;
  }

  /** The listing of a `ready` upstream. */
  listing(name: string): UpstreamListing | undefined {
    return this.#upstreams.get(name)?.listing;
  }

  /** A call on upstream `name` failed on its connection: it leaves the catalog and reconnects with backoff. */
  reportFailure(name: string, error: unknown): void {
    this.#upstreams.get(name)?.reportFailure(error);
  }

  /** Calls `listener` with each upstream's new health on every change. @returns a disposer */
  onHealth(listener: HealthListener): () => void {
    this.#healthListeners.add(listener);
    return () => this.#healthListeners.delete(listener);
  }

  /** Calls `listener` with the upstream's name when what it lists changed (ready, down, a list re-read). @returns a disposer */
  onListing(listener: (name: string) => void): () => void {
    this.#listingListeners.add(listener);
    return () => this.#listingListeners.delete(listener);
  }

  /** Resolves once every current upstream's first attempt ended (ready, or down after its deadline or failure). */
  async settled(): Promise<void> {
    await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.firstAttempt));
  }

  /** Closes every upstream (processes stopped, timers cleared). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const upstreams = [...this.#upstreams.values()];
    this.#upstreams.clear();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  }
}
