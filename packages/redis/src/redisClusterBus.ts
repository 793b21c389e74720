/**
 * `RedisClusterBus`: the cluster bus (per-instance and per-session channels between instances) on Redis pub/sub. A
 * message is delivered at once, as a JSON copy, to this instance's listeners of its channel, and published on the
 * Redis channel `<P>cb:<channel>`; the other instances' subscriber connections hand it to their listeners (each skips
 * its own messages, which carry its random id). A Redis channel is subscribed while a local listener of it exists.
 *
 * At most once, as the contract asks: nothing is stored, so an instance whose subscriber is reconnecting misses what
 * was published meanwhile, and a listener hears remote messages only once its channel's `SUBSCRIBE` is confirmed
 * ({@link subscribed} resolves then).
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
 */
import { neverThrowing, silentLogger, type Logger } from '@switchboard/jsonrpc';
import type { ClusterBus, ClusterBusMessage, ClusterListener, ClusterMessage } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, watch } from './connection.js';

/** Options of {@link RedisClusterBus}. */
export interface RedisClusterBusOptions {
  /** The connection publishes go on (see `connectRedis`); the bus does not close it. */
  readonly redis: Redis;
  /** Prefix of the Redis channels (`<prefix>cb:<channel>`). @default 'switchboard:' */
  readonly keyPrefix?: string;
  /** Where subscription failures and undeliverable messages are reported. @default silent */
  readonly logger?: Logger;
}

type Entry = { readonly listener: ClusterListener<ClusterBusMessage> };

/**
 * A {@link ClusterBus} over Redis pub/sub (see the file's description). It opens one subscriber connection of its
 * own (a duplicate of `redis`); {@link close} ends it. `publish` rejects with a `RedisStoreError` when Redis is
 * unreachable (after delivering to this instance's listeners).
 */
export class RedisClusterBus implements ClusterBus {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #origin = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
  readonly #channels = new Map<string, Set<Entry>>();
  /** The SUBSCRIBE and UNSUBSCRIBE commands not yet confirmed. */
  readonly #pending = new Set<Promise<unknown>>();

  constructor(options: RedisClusterBusOptions) {
    this.#redis = options.redis;
    this.#prefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}cb:`;
    this.#logger = neverThrowing(options.logger ?? silentLogger);
    this.#subscriber = options.redis.duplicate();
    watch(this.#subscriber, this.#logger);
    this.#subscriber.on('message', (redisChannel: string, text: string) => {
      if (redisChannel.startsWith(this.#prefix)) this.#receive(redisChannel.slice(this.#prefix.length), text);
    });
  }

  /** Channels with at least one listener on this instance. */
  get channelCount(): number {
    return this.#channels.size;
  }

  /** Resolves once every subscription change made so far is confirmed by Redis (failures are logged, not thrown). */
  async subscribed(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  publish(channel: string, message: ClusterBusMessage): Promise<void> {
    const text = JSON.stringify(message);
    this.#deliver(channel, text);
    return guarded(this.#redis, 'RedisClusterBus.publish', async () => {
      await this.#redis.publish(this.#prefix + channel, JSON.stringify({ o: this.#origin, m: text }));
    });
  }

  subscribe<M extends ClusterBusMessage = ClusterMessage>(channel: string, listener: ClusterListener<M>): () => void {
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      this.#channels.set(channel, (listeners = new Set()));
      this.#track(this.#subscriber.subscribe(this.#prefix + channel), 'subscribe', channel);
    }
    // What the channel carries is the subscriber's word (see ClusterBus.subscribe).
    const entry: Entry = { listener: listener as ClusterListener<ClusterBusMessage> };
    listeners.add(entry);
    return () => {
      const current = this.#channels.get(channel);
      if (current === undefined || !current.delete(entry) || current.size > 0) return;
      this.#channels.delete(channel);
      this.#track(this.#subscriber.unsubscribe(this.#prefix + channel), 'unsubscribe', channel);
    };
  }

  /** Ends the subscriber connection (the publishing connection stays open). */
  async close(): Promise<void> {
    this.#channels.clear();
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect());
  }

  #track(command: Promise<unknown>, what: string, channel: string): void {
    const tracked = command.then(
      () => undefined,
      (error: unknown) => this.#logger.error(`Redis cluster bus could not ${what}`, { channel, error: error instanceof Error ? error.message : String(error) }),
    );
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  #receive(channel: string, envelopeText: string): void {
    let envelope: { o?: unknown; m?: unknown };
    try {
      envelope = JSON.parse(envelopeText) as { o?: unknown; m?: unknown };
    } catch {
      this.#logger.warn('Redis cluster bus: a message that is not JSON was ignored', { channel, bytes: envelopeText.length });
      return;
    }
    if (envelope.o === this.#origin || typeof envelope.m !== 'string') return;
    this.#deliver(channel, envelope.m);
  }

  /** Hands each listener of `channel` its own copy of the message. */
  #deliver(channel: string, text: string): void {
    const listeners = this.#channels.get(channel);
    if (listeners === undefined) return;
    for (const entry of [...listeners]) {
      if (!listeners.has(entry)) continue;
      try {
        const delivery = entry.listener(JSON.parse(text) as ClusterBusMessage);
        if (delivery !== undefined) delivery.catch(() => undefined);
      } catch {
        // A listener's failure is its own; the others still hear the message.
      }
    }
  }
}
