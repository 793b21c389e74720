/**
 * `RedisNotificationBus`: the notification bus across instances on Redis pub/sub. A message published on one
 * instance is delivered at once to that instance's listeners (as the in-memory bus does) and published on the
 * channel `<P>bus`; every other instance's subscriber connection receives it and hands it to its listeners, so a
 * list change on A reaches the listen streams and sessions held by B and C. Each instance skips its own messages
 * on the channel (they carry its random id), so a listener hears a message once.
 *
 * Pub/sub is fire-and-forget: a message published while an instance's subscriber is disconnected is not delivered
 * to it (the subscriber resubscribes when it reconnects, and the loss is logged). The notifications it carries are
 * hints a client can recover from by listing again.
 * @see MCP 2025-11-25 server/tools.mdx "List Changed Notification", server/resources.mdx "Subscriptions"
 */
import { neverThrowing, silentLogger, type Logger } from '@switchboard/jsonrpc';
import type { BusListener, BusMessage, NotificationBus } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, watch } from './connection.js';

/** Options of {@link RedisNotificationBus}. */
export interface RedisNotificationBusOptions {
  /** The connection publishes go on (see `connectRedis`); the bus does not close it. */
  readonly redis: Redis;
  /** Prefix of the channel name (`<prefix>bus`). @default 'switchboard:' */
  readonly keyPrefix?: string;
  /** Where failed publishes and undeliverable messages are reported. @default silent */
  readonly logger?: Logger;
}

interface Envelope {
  /** The publishing instance. */
  readonly o: string;
  readonly m: BusMessage;
}

/**
 * A {@link NotificationBus} over Redis pub/sub (see the file's description). It opens one subscriber connection of
 * its own (a duplicate of `redis`); {@link ready} resolves once it is subscribed, {@link close} ends it.
 * @example
 * const bus = new RedisNotificationBus({ redis: connectRedis({ url }) });
 * await bus.ready;
 * const server = new McpServer({ name: 'x', version: '1' }, { bus });
 */
export class RedisNotificationBus implements NotificationBus {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #logger: Logger;
  readonly #origin = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
  readonly #listeners = new Set<{ readonly listener: BusListener }>();
  /** Resolves once the subscriber connection listens on the channel; rejects with a `RedisStoreError` if it cannot. */
  readonly ready: Promise<void>;

  constructor(options: RedisNotificationBusOptions) {
    this.#redis = options.redis;
    this.#channel = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}bus`;
    this.#logger = neverThrowing(options.logger ?? silentLogger);
    this.#subscriber = options.redis.duplicate();
    watch(this.#subscriber, this.#logger);
    this.#subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.#channel) this.#receive(text);
    });
    this.ready = guarded(this.#subscriber, 'RedisNotificationBus.subscribe', async () => {
      await this.#subscriber.subscribe(this.#channel);
    });
    this.ready.catch((error: unknown) => this.#logger.error('Redis bus could not subscribe', { error }));
  }

  /** Listeners on this instance. */
  get size(): number {
    return this.#listeners.size;
  }

  /**
   * Delivers `message` to this instance's listeners and publishes it to the others. Resolves once the local
   * listeners settled and the publish was sent or failed (a failure is logged, never a rejection).
   */
  async publish(message: BusMessage): Promise<void> {
    const local = this.#deliver(message);
    const envelope: Envelope = { o: this.#origin, m: message };
    const sent = this.#redis.publish(this.#channel, JSON.stringify(envelope)).then(
      () => undefined,
      (error: unknown) => this.#logger.error('Redis bus publish failed: other instances miss this message', { type: message.type, error: error instanceof Error ? error.message : String(error) }),
    );
    await Promise.all([local, sent]);
  }

  subscribe(listener: BusListener): () => void {
    const entry = { listener };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Ends the subscriber connection (the publishing connection stays open). */
  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect());
  }

  #receive(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      this.#logger.warn('Redis bus: a message that is not JSON was ignored', { bytes: text.length });
      return;
    }
    if (envelope.o === this.#origin || typeof envelope.m?.type !== 'string') return;
    void this.#deliver(envelope.m);
  }

  #deliver(message: BusMessage): Promise<void> {
    const deliveries: Promise<void>[] = [];
    for (const entry of this.#listeners) {
      try {
        const delivery = entry.listener(message);
        if (delivery !== undefined) deliveries.push(delivery);
      } catch {
        // A listener's failure is its own; the others still hear of the message.
      }
    }
    return deliveries.length === 0 ? Promise.resolve() : Promise.allSettled(deliveries).then(() => undefined);
  }
}
