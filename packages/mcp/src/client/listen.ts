/**
 * `subscriptions/listen`, the client side (2026-07-28): one long-lived request per subscription. The server first
 * sends `notifications/subscriptions/acknowledged` with the subset of the filter it honours, then every opted-in
 * notification, each tagged with `_meta['io.modelcontextprotocol/subscriptionId']` = the listen request's id; the
 * response to the request comes only when the server ends the subscription gracefully.
 * - Several subscriptions may be open at once: notifications are handed to the subscription whose id they carry
 *   (compared as `Map` keys, so `0` and `"0"` are two subscriptions); the client learns each request's id before
 *   it is sent, so nothing tagged with it arrives unrouted.
 * - The listen request has no idle timeout (it lives as long as the subscription); only the wait for the
 *   acknowledgement is bounded (the client's `timeoutMs`).
 * - `close()` aborts the request: over Streamable HTTP the client closes the response stream, over stdio it sends
 *   `notifications/cancelled` (the client's cancellation path decides). `closed` resolves in every case, with why.
 * - A request that ends without a response (the process died, the stream dropped) is sent again with the same
 *   filter, as a new request, when the client reconnects (`reconnect`, up to `maxAttempts` times in a row): the
 *   server keeps no subscription across connections. The subscription object stays the same; its `id` becomes the
 *   new request's. Notifications sent while it was down are lost.
 * - The legacy era has no `subscriptions/listen`: sessions use `subscribeResource` and the session's notifications.
 *
 * @see MCP 2026-07-28 basic/patterns/subscriptions.mdx "Acknowledgment", "Multiple Concurrent Subscriptions",
 *   "Cancellation", "Graceful Closure"
 */
import type { JsonRpcId, JsonRpcNotification } from '@switchboard/jsonrpc';
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import { SUBSCRIPTION_ID_META_KEY } from '../protocol/envelope.js';
import { RequestAbortedError, RequestTimeoutError } from '../protocol/clientErrors.js';
import type { ClientCore } from './clientCore.js';
import { NotSupportedError } from './errors.js';
import { NotificationQueue } from './notificationQueue.js';
import { DEFAULT_CLIENT_TIMEOUT_MS, DEFAULT_RECONNECT_ATTEMPTS } from './options.js';

/** The acknowledgement, the first message of every subscription. */
export const ACKNOWLEDGED_METHOD = 'notifications/subscriptions/acknowledged';

/** What a subscription asks for (MCP 2026-07-28 basic/patterns/subscriptions.mdx "Notification Filter"). */
export interface ListenFilter {
  /** `notifications/tools/list_changed`. */
  readonly toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  readonly promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  readonly resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  readonly resourceSubscriptions?: readonly string[];
  /** The tasks extension: `notifications/tasks` for these task ids. */
  readonly taskIds?: readonly string[];
}

/** Options of `McpClient.listen`. */
export interface ListenOptions {
  /** Aborting closes the subscription (as {@link ListenSubscription.close} does). @default none */
  readonly signal?: AbortSignal;
  /** How long to wait for the acknowledgement, in ms. @default the client's `timeoutMs` (60_000) */
  readonly timeoutMs?: number;
}

/** One notification of a subscription, as the server sent it (`params._meta` holds the subscription id). */
export interface ListenNotification {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * Why a subscription ended: the server ended it gracefully (`server`), the client closed it (`client`), or the
 * request failed without a response — the connection closed, the stream dropped (`connection`, with the typed
 * error; the application may listen again).
 */
export type ListenEnd = { readonly reason: 'server' } | { readonly reason: 'client' } | { readonly reason: 'connection'; readonly error: unknown };

/** An open `subscriptions/listen` (see the module comment). Iterating it yields its notifications until it ends. */
export interface ListenSubscription extends AsyncIterable<ListenNotification> {
  /** The id of the listen request, which every notification of the subscription carries (a new one after a re-listen). */
  readonly id: JsonRpcId;
  /** The part of the filter the server honours (types it does not support are left out), as last acknowledged. */
  readonly acknowledged: ListenFilter;
  /** Calls `listener` with each notification from now on; returns the function that stops it. A throw is logged. */
  on(listener: (notification: ListenNotification) => void): () => void;
  /** Resolves (never rejects) once the subscription has ended, with why. */
  readonly closed: Promise<ListenEnd>;
  /** Ends the subscription (idempotent); resolves once it has ended. */
  close(): Promise<ListenEnd>;
}

/** What subscriptions need from the client. */
export type ListenHost = Pick<ClientCore, 'era' | 'revision' | 'options' | 'send' | 'onNotification' | 'logger'>;

type Params = Record<string, unknown>;

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The subscription id a notification carries, if any. */
function subscriptionIdOf(params: unknown): JsonRpcId | undefined {
  const meta = isRecord(params) ? params._meta : undefined;
  const id = isRecord(meta) ? meta[SUBSCRIPTION_ID_META_KEY] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** One listen request that the server acknowledged. */
interface Attachment {
  readonly id: JsonRpcId;
  readonly acknowledged: ListenFilter;
  /** Aborting it abandons the request (the client's cancellation). */
  readonly controller: AbortController;
  /** Settles when the request ends: fulfilled on a graceful close, rejected otherwise. */
  readonly response: Promise<unknown>;
}

/** Waits before each re-listen, in ms, by attempt (then the last one again). */
const RELISTEN_DELAYS_MS = [50, 250, 1_000] as const;

/** Where the messages tagged with one listen request's id go. */
interface Route {
  /** Whether the acknowledgement came. */
  acked: boolean;
  readonly onAck: (params: Params) => void;
  /** Notifications that came after the acknowledgement, before the subscription took the route. */
  readonly early: ListenNotification[];
  target: Subscription | undefined;
}

/** The subscriptions of one client. */
export class ListenSubscriptions {
  readonly #host: ListenHost;
  /** By listen request id (compared as `Map` keys are: `0` and `"0"` differ). */
  readonly #routes = new Map<JsonRpcId, Route>();
  readonly #open = new Set<Subscription>();
  #stopListening: (() => void) | undefined = undefined;

  constructor(host: ListenHost) {
    this.#host = host;
  }

  /** Open subscriptions. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * Opens a subscription; resolves once the server acknowledged it.
   * @throws NotSupportedError in the legacy era
   * @throws RequestTimeoutError when no acknowledgement came within `timeoutMs` (the request is then abandoned)
   * @throws RequestAbortedError when `signal` aborted first; the server's McpError (e.g. -32602, or -32021 for
   *   `taskIds` without the tasks extension); the typed errors of the request
   */
  async listen(filter: ListenFilter, options: ListenOptions = {}): Promise<ListenSubscription> {
    const host = this.#host;
    if (host.era !== 'modern') {
      throw new NotSupportedError({ operation: 'subscriptions/listen', era: host.era, revision: host.revision, reason: 'exists only in the modern era (a session uses subscribeResource and its notifications)' });
    }
    const outer = options.signal;
    if (outer?.aborted === true) throw new RequestAbortedError({ method: 'subscriptions/listen', cause: outer.reason });
    const attachment = await this.#attach(filter, options);
    const reconnect = host.options.reconnect;
    const subscription = new Subscription({
      attachment,
      logger: host.logger,
      relisten: reconnect === false ? undefined : { attempts: reconnect?.maxAttempts ?? DEFAULT_RECONNECT_ATTEMPTS, attach: () => this.#attach(filter, options) },
      moved: (from, to) => {
        // A new connection numbers its requests afresh: the new request may have the old one's id (its route then
        // replaced the old route already, and stays).
        if (from !== undefined && from !== to) this.#routes.delete(from);
        if (to === undefined) this.#open.delete(subscription);
        else this.#take(to, subscription);
      },
    });
    this.#open.add(subscription);
    this.#take(attachment.id, subscription);
    if (outer !== undefined) {
      const onAbort = (): void => void subscription.close();
      outer.addEventListener('abort', onAbort, { once: true });
      void subscription.closed.then(() => outer.removeEventListener('abort', onAbort));
    }
    return subscription;
  }

  /** Closes every open subscription and stops reading the client's notifications (a later `listen` reads them again). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#open].map((s) => s.close()));
    this.#stopListening?.();
    this.#stopListening = undefined;
  }

  /** `subscription` takes the messages of listen request `id`, those that came early first. */
  #take(id: JsonRpcId, subscription: Subscription): void {
    const route = this.#routes.get(id);
    if (route === undefined) return;
    route.target = subscription;
    for (const notification of route.early.splice(0)) subscription.deliver(notification);
  }

  /** Sends one listen request and waits for its acknowledgement. */
  async #attach(filter: ListenFilter, options: ListenOptions): Promise<Attachment> {
    this.#stopListening ??= this.#host.onNotification((n) => this.#heard(n));
    const controller = new AbortController();
    let id: JsonRpcId | undefined;
    let onAck!: (params: Params) => void;
    const acknowledged = new Promise<Params>((resolve) => (onAck = resolve));
    const response = this.#host.send<unknown>('subscriptions/listen', { notifications: { ...filter } }, {
      signal: controller.signal,
      timeoutMs: Number.POSITIVE_INFINITY,
      maxTotalTimeoutMs: Number.POSITIVE_INFINITY,
      // The route exists before the request is sent, so nothing tagged with its id can come unrouted.
      onRequestId: (picked) => {
        id = picked;
        this.#routes.set(picked, { acked: false, onAck, early: [], target: undefined });
      },
    });
    // The response settles only when the subscription ends; until then nobody awaits it but the subscription.
    response.catch(() => {});
    const timeoutMs = options.timeoutMs ?? this.#host.options.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<'expired'>((resolve) => (timer = setUnrefTimeout(() => resolve('expired'), timeoutMs)));
    try {
      const first = await Promise.race([acknowledged, response.then(() => 'ended' as const), expired]);
      if (first === 'expired') {
        controller.abort(new Error('no acknowledgement'));
        throw new RequestTimeoutError({ method: 'subscriptions/listen', timeoutMs });
      }
      if (id === undefined) throw new TypeError('The listen request was never given an id');
      if (first === 'ended') {
        // A response before any acknowledgement: the server ended the subscription at once.
        this.#host.logger.debug('A listen request was answered before its acknowledgement', { id });
        return { id, acknowledged: {}, controller, response };
      }
      const honoured = first.notifications;
      return { id, acknowledged: isRecord(honoured) ? (honoured) : {}, controller, response };
    } catch (error) {
      if (id !== undefined) this.#routes.delete(id);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  #heard(notification: JsonRpcNotification): void {
    const id = subscriptionIdOf(notification.params);
    if (id === undefined) return;
    const params = notification.params as Params;
    const route = this.#routes.get(id);
    if (route === undefined) {
      this.#host.logger.debug('Notification of an unknown subscription ignored', { id, method: notification.method });
      return;
    }
    if (notification.method === ACKNOWLEDGED_METHOD) {
      if (!route.acked) {
        route.acked = true;
        route.onAck(params);
      }
      return;
    }
    const message: ListenNotification = { method: notification.method, params };
    // MCP 2026-07-28 basic/patterns/subscriptions.mdx: nothing of a subscription comes before its acknowledgement.
    if (!route.acked) this.#host.logger.debug('Notification before its subscription was acknowledged ignored', { id, method: notification.method });
    else if (route.target === undefined) route.early.push(message);
    else route.target.deliver(message);
  }
}

/** One open subscription, over one listen request at a time. */
class Subscription implements ListenSubscription {
  readonly closed: Promise<ListenEnd>;
  readonly #logger: ListenHost['logger'];
  readonly #listeners = new Set<(notification: ListenNotification) => void>();
  readonly #iterators = new Set<NotificationQueue<ListenNotification>>();
  readonly #relisten: { readonly attempts: number; readonly attach: () => Promise<Attachment> } | undefined;
  readonly #moved: (from: JsonRpcId | undefined, to: JsonRpcId | undefined) => void;
  #attachment: Attachment;
  #byClient = false;
  #ended = false;
  #end!: (end: ListenEnd) => void;

  constructor(init: {
    readonly attachment: Attachment;
    readonly logger: ListenHost['logger'];
    /** How to listen again after the request ended without a response; `undefined`: never. */
    readonly relisten: { readonly attempts: number; readonly attach: () => Promise<Attachment> } | undefined;
    /** The subscription's id changed (`to` undefined: it ended). */
    readonly moved: (from: JsonRpcId | undefined, to: JsonRpcId | undefined) => void;
  }) {
    this.#attachment = init.attachment;
    this.#logger = init.logger;
    this.#relisten = init.relisten;
    this.#moved = init.moved;
    this.closed = new Promise<ListenEnd>((resolve) => (this.#end = resolve));
    this.#watch(init.attachment);
  }

  get id(): JsonRpcId {
    return this.#attachment.id;
  }

  get acknowledged(): ListenFilter {
    return this.#attachment.acknowledged;
  }

  on(listener: (notification: ListenNotification) => void): () => void {
    if (this.#ended) return () => {};
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): Promise<ListenEnd> {
    if (!this.#ended && !this.#byClient) {
      this.#byClient = true;
      this.#attachment.controller.abort(new Error('the client closed the subscription'));
    }
    return this.closed;
  }

  [Symbol.asyncIterator](): AsyncIterator<ListenNotification> {
    const queue = new NotificationQueue<ListenNotification>(this.#logger, () => this.#iterators.delete(queue));
    if (this.#ended) queue.finish();
    else this.#iterators.add(queue);
    return queue;
  }

  /** A notification of this subscription arrived. */
  deliver(notification: ListenNotification): void {
    for (const listener of this.#listeners) {
      try {
        listener(notification);
      } catch (error) {
        this.#logger.error('Subscription listener failed', { id: this.id, method: notification.method, error });
      }
    }
    for (const queue of this.#iterators) queue.push(notification);
  }

  #watch(attachment: Attachment): void {
    attachment.response.then(
      () => this.#finish({ reason: 'server' }),
      (error: unknown) => void this.#lost(attachment, error),
    );
  }

  /** The request ended without a response: listen again (when allowed), else end with why. */
  async #lost(attachment: Attachment, error: unknown): Promise<void> {
    if (this.#byClient || attachment.controller.signal.aborted) return this.#finish({ reason: 'client' });
    const relisten = this.#relisten;
    let last = error;
    for (let attempt = 0; relisten !== undefined && attempt < relisten.attempts; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, RELISTEN_DELAYS_MS[Math.min(attempt, RELISTEN_DELAYS_MS.length - 1)]));
      if (this.#byClient) return this.#finish({ reason: 'client' });
      try {
        const next = await relisten.attach();
        this.#logger.info('Subscription listened again after its request ended without a response', { from: attachment.id, to: next.id });
        this.#moved(attachment.id, next.id);
        this.#attachment = next;
        // Closed while the new request was being acknowledged: that one goes too.
        if (this.#byClient) next.controller.abort(new Error('the client closed the subscription'));
        this.#watch(next);
        return;
      } catch (retryError) {
        last = retryError;
      }
    }
    this.#finish({ reason: 'connection', error: last });
  }

  #finish(end: ListenEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#moved(this.#attachment.id, undefined);
    for (const queue of this.#iterators) queue.finish();
    this.#iterators.clear();
    this.#listeners.clear();
    this.#end(end);
  }
}
