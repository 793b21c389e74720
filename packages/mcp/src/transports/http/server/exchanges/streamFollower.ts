/**
 * Following a response stream another instance writes (the handler's `cluster` option): the client resumed, with
 * `GET` + `Last-Event-ID`, a POST stream whose request runs on another instance. This instance replayed what the
 * shared event store held; what that instance stores afterwards (progress, the response) reaches this connection
 * from the store too, in order and once: the follower reads the store after the last event it sent whenever a
 * `stream_events` word arrives on the cluster bus, and at least every {@link FOLLOW_MS} (the bus delivers at most
 * once, so a lost word only delays). It ends the connection, as a resumed POST stream ends, once the stream is
 * complete (the bus says so, or the lease store no longer records it); when the instance running it died, each
 * unanswered request gets `INSTANCE_LOST_ERROR` first. Bounded: one timer per followed connection, dropped when the
 * connection goes.
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery" (replay after the last event, on that
 *   stream only), "Sending Messages to the Server" item 6 (the stream ends after the last response)
 */
import type { JsonRpcId, Logger } from '@switchboard/jsonrpc';
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import type { EventStore } from '../../../../stores/eventStore.js';
import { INSTANCE_LOST_ERROR, type StreamHolder } from '../sessions/clusterHub.js';
import { formatMessageEvent, type SseChannel } from '../../sse/sseChannel.js';

/** The longest wait (ms) between two reads of a followed stream's history. */
export const FOLLOW_MS = 1000;

/** Who holds a stream that is not live here (see `ClusterHub.streamHolder`). */
export interface StreamHolderLookup {
  readonly of: (streamId: string) => Promise<StreamHolder | undefined>;
  /** How often (ms) to look again. */
  readonly recheckMs: number;
  /** Whether streams are recorded (a lease store): `undefined` from {@link of} then means the stream is complete. */
  readonly tracked: boolean;
}

/** Construction options of {@link StreamFollower}. */
export interface StreamFollowerInit {
  readonly store: EventStore;
  readonly sessionId: string;
  readonly streamId: string;
  readonly channel: SseChannel;
  /** The id of the last event the connection carries (the replay's last, or the client's `Last-Event-ID`). */
  readonly last: string;
  /** The ids of the responses the connection carries. */
  readonly answered: Set<unknown>;
  /** Whether a successful response (`result`) is among them. */
  readonly sawResult: boolean;
  readonly holder: StreamHolderLookup;
  readonly logger: Logger;
  /** Called once when following stops (the connection ended, went, or the stream is complete). */
  readonly stopped: (follower: StreamFollower) => void;
}

/** Whether a stored message is a priming event (an id and empty data: nothing to send on a resumed stream). */
export function isPriming(message: unknown): boolean {
  return typeof message === 'object' && message !== null && !Object.hasOwn(message, 'jsonrpc');
}

/** @internal See the module documentation. */
export class StreamFollower {
  readonly streamId: string;
  readonly #init: StreamFollowerInit;
  #last: string;
  #sawResult: boolean;
  #reading = false;
  /** A read was asked for while one ran: run another after it. */
  #again = false;
  /** The stream is complete: end after the next read. */
  #finishing = false;
  /** The requests to fail once read (the stream's instance died). */
  #lost: readonly JsonRpcId[] | undefined = undefined;
  #timer: ReturnType<typeof setUnrefTimeout> | undefined = undefined;
  #stopped = false;

  constructor(init: StreamFollowerInit) {
    this.#init = init;
    this.streamId = init.streamId;
    this.#last = init.last;
    this.#sawResult = init.sawResult;
  }

  /**
   * Reads once at once (what was stored between the replay and now, whose word may have come before this follower
   * existed), then looks again periodically.
   */
  start(): void {
    this.#read();
    this.#arm();
  }

  /** A `stream_events` word for this stream arrived (`done`: it is complete). */
  heard(done: boolean): void {
    if (this.#stopped) return;
    if (done) this.#finishing = true;
    this.#read();
  }

  /** Stops following (the connection stays as it is). Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#init.stopped(this);
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = setUnrefTimeout(this.#tick, Math.min(FOLLOW_MS, this.#init.holder.recheckMs));
  }

  readonly #tick = (): void => {
    this.#timer = undefined;
    if (this.#gone()) return;
    const { holder, streamId, logger } = this.#init;
    holder.of(streamId).then(
      (held) => {
        if (this.#gone()) return;
        if (held !== undefined && !held.alive) {
          // Its instance died: what it stored is read, then each request it left unanswered is failed.
          this.#finishing = true;
          this.#lost = held.requestIds;
          this.#read();
          return;
        }
        // No record while streams are recorded: the stream completed (its events were stored before).
        if (held === undefined && holder.tracked) this.#finishing = true;
        this.#read();
        this.#arm();
      },
      (error: unknown) => {
        logger.warn('Lease store failed while following a stream held elsewhere', { streamId, error });
        this.#read();
        this.#arm();
      },
    );
  };

  #gone(): boolean {
    if (this.#stopped) return true;
    if (this.#init.channel.open) return false;
    this.stop();
    return true;
  }

  /** Reads the store after the last event sent, writes what came, then ends when the stream is complete. */
  #read(): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    const { store, channel, answered, logger, sessionId, streamId } = this.#init;
    const after = (): void => {
      this.#reading = false;
      if (this.#gone()) return;
      if (this.#again) {
        this.#again = false;
        this.#read();
        return;
      }
      if (!this.#finishing) return;
      const lost = this.#lost;
      if (lost !== undefined) {
        for (const id of lost) {
          if (!answered.has(id)) channel.write(formatMessageEvent(JSON.stringify({ jsonrpc: '2.0', id, error: INSTANCE_LOST_ERROR })));
        }
      }
      this.stop();
      // As a resumed connection of a completed stream: ended once it carried a successful result, else kept open
      // (see `Resumption.park`: SDK 1.x clients resume a stream that ended without one).
      if (this.#sawResult || lost !== undefined) channel.end();
    };
    let replay;
    try {
      replay = store.replayEventsAfter(this.#last, {
        send: (eventId, message) => {
          this.#last = eventId;
          if (isPriming(message)) return;
          if (Object.hasOwn(message, 'result')) this.#sawResult = true;
          if (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error')) answered.add((message as { id?: unknown }).id);
          channel.write(formatMessageEvent(JSON.stringify(message), eventId));
        },
      });
    } catch (error) {
      logger.error('Event store failed while following a stream held elsewhere', { sessionId, streamId, error });
      after();
      return;
    }
    Promise.resolve(replay).then(after, (error: unknown) => {
      logger.error('Event store failed while following a stream held elsewhere', { sessionId, streamId, error });
      after();
    });
  }
}
