/**
 * The total of what open SSE streams hold for clients that have not read it, across every stream of a handler's
 * stateless (2026-07-28) exchanges: each stream is capped by `maxSseBufferBytes` on its own, and all of them
 * together by `maxSseBufferBytesTotal`, so a few hundred listen streams nobody reads cannot add up to the heap.
 * When the total is passed, the caller holding the most unsent bytes loses its stream with the largest backlog
 * (the one unread longest): the connection is dropped with what it held, as a stream past its own cap is. For a
 * listen stream that is the abrupt close of MCP 2026-07-28 basic/patterns/subscriptions.mdx (no listen result: the
 * client could not read one), after which the client listens again; for a request's stream it is the client going
 * away (MCP 2026-07-28 basic/transports/streamable-http.mdx "Cancellation").
 */
import { TransientMap } from '@switchboard/jsonrpc/internal';
import type { SseBudgetLink, SseChannel } from '../sse/sseChannel.js';

/** Default {@link McpHttpHandlerOptions.maxSseBufferBytesTotal}: 64 MiB. */
export const DEFAULT_MAX_SSE_BUFFER_BYTES_TOTAL = 64 * 1024 * 1024;

interface Held {
  readonly caller: string;
  bytes: number;
}

/** The shared budget of unsent SSE bytes (see the module comment). */
export class SseBufferBudget implements SseBudgetLink {
  readonly maxBytes: number;
  /**
   * Open streams and their backlog when last seen. A stateless request answered as a stream comes and goes here while
   * the budget lives as long as the endpoint: a `TransientMap` (see there).
   */
  readonly #held = new TransientMap<SseChannel, Held>();
  /** The sum of the backlogs last seen (an estimate between refreshes: a backlog only shrinks unseen). */
  #total = 0;

  /** @param maxBytes the total, in bytes */
  constructor(maxBytes: number = DEFAULT_MAX_SSE_BUFFER_BYTES_TOTAL) {
    this.maxBytes = maxBytes;
  }

  /** The unsent bytes of every open stream now (read fresh from each connection). */
  get bytes(): number {
    this.#refresh();
    return this.#total;
  }

  /** Open streams counted. */
  get streams(): number {
    return this.#held.size;
  }

  /** Counts `channel` (of caller `caller`, `''` when none is known) against the budget from now on. */
  track(channel: SseChannel, caller: string | undefined): void {
    if (!channel.open || this.#held.has(channel)) return;
    this.#held.set(channel, { caller: caller ?? '', bytes: 0 });
    channel.budget = this;
    this.update(channel);
  }

  update(channel: SseChannel): void {
    const held = this.#held.get(channel);
    if (held === undefined) return;
    const bytes = channel.buffered;
    this.#total += bytes - held.bytes;
    held.bytes = bytes;
    if (this.#total > this.maxBytes) this.#reclaim();
  }

  release(channel: SseChannel): void {
    const held = this.#held.get(channel);
    if (held === undefined) return;
    this.#held.delete(channel);
    this.#total -= held.bytes;
  }

  #refresh(): void {
    let total = 0;
    for (const [channel, held] of this.#held) {
      held.bytes = channel.buffered;
      total += held.bytes;
    }
    this.#total = total;
  }

  /** Over the total: drop the largest backlog of the caller holding most until the total fits. */
  #reclaim(): void {
    this.#refresh();
    while (this.#total > this.maxBytes) {
      const byCaller = new Map<string, number>();
      for (const held of this.#held.values()) byCaller.set(held.caller, (byCaller.get(held.caller) ?? 0) + held.bytes);
      let caller: string | undefined;
      let most = 0;
      for (const [key, bytes] of byCaller) {
        if (bytes > most) {
          most = bytes;
          caller = key;
        }
      }
      let victim: SseChannel | undefined;
      let largest = 0;
      for (const [channel, held] of this.#held) {
        if (held.caller === caller && held.bytes > largest) {
          largest = held.bytes;
          victim = channel;
        }
      }
      if (victim === undefined) return;
      // Dropping detaches the channel, which releases it here.
      this.release(victim);
      victim.drop();
    }
  }
}
