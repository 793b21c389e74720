/**
 * The raw relay: a forwarded request written on the upstream session's channel as it is and its response read
 * back as it is, beside the upstream client rather than through it. The client stays the session's owner (it
 * negotiates, reconnects, answers the upstream's questions, hears its logs and list changes); the relay only sends
 * the front's `tools/call`, `resources/read` and `prompts/get` under ids of its own (a prefix no client id has) and
 * takes their responses and progress off the channel before the client sees them. What it saves per call is the
 * client's request machinery (its envelope copy, instrumentation, two timers, result checks): the hop then costs
 * the front's server work and the channel's, and little more.
 *
 * When: a session-based upstream (MCP 2025-11-25 basic/lifecycle.mdx: no per-request envelope to add) on a
 * channel whose initialization is done — the relay takes a channel once the client sent `notifications/initialized`
 * on it ("After successful initialization, the client MUST send an initialized notification to indicate it is
 * ready to begin normal operations"), and lets it go when it closes or a send on it fails (the client's next
 * request then reconnects, and the relay takes the new channel after its initialization). Never with client
 * instrumentation (its spans would miss the relayed calls). Otherwise requests go through the client.
 *
 * Kept as the client keeps them: the idle budget (`timeoutMs`, reset by progress) and the hard cap
 * (`maxTotalTimeoutMs`), checked by one timer for all relayed requests; cancellation (the front request's signal:
 * `notifications/cancelled` upstream, MCP 2025-11-25 basic/utilities/cancellation.mdx); progress (the request's id
 * is its progress token); an error answer as the client's typed error (`mcpErrorFromWire`). Not done: the client's
 * check of `structuredContent` against the tool's `outputSchema` (the upstream answers for its own results, and the
 * front lists its schema verbatim).
 */
import type { Inbound, InboundSingle, JsonRpcId, JsonRpcMessage, TransportMessageExtra, TransportSendOptions } from '@switchboard/jsonrpc';
import { mcpErrorFromWire, type ProgressParams } from '@switchboard/mcp';
import { ConnectionClosedError, RequestAbortedError, RequestTimeoutError, type ClientConnector, type ClientConnectorOpenOptions, type ClientTransport } from '@switchboard/mcp/client';

const PROGRESS = 'notifications/progress';
const INITIALIZED = 'notifications/initialized';
const ONCE = { once: true } as const;

/** How a relayed request is made: the signal that cancels it and its progress listener (forward.ts's `UpstreamOptions`). */
interface UpstreamOptions {
  readonly signal: AbortSignal;
  readonly onprogress: (progress: ProgressParams) => void;
}

/** One relayed request waiting for its response. */
interface Pending {
  readonly method: string;
  readonly transport: ClientTransport;
  readonly options: UpstreamOptions;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
  readonly startedAt: number;
  /** Its last sign of life (sent, or progress), in `performance.now()` ms. */
  lastAt: number;
}

/** A channel the relay may write on: its transport and that transport's own `send`. */
interface Channel {
  readonly transport: ClientTransport;
  readonly send: (message: JsonRpcMessage, options?: TransportSendOptions) => Promise<void>;
}

/** The relay of one upstream session; see the module comment. */
export class UpstreamRelay {
  readonly #prefix = `relay-${globalThis.crypto.randomUUID().slice(0, 8)}-`;
  readonly #pending = new Map<string, Pending>();
  readonly #timeoutMs: number;
  readonly #maxTotalMs: number;
  #channel: Channel | undefined;
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** @param budget the upstream client's `timeoutMs` and `maxTotalTimeoutMs` (its defaults when absent) */
  constructor(budget: { readonly timeoutMs: number; readonly maxTotalTimeoutMs: number }) {
    this.#timeoutMs = budget.timeoutMs;
    this.#maxTotalMs = budget.maxTotalTimeoutMs;
  }

  /** Whether a request can be relayed now (an initialized channel is open). */
  get usable(): boolean {
    return this.#channel !== undefined;
  }

  /** Relayed requests waiting now. */
  get size(): number {
    return this.#pending.size;
  }

  /** `connector` as the upstream client is given it: every channel it opens is watched by the relay. */
  wrap(connector: ClientConnector): ClientConnector {
    const openHttpSse = connector.openHttpSse?.bind(connector);
    return {
      kind: connector.kind,
      verdictKey: connector.verdictKey,
      open: async (options: ClientConnectorOpenOptions) => this.#watch(await connector.open(options)),
      ...(openHttpSse === undefined ? {} : { openHttpSse: async (options: ClientConnectorOpenOptions) => this.#watch(await openHttpSse(options)) }),
    };
  }

  /**
   * Sends `method` with `params` (the relay's to change: `_meta.progressToken` is set) on the current channel and
   * resolves with the response's `result` as received.
   * @throws (rejects) the upstream's error as `mcpErrorFromWire` makes it; RequestTimeoutError; RequestAbortedError;
   *   ConnectionClosedError (the channel ended, or a send failed)
   */
  request(method: string, params: Record<string, unknown>, options: UpstreamOptions): Promise<unknown> {
    const channel = this.#channel;
    const signal = options.signal;
    if (channel === undefined) return Promise.reject(new ConnectionClosedError({ what: 'no initialized channel' }));
    if (signal.aborted) return Promise.reject(new RequestAbortedError({ method, cause: signal.reason }));
    const id = `${this.#prefix}${this.#seq++}`;
    params._meta = { progressToken: id };
    const message: JsonRpcMessage = { jsonrpc: '2.0', id, method, params };
    return new Promise((resolve, reject) => {
      const now = performance.now();
      const onAbort = (): void => this.#abandon(id, new RequestAbortedError({ method, cause: signal.reason }));
      this.#pending.set(id, { method, transport: channel.transport, options, resolve, reject, onAbort, startedAt: now, lastAt: now });
      signal.addEventListener('abort', onAbort, ONCE);
      if (this.#timer === undefined) this.#timer = this.#arm(this.#timeoutMs);
      channel.send(message).catch((error: unknown) => {
        // This channel is not the relay's any more: the client's next request reconnects if it must.
        if (this.#channel === channel) this.#channel = undefined;
        this.#settle(id, undefined, new ConnectionClosedError({ what: 'the request could not be sent', cause: error }));
      });
    });
  }

  /** Watches one channel: its initialization, what it receives, and its end. */
  #watch(transport: ClientTransport): ClientTransport {
    const send = transport.send.bind(transport);
    const channel: Channel = { transport, send };
    // The client's own sends: after its `notifications/initialized` the channel is in normal operation.
    transport.send = (message, options) => {
      if (this.#channel !== channel && !Array.isArray(message) && (message as { method?: unknown }).method === INITIALIZED) {
        return send(message, options).then(() => {
          this.#channel = channel;
        });
      }
      return send(message, options);
    };
    let deliver = transport.onmessage;
    const receive = (inbound: Inbound, extra?: TransportMessageExtra): void => {
      const rest = this.#take(inbound);
      if (rest !== undefined) deliver?.(rest, extra);
    };
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () => receive,
      set: (next: typeof deliver) => {
        deliver = next;
      },
    });
    let lost = transport.onresponselost;
    const responseLost = (id: JsonRpcId, error: Error): void => {
      if (typeof id === 'string' && this.#pending.has(id)) this.#settle(id, undefined, error);
      else lost?.(id, error);
    };
    Object.defineProperty(transport, 'onresponselost', {
      configurable: true,
      enumerable: true,
      get: () => responseLost,
      set: (next: typeof lost) => {
        lost = next;
      },
    });
    // The end: chained before whatever was watching it (a gateway pool's watched connector is such a one). The
    // listener is the one set when the transport reads `onclose`: the HTTP transports read it, clear it, then call it.
    const inherited = transport.onclose;
    let listener: (() => void) | undefined;
    Object.defineProperty(transport, 'onclose', {
      configurable: true,
      enumerable: true,
      get: () => {
        const current = listener;
        return (): void => {
          try {
            current?.();
          } finally {
            this.#closed(transport);
            inherited?.();
          }
        };
      },
      set: (next: (() => void) | undefined) => {
        listener = next;
      },
    });
    return transport;
  }

  /** Takes the relay's own messages out of `inbound`; what is left for the client, if anything. */
  #take(inbound: Inbound): Inbound | undefined {
    if (inbound.kind !== 'batch') return this.#own(inbound) ? undefined : inbound;
    const items = inbound.items.filter((item) => !this.#own(item));
    return items.length === inbound.items.length ? inbound : items.length === 0 ? undefined : { kind: 'batch', items };
  }

  /** Handles `item` when it is a response to, or progress of, a relayed request. */
  #own(item: InboundSingle): boolean {
    if (item.kind === 'response') {
      const message = item.message;
      const id = message.id;
      if (typeof id !== 'string' || !id.startsWith(this.#prefix)) return false;
      if ('result' in message) this.#settle(id, message.result, undefined);
      else this.#settle(id, undefined, mcpErrorFromWire(message.error));
      return true;
    }
    if (item.kind === 'notification' && item.message.method === PROGRESS) {
      const params = item.message.params as ProgressParams | undefined;
      const token = params?.progressToken;
      if (typeof token !== 'string' || !token.startsWith(this.#prefix)) return false;
      const pending = this.#pending.get(token);
      if (pending !== undefined && typeof params?.progress === 'number') {
        pending.lastAt = performance.now();
        pending.options.onprogress(params);
      }
      return true;
    }
    return false;
  }

  #settle(id: string, result: unknown, error: unknown): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    pending.options.signal.removeEventListener('abort', pending.onAbort);
    if (error === undefined) pending.resolve(result);
    else pending.reject(error);
  }

  /** Gives up on a relayed request (aborted, or out of time) and tells the upstream. */
  #abandon(id: string, error: Error): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#settle(id, undefined, error);
    const transport = pending.transport;
    if (this.#channel?.transport !== transport || transport.abandonRequest?.(id) === true) return;
    // MCP 2025-11-25 basic/utilities/cancellation.mdx: "the party that sent the request ... MAY send a cancellation notification".
    void this.#channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: error.message } }).catch(() => {});
  }

  /** A channel ended: what was sent on it fails, and it is no longer the relay's. */
  #closed(transport: ClientTransport): void {
    if (this.#channel?.transport === transport) this.#channel = undefined;
    for (const [id, pending] of this.#pending) {
      if (pending.transport === transport) this.#settle(id, undefined, new ConnectionClosedError({ ...transport.endFacts }));
    }
  }

  /** One timer for every relayed request's budgets, re-armed for the next deadline while requests wait. */
  #arm(delayMs: number): ReturnType<typeof setTimeout> | undefined {
    if (!Number.isFinite(delayMs)) return undefined;
    const timer = setTimeout(() => this.#expire(), Math.max(1, Math.min(delayMs, 2_147_483_647)));
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    let next = Infinity;
    for (const [id, pending] of this.#pending) {
      const idle = pending.lastAt + this.#timeoutMs;
      const total = pending.startedAt + this.#maxTotalMs;
      if (now >= idle || now >= total) {
        this.#abandon(id, new RequestTimeoutError({ method: pending.method, timeoutMs: now >= total ? this.#maxTotalMs : this.#timeoutMs, total: now >= total }));
      } else next = Math.min(next, idle, total);
    }
    if (this.#pending.size > 0) this.#timer = this.#arm(next - now);
  }
}
