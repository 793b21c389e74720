/**
 * In-memory linked transport pair, for tests and in-process wiring.
 */
import { parseMessage } from './classify.js';
import { JsonRpcLocalError, LocalErrorCode } from './errors.js';
import type { Transport, TransportSendOptions } from './transport.js';
import type { JsonRpcMessage } from './message.js';

/** State shared by the two ends of a pair. */
interface Link {
  /** Set by the first `close()`: sends reject from then on. */
  closing: boolean;
  /** Set once `onclose` has fired on both ends. */
  closed: Promise<void> | undefined;
}

class MemoryTransport implements Transport {
  onmessage: Transport['onmessage'];
  onerror: Transport['onerror'];
  onclose: Transport['onclose'];

  other!: MemoryTransport;
  readonly #link: Link;
  #started = false;
  /** Messages (as JSON text) received before `start()`. */
  #backlog: string[] = [];

  constructor(link: Link) {
    this.#link = link;
  }

  start(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      const backlog = this.#backlog;
      this.#backlog = [];
      for (const text of backlog) queueMicrotask(() => this.#receive(text));
    }
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: TransportSendOptions): Promise<void> {
    if (this.#link.closing) {
      return Promise.reject(new JsonRpcLocalError(LocalErrorCode.ConnectionClosed, 'Connection closed: cannot send on a closed memory transport'));
    }
    let text: string | undefined;
    try {
      // The JSON round trip is the clone: the receiver never shares objects with the sender, and values that
      // cannot go on a real wire (BigInt, cycles, too deep) fail the send here.
      text = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (text === undefined) return Promise.reject(new TypeError('Cannot send message: the value has no JSON representation'));
    const receiver = this.other;
    const delivered = text;
    queueMicrotask(() => receiver.#accept(delivered));
    return Promise.resolve();
  }

  close(): Promise<void> {
    const link = this.#link;
    if (link.closed === undefined) {
      link.closing = true;
      // Closing is queued after the messages already sent, so they are still delivered (like a real pipe).
      link.closed = new Promise<void>((resolve) => {
        queueMicrotask(() => {
          // Let messages queued in the backlog-flush microtasks drain first.
          queueMicrotask(() => {
            this.#fireClose();
            this.other.#fireClose();
            resolve();
          });
        });
      });
    }
    return link.closed;
  }

  #closeFired = false;

  #fireClose(): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.#backlog = [];
    this.onclose?.();
  }

  #accept(text: string): void {
    if (this.#closeFired) return;
    if (this.#started) this.#receive(text);
    else this.#backlog.push(text);
  }

  #receive(text: string): void {
    if (this.#closeFired) return;
    const onmessage = this.onmessage;
    if (onmessage === undefined) return;
    try {
      onmessage(parseMessage(text));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/**
 * Two transports wired to each other: what one sends, the other receives (asynchronously via
 * `queueMicrotask`, in order, as a fresh copy classified by {@link parseMessage} after a JSON round trip).
 *
 * - Messages that arrive before the receiver's `start()` are held and delivered, in order, once it starts.
 * - `send` rejects with a `TypeError`/`RangeError` when the message cannot be serialized (as a real wire
 *   would), and with {@link JsonRpcLocalError} `connection_closed` once either end has been closed.
 * - `close()` on either end closes both; each end's `onclose` fires exactly once, after the messages already
 *   sent have been delivered. `close()` is idempotent and resolves once both `onclose` have fired.
 *
 * @returns The two ends; neither has been started.
 * @example
 * const [serverSide, clientSide] = createMemoryTransportPair();
 * const server = new Peer({ transport: serverSide, dispatcher });
 * const client = new Peer({ transport: clientSide });
 * await Promise.all([server.start(), client.start()]);
 */
export function createMemoryTransportPair(): [Transport, Transport] {
  const link: Link = { closing: false, closed: undefined };
  const a = new MemoryTransport(link);
  const b = new MemoryTransport(link);
  a.other = b;
  b.other = a;
  return [a, b];
}
