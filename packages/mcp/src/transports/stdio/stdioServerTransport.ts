/**
 * The stdio transport, server side: newline-delimited JSON-RPC on stdin/stdout, with flow control both ways.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "stdio": messages are newline-delimited and MUST NOT contain
 *   embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message; it MAY
 *   log to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_LINE_BYTES,
  ErrorCode,
  encodeNdjson,
  JsonRpcLocalError,
  LocalErrorCode,
  NdjsonDecoder,
  neverThrowing,
  parseMessage,
  type JsonRpcMessage,
  type NdjsonEvent,
  type Logger,
  type Transport,
} from '@switchboard/jsonrpc';
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import { createStderrLogger } from '../../logger.js';

const RESOLVED: Promise<void> = Promise.resolve();
/** Left on stdout by {@link StdioServerTransport.whenFlushed}: an error then means the client is gone (EPIPE). */
const ignoreError = (): void => {};
const NO_EVENTS: readonly NdjsonEvent[] = [];

/** {@link StdioServerTransport} options. */
export interface StdioServerTransportOptions {
  /** @default process.stdin */
  readonly stdin?: Readable;
  /** @default process.stdout */
  readonly stdout?: Writable;
  /**
   * A line longer than this (bytes) is refused with a -32600 error response (id `null`) and skipped up to the
   * next newline; the connection survives (B16). A positive integer. @default 4 MiB
   */
  readonly maxLineBytes?: number;
  /**
   * Arrays and objects in one line may nest this deep (the outermost counts as 1); a deeper line is refused
   * before it is parsed, with -32600 `Invalid Request: JSON nested deeper than <n> levels`, id `null` and
   * `data: { maxDepth }`, and the connection survives. A positive integer.
   * @default 64 ({@link DEFAULT_MAX_JSON_DEPTH})
   */
  readonly maxJsonDepth?: number;
  /** @default a stderr logger */
  readonly logger?: Logger;
}

/**
 * Server-side stdio transport. Reads stdin as bytes (no `readline`: U+2028/U+2029 stay inside strings),
 * survives any malformed input (each bad line gets its own error response, B11–B18), writes each message as
 * one line on stdout as soon as it is sent (one `write` call each), lets the answer of an asynchronous request go
 * out while it handles the next lines of the same chunk (see `#pump`), and closes on stdin end-of-file.
 *
 * Flow control: stdin is paused while stdout is backed up (a `write` returned false and no `'drain'` has come
 * yet) and while the session has `maxQueuedInbound` (1,024) requests waiting for a concurrency slot
 * ({@link Transport.pauseInput}); lines already read wait, unparsed, until both clear. A client that does not read
 * its stdout, or that pipelines far more requests than the server runs at once, fills the pipes instead of the
 * server's memory, which stays bounded by the requests being handled and waiting, a read or two of stdin (64 KiB
 * each) and the output buffers. Error responses to invalid lines are output like any other. The price: while paused
 * nothing is read, so the end of stdin is seen only once the client reads again (or the wait queue halves); a message
 * a running request needs (its cancellation, the answer to a server-to-client request) is still read behind a backlog
 * of up to `maxQueuedInbound` waiting requests.
 */
export class StdioServerTransport implements Transport {
  onmessage: Transport['onmessage'];
  onerror: Transport['onerror'];
  onclose: Transport['onclose'];
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #decoder: NdjsonDecoder;
  readonly #maxLineBytes: number;
  readonly #parseOptions: { readonly maxDepth: number };
  readonly #logger: Logger;
  #started = false;
  #closed = false;
  /** Set while stdout is backed up: resolves on its `'drain'`. */
  #drain: Promise<void> | undefined;
  /** Decoded lines not yet delivered (input paused, or the pump going on in a microtask), from `#nextEvent` on. */
  #events: readonly NdjsonEvent[] = NO_EVENTS;
  #nextEvent = 0;
  /** The session asked to stop delivering: a request waits for a slot. */
  #sessionPaused = false;
  /** Whether this transport paused stdin (and so must resume it). */
  #stdinPaused = false;
  /** stdin ended while lines were still held back: the end is handled after them. */
  #endPending = false;
  #resumeScheduled = false;
  /** Messages sent so far (a wrapping 32-bit count): tells {@link #pump} whether a line was answered at once. */
  #sent = 0;
  /**
   * {@link #pump} is delivering lines, now or in the microtask it queued between two lines of a chunk. A chunk that
   * comes meanwhile (a stream emitting several at once; an in-process client that writes its next request as it
   * reads an answer, while a line is being delivered) queues behind them instead of starting a second pump.
   */
  #pumping = false;
  /**
   * The pump's continuation in a promise reaction. What escapes it (an `onmessage` that throws) is thrown
   * again from a plain microtask: it reaches `uncaughtException` as a throw from the pump's first line does, never
   * `unhandledRejection`.
   */
  readonly #resumePump = (): void => {
    try {
      this.#pump();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  };

  /**
   * @param options - See {@link StdioServerTransportOptions}.
   * @throws TypeError when `maxLineBytes` or `maxJsonDepth` is not a number.
   * @throws RangeError when `maxLineBytes` or `maxJsonDepth` is not a positive integer.
   */
  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxLineBytes = checkCountOption('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    const maxDepth = checkCountOption('maxJsonDepth', options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
    this.#parseOptions = { maxDepth };
    this.#decoder = new NdjsonDecoder({ maxLineBytes: this.#maxLineBytes });
    this.#logger = neverThrowing(options.logger ?? createStderrLogger());
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error('StdioServerTransport already started'));
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('error', this.#onError);
    this.#stdout.on('error', this.#onError);
    return Promise.resolve();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const events = this.#decoder.push(bytes);
    // Lines are held back while stdin is paused or while the pump goes on in a microtask; a chunk that comes anyway
    // queues behind them.
    this.#events = this.#nextEvent < this.#events.length ? [...this.#events.slice(this.#nextEvent), ...events] : events;
    this.#nextEvent = 0;
    // A chunk that comes while the pump delivers (see #pumping) waits for it: stdin is paused until the pump has
    // caught up, so the lines never pile up here and the session's pauseInput still holds.
    if (this.#pumping) this.#pauseStdin();
    else this.#pump();
  };

  /** Whether delivering must wait: stdout is backed up, or the session has a request waiting for a slot. */
  #held(): boolean {
    return this.#drain !== undefined || this.#sessionPaused;
  }

  /**
   * Delivers the held-back lines while nothing holds them, then resumes or pauses stdin to match.
   *
   * A request (or batch, or response) not answered while it is delivered (an asynchronous handler) lets the
   * microtasks it started run before the next line of the chunk: the pump goes on in a microtask queued behind them.
   * The answer of a tool that awaits nothing then goes out one or two lines later (one promise step more in the
   * 2026-07-28 era; each `await` in the tool adds a line) while the rest of the chunk is read, and the client works on
   * it meanwhile, where delivering the whole chunk first held every answer back until the last line was handled. A
   * notification or an invalid line is followed at once by the next line. At 16 requests in flight (64-byte echoes)
   * this took the server from 0.53-0.54x the raw floor's requests per second to 0.83-0.87x (2026-07-28: 0.57-0.60x
   * to 0.76-0.78x), for about 1k more instructions a request, 0.3-0.4k since it goes on in a promise reaction rather
   * than `queueMicrotask` (README, Benchmarks, "stdio at 16 in flight").
   */
  #pump(): void {
    this.#pumping = true;
    let queued = false;
    try {
      // `#events` is read at each step: a chunk that came during a delivery was appended to it.
      while (this.#nextEvent < this.#events.length) {
        if (this.#closed) return;
        if (this.#held()) {
          this.#pauseStdin();
          return;
        }
        const sent = this.#sent;
        const started = this.#deliver(this.#events[this.#nextEvent++]!);
        if (started && this.#sent === sent && this.#nextEvent < this.#events.length) {
          queued = true;
          // A reaction on a settled promise is the same place in the microtask queue as `queueMicrotask`, which on
          // Node also makes an AsyncResource and a bound function each time (0.5-0.7k instructions a request).
          void RESOLVED.then(this.#resumePump);
          return;
        }
      }
    } catch (error) {
      // What a delivery threw (the caller's `onmessage`) goes on up; the lines after it are delivered on a
      // later turn, so a process that survives the throw still answers them and sees its input end. Stdin waits
      // meanwhile (the pump's end resumes it), so the lines held stay bounded by what one chunk holds.
      if (!this.#closed && this.#nextEvent < this.#events.length) this.#pauseStdin();
      this.#scheduleResume();
      throw error;
    } finally {
      this.#pumping = queued;
    }
    this.#events = NO_EVENTS;
    this.#nextEvent = 0;
    if (this.#closed) return;
    if (this.#endPending) {
      this.#endPending = false;
      this.#finishInput();
    } else if (this.#held()) this.#pauseStdin();
    else if (this.#stdinPaused) {
      this.#stdinPaused = false;
      this.#stdin.resume();
    }
  }

  #pauseStdin(): void {
    if (this.#stdinPaused) return;
    this.#stdinPaused = true;
    this.#stdin.pause();
  }

  /** Carries on delivering on a later turn (never inside the caller's stack: the session or a `'drain'` listener). */
  #scheduleResume(): void {
    if (this.#resumeScheduled || this.#closed) return;
    this.#resumeScheduled = true;
    setImmediate(() => {
      this.#resumeScheduled = false;
      if (!this.#closed && !this.#held() && !this.#pumping) this.#pump();
    });
  }

  /**
   * Flow control hook for the session ({@link Transport.pauseInput}): while `true`, no further message is
   * delivered and stdin is paused.
   */
  pauseInput(paused: boolean): void {
    this.#sessionPaused = paused;
    if (!paused) this.#scheduleResume();
  }

  /**
   * Called when stdin reaches end-of-file, after the last line has been delivered. When set, the owner decides
   * when to close (e.g. after in-flight requests are answered); when unset, the transport closes at once.
   */
  oninputend: (() => void) | undefined;

  readonly #onEnd = (): void => {
    if (this.#nextEvent < this.#events.length) this.#endPending = true;
    else this.#finishInput();
  };

  #finishInput(): void {
    try {
      for (const event of this.#decoder.end()) this.#deliver(event);
    } finally {
      // The input ends even when delivering its unterminated last line threw.
      if (this.oninputend !== undefined) this.oninputend();
      else void this.close();
    }
  }

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
    // A broken pipe on stdout means the client is gone.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') void this.close();
  };

  /**
   * Hands one line to the session. Returns whether it may have started work that answers later: a request, a batch,
   * or a response (to a request of this server, whose handler then goes on).
   */
  #deliver(event: NdjsonEvent): boolean {
    if (event.kind === 'line') {
      const inbound = parseMessage(event.text, this.#parseOptions);
      this.onmessage?.(inbound);
      return inbound.kind !== 'notification' && inbound.kind !== 'invalid';
    }
    this.#logger.warn(`Refused a stdin line longer than ${this.#maxLineBytes} bytes`);
    // The id of an oversized message cannot be read without buffering it: answer with id null (JSON-RPC 2.0 §5).
    this.send({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: message exceeds the limit of ${this.#maxLineBytes} bytes` },
    }).catch(() => {});
    return false;
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    if (this.#closed) return Promise.reject(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, 'Connection closed: stdio transport is closed'));
    // One write per message, as it is made: the client starts on an answer while the next ones are made. Answers
    // of a turn glued into one write (first at once, the rest at process.nextTick) made the two processes take
    // turns at 16 requests in flight on a machine where a write costs a wake-up: 0.52-0.62x the floor's req/s
    // (which writes each answer) against 0.73-0.83x written one by one, for the same CPU per request (bench/).
    this.#write(encodeNdjson(message));
    this.#sent = (this.#sent + 1) | 0;
    return this.#drain ?? RESOLVED;
  }

  #write(text: string): void {
    // Backpressure: while the pipe is full, sends resolve only once it drains, so a fast producer waits, and
    // stdin is paused (#pump), so a client that does not read cannot make answers pile up here.
    if (!this.#stdout.write(text) && this.#drain === undefined) {
      this.#drain = new Promise((resolve) =>
        this.#stdout.once('drain', () => {
          this.#drain = undefined;
          resolve();
          this.#scheduleResume();
        }),
      );
    }
  }

  /**
   * Resolves once everything sent so far has left the process: stdout's buffer is empty (handed to the OS), or
   * stdout failed or was destroyed (then what was left is lost). Never rejects. With no reader, it never
   * resolves: {@link serveStdio} bounds the wait with `drainTimeoutMs`.
   */
  whenFlushed(): Promise<void> {
    const stdout = this.#stdout;
    // The transport's own 'error' listener is gone once it is closed, and a failed write emits 'error' after its
    // callback ran: without a listener that stays, a client closing its end now (EPIPE) would crash the process.
    if (!stdout.listeners('error').includes(ignoreError)) stdout.on('error', ignoreError);
    if (stdout.writableLength === 0 || stdout.destroyed || stdout.writableFinished) return RESOLVED;
    return new Promise((resolve) => {
      const done = (): void => {
        stdout.off('error', done);
        stdout.off('close', done);
        resolve();
      };
      stdout.on('error', done);
      stdout.once('close', done);
      try {
        // Writes complete in order: the callback of an empty write runs once everything before it is written.
        stdout.write('', done);
      } catch {
        done();
      }
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#events = NO_EVENTS;
    this.#nextEvent = 0;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('error', this.#onError);
    this.#stdout.off('error', this.#onError);
    this.#stdin.pause();
    this.onclose?.();
    return Promise.resolve();
  }
}
