/**
 * The pending table's rules for requests given up on: the bounded set of recently abandoned ids (a late response is
 * expected, dropped with a debug line, never a warning) and `cancelOnAbandon: false` (no cancel notification); and
 * its one timeout timer shared by every request in flight.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMessage } from './classify.js';
import { ABANDONED_IDS_REMEMBERED } from './pending.js';
import { Peer } from './peer.js';
import { captureLogger, scriptedTransport } from './testing.js';

async function client() {
  const transport = scriptedTransport();
  const logger = captureLogger();
  const peer = new Peer({ transport, logger, cancelNotification: (id, reason) => ({ jsonrpc: '2.0', method: 'cancel', params: { id, reason } }) });
  await peer.start();
  const respond = (id: number | string) => transport.deliver(parseMessage(JSON.stringify({ jsonrpc: '2.0', id, result: 'late' })));
  return { transport, logger, peer, respond };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('abandoned requests', () => {
  it('a late response to an aborted request is dropped with a debug line; the cancel notification was sent', async () => {
    const { transport, logger, peer, respond } = await client();
    const controller = new AbortController();
    const pending = peer.request('m', undefined, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    await pending;
    respond(0);
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'm' },
      { jsonrpc: '2.0', method: 'cancel', params: { id: 0, reason: 'Request aborted' } },
    ]);
    expect(logger.lines.map((l) => [l.level, l.message, l.fields])).toEqual([['debug', 'Late response to an abandoned request: dropped', { id: 0 }]]);
  });

  it('ids are never coerced: "0" is not the abandoned request 0', async () => {
    const { logger, peer, respond } = await client();
    const controller = new AbortController();
    const pending = peer.request('m', undefined, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    await pending;
    respond('0');
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([['warn', 'Response with an unknown id: dropped']]);
  });

  it(`only the last ${ABANDONED_IDS_REMEMBERED} abandoned ids are remembered`, async () => {
    vi.useFakeTimers();
    const { logger, peer, respond } = await client();
    const all = Array.from({ length: ABANDONED_IDS_REMEMBERED + 1 }, () => peer.request('m', undefined, { timeoutMs: 5 }).catch((e: unknown) => e));
    await vi.advanceTimersByTimeAsync(5);
    await Promise.all(all);
    respond(0);
    respond(1);
    respond(ABANDONED_IDS_REMEMBERED);
    expect(logger.lines.map((l) => l.level)).toEqual(['warn', 'debug', 'debug']);
  });

  it('cancelOnAbandon: false gives up without the cancel notification', async () => {
    vi.useFakeTimers();
    const { transport, peer, respond, logger } = await client();
    const pending = peer.request('initialize', undefined, { timeoutMs: 10, cancelOnAbandon: false }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    expect(await pending).toMatchObject({ code: 'request_timeout' });
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 0, method: 'initialize' }]);
    respond(0);
    expect(logger.lines.map((l) => l.level)).toEqual(['debug']);
  });
});

describe('timeouts share one timer', () => {
  it('requests in flight hold one timer, not one or two each, and each still times out at its own deadline', async () => {
    vi.useFakeTimers();
    const { peer, respond } = await client();
    const long = Array.from({ length: 10 }, () => peer.request('m', undefined, { timeoutMs: 1000, maxTotalTimeoutMs: 5000, resetTimeoutOnProgress: true }).catch((e: unknown) => e));
    expect(vi.getTimerCount()).toBe(1);
    // A shorter deadline arriving later: the timer is moved earlier for it.
    const short = peer.request('m', undefined, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(vi.getTimerCount()).toBe(1);
    respond(0);
    await vi.advanceTimersByTimeAsync(99);
    expect(peer.pendingCount).toBe(10);
    await vi.advanceTimersByTimeAsync(1);
    expect(await short).toMatchObject({ code: 'request_timeout', message: 'Request timed out: "m" got no response within 100 ms' });
    expect(peer.pendingCount).toBe(9);
    await vi.advanceTimersByTimeAsync(899);
    expect(peer.pendingCount).toBe(9);
    await vi.advanceTimersByTimeAsync(1);
    const outcomes = await Promise.all(long);
    expect(outcomes[0]).toBe('late');
    expect(outcomes.slice(1)).toEqual(Array.from({ length: 9 }, () => expect.objectContaining({ code: 'request_timeout', message: 'Request timed out: "m" got no response within 1000 ms' })));
  });

  it('a deadline moved by progress is looked at again when the timer fires, and the total budget still ends it', async () => {
    vi.useFakeTimers();
    const { peer } = await client();
    const pending = peer.request('m', undefined, { timeoutMs: 100, maxTotalTimeoutMs: 1000, resetTimeoutOnProgress: true, progressToken: 't' }).catch((e: unknown) => e);
    for (let t = 0; t < 11; t++) {
      await vi.advanceTimersByTimeAsync(90);
      expect(peer.reportProgress('t', t)).toBe(true);
    }
    expect(peer.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(9);
    expect(peer.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject({ code: 'request_timeout', message: 'Request timed out: "m" got no response within 1000 ms' });
  });

  it('closing the connection stops the timer', async () => {
    vi.useFakeTimers();
    const { peer } = await client();
    const pending = peer.request('m', undefined, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(vi.getTimerCount()).toBe(1);
    await peer.close();
    expect(await pending).toMatchObject({ code: 'connection_closed' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
