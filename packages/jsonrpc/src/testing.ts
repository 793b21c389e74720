/**
 * Test helpers (not part of the public entry point): a capturing logger and a scripted transport.
 */
import type { Logger } from './logger.js';
import type { Inbound } from './classify.js';
import type { Transport, TransportMessageExtra, TransportSendOptions } from './transport.js';
import type { JsonRpcMessage } from './message.js';

/** One line recorded by {@link captureLogger}. */
export interface CapturedLogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** A {@link Logger} that records every line in `lines`. */
export function captureLogger(): Logger & { readonly lines: CapturedLogLine[] } {
  const lines: CapturedLogLine[] = [];
  const at =
    (level: CapturedLogLine['level']) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A transport driven by a test: see {@link scriptedTransport}. */
export interface ScriptedTransport extends Transport {
  /** Every message passed to `send`, JSON round-tripped, in order. */
  readonly sent: unknown[];
  /** The options passed with each send, index-aligned with `sent`. */
  readonly sendOptions: (TransportSendOptions | undefined)[];
  /** Delivers an inbound message to `onmessage` synchronously. */
  deliver(inbound: Inbound, extra?: TransportMessageExtra): void;
  /** When set, the next sends reject with this error. */
  failSends: Error | undefined;
  /** Whether `close()` was called or the transport closed. */
  readonly closed: boolean;
}

/**
 * A scripted transport: records what is sent (after a JSON round trip, so unserializable messages reject the
 * send like a real transport) and lets the test inject inbound messages with `deliver`.
 */
export function scriptedTransport(): ScriptedTransport {
  let closed = false;
  const transport: ScriptedTransport = {
    sent: [],
    sendOptions: [],
    failSends: undefined,
    get closed() {
      return closed;
    },
    start: () => Promise.resolve(),
    send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: TransportSendOptions): Promise<void> {
      if (transport.failSends !== undefined) return Promise.reject(transport.failSends);
      try {
        transport.sent.push(JSON.parse(JSON.stringify(message)));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      transport.sendOptions.push(options);
      return Promise.resolve();
    },
    close(): Promise<void> {
      if (!closed) {
        closed = true;
        transport.onclose?.();
      }
      return Promise.resolve();
    },
    deliver(inbound: Inbound, extra?: TransportMessageExtra): void {
      transport.onmessage?.(inbound, extra);
    },
  };
  return transport;
}
