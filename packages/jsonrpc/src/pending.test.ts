/**
 * The pending table's rules for requests given up on: the bounded set of recently abandoned ids (a late response is
 * expected, dropped with a debug line, never a warning) and `cancelOnAbandon: false` (no cancel notification).
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
