/**
 * Following an SSE stream of a Streamable HTTP client to its end, and past it: a POST's answer stream that ends
 * before the request's response, or the standalone GET stream, is reconnected with `GET` + `Last-Event-ID` after
 * the server's `retry` delay (or 1 s), with a bounded number of attempts that bring nothing new. The id sent is the
 * last one ever received on that stream, kept across reconnections that delivered nothing (field bug B34). A
 * 2026-07-28 stream is never resumed (resumption was removed; the request fails and may be sent again).
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery", "Sending Messages to the Server" item 6
 */
import { CancellationSource, echo, parseMessage, type Inbound, type JsonRpcId, type Logger, type TransportMessageExtra } from '@switchboard/jsonrpc';
import { ConnectionClosedError } from '../../../protocol/clientErrors.js';
import { fetchFailure, readSseBody, sleep, streamLost } from './clientHttp.js';
import { SseDecoder } from '../sse/sseDecoder.js';

/** When and how often a stream is reconnected. */
export interface ReconnectPolicy {
  /** Attempts in a row that bring nothing new before the stream is given up (`0`: never reconnect). */
  readonly maxAttempts: number;
  /** The wait (ms) when the server sent no `retry` field. */
  readonly initialDelayMs: number;
  /** The longest wait (ms): the wait doubles after each attempt that brought nothing. */
  readonly maxDelayMs: number;
}

/** One request in flight: its POST, the stream of its answer, and the promise `send` returned. */
export class Exchange {
  readonly id: JsonRpcId;
  readonly method: string;
  /** A 2026-07-28 request: closing its stream cancels it, and its stream is never resumed. */
  readonly modern: boolean;
  /**
   * Cancels the POST and every resumption of its stream: the direct request listens to it, and its signal is made
   * only if a `fetch` or a stream needs one.
   */
  readonly controller = new CancellationSource();
  /** Settles when the response was delivered (resolves) or cannot come (rejects). */
  readonly done: Promise<void>;
  answered = false;
  abandoned = false;
  #settled = false;
  #related: TransportMessageExtra | undefined = undefined;
  #resolve!: () => void;
  #reject!: (error: Error) => void;

  /**
   * The transport aborts {@link controller} when it closes (it keeps every live exchange): an exchange adds no
   * listener to a shared signal, so a thousand requests in flight are not a thousand listeners on one signal.
   */
  constructor(facts: { readonly id: JsonRpcId; readonly method: string; readonly modern: boolean }) {
    this.id = facts.id;
    this.method = facts.method;
    this.modern = facts.modern;
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** What a message of the server that came on this request's stream is delivered with: its relation to the request. */
  get related(): TransportMessageExtra {
    return (this.#related ??= { relatedRequestId: this.id });
  }

  /** The response was delivered. */
  answer(): void {
    this.answered = true;
    this.#settle(undefined);
  }

  /** The response cannot come (an abandoned request settles quietly: nobody waits for it any more). */
  fail(error: unknown): void {
    this.#settle(this.abandoned ? undefined : error instanceof Error ? error : new Error(String(error)));
  }

  /** The exchange is over; without a response this is a failure. */
  unanswered(): void {
    if (!this.answered) this.fail(new ConnectionClosedError({ what: 'the answer ended', reason: `no response for request "${this.method}"` }));
  }

  /** The client gave up on the request: the POST and its stream are closed. */
  abandon(): void {
    this.abandoned = true;
    this.controller.cancel();
    this.#settle(undefined);
  }

  #settle(error: Error | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    if (error === undefined) this.#resolve();
    else this.#reject(error);
  }
}

/** One stream the client follows: a POST's answer (`exchange` set) or the standalone GET stream. */
export class ResumableStream {
  /** Aborting stops the stream and its reconnection. */
  readonly controller: CancellationSource;
  readonly exchange: Exchange | undefined;
  /** The last event id ever received on this stream, `''` before the first one (B34: never reset). */
  lastEventId = '';
  /** The server's last `retry` (ms) on this stream. */
  retryMs: number | undefined;
  /** The connection being read came from a reconnection (it ends once the exchange is answered). */
  resumed = false;

  constructor(facts: { readonly controller: CancellationSource; readonly exchange: Exchange | undefined }) {
    this.controller = facts.controller;
    this.exchange = facts.exchange;
  }
}

/** What {@link followStream} needs from its transport. */
export interface StreamHost {
  readonly logger: Logger;
  readonly maxEventBytes: number;
  readonly policy: ReconnectPolicy;
  /**
   * Hands one inbound unit to the client (and marks the exchanges it answers); `exchange`: the request whose response
   * stream carried it, when it is one request's.
   */
  deliver(inbound: Inbound, exchange?: Exchange): void;
  /**
   * Resolves once the client has room for more of what the server sends (`undefined`: room now). A stream's reading
   * waits for it before each read, so a server that sends requests faster than the client answers them is held back
   * by the connection's flow control instead of queued in memory.
   */
  room(): Promise<void> | undefined;
  /** Opens (or reopens, with `Last-Event-ID`) the stream: a response to read, `'retry'` later, or `'stop'`. */
  get(stream: ResumableStream): Promise<Response | 'retry' | 'stop'>;
}

/** The shortest wait before an SSE stream is reconnected, whatever `retry` the server sent (ms). */
export const MIN_RECONNECT_DELAY_MS = 100;

/** Why the stream is not reconnected, or `undefined` when it is. */
function refusal(stream: ResumableStream, failures: number, policy: ReconnectPolicy): string | undefined {
  const exchange = stream.exchange;
  if (exchange?.modern === true) return 'a 2026-07-28 response stream is not resumable';
  if (exchange !== undefined && stream.lastEventId === '') return 'the stream carried no event id to resume from';
  if (policy.maxAttempts === 0) return 'reconnection is off';
  if (failures >= policy.maxAttempts) return `nothing new after ${failures} reconnection attempts`;
  return undefined;
}

/**
 * Reads one connection of the stream.
 * @returns Whether it brought something new (an event or a new event id), or `'done'` when the stream is over.
 */
async function readOnce(host: StreamHost, stream: ResumableStream, response: Response): Promise<boolean | 'done'> {
  const decoder = new SseDecoder();
  let progressed = false;
  const noteId = (id: string): void => {
    if (id !== '' && id !== stream.lastEventId) {
      stream.lastEventId = id;
      progressed = true;
    }
  };
  const end = await readSseBody(response, {
    decoder,
    maxEventBytes: host.maxEventBytes,
    signal: stream.controller.signal,
    room: () => host.room(),
    onEvent: (event) => {
      noteId(event.id);
      if (event.data === '') return undefined; // the priming event
      if (event.event !== 'message') {
        host.logger.debug('Ignored an SSE event that is not a message', { event: event.event });
        return undefined;
      }
      const inbound = parseMessage(event.data);
      if (inbound.kind === 'invalid') {
        host.logger.warn('Dropped an SSE event that is not JSON-RPC', { data: echo(event.data) });
        return undefined;
      }
      progressed = true;
      host.deliver(inbound, stream.exchange);
      return stream.resumed && stream.exchange?.answered === true ? true : undefined;
    },
    onFailure: (error) => host.logger.debug('An SSE stream was cut', { error: fetchFailure(error) }),
  });
  noteId(decoder.lastEventId);
  if (decoder.retryMs !== undefined) stream.retryMs = decoder.retryMs;
  if (end === 'aborted' || end === 'stopped') return 'done';
  if (end === 'too_large') {
    const error = streamLost(`an SSE event exceeded ${host.maxEventBytes} characters`);
    stream.controller.cancel();
    if (stream.exchange !== undefined) stream.exchange.fail(error);
    else host.logger.warn('The GET stream was dropped', { error: error.message });
    return 'done';
  }
  return progressed;
}

/**
 * Follows a stream until it is over: reads `first` (or opens the stream with `host.get` when it is `undefined`),
 * then reconnects while the policy allows and the exchange, if any, is unanswered. A request whose stream cannot
 * be followed further fails with {@link ConnectionClosedError} (or what `host.get` failed it with).
 */
export async function followStream(host: StreamHost, stream: ResumableStream, first: Response | undefined): Promise<void> {
  const signal = stream.controller.signal;
  let response = first;
  let failures = 0;
  let reconnecting = first !== undefined;
  for (;;) {
    if (signal.aborted) return;
    if (response === undefined) {
      if (reconnecting) {
        const why = refusal(stream, failures, host.policy);
        if (why !== undefined) {
          if (stream.exchange !== undefined) stream.exchange.fail(streamLost(why));
          else host.logger.warn('The GET stream ended', { reason: why });
          return;
        }
        // The server's `retry` is honoured within [MIN_RECONNECT_DELAY_MS, maxDelayMs]: `retry: 1` from a hostile or
        // broken server made hundreds of GETs a second, and a huge one overflowed the timer (fired after 1 ms).
        const base = Math.min(host.policy.maxDelayMs, Math.max(MIN_RECONNECT_DELAY_MS, stream.retryMs ?? host.policy.initialDelayMs));
        const delay = failures === 0 ? base : Math.min(host.policy.maxDelayMs, base * 2 ** failures);
        if (!(await sleep(delay, signal))) return;
      }
      const next = await host.get(stream);
      if (next === 'stop') return;
      if (next === 'retry') {
        failures++;
        reconnecting = true;
        continue;
      }
      stream.resumed = stream.exchange !== undefined;
      response = next;
    }
    const outcome = await readOnce(host, stream, response);
    response = undefined;
    reconnecting = true;
    if (outcome === 'done' || stream.exchange?.answered === true) return;
    failures = outcome ? 0 : failures + 1;
  }
}
