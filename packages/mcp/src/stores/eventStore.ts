/**
 * SSE event history for Streamable HTTP resumability: every event sent on a resumable stream is stored under an
 * event id; a client that lost the stream reconnects with `GET` + `Last-Event-ID` and gets what came after.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"
 */
import type { JsonRpcMessage } from '@switchboard/jsonrpc';

/**
 * The empty payload of a priming event (MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"
 * item 6: an event with an id and empty data). Stored like a message so the event id exists; never replayed.
 */
export type PrimingEvent = Readonly<Record<string, never>>;

/** What {@link EventStore.replayEventsAfter} calls for each stored event after the given one, in order. */
export interface EventReplaySink {
  /** Delivers one stored event. Priming events may be passed too; the transport skips them. */
  send(eventId: string, message: JsonRpcMessage | PrimingEvent): void | Promise<void>;
}

/**
 * Where SSE events are kept for replay. Shared by all sessions of a handler, so event ids must be unique across
 * streams (the transport's stream ids are unique: `<token>.<n>`, with a random per-session token that is not the
 * session id, so ids in the SSE `id:` field never reveal the session credential). Structurally compatible with the official
 * TypeScript SDK's `EventStore` (`storeEvent`, `replayEventsAfter(lastEventId, { send })`,
 * `getStreamIdForEventId`), so an SDK store can be passed in.
 *
 * Implementations may be synchronous (the in-memory default is, which keeps event order trivially) or
 * asynchronous (Redis); the transport keeps per-stream order either way.
 */
export interface EventStore {
  /**
   * Stores one event of `streamId` and returns its id: unique within the store, without CR, LF or NUL (it goes
   * into an SSE `id:` field).
   */
  storeEvent(streamId: string, message: JsonRpcMessage | PrimingEvent): string | Promise<string>;
  /**
   * Replays, through `sink.send`, every event of the stream of `lastEventId` that was stored after it, in order.
   * @returns The stream id of `lastEventId`; `''` or `undefined` when the id is unknown (nothing is replayed).
   */
  replayEventsAfter(lastEventId: string, sink: EventReplaySink): string | undefined | Promise<string | undefined>;
  /** The stream id of an event id, or `undefined` when unknown. Lets the transport check ownership before replaying. */
  getStreamIdForEventId?(eventId: string): string | undefined | Promise<string | undefined>;
  /**
   * Forgets a stream's events: its session ended, or it is a POST stream that carried a successful response and
   * went whole to the client on its first connection (no client resumes such a stream). Without this method a
   * store keeps every stream until its own limits drop it.
   */
  deleteStream?(streamId: string): void | Promise<void>;
}

/** Default for {@link InMemoryEventStoreOptions.maxEventsPerStream}. */
export const DEFAULT_MAX_EVENTS_PER_STREAM = 1000;
/** Default for {@link InMemoryEventStoreOptions.maxStreams}. */
export const DEFAULT_MAX_STREAMS = 10_000;

/** {@link InMemoryEventStore} options. */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first (a resume from a dropped id replays what is left). @default 1000 */
  readonly maxEventsPerStream?: number;
  /** Streams kept in all; the least recently written stream is dropped first. @default 10_000 */
  readonly maxStreams?: number;
}

interface StoredEvent {
  readonly seq: number;
  readonly message: JsonRpcMessage | PrimingEvent;
}

interface StreamHistory {
  next: number;
  readonly events: StoredEvent[];
}

/**
 * A bounded in-memory {@link EventStore} (one process). Event ids are `<streamId>.<seq>` with `seq` counting
 * from 1 per stream, so the stream of an event id is read from the id itself.
 *
 * @example
 * const store = new InMemoryEventStore({ maxEventsPerStream: 100 });
 * createMcpHttpHandler({ server, eventStore: store });
 */
export class InMemoryEventStore implements EventStore {
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly #streams = new Map<string, StreamHistory>();

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#maxEvents = Math.max(1, options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM);
    this.#maxStreams = Math.max(1, options.maxStreams ?? DEFAULT_MAX_STREAMS);
  }

  /** Number of streams currently held. */
  get size(): number {
    return this.#streams.size;
  }

  storeEvent(streamId: string, message: JsonRpcMessage | PrimingEvent): string {
    let history = this.#streams.get(streamId);
    if (history === undefined) {
      history = { next: 1, events: [] };
      this.#streams.set(streamId, history);
      if (this.#streams.size > this.#maxStreams) {
        // Map iteration order is insertion order: the first key is the oldest stream.
        const oldest = this.#streams.keys().next().value as string;
        this.#streams.delete(oldest);
      }
    }
    const seq = history.next++;
    history.events.push({ seq, message });
    if (history.events.length > this.#maxEvents) history.events.shift();
    return `${streamId}.${seq}`;
  }

  getStreamIdForEventId(eventId: string): string | undefined {
    const parsed = parseEventId(eventId);
    return parsed !== undefined && this.#streams.has(parsed.streamId) ? parsed.streamId : undefined;
  }

  replayEventsAfter(lastEventId: string, sink: EventReplaySink): string | undefined {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) return undefined;
    const history = this.#streams.get(parsed.streamId);
    if (history === undefined || parsed.seq >= history.next) return undefined;
    for (const event of history.events) {
      if (event.seq <= parsed.seq) continue;
      const pending = sink.send(`${parsed.streamId}.${event.seq}`, event.message);
      if (pending !== undefined) pending.catch(ignore);
    }
    return parsed.streamId;
  }

  deleteStream(streamId: string): void {
    this.#streams.delete(streamId);
  }
}

function ignore(): void {}

function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const dot = eventId.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { streamId: eventId.slice(0, dot), seq };
}
