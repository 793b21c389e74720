/**
 * SSE event history for Streamable HTTP resumability: every event sent on a resumable stream is stored under an
 * event id; a client that lost the stream reconnects with `GET` + `Last-Event-ID` and gets what came after.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"
 */
import type { JsonRpcMessage } from '@switchboard/jsonrpc';
import { TransientMap } from '@switchboard/jsonrpc/internal';

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
   * into an SSE `id:` field). `size` is the length of the event's JSON text (UTF-16 units), for stores with a
   * size budget; stores may ignore it.
   */
  storeEvent(streamId: string, message: JsonRpcMessage | PrimingEvent, size?: number): string | Promise<string>;
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
/** Default for {@link InMemoryEventStoreOptions.maxStreamsPerSession}. */
export const DEFAULT_MAX_STREAMS_PER_SESSION = 100;
/** Default for {@link InMemoryEventStoreOptions.maxBytesPerSession} (UTF-16 units of the stored JSON texts). */
export const DEFAULT_MAX_BYTES_PER_SESSION = 16 * 1024 * 1024;

/** {@link InMemoryEventStore} options. */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first (a resume from a dropped id replays what is left). @default 1000 */
  readonly maxEventsPerStream?: number;
  /**
   * Streams kept in all, a last-resort cap across sessions; the least recently written stream is dropped first.
   * @default 10_000
   */
  readonly maxStreams?: number;
  /**
   * Streams kept per session (the part of a stream id before its last `.`); a session over its budget loses
   * its own least recently written stream, never another session's. @default 100
   */
  readonly maxStreamsPerSession?: number;
  /**
   * Size of the events kept per session, counted in UTF-16 units of their JSON text when the transport passes it
   * (it does); a session over its budget loses its own least recently written streams, then the oldest events of
   * the stream being written. @default 16 MiB
   */
  readonly maxBytesPerSession?: number;
}

interface StoredEvent {
  readonly seq: number;
  readonly message: JsonRpcMessage | PrimingEvent;
  readonly size: number;
}

interface StreamHistory {
  readonly id: string;
  readonly owner: OwnerHistory;
  readonly events: StoredEvent[];
  bytes: number;
}

interface OwnerHistory {
  /** This session's streams, least recently written first. */
  readonly streams: TransientMap<string, StreamHistory>;
  bytes: number;
}

/**
 * A bounded in-memory {@link EventStore} (one process). Event ids are `<streamId>.<seq>` with `seq` from one
 * counter for the whole store, so an id is never repeated, not even by a stream that was evicted and written
 * again; the stream of an event id is read from the id itself. Budgets are per session (the stream id up to its
 * last `.`, which is how the Streamable HTTP transport names its streams): streams are dropped by last write, and
 * a session's budgets only ever drop that session's streams; only `maxStreams`, the last-resort cap across
 * sessions, drops the least recently written stream of any session.
 *
 * @example
 * const store = new InMemoryEventStore({ maxEventsPerStream: 100 });
 * createMcpHttpHandler({ server, eventStore: store });
 */
export class InMemoryEventStore implements EventStore {
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly #maxStreamsPerOwner: number;
  readonly #maxBytesPerOwner: number;
  /**
   * Every stream, least recently written first. Streams come and go with the requests while the store lives as long
   * as the server: `TransientMap`s (see there), so a dead table of a long-lived map does not keep the events of
   * streams already deleted (their answers) alive into the old generation.
   */
  readonly #streams = new TransientMap<string, StreamHistory>();
  readonly #owners = new TransientMap<string, OwnerHistory>();
  #seq = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#maxEvents = Math.max(1, options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM);
    this.#maxStreams = Math.max(1, options.maxStreams ?? DEFAULT_MAX_STREAMS);
    this.#maxStreamsPerOwner = Math.max(1, options.maxStreamsPerSession ?? DEFAULT_MAX_STREAMS_PER_SESSION);
    this.#maxBytesPerOwner = Math.max(1, options.maxBytesPerSession ?? DEFAULT_MAX_BYTES_PER_SESSION);
  }

  /** Number of streams currently held. */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * Stores one event.
   * @param size - The length of the event's JSON text, when the caller has it (the transport does); counted
   *   against `maxBytesPerSession`.
   */
  storeEvent(streamId: string, message: JsonRpcMessage | PrimingEvent, size = 0): string {
    let history = this.#streams.get(streamId);
    if (history === undefined) {
      const ownerId = ownerOf(streamId);
      const before = this.#owners.get(ownerId);
      if (before !== undefined && before.streams.size >= this.#maxStreamsPerOwner) this.#drop(before.streams.values().next().value!);
      if (this.#streams.size >= this.#maxStreams) this.#drop(this.#streams.values().next().value!);
      // Read after the evictions: dropping a session's last stream ends its record, and the new stream must not join a
      // record the store no longer holds (its limits would stop counting it).
      let owner = this.#owners.get(ownerId);
      if (owner === undefined) {
        owner = { streams: new TransientMap(), bytes: 0 };
        this.#owners.set(ownerId, owner);
      }
      history = { id: streamId, owner, events: [], bytes: 0 };
      this.#streams.set(streamId, history);
      owner.streams.set(streamId, history);
    } else if (this.#streams.size > 1) {
      // Keep both maps ordered by last write: move the stream to the end.
      this.#streams.delete(streamId);
      this.#streams.set(streamId, history);
      history.owner.streams.delete(streamId);
      history.owner.streams.set(streamId, history);
    }
    const seq = ++this.#seq;
    history.events.push({ seq, message, size });
    history.bytes += size;
    const owner = history.owner;
    owner.bytes += size;
    if (history.events.length > this.#maxEvents) this.#shift(history);
    while (owner.bytes > this.#maxBytesPerOwner) {
      const oldest = owner.streams.values().next().value!;
      if (oldest !== history) this.#drop(oldest);
      else if (history.events.length > 1) this.#shift(history);
      else break;
    }
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
    if (history === undefined || parsed.seq > this.#seq) return undefined;
    for (const event of history.events) {
      if (event.seq <= parsed.seq) continue;
      const pending = sink.send(`${parsed.streamId}.${event.seq}`, event.message);
      if (pending !== undefined) pending.catch(ignore);
    }
    return parsed.streamId;
  }

  deleteStream(streamId: string): void {
    const history = this.#streams.get(streamId);
    if (history !== undefined) this.#drop(history);
  }

  #shift(history: StreamHistory): void {
    const dropped = history.events.shift();
    if (dropped === undefined) return;
    history.bytes -= dropped.size;
    history.owner.bytes -= dropped.size;
  }

  #drop(history: StreamHistory): void {
    this.#streams.delete(history.id);
    const owner = history.owner;
    owner.streams.delete(history.id);
    owner.bytes -= history.bytes;
    if (owner.streams.size === 0) this.#owners.delete(ownerOf(history.id));
  }
}

function ignore(): void {}

/** The session part of a stream id: everything before its last `.` (`''` when there is none). */
function ownerOf(streamId: string): string {
  const dot = streamId.lastIndexOf('.');
  return dot < 0 ? '' : streamId.slice(0, dot);
}

function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const dot = eventId.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { streamId: eventId.slice(0, dot), seq };
}
