/**
 * The notification bus: how a server's events reach every connection that should hear of them, wherever it
 * runs. `McpServer` publishes; each connection subscribes and decides for itself (by the capabilities its
 * client was told of and by its subscriptions) what to send. The in-memory default delivers within one
 * process; a shared implementation (Redis pub/sub, NATS…) carries the same messages between instances.
 *
 * @see MCP 2025-11-25 server/tools.mdx, server/prompts.mdx, server/resources.mdx "List Changed Notification",
 *   server/resources.mdx "Subscriptions"
 */

/**
 * One message on the bus. Plain JSON, so any bus can carry it:
 * - `list_changed`: the list of `capability` changed (`notifications/<capability>/list_changed`);
 * - `resource_updated`: the resource at `uri` changed (`notifications/resources/updated` to its subscribers);
 * - `task`: a task changed; `task` is its 2026-07-28 `DetailedTask` (`notifications/tasks` to the listen streams
 *   that named its `taskId`);
 * - `task_cancel`: a `tasks/cancel` received by an instance the task does not run on, for the instance that runs it
 *   (connections ignore it; a `tasks/update`'s input goes by the cluster bus, which answers whether it arrived).
 */
export type BusMessage =
  | { readonly type: 'list_changed'; readonly capability: 'tools' | 'resources' | 'prompts' }
  | { readonly type: 'resource_updated'; readonly uri: string }
  | { readonly type: 'task'; readonly task: Readonly<Record<string, unknown>> & { readonly taskId: string } }
  | { readonly type: 'task_cancel'; readonly taskId: string };

/** Receives every message published after it subscribed; may return a promise of its delivery. */
export type BusListener = (message: BusMessage) => void | Promise<void>;

/** Carries server events to connections. */
export interface NotificationBus {
  /**
   * Delivers `message` to every listener (of every instance, for a shared bus). Resolves once it has been
   * handed to each local listener and their returned promises settled; never rejects for a listener's failure.
   */
  publish(message: BusMessage): Promise<void>;
  /** Adds a listener; returns the function that removes it (idempotent). */
  subscribe(listener: BusListener): () => void;
}

/** The in-process {@link NotificationBus}: listeners are called synchronously, in subscription order. */
export class InMemoryNotificationBus implements NotificationBus {
  /** One entry per subscription (an object, not a wrapper closure: smaller, and it is what unsubscribing removes). */
  readonly #listeners = new Set<{ readonly listener: BusListener }>();

  /** The number of listeners now (one per live connection of a server, and one per server for its tasks). */
  get size(): number {
    return this.#listeners.size;
  }

  publish(message: BusMessage): Promise<void> {
    const deliveries: Promise<void>[] = [];
    for (const entry of this.#listeners) {
      try {
        const delivery = entry.listener(message);
        if (delivery !== undefined) deliveries.push(delivery);
      } catch {
        // A listener's failure is its own (connections log theirs); the others still hear of the message.
      }
    }
    return deliveries.length === 0 ? Promise.resolve() : Promise.allSettled(deliveries).then(() => undefined);
  }

  subscribe(listener: BusListener): () => void {
    // An entry per subscription, so the same function subscribed twice is removed one at a time.
    const entry = { listener };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }
}
