/**
 * Resumability of Streamable HTTP streams (MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"):
 * events are stored in order before they are written (so a client that lost a stream finds every event after the
 * one it holds), a `GET` + `Last-Event-ID` replays what came after that event on that stream only and then goes
 * on with the stream if it is live, and a resumed connection of a finished stream is parked open.
 */
import type { JsonRpcId, Logger } from '@switchboard/jsonrpc';
import { INSTANCE_LOST_ERROR } from '../sessions/clusterHub.js';
import type { EventStore } from '../../../../stores/eventStore.js';
import type { OutStream } from './exchange.js';
import { StreamFollower, isPriming, type StreamFollowerInit, type StreamHolderLookup } from './streamFollower.js';
import { SseChannel, formatMessageEvent } from '../../sse/sseChannel.js';

/**
 * Resumed connections kept open per session with nothing left to deliver (see {@link Resumption.park}); beyond
 * this the oldest is ended.
 */
const MAX_PARKED_STREAMS = 32;

/** Construction options of {@link Resumption}. */
export interface ResumptionInit {
  readonly sessionId: string;
  readonly eventStore: EventStore | undefined;
  readonly logger: Logger;
  /** `<token>.`: the start of every stream id of the session, as this process minted it. */
  readonly prefix: string;
  /**
   * The prefix the session's record holds (so any instance sharing the stores validates an id the same way); when
   * absent, or when it finds no record, {@link prefix} is used.
   */
  readonly recordedPrefix?: (() => Promise<string | undefined>) | undefined;
  readonly keepAliveMs: number;
  readonly maxSseBufferBytes: number;
  /**
   * With a cluster: who holds a stream that is not live here (see `ClusterHub.streamHolder`), and how often (ms) to
   * look again while a living instance holds it; such a stream is followed (see `streamFollower.ts`).
   */
  readonly holder?: StreamHolderLookup | undefined;
}

/** Why a resumption failed, as the name of an HTTP refusal. */
export type ResumeRefusal = 'resumabilityDisabled' | 'unknownLastEventId' | 'sessionNotFound';

/** The replay of one session's streams and its parked connections. */
export class Resumption {
  readonly #init: ResumptionInit;
  /** Resumed connections of completed streams, kept open idle (see {@link park}). */
  readonly #parked = new Set<SseChannel>();
  /** Resumed connections following a stream another instance writes, by stream id (each also parked). */
  readonly #following = new Map<string, Set<StreamFollower>>();

  constructor(init: ResumptionInit) {
    this.#init = init;
  }

  /**
   * Replays what came after `lastEventId` on its stream into a new connection, then hands the stream to it when
   * it is live (`find` looks a live stream up by id), or parks or ends it when the stream is complete.
   * @returns The connection to answer the GET with, or the refusal.
   */
  async resume(lastEventId: string, find: (streamId: string) => OutStream | undefined, closed: () => boolean): Promise<SseChannel | ResumeRefusal> {
    const { eventStore: store, logger, sessionId, recordedPrefix } = this.#init;
    if (store === undefined) return 'resumabilityDisabled';
    try {
      // The owner of an event id is checked against the session's record, not only this process's memory.
      const prefix = (recordedPrefix === undefined ? undefined : await recordedPrefix()) ?? this.#init.prefix;
      if (store.getStreamIdForEventId !== undefined) {
        const owner = await store.getStreamIdForEventId(lastEventId);
        // Another session's event ids are unknown here: never replay across sessions.
        if (owner === undefined || owner === '' || !owner.startsWith(prefix)) return 'unknownLastEventId';
      }
      const channel = new SseChannel(this.#init.maxSseBufferBytes);
      let replayedResult = false;
      /** The ids of the responses replayed (read only when the stream's instance is gone, or it is followed). */
      const answered = new Set<unknown>();
      let last = lastEventId;
      const streamId = await store.replayEventsAfter(lastEventId, {
        send: (eventId, message) => {
          last = eventId;
          if (isPriming(message)) return;
          if (Object.hasOwn(message, 'result')) replayedResult = true;
          if (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error')) answered.add((message as { id?: unknown }).id);
          channel.preload(formatMessageEvent(JSON.stringify(message), eventId));
        },
      });
      if (streamId === undefined || streamId === '' || !streamId.startsWith(prefix)) return 'unknownLastEventId';
      if (closed()) return 'sessionNotFound';
      const live = find(streamId);
      const holder = live === undefined ? this.#init.holder : undefined;
      const held = holder === undefined ? undefined : await holder.of(streamId);
      if (held !== undefined) {
        if (!held.alive) {
          failLost(channel, held.requestIds, answered);
          channel.end();
        } else {
          // Another living instance holds the stream: what it stores from now on is read here (see
          // `streamFollower.ts`) until the stream completes, or its instance dies (then its requests fail).
          this.#follow({ store, sessionId, streamId, channel, last, answered, sawResult: replayedResult, holder: holder as StreamHolderLookup, logger });
        }
      } else if (live === undefined && holder !== undefined && !replayedResult && streamId !== `${prefix}0`) {
        // Not recorded (no lease store; or it completed, or its record is still being written): a POST stream the
        // replay did not finish may still be written elsewhere. Followed until the bus says it is complete (with
        // leases, until the next look finds no record).
        this.#follow({ store, sessionId, streamId, channel, last, answered, sawResult: false, holder, logger });
      } else if (live === undefined || live.done) {
        // The stream is complete: the replay is all there is.
        if (replayedResult) channel.end();
        else this.park(channel);
      } else {
        // The resuming connection replaces whatever connection the stream had.
        const previous = live.channel;
        live.attach(channel);
        live.cut = true;
        live.hasEventId = true;
        previous?.end();
        if (live.kind === 'standalone') channel.keepAlive(this.#init.keepAliveMs);
      }
      return channel;
    } catch (error) {
      logger.error('Event store failed during SSE resumption', { sessionId, error });
      return 'unknownLastEventId';
    }
  }

  /**
   * Keeps a resumed connection of a completed stream open, idle (keep-alive comments), until the client closes
   * it or the session ends, instead of ending it at once. SDK 1.x clients treat a stream that ended without a
   * *successful* result as interrupted (an error response does not count: typescript-sdk PR #2638), resume it
   * with `Last-Event-ID`, and, when that resumed stream ends with nothing, reconnect with a plain GET that
   * collides with their standalone stream (409). The official server keeps such a stream open too. Bounded per
   * session ({@link MAX_PARKED_STREAMS}); parked connections do not keep a session from being reaped.
   */
  park(channel: SseChannel): void {
    const parked = this.#parked;
    parked.add(channel);
    channel.ondetach = () => {
      parked.delete(channel);
    };
    channel.keepAlive(this.#init.keepAliveMs);
    if (parked.size > MAX_PARKED_STREAMS) {
      const oldest = parked.values().next().value as SseChannel;
      parked.delete(oldest);
      oldest.end();
    }
  }

  /** A word from the cluster bus: stream `streamId` has new events (`done`: it is complete). */
  heard(streamId: string, done: boolean): void {
    const followers = this.#following.get(streamId);
    if (followers !== undefined) for (const follower of [...followers]) follower.heard(done);
  }

  /** Parks a resumed connection and follows its stream, written by another instance (see `streamFollower.ts`). */
  #follow(init: Omit<StreamFollowerInit, 'stopped'>): void {
    const { channel, streamId } = init;
    this.park(channel);
    const follower = new StreamFollower({
      ...init,
      stopped: (done) => {
        const set = this.#following.get(streamId);
        if (set === undefined) return;
        set.delete(done);
        if (set.size === 0) this.#following.delete(streamId);
      },
    });
    let set = this.#following.get(streamId);
    if (set === undefined) this.#following.set(streamId, (set = new Set()));
    set.add(follower);
    const parkedDetach = channel.ondetach;
    channel.ondetach = () => {
      follower.stop();
      parkedDetach?.();
    };
    follower.start();
  }

  /** Ends every parked connection (the session closed). */
  close(): void {
    for (const followers of [...this.#following.values()]) for (const follower of [...followers]) follower.stop();
    for (const channel of this.#parked) channel.end();
    this.#parked.clear();
  }
}

/**
 * Answers each request of a stream whose instance died and that the replay did not answer, with
 * `INSTANCE_LOST_ERROR`: it will never be answered otherwise (JSON-RPC 2.0 §5: a request gets a response).
 */
function failLost(channel: SseChannel, requestIds: readonly JsonRpcId[], answered: ReadonlySet<unknown>): void {
  for (const id of requestIds) {
    if (!answered.has(id)) channel.write(formatMessageEvent(JSON.stringify({ jsonrpc: '2.0', id, error: INSTANCE_LOST_ERROR })));
  }
}
