/**
 * `subscriptions/listen`, the modern era's only way to hear of changes: the client opts in per notification type;
 * the server acknowledges first with the subset it honours, then sends each opted-in notification tagged with the
 * listen request's id, from the {@link NotificationBus} (so a shared bus reaches listen streams on every
 * instance). The stream ends when the client goes (its signal aborts: no response) or when the server closes
 * (a graceful `{ resultType: "complete" }` result).
 *
 * @see MCP 2026-07-28 basic/patterns/subscriptions.mdx; schema.ts `SubscriptionsListenRequest`,
 *   `SubscriptionsAcknowledgedNotification`, `SubscriptionsListenResult`
 */
import type { JsonRpcId, JsonRpcParams } from '@switchboard/jsonrpc';
import { SUBSCRIPTION_ID_META_KEY } from '../../protocol/envelope.js';
import type { ServerCapabilities } from '../../protocol/types.js';
import type { BusMessage, NotificationBus } from '../../stores/notificationBus.js';
import type { ServerRequestContext } from '../context.js';
import { MissingClientCapabilityError } from '../../protocol/errors.js';
import { callerKeyOf } from '../callerKey.js';
import { ListenShares, type ListenHolder } from './listenShares.js';
import { invalidParams, isRecord, paramsRecord } from '../params.js';
import { declaresTasksExtension, TASKS_EXTENSION, TASKS_EXTENSION_REQUIRED } from '../tasks/wire.js';

/** The acknowledgement, the first message of every listen stream. */
export const ACKNOWLEDGED_METHOD = 'notifications/subscriptions/acknowledged';

const LIST_FILTER = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
} as const;

const LIST_CHANGED_METHOD = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
} as const;

/** What the listen streams of one server need. */
export interface ListenHost {
  readonly bus: NotificationBus;
  /** The capabilities a modern-era client is told of (what may be honoured). */
  capabilities(): ServerCapabilities;
  /** Most URIs one stream may subscribe to, and the longest URI (UTF-16 units). */
  readonly maxSubscriptions: number;
  readonly maxUriLength: number;
  /** Most listen streams open at once on this server. */
  readonly maxStreams: number;
  /** Most listen streams one caller holds open at once. */
  readonly maxStreamsPerCaller: number;
  /** The subscribed URIs of all open streams together, at most, in UTF-16 units (shared with the sessions' cap). */
  readonly maxUriCharsTotal: number;
  /** The subscribed URIs of one caller's open streams together, at most, in UTF-16 units. */
  readonly maxUriCharsPerCaller: number;
}

/** The honoured subset of a listen request's `notifications`. */
interface Honoured {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  taskIds?: string[];
}

function honouredFilter(requested: Record<string, unknown>, host: ListenHost, clientCapabilities: unknown): Honoured {
  const capabilities = host.capabilities();
  const honoured: Honoured = {};
  for (const capability of ['tools', 'prompts', 'resources'] as const) {
    const flag = LIST_FILTER[capability];
    const value = requested[flag];
    if (value !== undefined && typeof value !== 'boolean') throw invalidParams(`"notifications.${flag}" must be a boolean`);
    // Unsupported types are left out of the acknowledgement (MCP 2026-07-28 basic/patterns/subscriptions.mdx).
    if (value === true && (capabilities[capability])?.listChanged === true) honoured[flag] = true;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) throw invalidParams('"notifications.resourceSubscriptions" must be an array of strings');
    if (uris.length > host.maxSubscriptions) throw invalidParams(`"notifications.resourceSubscriptions" holds more than ${host.maxSubscriptions} URIs`);
    if (uris.some((u: string) => u.length > host.maxUriLength)) throw invalidParams(`a URI in "notifications.resourceSubscriptions" is longer than ${host.maxUriLength} characters`);
    if (capabilities.resources?.subscribe === true) honoured.resourceSubscriptions = [...new Set(uris)];
  }
  const taskIds = requested.taskIds;
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || !taskIds.every((t) => typeof t === 'string')) throw invalidParams('"notifications.taskIds" must be an array of strings');
    if (taskIds.length > host.maxSubscriptions) throw invalidParams(`"notifications.taskIds" holds more than ${host.maxSubscriptions} ids`);
    // The tasks extension: task notifications need the client to have declared it (-32021 otherwise).
    if (!declaresTasksExtension(clientCapabilities)) throw new MissingClientCapabilityError(TASKS_EXTENSION_REQUIRED);
    if (isRecord(capabilities.extensions) && capabilities.extensions[TASKS_EXTENSION] !== undefined) honoured.taskIds = [...new Set(taskIds)];
  }
  return honoured;
}

/** One open listen stream. */
class ListenStream implements ListenHolder {
  readonly caller: string | undefined;
  readonly chars: number;
  readonly #ctx: ServerRequestContext;
  readonly #meta: Readonly<Record<string, JsonRpcId>>;
  readonly #honoured: Honoured;
  readonly #uris: ReadonlySet<string>;
  readonly #taskIds: ReadonlySet<string>;
  #unsubscribe: (() => void) | undefined = undefined;
  #resolve: ((result: Record<string, unknown>) => void) | undefined = undefined;

  constructor(ctx: ServerRequestContext, honoured: Honoured, share: { readonly caller: string | undefined; readonly chars: number }) {
    this.caller = share.caller;
    this.chars = share.chars;
    this.#ctx = ctx;
    this.#meta = Object.freeze({ [SUBSCRIPTION_ID_META_KEY]: ctx.requestId });
    this.#honoured = honoured;
    this.#uris = new Set(honoured.resourceSubscriptions);
    this.#taskIds = new Set(honoured.taskIds);
  }

  /** Acknowledges, then relays the bus until the stream ends; resolves with the listen result. */
  run(bus: NotificationBus, ended: (stream: ListenStream) => void): Promise<Record<string, unknown>> {
    const ctx = this.#ctx;
    const done = new Promise<Record<string, unknown>>((resolve) => {
      this.#resolve = (result) => {
        this.#unsubscribe?.();
        this.#unsubscribe = undefined;
        ended(this);
        resolve(result);
      };
    });
    // The acknowledgement goes out first: nothing of this stream is sent before it.
    void ctx.channel.notify(ACKNOWLEDGED_METHOD, { _meta: this.#meta, notifications: this.#honoured }, { relatedRequestId: ctx.requestId }).catch(() => this.end(undefined));
    this.#unsubscribe = bus.subscribe((message) => this.#hear(message));
    const signal = ctx.signal;
    // The client went (HTTP: the stream closed; stdio: notifications/cancelled): no response is due.
    if (signal.aborted) this.end(undefined);
    else signal.addEventListener('abort', () => this.end(undefined), { once: true });
    return done;
  }

  /** The server takes the stream's share back for a newcomer: it ends with the graceful result. */
  reclaim(): void {
    this.end(true);
  }

  /**
   * Ends the stream: with the graceful result (the server closes), or with none (`undefined`: the client went).
   */
  end(graceful: true | undefined): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve?.(graceful === true ? { resultType: 'complete', _meta: this.#meta } : {});
  }

  #hear(message: BusMessage): undefined {
    if (message.type === 'list_changed') {
      if (this.#honoured[LIST_FILTER[message.capability]] !== true) return undefined;
      return this.#send(LIST_CHANGED_METHOD[message.capability], { _meta: this.#meta });
    }
    if (message.type === 'resource_updated') {
      if (!this.#uris.has(message.uri)) return undefined;
      return this.#send('notifications/resources/updated', { uri: message.uri, _meta: this.#meta });
    }
    if (message.type === 'task') {
      if (!this.#taskIds.has(message.task.taskId)) return undefined;
      return this.#send('notifications/tasks', { ...message.task, _meta: this.#meta });
    }
    return undefined;
  }

  /**
   * Hands one notification to the stream. The publisher does not wait for a congested stream to be read down: one
   * idle listener would otherwise hold every `notifyResourceUpdated()` of the server for as long as it does not
   * read. What an unread stream holds is bounded where it is buffered (HTTP: `maxSseBufferBytes` per stream and
   * `maxSseBufferBytesTotal` for all), so not waiting costs no unbounded memory.
   */
  #send(method: string, params: Record<string, unknown>): undefined {
    void this.#ctx.channel.notify(method, params, { relatedRequestId: this.#ctx.requestId }).catch(() => this.end(undefined));
    return undefined;
  }
}

/** The listen streams of one server. */
export class ListenStreams {
  readonly #host: ListenHost;
  readonly #open = new Set<ListenStream>();
  /** The server-wide budgets and each caller's share of them (streams, subscribed URI characters). */
  readonly shares: ListenShares;

  constructor(host: ListenHost) {
    this.#host = host;
    this.shares = new ListenShares({
      maxStreams: host.maxStreams,
      maxStreamsPerCaller: host.maxStreamsPerCaller,
      maxUriChars: host.maxUriCharsTotal,
      maxUriCharsPerCaller: host.maxUriCharsPerCaller,
    });
  }

  /** How many streams are open. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * Answers one `subscriptions/listen`: resolves when the stream ends. When the server's budget is full, the
   * caller holding most gives up its longest-held streams for it (see {@link ListenShares}).
   * @throws JsonRpcError -32602 when `notifications` is missing or malformed, or the caller's share is full
   */
  listen(params: JsonRpcParams | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> {
    const p = paramsRecord(params);
    const requested = p.notifications;
    if (!isRecord(requested)) throw invalidParams('"notifications" must be an object');
    const host = this.#host;
    const honoured = honouredFilter(requested, host, ctx.clientCapabilities);
    // The URIs of every open stream count against one server-wide budget, as the sessions' subscriptions do.
    const chars = (honoured.resourceSubscriptions ?? []).reduce((sum, uri) => sum + uri.length, 0);
    const caller = callerKeyOf(ctx);
    const refusal = this.shares.admit(caller, chars);
    if (refusal !== undefined) throw invalidParams(refusal.message, refusal.data);
    const stream = new ListenStream(ctx, honoured, { caller, chars });
    this.#open.add(stream);
    this.shares.add(stream);
    return stream.run(host.bus, (s) => {
      this.#open.delete(s);
      this.shares.release(s);
    });
  }

  /** Ends every open stream with its graceful result (the server is closing). */
  closeAll(): void {
    for (const stream of [...this.#open]) stream.end(true);
  }
}
