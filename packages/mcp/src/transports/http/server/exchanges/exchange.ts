/**
 * The writer of one exchange's answer: where the outbound messages of one POST (or of the standalone GET stream)
 * go, as one `application/json` body or a `text/event-stream`, with the adaptive decision between the two,
 * backpressure, and the refusal of a POST as a whole. It needs no session: what it needs from its owner is an
 * {@link ExchangeHost} (a session transport today; the stateless 2026-07-28 POST next).
 * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"
 */
import type { JsonRpcId, JsonRpcMessage, Logger } from '@switchboard/jsonrpc';
import type { EventStore, PrimingEvent } from '../../../../stores/eventStore.js';
import type { HttpOutput } from '../inputOutput.js';
import { HttpStatus, refusalOutput } from '../refusals.js';
import { SseChannel, formatMessageEvent, formatPrimingEvent, formatRetry } from '../../sse/sseChannel.js';

/**
 * `adaptive`: a POST whose client accepts both types, not decided yet; it becomes `json` when a response is its
 * first outbound message, `sse` when a notification or server→client request is, or after `sseAfterMs`.
 */
export type StreamKind = 'adaptive' | 'sse' | 'json' | 'standalone';

/** What an exchange needs from its owner. */
export interface ExchangeHost {
  /** For log entries; `undefined` without a session. */
  readonly sessionId: string | undefined;
  readonly eventStore: EventStore | undefined;
  readonly logger: Logger;
  /** The `retry` hint (ms) on priming events and before a stream is closed on purpose. */
  readonly retryMs: number;
  /** Unsent SSE data allowed per connection before it is dropped, in bytes. */
  readonly maxSseBufferBytes: number;
  readonly sseHeaders: Readonly<Record<string, string>>;
  readonly jsonHeaders: Readonly<Record<string, string>>;
  readonly acceptedHeaders: Readonly<Record<string, string>>;
  /** Whether the owner is closed (an exchange is then no longer turned into a stream). */
  readonly closed: boolean;
  /** Whether POST streams get a priming event (2025-11-25 and later). */
  primes(): boolean;
  /** A stream becomes SSE: give it its id (`stream.id = …`) and keep it for resumption. */
  opened(stream: OutStream): void;
  /** A stream ended: forget it. */
  finished(stream: OutStream): void;
  /** Events of `streamId` were stored. */
  stored(streamId: string): void;
  /** The history of `streamId` is no longer needed: delete it from the store. */
  forget(streamId: string): void;
  /**
   * An event of POST stream `stream` was stored while no connection here writes it (the client left, or resumed
   * on another instance), or (`done`) the stream completed that way: with a cluster, an instance serving the
   * resumed stream reads the store again. Absent: nothing to tell.
   */
  unattended?(stream: OutStream, done: boolean): void;
}

const NO_IDS: readonly JsonRpcId[] = Object.freeze([]);
/** The priming event (an id and empty data), as handed to the event store. */
export const PRIMING: PrimingEvent = Object.freeze({});

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Stores one event of a resumable stream and writes it with the id the store gave it, keeping the stream's
 * order when the store answers asynchronously (a later event waits for the earlier ones).
 * @returns `undefined` when the sender may go on at once; otherwise what it should wait for (the store, and the
 *   connection's backlog read down).
 */
export function storeAndWrite(stream: OutStream, message: JsonRpcMessage | PrimingEvent, json: string): Promise<void> | undefined {
  const host = stream.host;
  const store = host.eventStore as EventStore;
  const priming = !Object.hasOwn(message, 'jsonrpc');
  let stored: string | Promise<string>;
  try {
    stored = store.storeEvent(stream.id, message, json.length);
    host.stored(stream.id);
  } catch (error) {
    host.logger.error('Event store failed; event sent without an id', { sessionId: host.sessionId, error });
    if (!priming) stream.channel?.write(formatMessageEvent(json));
    return stream.backpressure();
  }
  if (typeof stored === 'string' && stream.chain === undefined) {
    stream.writeEvent(json, stored, priming);
    return stream.backpressure();
  }
  const next = (stream.chain ?? RESOLVED)
    .then(() => stored)
    .then(
      (eventId) => stream.writeEvent(json, eventId, priming),
      (error: unknown) => {
        // As for a store that throws at once (above): the client still gets the message, without an id, so a store
        // outage (Redis down mid-call) costs resumability, never the answer itself.
        host.logger.error('Event store failed; event sent without an id', { sessionId: host.sessionId, error });
        if (!priming) stream.channel?.write(formatMessageEvent(json));
      },
    );
  stream.chain = next;
  return next.then(() => {
    if (stream.chain === next) stream.chain = undefined;
    return stream.channel?.ready();
  });
}

/** Who is told when the client leaves a stream's connection (see {@link OutStream.watcher}). */
export interface StreamWatcher {
  /** The client left a connection of the stream before the stream was done (called at most once per connection). */
  clientLeft(): void;
}

/**
 * Where one exchange's messages go: a POST's SSE stream, a POST's JSON answer, or the standalone GET stream.
 *
 * Shaped for the young-generation collector (all measured with bench/, HTTP JSON mode, 16 KiB answers). A JSON
 * stream receives its bodies after it was created; when it was an object literal holding an array and resolved its
 * exchange through a closure made in the promise executor, each body outlived the young collections while that code
 * ran unoptimized, V8 then decided to allocate the literal sites directly in the old generation
 * (`node --trace-pretenuring-statistics`: "maybe tenure => tenure"), and from then on every body stayed reachable
 * from a dead old object until a full collection: 12–14 % of the young generation survived each scavenge, +40 MB
 * peak RSS and ~25 % more CPU per call. Hence a class with every field declared (objects made with `new` carry no
 * allocation site, so they are never pretenured), the bodies as one string instead of an array, the answer built
 * in a `then` after the promise resolves with a boolean, and the text dropped once taken.
 */
export class OutStream {
  readonly host: ExchangeHost;
  /** The live connection; `undefined` while the client is away (then events are only stored). */
  channel: SseChannel | undefined = undefined;
  /** How many requests on this stream are still unanswered. */
  remaining = 0;
  /** The ids of the requests this stream answers (the POST's request ids). */
  ids: readonly JsonRpcId[] = NO_IDS;
  /** Whether the client holds an event id of this stream (so it can resume it). */
  hasEventId = false;
  /** Orders writes behind an asynchronous event store. */
  chain: Promise<void> | undefined = undefined;
  done = false;
  /** Whether a successful response (`result`) went out on this stream (see {@link complete}). */
  answered = false;
  /** Whether the stream lost its first connection (the client left, or the server closed it on purpose). */
  cut = false;
  /** JSON streams: how many messages were collected. */
  count = 0;
  /** JSON streams: the collected messages, serialized and joined with `,`. */
  #text = '';
  /** Adaptive streams: the `sseAfterMs` timer while undecided. */
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** Adaptive streams that became SSE: the connection the POST is answered with. */
  answer: SseChannel | undefined = undefined;
  /**
   * Told when the client leaves a connection of this stream before it is done (a stateless exchange cancels its
   * request then); dropped once the stream is done, so a finished stream holds nothing of its exchange (see
   * `ModernExchange.clientLeft`).
   */
  watcher: StreamWatcher | undefined = undefined;
  /**
   * JSON streams: called once, with `true` when the exchange is over (every request answered or cancelled, or the
   * POST refused as a whole) and `false` when the owner closed first.
   */
  resolve: ((settled: boolean) => void) | undefined = undefined;
  /** Stream id (`''` until an SSE stream is opened); an adaptive stream gets one when it becomes SSE. */
  id: string;
  kind: StreamKind;
  /** Whether its events are stored for `Last-Event-ID` resumption. */
  resumable: boolean;

  /** `id`: the stream id when known now (the standalone stream's); SSE streams get theirs from the host. */
  constructor(host: ExchangeHost, kind: StreamKind, id = '') {
    this.host = host;
    this.kind = kind;
    this.id = id;
    this.resumable = (kind === 'sse' || kind === 'standalone') && host.eventStore !== undefined;
  }

  /** JSON streams: how the exchange ends (the value given to {@link resolve}); call once, before routing. */
  settled(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.resolve = resolve;
    });
  }

  /** JSON streams: adds one serialized message to the answer. */
  collect(json: string): void {
    this.#text = this.count === 0 ? json : `${this.#text},${json}`;
    this.count++;
  }

  /**
   * JSON streams: the answer's JSON text (the single response, or an array for a batch or for several messages) and
   * forgets it, so a finished stream holds no body.
   */
  takeJson(batch: boolean): string {
    const text = this.#text;
    this.#text = '';
    return !batch && this.count === 1 ? text : `[${text}]`;
  }

  /** Makes `channel` the stream's connection. */
  attach(channel: SseChannel): void {
    this.channel = channel;
    channel.ondetach = () => {
      this.#detached(channel);
      this.watcher?.clientLeft();
    };
  }

  /**
   * Stores (when resumable) and writes one event; keeps the stream's order behind an asynchronous store.
   * @returns `undefined` when the sender may go on at once; otherwise a promise that resolves once the event is
   *   stored and the stream's connection is no longer congested (the client read its backlog down).
   */
  emit(message: JsonRpcMessage | PrimingEvent, json: string): Promise<void> | undefined {
    if (this.resumable && this.host.eventStore !== undefined) return storeAndWrite(this, message, json);
    if (message !== PRIMING) this.channel?.write(formatMessageEvent(json));
    return this.backpressure();
  }

  /** Writes one stored event (its id assigned by the store) to the live connection, if any. */
  writeEvent(json: string, eventId: string, priming: boolean): void {
    const channel = this.channel;
    if (channel === undefined) {
      if (this.kind === 'sse') this.host.unattended?.(this, false);
      return;
    }
    const text = priming ? formatPrimingEvent(eventId, this.host.retryMs) : formatMessageEvent(json, eventId);
    if (channel.write(text)) this.hasEventId = true;
  }

  /** What a sender waits for after writing: nothing unless the connection is congested. */
  backpressure(): Promise<void> | undefined {
    const channel = this.channel;
    return channel !== undefined && channel.congested ? channel.ready() : undefined;
  }

  /** An adaptive exchange whose first outbound message is a response: it is answered with one JSON body. */
  decideJson(): void {
    this.kind = 'json';
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * An adaptive exchange becomes SSE (a notification or server→client request came first, nothing came within
   * `sseAfterMs`, or the handler closes its stream): a resumable stream with its own id, primed like any POST
   * stream, and the POST is answered with it now.
   */
  upgrade(): void {
    const host = this.host;
    if (this.kind !== 'adaptive' || this.done || host.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const channel = new SseChannel(host.maxSseBufferBytes);
    this.kind = 'sse';
    this.resumable = host.eventStore !== undefined;
    host.opened(this);
    this.attach(channel);
    this.answer = channel;
    if (this.resumable && host.primes()) void this.emit(PRIMING, '');
    const resolve = this.resolve;
    this.resolve = undefined;
    resolve?.(true);
  }

  /** The exchange is over: a JSON answer is sent; an SSE stream ends after what it carries. */
  complete(): void {
    this.done = true;
    this.watcher = undefined;
    if (this.kind === 'adaptive') this.decideJson();
    if (this.kind === 'json') {
      const resolve = this.resolve;
      this.resolve = undefined;
      resolve?.(true);
      return;
    }
    if (this.chain === undefined) this.#finish();
    else void this.chain.then(() => this.#finish());
  }

  /** The owner closed: ends the connection; a pending JSON answer is told the exchange did not settle. */
  abort(): void {
    this.done = true;
    this.watcher = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.channel?.end();
    this.channel = undefined;
    this.resolve?.(false);
    this.resolve = undefined;
  }

  /**
   * Closes the connection on purpose after sending `retry`, so the client reconnects with `GET` +
   * `Last-Event-ID`; only when it can (the stream is resumable and the client holds one of its event ids).
   * @returns Whether the connection was closed.
   */
  closeOnPurpose(retryMs: number | undefined): boolean {
    const channel = this.channel;
    if (channel === undefined || !this.resumable) return false;
    if (!this.hasEventId) {
      // The priming event is still being stored (an asynchronous event store: Redis): the client gets its id
      // first, then the stream closes; events stored after it wait for the close (they queue behind it).
      const pending = this.chain;
      if (pending === undefined) return false;
      const closing = pending.then(() => {
        if (this.channel === channel && this.hasEventId) this.closeOnPurpose(retryMs);
      });
      this.chain = closing;
      void closing.then(() => {
        if (this.chain === closing) this.chain = undefined;
      });
      return true;
    }
    this.channel = undefined;
    this.cut = true;
    channel.write(formatRetry(retryMs ?? this.host.retryMs));
    channel.end();
    return true;
  }

  /** The answer to an adaptive POST: its SSE stream when it became one, else as a JSON answer. */
  adaptiveOutput(settled: boolean, batch: boolean): HttpOutput {
    const channel = this.answer;
    if (!settled || channel === undefined) return this.jsonOutput(settled, batch);
    this.answer = undefined;
    return { status: HttpStatus.Ok, headers: this.host.sseHeaders, sse: channel };
  }

  /** The answer to a POST answered with a JSON body, once its stream completed (`settled`) or the owner closed. */
  jsonOutput(settled: boolean, batch: boolean): HttpOutput {
    // JSON-RPC 2.0 §5: the refusal of a POST holding one request carries its id (a batch's, none: `null`).
    if (!settled) return refusalOutput('sessionNotFound', { id: !batch && this.ids.length === 1 ? this.ids[0]! : null });
    // Every request of the POST was cancelled: nothing to answer with.
    if (this.count === 0) return { status: HttpStatus.Accepted, headers: this.host.acceptedHeaders };
    return { status: HttpStatus.Ok, headers: this.host.jsonHeaders, body: this.takeJson(batch) };
  }

  // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6: after the last response the
  // server SHOULD terminate the stream.
  #finish(): void {
    const host = this.host;
    const channel = this.channel;
    this.channel = undefined;
    host.finished(this);
    if (channel === undefined) {
      if (this.kind === 'sse' && this.resumable) host.unattended?.(this, true);
      return;
    }
    // A POST stream that carried a successful response and went whole to the client on the connection of its POST
    // (never cut, closed or resumed) is not resumed by any client (a client resumes a stream that was cut; SDK 1.x
    // also resumes one that ended without a result, typescript-sdk PR #2638, so those keep their history). Its
    // events leave the store as soon as the connection took them, instead of staying until the session ends:
    // that history held every response body (memory, and old-space garbage collections under load).
    if (this.answered && !this.cut && this.resumable && host.eventStore?.deleteStream !== undefined) {
      const id = this.id;
      channel.ondelivered = () => host.forget(id);
    }
    channel.end();
  }

  #detached(channel: SseChannel): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    this.cut = true;
    // Field bug B27: the client left mid-call. Not a cancellation (MCP 2025-11-25 basic/transports.mdx "Sending
    // Messages to the Server" item 7); the request keeps running and what it sends is stored for resumption.
    const logger = this.host.logger;
    if (channel.overflowed) {
      logger.warn('SSE stream dropped: the client did not read (maxSseBufferBytes)', {
        sessionId: this.host.sessionId,
        streamId: this.id,
        resumable: this.resumable,
      });
    } else if (!this.resumable && this.remaining > 0) {
      logger.debug('SSE client disconnected; responses on this stream will be dropped (no event store)', {
        sessionId: this.host.sessionId,
        streamId: this.id,
      });
    }
  }
}
