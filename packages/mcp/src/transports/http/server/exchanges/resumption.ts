/**
 * Resumability of Streamable HTTP streams (MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"):
 * events are stored in order before they are written (so a client that lost a stream finds every event after the
 * one it holds), a `GET` + `Last-Event-ID` replays what came after that event on that stream only and then goes
 * on with the stream if it is live, and a resumed connection of a finished stream is parked open.
 */
import type { JsonRpcId, Logger } from '@switchboard/jsonrpc';
import { INSTANCE_LOST_ERROR, type StreamHolder } from '../sessions/clusterHub.js';
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import type { EventStore } from '../../../../stores/eventStore.js';
import type { OutStream } from './exchange.js';
import { SseChannel, formatMessageEvent } from '../../sse/sseChannel.js';

/**
 * Resumed connections kept open per session with nothing left to deliver (see {@link Resumption.park}); beyond
 * this the oldest is ended.
 */
const MAX_PARKED_STREAMS = 32;

function isPriming(message: unknown): boolean {
  return typeof message === 'object' && message !== null && !Object.hasOwn(message, 'jsonrpc');
}

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
   * look again while a living instance holds it.
   */
  readonly holder?: { readonly of: (streamId: string) => Promise<StreamHolder | undefined>; readonly recheckMs: number } | undefined;
}

/** Why a resumption failed, as the name of an HTTP refusal. */
export type ResumeRefusal = 'resumabilityDisabled' | 'unknownLastEventId' | 'sessionNotFound';

/** The replay of one session's streams and its parked connections. */
export class Resumption {
  readonly #init: ResumptionInit;
  /** Resumed connections of completed streams, kept open idle (see {@link park}). */
  readonly #parked = new Set<SseChannel>();

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
      /** The ids of the responses replayed (read only when the stream's instance is gone). */
      const answered = new Set<unknown>();
      const streamId = await store.replayEventsAfter(lastEventId, {
        send: (eventId, message) => {
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
          // Another living instance holds the stream: wait here, and look again until it finishes there (then the
          // client resumes again and the replay carries the answer) or its instance dies (then fail its requests).
          this.park(channel);
          this.#watch(channel, streamId, answered);
        }
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

  /** Looks again, every `recheckMs`, at who holds a stream another instance was answering (see {@link resume}). */
  #watch(channel: SseChannel, streamId: string, answered: ReadonlySet<unknown>): void {
    const holder = this.#init.holder;
    if (holder === undefined) return;
    let timer: ReturnType<typeof setUnrefTimeout> | undefined;
    const parkedDetach = channel.ondetach;
    channel.ondetach = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      parkedDetach?.();
    };
    const look = (): void => {
      timer = undefined;
      if (channel.ended) return;
      holder.of(streamId).then(
        (held) => {
          if (channel.ended) return;
          if (held?.alive === true) {
            timer = setUnrefTimeout(look, holder.recheckMs);
            return;
          }
          if (held !== undefined) failLost(channel, held.requestIds, answered);
          // Finished elsewhere: ending makes the client resume again, and that replay carries the answer.
          this.#parked.delete(channel);
          channel.end();
        },
        (error: unknown) => {
          this.#init.logger.warn('Lease store failed while following a stream held elsewhere', { streamId, error });
          this.#parked.delete(channel);
          channel.end();
        },
      );
    };
    timer = setUnrefTimeout(look, holder.recheckMs);
  }

  /** Ends every parked connection (the session closed). */
  close(): void {
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
