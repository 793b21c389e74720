/**
 * The exchanges' view of one Streamable HTTP session ({@link ExchangeHost}): its answer headers, its event store,
 * stream ids, and which streams have history to forget.
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { TransientMap } from '@switchboard/jsonrpc/internal';
import { REVISION_FEATURES, isLegacyRevision } from '../../../../protocol/revisions.js';
import type { EventStore } from '../../../../stores/eventStore.js';
import type { ExchangeHost, OutStream } from '../exchanges/exchange.js';
import type { ClusterHub } from './clusterHub.js';
import { JSON_HEADERS } from '../inputOutput.js';
import { SSE_HEADERS } from '../../sse/sseChannel.js';


/** What the exchanges of a session need from its transport's settings (`SessionTransportInit` extends it). */
export interface SessionExchangeSettings {
  readonly sessionId: string;
  readonly eventStore: EventStore | undefined;
  readonly logger: Logger;
  /** The SSE `retry` field (ms) sent with a priming event. */
  readonly retryMs: number;
  /** Unsent SSE data allowed per connection before it is dropped (`maxSseBufferBytes`). */
  readonly maxSseBufferBytes: number;
}
/**
 * The most stream ids a session remembers having stored events for, to delete their history when it ends: the most
 * recently written ones. A stream whose answer went whole to its client is deleted at once; the ones kept (answered
 * with an error, cut, never resumed) would otherwise pile up for the session's life while the store drops them by its
 * own bounds (both stores of this project keep a session's 100 most recently written streams by default). Past it,
 * the least recently written id is forgotten: its history, if the store still holds it, leaves by the store's own
 * limits (per session, in all; by age in Redis), not at the session's end, unless the stream is still live then.
 */
export const MAX_REMEMBERED_STREAMS = 1000;

/** Logs a failed event-store cleanup instead of leaving a rejected promise behind. */
export function settleCleanup(result: void | Promise<void>, logger: Logger): void {
  if (result !== undefined) result.catch((error: unknown) => logger.debug('Event store cleanup failed', { error }));
}

/**
 * The exchanges' view of one Streamable HTTP session. A class with prototype methods and data fields, not an object
 * literal of closures: every idle session holds one, and a literal with a getter is a V8 dictionary-mode object
 * (~0.8 KiB more per session, measured with heap snapshots of 1,000 idle sessions).
 */
export class SessionExchangeHost implements ExchangeHost {
  readonly sessionId: string;
  readonly eventStore: EventStore | undefined;
  readonly logger: Logger;
  readonly retryMs: number;
  readonly maxSseBufferBytes: number;
  readonly sseHeaders: Readonly<Record<string, string>>;
  readonly jsonHeaders: Readonly<Record<string, string>>;
  readonly acceptedHeaders: Readonly<Record<string, string>>;
  /** Set when the session transport closes. */
  closed = false;
  /** Set when this instance lets go of a session that lives on elsewhere: its streams' records stay. */
  detached = false;
  /** The instance's side of the cluster (records which response streams it holds); absent: one instance. */
  readonly #hub: ClusterHub | undefined;
  readonly #owner: { readonly protocolVersion: string | undefined };
  readonly #prefix: string;
  readonly #streams: TransientMap<string, OutStream>;
  readonly #stored: TransientMap<string, true>;
  #counter = 0;
  readonly #tag: string;

  constructor(options: {
    readonly owner: { readonly protocolVersion: string | undefined };
    readonly init: SessionExchangeSettings;
    readonly prefix: string;
    readonly streams: TransientMap<string, OutStream>;
    readonly stored: TransientMap<string, true>;
    readonly hub?: ClusterHub | undefined;
  }) {
    const init = options.init;
    this.sessionId = init.sessionId;
    this.eventStore = init.eventStore;
    this.logger = init.logger;
    this.retryMs = init.retryMs;
    this.maxSseBufferBytes = init.maxSseBufferBytes;
    this.sseHeaders = Object.freeze({ ...SSE_HEADERS, 'mcp-session-id': init.sessionId });
    this.jsonHeaders = Object.freeze({ ...JSON_HEADERS, 'mcp-session-id': init.sessionId });
    this.acceptedHeaders = Object.freeze({ 'mcp-session-id': init.sessionId });
    this.#owner = options.owner;
    this.#prefix = options.prefix;
    this.#streams = options.streams;
    this.#stored = options.stored;
    this.#hub = options.hub;
    // With a cluster, stream ids carry the instance id: the instances of one session share its event history, and
    // their counters would otherwise mint the same ids.
    this.#tag = options.hub === undefined ? '' : `${options.hub.instanceId}-`;
  }

  primes(): boolean {
    return primesAt(this.#owner.protocolVersion);
  }

  opened(stream: OutStream): void {
    stream.id = `${this.#prefix}${this.#tag}${++this.#counter}`;
    this.#streams.set(stream.id, stream);
    const hub = this.#hub;
    // The request ids are registered right after the stream opens (same turn): read them once they are.
    if (hub !== undefined && stream.resumable) queueMicrotask(() => hub.streamOpened(stream.id, stream.ids));
  }

  finished(stream: OutStream): void {
    this.#streams.delete(stream.id);
    if (this.#hub !== undefined && !this.detached && stream.resumable) this.#hub.streamFinished(stream.id);
  }

  unattended(stream: OutStream, done: boolean): void {
    if (this.#hub !== undefined && !this.detached) this.#hub.streamEvents(this.sessionId, stream.id, done);
  }

  stored(streamId: string): void {
    const stored = this.#stored;
    // Ordered by last write, as the stores order a session's streams: past the bound, the id forgotten is that of the
    // stream a store drops first, never one still being written (a long call that reports progress).
    if (!stored.delete(streamId) && stored.size >= MAX_REMEMBERED_STREAMS) stored.delete(stored.keys().next().value!);
    stored.set(streamId, true);
  }

  forget(streamId: string): void {
    this.#stored.delete(streamId);
    settleCleanup(this.eventStore?.deleteStream?.(streamId), this.logger);
  }
}

/** Whether POST streams at `version` begin with a priming event (2025-11-25 and later). */
export function primesAt(version: string | undefined): boolean {
  return version !== undefined && isLegacyRevision(version) && REVISION_FEATURES[version].ssePriming;
}

