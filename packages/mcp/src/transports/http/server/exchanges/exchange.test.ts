/**
 * An exchange's stream and whoever watches it for the client leaving (a stateless exchange, which cancels its
 * request then): told while the stream is open, forgotten once it is done, so a finished stream keeps nothing of
 * its exchange alive (the request's body and answer; see `ModernExchange.clientLeft`).
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { OutStream } from './exchange.js';
import { ModernExchangeHost } from './modernExchange.js';

const host = new ModernExchangeHost({ logger: silentLogger, maxSseBufferBytes: 1 << 20, maxSseBufferBytesTotal: 1 << 22, keepAliveMs: 0, sseAfterMs: 50 });

/** An adaptive stream that became SSE, watched by a recorder of `clientLeft` calls. */
function watchedStream(): { stream: OutStream; left: string[] } {
  const stream = new OutStream(host, 'adaptive');
  stream.upgrade();
  const left: string[] = [];
  stream.watcher = { clientLeft: () => left.push('left') };
  return { stream, left };
}

describe('OutStream.watcher', () => {
  it('is told once when the client leaves the stream before it is done', () => {
    const { stream, left } = watchedStream();
    const channel = stream.channel;
    expect(channel).toBeDefined();
    channel?.detach();
    channel?.detach();
    expect(left).toEqual(['left']);
    expect(stream.cut).toBe(true);
  });

  it('is dropped when the stream completes: a finished stream holds nothing of its exchange', () => {
    const { stream, left } = watchedStream();
    stream.complete();
    expect(stream.watcher).toBeUndefined();
    expect(left).toEqual([]);
  });

  it('is dropped when the owner aborts the stream', () => {
    const { stream, left } = watchedStream();
    stream.abort();
    expect(stream.watcher).toBeUndefined();
    expect(left).toEqual([]);
  });
});
