import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import type { HandlerContext } from './handlerContext.js';
import { JsonRpcError, JsonRpcLocalError } from './errors.js';
import { createMemoryTransportPair } from './memory.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './pending.js';
import { Peer } from './peer.js';
import type { PeerOptions } from './peerOptions.js';
import { captureLogger, scriptedTransport } from './testing.js';
import type { JsonRpcId } from './message.js';

const cancelled = (id: JsonRpcId, reason: string) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/cancelled',
  params: { requestId: id, reason },
});

async function client(options: Partial<PeerOptions<unknown>> = {}) {
  const transport = scriptedTransport();
  const logger = captureLogger();
  const peer = new Peer({ transport, logger, cancelNotification: cancelled, ...options });
  await peer.start();
  const respond = (text: string) => transport.deliver(parseMessage(text));
  return { transport, logger, peer, respond };
}

async function settled<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function localCode(error: unknown): string | undefined {
  return error instanceof JsonRpcLocalError ? error.code : undefined;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.useRealTimers();
});

describe('Peer (outbound requests)', () => {
  it('Peer sends requests with fresh incrementing ids and resolves with the result', async () => {
    const { transport, peer, respond } = await client();
    const a = peer.request('a');
    const b = peer.request('b', { x: 1 });
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'a' },
      { jsonrpc: '2.0', id: 1, method: 'b', params: { x: 1 } },
    ]);
    expect(peer.pendingCount).toBe(2);
    respond('{"jsonrpc":"2.0","id":1,"result":"B"}');
    respond('{"jsonrpc":"2.0","id":0,"result":null}');
    await expect(a).resolves.toBeNull();
    await expect(b).resolves.toBe('B');
    expect(peer.pendingCount).toBe(0);
  });

  it('Peer rejects with JsonRpcError built from an error response', async () => {
    const { peer, respond } = await client();
    const pending = settled(peer.request('m'));
    respond('{"jsonrpc":"2.0","id":0,"error":{"code":-32001,"message":"Custom: x","data":{"k":1}}}');
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: JsonRpcError }).error;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect([error.code, error.message, error.data]).toEqual([-32001, 'Custom: x', { k: 1 }]);
  });

  it('Peer logs and drops a response with an unknown id, never replies, never crashes', async () => {
    const { transport, peer, respond, logger } = await client();
    respond('{"jsonrpc":"2.0","id":"never-sent","result":19}');
    respond('{"jsonrpc":"2.0","id":42,"error":{"code":1,"message":"x"}}');
    expect(transport.sent).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(2);
    expect(peer.closed).toBe(false);
  });

  it('Peer does not coerce ids: response id "0" does not settle request 0 (B02)', async () => {
    vi.useFakeTimers();
    const { peer, respond, logger } = await client();
    const pending = settled(peer.request('ping', undefined, { timeoutMs: 1000 }));
    respond('{"jsonrpc":"2.0","id":"0","result":{}}');
    expect(peer.pendingCount).toBe(1);
    expect(logger.lines.some((line) => line.level === 'warn' && line.fields?.['id'] === '0')).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    const outcome = await pending;
    expect(localCode(!outcome.ok && outcome.error)).toBe('request_timeout');
  });

  it('Peer times out a request with request_timeout and sends the cancel notification', async () => {
    vi.useFakeTimers();
    const { transport, peer } = await client();
    const pending = settled(peer.request('slow', undefined, { timeoutMs: 500 }));
    await vi.advanceTimersByTimeAsync(499);
    expect(peer.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await pending;
    expect(localCode(!outcome.ok && outcome.error)).toBe('request_timeout');
    expect((outcome as { error: Error }).error.message).toBe('Request timed out: "slow" got no response within 500 ms');
    expect(transport.sent[1]).toEqual(cancelled(0, 'Request timed out'));
    expect(peer.pendingCount).toBe(0);
  });

  it('Peer uses a 60 s default timeout', async () => {
    vi.useFakeTimers();
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(60_000);
    const { peer } = await client();
    const pending = settled(peer.request('slow'));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(peer.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(localCode(((await pending) as { error: unknown }).error)).toBe('request_timeout');
  });

  it('Peer drops a late response after a timeout quietly (debug), and a second one as an unknown id (warn)', async () => {
    vi.useFakeTimers();
    const { peer, respond, logger } = await client();
    const pending = settled(peer.request('slow', undefined, { timeoutMs: 10 }));
    await vi.advanceTimersByTimeAsync(10);
    respond('{"jsonrpc":"2.0","id":0,"result":1}');
    expect(localCode(((await pending) as { error: unknown }).error)).toBe('request_timeout');
    expect(logger.lines.map((line) => [line.level, line.message])).toEqual([['debug', 'Late response to an abandoned request: dropped']]);
    respond('{"jsonrpc":"2.0","id":0,"result":1}');
    expect(logger.lines.at(-1)).toMatchObject({ level: 'warn', message: 'Response with an unknown id: dropped' });
  });

  it('Peer rejects with request_aborted when the signal aborts, and sends the cancel notification', async () => {
    const { transport, peer } = await client();
    const controller = new AbortController();
    const pending = settled(peer.request('m', undefined, { signal: controller.signal }));
    controller.abort('user pressed stop');
    const outcome = await pending;
    expect(localCode(!outcome.ok && outcome.error)).toBe('request_aborted');
    expect((outcome as { error: Error }).error.cause).toBe('user pressed stop');
    expect(transport.sent[1]).toEqual(cancelled(0, 'Request aborted'));
    expect(peer.pendingCount).toBe(0);
  });

  it('Peer rejects at once and sends nothing for an already-aborted signal', async () => {
    const { transport, peer } = await client();
    const outcome = await settled(peer.request('m', undefined, { signal: AbortSignal.abort() }));
    expect(localCode(!outcome.ok && outcome.error)).toBe('request_aborted');
    expect(transport.sent).toEqual([]);
  });

  it('Peer sends no cancel notification when cancelNotification returns undefined or is absent', async () => {
    const { transport, peer } = await client({ cancelNotification: undefined });
    const controller = new AbortController();
    const pending = settled(peer.request('m', undefined, { signal: controller.signal }));
    controller.abort();
    await pending;
    expect(transport.sent).toHaveLength(1);
  });

  it('Peer rejects with send_failed when the transport cannot send', async () => {
    const { transport, peer } = await client();
    const failure = new Error('EPIPE');
    transport.failSends = failure;
    const outcome = await settled(peer.request('m'));
    expect(localCode(!outcome.ok && outcome.error)).toBe('send_failed');
    expect((outcome as { error: Error }).error.cause).toBe(failure);
    expect(peer.pendingCount).toBe(0);
    await expect(peer.notify('n')).rejects.toMatchObject({ code: 'send_failed' });
  });

  it('Peer rejects every pending request with connection_closed on close, fires onclose once, and refuses new work', async () => {
    const { transport, peer } = await client();
    let closes = 0;
    peer.onclose = () => closes++;
    const pending = [settled(peer.request('a')), settled(peer.request('b'))];
    await peer.close();
    await peer.close();
    transport.onclose?.();
    for (const outcome of await Promise.all(pending)) expect(localCode(!outcome.ok && outcome.error)).toBe('connection_closed');
    expect(closes).toBe(1);
    expect(peer.closed).toBe(true);
    await expect(peer.request('c')).rejects.toMatchObject({ code: 'connection_closed' });
    await expect(peer.notify('n')).rejects.toMatchObject({ code: 'connection_closed' });
  });

  it('Peer rejects pending requests with connection_closed when the transport closes from the other side', async () => {
    const { transport, peer } = await client();
    const pending = settled(peer.request('a'));
    await transport.close();
    expect(localCode(((await pending) as { error: unknown }).error)).toBe('connection_closed');
  });

  it('Peer routes progress by token without coercion and reports unknown tokens', async () => {
    const { peer, respond } = await client();
    const seen: unknown[] = [];
    const pending = peer.request('m', undefined, { progressToken: 7, onprogress: (p) => seen.push(p) });
    expect(peer.reportProgress('7', { progress: 0 })).toBe(false);
    expect(peer.reportProgress(7, { progress: 1 })).toBe(true);
    expect(peer.reportProgress(7, { progress: 2 })).toBe(true);
    respond('{"jsonrpc":"2.0","id":0,"result":"done"}');
    await pending;
    expect(seen).toEqual([{ progress: 1 }, { progress: 2 }]);
    expect(peer.reportProgress(7, { progress: 3 })).toBe(false);
  });

  it('Peer restarts the timeout on progress when resetTimeoutOnProgress is set', async () => {
    vi.useFakeTimers();
    const { peer, respond } = await client();
    const pending = settled(peer.request('m', undefined, { timeoutMs: 100, resetTimeoutOnProgress: true, progressToken: 'p' }));
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(90);
      expect(peer.reportProgress('p', i)).toBe(true);
    }
    expect(peer.pendingCount).toBe(1); // 450 ms later, still pending
    respond('{"jsonrpc":"2.0","id":0,"result":"ok"}');
    expect(await pending).toEqual({ ok: true, value: 'ok' });
  });

  it('Peer does not restart the timeout on progress without resetTimeoutOnProgress', async () => {
    vi.useFakeTimers();
    const { peer } = await client();
    const pending = settled(peer.request('m', undefined, { timeoutMs: 100, progressToken: 'p' }));
    await vi.advanceTimersByTimeAsync(90);
    peer.reportProgress('p', 1);
    await vi.advanceTimersByTimeAsync(10);
    expect(localCode(((await pending) as { error: unknown }).error)).toBe('request_timeout');
  });

  it('Peer enforces maxTotalTimeoutMs even while progress keeps resetting the timeout', async () => {
    vi.useFakeTimers();
    const { transport, peer } = await client();
    const pending = settled(
      peer.request('m', undefined, { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 250, progressToken: 'p' }),
    );
    await vi.advanceTimersByTimeAsync(90);
    peer.reportProgress('p', 1);
    await vi.advanceTimersByTimeAsync(90);
    peer.reportProgress('p', 2);
    expect(peer.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(70);
    const outcome = await pending;
    expect(localCode(!outcome.ok && outcome.error)).toBe('request_timeout');
    expect((outcome as { error: Error }).error.message).toContain('within 250 ms');
    expect(transport.sent[1]).toEqual(cancelled(0, 'Request timed out'));
  });

  it('Peer refuses a negative timeout with RangeError', async () => {
    const { peer } = await client();
    await expect(peer.request('m', undefined, { timeoutMs: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(peer.request('m', undefined, { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(RangeError);
  });

  it('Peer fails the pending request on a malformed response and never answers it', async () => {
    const { transport, peer, respond } = await client();
    const pending = settled(peer.request('m'));
    respond('{"jsonrpc":"2.0","id":0,"result":1,"error":{"code":-32603,"message":"x"}}');
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: JsonRpcError }).error.code).toBe(-32600);
    expect(transport.sent).toHaveLength(1);
  });

  it('Peer passes relatedRequestId to the transport', async () => {
    const { transport, peer } = await client();
    void peer.request('m', undefined, { relatedRequestId: 'r1' }).catch(() => undefined);
    await peer.notify('n', undefined, { relatedRequestId: 'r2' });
    expect(transport.sendOptions).toEqual([{ relatedRequestId: 'r1' }, { relatedRequestId: 'r2' }]);
    await peer.close();
  });
});

describe('Peer (inbound)', () => {
  it('Peer answers inbound requests through the dispatcher with the context factory', async () => {
    const dispatcher = new Dispatcher<{ auth: unknown }>();
    dispatcher.register('whoami', (_params, ctx) => ({ auth: ctx.auth, id: ctx.id }));
    const transport = scriptedTransport();
    const seen: unknown[] = [];
    const peer = new Peer({
      transport,
      dispatcher,
      context: (message, extra) => {
        seen.push(message.method);
        return { auth: extra?.authInfo };
      },
    });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":"q","method":"whoami"}'), { authInfo: 'token-1' });
    await tick();
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 'q', result: { auth: 'token-1', id: 'q' } }]);
    expect(transport.sendOptions).toEqual([{ relatedRequestId: 'q' }]);
    expect(seen).toEqual(['whoami']);
  });

  it('a reply the transport refuses as "connection_closed" (any class with that code) is not replaced by -32603', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('x', () => 1);
    const transport = scriptedTransport();
    const logger = captureLogger();
    const peer = new Peer({ transport, dispatcher, logger });
    await peer.start();
    // How another package's transport says it is closed, e.g. the MCP client's ConnectionClosedError.
    transport.failSends = Object.assign(new Error('Connection closed'), { code: 'connection_closed' });
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"x"}'));
    await tick();
    await tick();
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([['warn', 'Response not sent: connection closed']]);
    transport.failSends = new TypeError('Do not know how to serialize a BigInt');
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":2,"method":"x"}'));
    await tick();
    await tick();
    expect(logger.lines.slice(1).map((l) => l.message)).toEqual(['Response could not be sent: sending -32603 instead', 'Fallback error response could not be sent']);
  });

  it('a batch reply with one member JSON cannot carry: that member alone is -32603, the others keep their answers (a real memory transport)', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('ok', () => 1);
    dispatcher.register('big', () => 10n);
    const [serverSide, clientSide] = createMemoryTransportPair();
    const server = new Peer({ transport: serverSide, dispatcher, logger: captureLogger() });
    const received: unknown[] = [];
    clientSide.onmessage = (inbound) => void received.push(inbound.kind === 'batch' ? inbound.items.map((item) => ('message' in item ? item.message : item)) : inbound);
    await Promise.all([server.start(), clientSide.start()]);
    await clientSide.send([
      { jsonrpc: '2.0', id: 1, method: 'ok' },
      { jsonrpc: '2.0', id: 2, method: 'big' },
    ]);
    for (let i = 0; i < 20 && received.length === 0; i++) await tick();
    expect(received).toEqual([[
      { jsonrpc: '2.0', id: 1, result: 1 },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
    ]]);
    await server.close();
  });

  it('Peer without a dispatcher answers inbound requests with -32601 and ignores notifications', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"x"}'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","method":"y"}'));
    await tick();
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: "x"' } }]);
  });

  it('Peer answers an invalid inbound message with its reply', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport });
    await peer.start();
    transport.deliver(parseMessage('{oops'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":4,"method":7}'));
    await tick();
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Invalid Request: "method" must be a string' } },
    ]);
  });

  it('Peer answers an inbound batch with one array, routes responses inside it, and sends nothing for notifications only', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('double', (params) => (params as number[])[0]! * 2);
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    const mine = peer.request('x');
    transport.deliver(
      parseMessage(
        '[{"jsonrpc":"2.0","id":1,"method":"double","params":[2]},{"jsonrpc":"2.0","method":"double","params":[1]},3,{"jsonrpc":"2.0","id":0,"result":"yours"},{"jsonrpc":"2.0","id":2,"method":"double","params":[5]}]',
      ),
    );
    await expect(mine).resolves.toBe('yours');
    await tick();
    expect(transport.sent.slice(1)).toEqual([
      [
        { jsonrpc: '2.0', id: 1, result: 4 },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } },
        { jsonrpc: '2.0', id: 2, result: 10 },
      ],
    ]);
    transport.deliver(parseMessage('[{"jsonrpc":"2.0","method":"double","params":[1]}]'));
    await tick();
    expect(transport.sent).toHaveLength(2);
  });

  it('Peer refuses an inbound batch over the dispatcher limit with one -32600', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher: new Dispatcher({ maxBatchSize: 2 }) });
    await peer.start();
    transport.deliver(parseMessage('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","id":3,"method":"a"}]'));
    await tick();
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batch of 3 messages exceeds the limit of 2' } },
    ]);
  });

  it('Peer cancelInbound aborts the handler signal and suppresses its response', async () => {
    const dispatcher = new Dispatcher();
    let signal: AbortSignal | undefined;
    let finish: (() => void) | undefined;
    dispatcher.register('long', (_params, ctx: HandlerContext) => {
      signal = ctx.signal;
      return new Promise<string>((resolve) => {
        finish = () => resolve('too late');
      });
    });
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":0,"method":"long"}'));
    expect(peer.cancelInbound('0')).toBe(false); // no coercion
    expect(peer.cancelInbound(0, 'client cancelled')).toBe(true);
    expect(signal!.aborted).toBe(true);
    expect((signal!.reason as JsonRpcLocalError).code).toBe('request_aborted');
    finish!();
    await tick();
    expect(transport.sent).toEqual([]);
    expect(peer.cancelInbound(0)).toBe(false);
    expect(peer.inboundCount).toBe(0);
  });

  it('Peer whenIdle resolves after the last inbound answer was sent, on cancellation, and on close', async () => {
    const dispatcher = new Dispatcher();
    const finishers: (() => void)[] = [];
    dispatcher.register('long', () => new Promise<string>((resolve) => finishers.push(() => resolve('done'))));
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    let idle = false;
    await peer.whenIdle(); // nothing in flight: at once
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"long"}'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":2,"method":"long"}'));
    void peer.whenIdle().then(() => {
      idle = true;
    });
    finishers[0]!();
    await tick();
    expect(idle).toBe(false);
    finishers[1]!();
    await tick();
    expect(idle).toBe(true);
    expect(transport.sent.map((m) => (m as { id: number }).id)).toEqual([1, 2]);

    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":3,"method":"long"}'));
    const cancelled = peer.whenIdle();
    peer.cancelInbound(3);
    await cancelled;
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":4,"method":"long"}'));
    const closed = peer.whenIdle();
    await peer.close();
    await closed;
  });

  it('Peer cancelInbound on a finished request returns false (B36: a late cancel is harmless)', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('fast', () => 1);
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"fast"}'));
    await tick();
    expect(peer.cancelInbound(1)).toBe(false);
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: 1 }]);
  });

  it('Peer respects maxConcurrentInbound, queues the rest in arrival order, and lets notifications through', async () => {
    const dispatcher = new Dispatcher();
    let inFlight = 0;
    let maxInFlight = 0;
    const started: number[] = [];
    const release: (() => void)[] = [];
    dispatcher.register('work', (params) => {
      started.push((params as number[])[0]!);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      return new Promise<void>((resolve) => {
        release.push(() => {
          inFlight--;
          resolve();
        });
      });
    });
    let notified = 0;
    dispatcher.register('note', () => {
      notified++;
    });
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher, maxConcurrentInbound: 3 });
    await peer.start();
    for (let i = 0; i < 10; i++) transport.deliver(parseMessage(`{"jsonrpc":"2.0","id":${i},"method":"work","params":[${i}]}`));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","method":"note"}'));
    expect(notified).toBe(1);
    expect(peer.inboundCount).toBe(10);
    // A queued request can be cancelled before it starts: it never runs and is never answered.
    expect(peer.cancelInbound(5)).toBe(true);
    while (transport.sent.length < 9) {
      await tick();
      release.shift()?.();
    }
    expect(maxInFlight).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9]);
    expect((transport.sent as { id: number }[]).map((m) => m.id).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9]);
  });

  it('Peer asks the transport to pause input while maxQueuedInbound requests wait for a slot (here 1), and to resume once half of them got one', async () => {
    const dispatcher = new Dispatcher();
    const release = new Map<number, () => void>();
    dispatcher.register('work', (params) => new Promise<number>((resolve) => release.set((params as number[])[0]!, () => resolve((params as number[])[0]!))));
    const pauses: boolean[] = [];
    const transport = Object.assign(scriptedTransport(), { pauseInput: (paused: boolean) => pauses.push(paused) });
    const peer = new Peer({ transport, dispatcher, maxConcurrentInbound: 2, maxQueuedInbound: 1 });
    await peer.start();
    const work = (i: number) => transport.deliver(parseMessage(`{"jsonrpc":"2.0","id":${i},"method":"work","params":[${i}]}`));
    work(1);
    work(2);
    expect(pauses).toEqual([]); // both slots taken, nothing waits
    work(3);
    expect(pauses).toEqual([true]);
    work(4); // a transport may deliver a little more (the rest of a read): no second call
    expect(pauses).toEqual([true]);
    release.get(1)!();
    await tick();
    expect(pauses).toEqual([true]); // 3 runs, 4 still waits
    release.get(2)!();
    await tick();
    expect(pauses).toEqual([true, false]); // 4 runs: nothing waits
    // A waiting request that is cancelled stops holding input back at once, with every slot still busy.
    work(5);
    expect(pauses).toEqual([true, false, true]);
    expect(peer.cancelInbound(5)).toBe(true);
    expect(pauses).toEqual([true, false, true, false]);
    release.get(3)!();
    release.get(4)!();
    await tick();
    expect((transport.sent as { id: number }[]).map((m) => m.id)).toEqual([1, 2, 3, 4]);
  });

  it('Peer keeps reading behind a modest backlog (a cancellation still gets through) and pauses only at maxQueuedInbound', async () => {
    const dispatcher = new Dispatcher();
    const release = new Map<number, () => void>();
    dispatcher.register('work', (params, ctx) => new Promise<number>((resolve, reject) => {
      const id = (params as number[])[0]!;
      release.set(id, () => resolve(id));
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
    }));
    const pauses: boolean[] = [];
    const transport = Object.assign(scriptedTransport(), { pauseInput: (paused: boolean) => pauses.push(paused) });
    const peer = new Peer({ transport, dispatcher, maxConcurrentInbound: 1, maxQueuedInbound: 4 });
    await peer.start();
    const work = (i: number) => transport.deliver(parseMessage(`{"jsonrpc":"2.0","id":${i},"method":"work","params":[${i}]}`));
    for (let i = 1; i <= 4; i++) work(i); // 1 runs, 2-4 wait: under the limit
    expect(pauses).toEqual([]);
    expect(peer.cancelInbound(1)).toBe(true); // the running one is cancelled: a slot frees
    await tick();
    work(5);
    work(6); // 2 runs; 3, 4, 5, 6 wait: the limit
    expect(pauses).toEqual([true]);
    release.get(2)!();
    await tick();
    expect(pauses).toEqual([true]); // 3 waiting: more than half
    release.get(3)!();
    await tick();
    expect(pauses).toEqual([true, false]); // 2 waiting: half got a slot
    expect(() => new Peer({ transport: scriptedTransport(), maxQueuedInbound: 0 })).toThrow(RangeError);
  });

  it('Peer aborts every inbound handler signal on close and sends no response afterwards', async () => {
    const dispatcher = new Dispatcher();
    const signals: AbortSignal[] = [];
    dispatcher.register('hang', (_params, ctx) => {
      signals.push(ctx.signal);
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted')));
    });
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher, maxConcurrentInbound: 1 });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"hang"}'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":2,"method":"hang"}'));
    await peer.close();
    await tick();
    expect(signals).toHaveLength(1); // the queued one never started
    expect(signals[0]!.aborted).toBe(true);
    expect((signals[0]!.reason as JsonRpcLocalError).code).toBe('connection_closed');
    expect(transport.sent).toEqual([]);
  });

  it('Peer replaces a response the transport cannot serialize with -32603 for the same id', async () => {
    const dispatcher = new Dispatcher();
    // The handler builds the deep value itself (inbound text that deep is refused by parseJson's depth cap).
    dispatcher.register('deep', () => {
      let value: unknown[] = [];
      for (let i = 0; i < 20_000; i++) value = [value];
      return value;
    });
    const logger = captureLogger();
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher, logger });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"deep"}'));
    await tick();
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }]);
    expect(logger.lines.some((line) => line.level === 'error')).toBe(true);
  });

  it('Peer sendResponse sends a pre-built response with its routing hint', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport });
    await peer.sendResponse({ jsonrpc: '2.0', id: 3, result: {} });
    await peer.sendResponse({ jsonrpc: '2.0', id: 4, result: {} }, 'other');
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 4, result: {} },
    ]);
    expect(transport.sendOptions).toEqual([{ relatedRequestId: 3 }, { relatedRequestId: 'other' }]);
    await peer.close();
    await expect(peer.sendResponse({ jsonrpc: '2.0', id: 5, result: {} })).rejects.toMatchObject({ code: 'connection_closed' });
  });

  it('Peer rejects an invalid maxConcurrentInbound', () => {
    expect(() => new Peer({ transport: scriptedTransport(), maxConcurrentInbound: 0 })).toThrow(RangeError);
  });
});

describe('Peer over a memory transport pair', () => {
  async function pair() {
    const [left, right] = createMemoryTransportPair();
    const serverDispatcher = new Dispatcher<{ peer: () => Peer }>();
    const clientDispatcher = new Dispatcher();
    const server: Peer<{ peer: () => Peer }> = new Peer({ transport: left, dispatcher: serverDispatcher, context: () => ({ peer: () => server as Peer }) });
    const clientPeer = new Peer({ transport: right, dispatcher: clientDispatcher });
    await Promise.all([server.start(), clientPeer.start()]);
    return { server, client: clientPeer, serverDispatcher, clientDispatcher };
  }

  it('two Peers over a memory pair make requests in both directions', async () => {
    const { server, client: c, serverDispatcher, clientDispatcher } = await pair();
    serverDispatcher.register('add', (params) => (params as number[]).reduce((a, b) => a + b, 0));
    clientDispatcher.register('roots/list', () => ({ roots: ['file:///tmp'] }));
    // A server handler that calls back into the client while handling the request.
    serverDispatcher.register('ask', async (_params, ctx) => ctx.peer().request('roots/list', undefined, { relatedRequestId: ctx.id! }));
    await expect(c.request('add', [1, 2, 3])).resolves.toBe(6);
    await expect(server.request('roots/list')).resolves.toEqual({ roots: ['file:///tmp'] });
    await expect(c.request('ask')).resolves.toEqual({ roots: ['file:///tmp'] });
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => c.request('add', [i, i])));
    expect(many).toEqual(Array.from({ length: 50 }, (_, i) => 2 * i));
    await expect(c.request('missing')).rejects.toMatchObject({ code: -32601 });
  });

  it('closing one side during pending requests rejects them with connection_closed on both sides', async () => {
    const { server, client: c, serverDispatcher, clientDispatcher } = await pair();
    serverDispatcher.register('hang', () => new Promise(() => {}));
    clientDispatcher.register('hang', () => new Promise(() => {}));
    const closes: string[] = [];
    server.onclose = () => closes.push('server');
    c.onclose = () => closes.push('client');
    const fromClient = settled(c.request('hang'));
    const fromServer = settled(server.request('hang'));
    await tick();
    await server.close();
    expect(localCode(((await fromClient) as { error: unknown }).error)).toBe('connection_closed');
    expect(localCode(((await fromServer) as { error: unknown }).error)).toBe('connection_closed');
    expect(closes.sort()).toEqual(['client', 'server']);
    await c.close();
    expect(closes).toHaveLength(2);
  });

  it('progress sent as notifications over the pair is routed to the pending request', async () => {
    const { server, client: c, serverDispatcher, clientDispatcher } = await pair();
    clientDispatcher.register('notifications/progress', (params) => {
      const { progressToken, progress } = params as { progressToken: string; progress: number };
      c.reportProgress(progressToken, progress);
    });
    serverDispatcher.register('job', async (params) => {
      const token = (params as { _meta: { progressToken: string } })._meta.progressToken;
      for (let i = 1; i <= 3; i++) await server.notify('notifications/progress', { progressToken: token, progress: i });
      return 'done';
    });
    const seen: unknown[] = [];
    await expect(c.request('job', { _meta: { progressToken: 'tok' } }, { progressToken: 'tok', onprogress: (p) => seen.push(p) })).resolves.toBe('done');
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('Peer inbound ordering', () => {
  it('Peer answers a synchronous handler before dispatching the next message of the same chunk', async () => {
    vi.useRealTimers();
    const t = scriptedTransport();
    const dispatcher = new Dispatcher();
    dispatcher.register('first', () => 'one');
    dispatcher.register('second', async () => {
      await peer.notify('note');
      return 'two';
    });
    const peer = new Peer({ transport: t, dispatcher });
    await peer.start();
    // Two messages handed over back to back, as a decoder does with one stdin chunk.
    t.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"first"}'));
    t.deliver(parseMessage('{"jsonrpc":"2.0","id":2,"method":"second"}'));
    await new Promise((r) => setTimeout(r, 20));
    expect(t.sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'one' },
      { jsonrpc: '2.0', method: 'note' },
      { jsonrpc: '2.0', id: 2, result: 'two' },
    ]);
  });

  it('Peer runs a long queue of synchronous requests without deep recursion', async () => {
    vi.useRealTimers();
    const t = scriptedTransport();
    const dispatcher = new Dispatcher();
    let running = 0;
    dispatcher.register('slow', () => {
      running++;
      return new Promise((r) =>
        setTimeout(() => {
          running--;
          r('x');
        }, 5),
      );
    });
    dispatcher.register('sync', () => 'ok');
    const peer = new Peer({ transport: t, dispatcher, maxConcurrentInbound: 1 });
    await peer.start();
    t.deliver(parseMessage('{"jsonrpc":"2.0","id":"blocker","method":"slow"}'));
    for (let i = 0; i < 20_000; i++) t.deliver(parseMessage(`{"jsonrpc":"2.0","id":${i},"method":"sync"}`));
    await new Promise((r) => setTimeout(r, 100));
    expect(running).toBe(0);
    expect(t.sent.filter((m) => (m as { result?: unknown }).result === 'ok')).toHaveLength(20_000);
  });
});
