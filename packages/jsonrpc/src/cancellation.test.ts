import { describe, expect, it } from 'vitest';
import { CancellationSource, cancellationOf, signalOf, type Cancellation } from './cancellation.js';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import type { ContextRequest } from './handlerContext.js';
import type { JsonRpcLocalError } from './errors.js';
import { Peer } from './peer.js';
import { scriptedTransport } from './testing.js';

const cancelled = (id: unknown, reason: string) => ({ jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: id, reason } });

describe('CancellationSource', () => {
  it('cancels once: listeners in the order added, each once, a throwing one does not stop the next; a removed one is not called', () => {
    const source = new CancellationSource();
    const heard: string[] = [];
    const a = (reason: unknown): void => void heard.push(`a:${String(reason)}`);
    const b = (): void => {
      throw new Error('b fails');
    };
    const c = (reason: unknown): void => void heard.push(`c:${String(reason)}`);
    const d = (): void => void heard.push('d');
    source.onCancel(a);
    source.onCancel(a);
    source.onCancel(b);
    source.onCancel(c);
    source.onCancel(d);
    source.offCancel(d);
    expect([source.cancelled, source.reason]).toEqual([false, undefined]);
    source.cancel('stop');
    source.cancel('again');
    expect([source.cancelled, source.reason, heard]).toEqual([true, 'stop', ['a:stop', 'c:stop']]);
    source.onCancel(a);
    expect(heard).toHaveLength(2);
  });

  it('a listener removed by an earlier one while the cancel runs them is not called (as with an AbortSignal); many added and removed leave none', () => {
    const source = new CancellationSource();
    const heard: string[] = [];
    const later = (): void => void heard.push('later');
    source.onCancel(() => {
      heard.push('first');
      source.offCancel(later);
    });
    source.onCancel(() => heard.push('second'));
    source.onCancel(later);
    for (let i = 0; i < 1000; i++) {
      const listener = (): void => void heard.push('removed');
      source.onCancel(listener);
      source.offCancel(listener);
    }
    source.cancel();
    expect(heard).toEqual(['first', 'second']);
  });

  it('removing the first listener keeps the others; the default reason is an AbortError', () => {
    const source = new CancellationSource();
    const heard: unknown[] = [];
    const first = (): void => void heard.push('first');
    source.onCancel(first);
    source.onCancel((reason) => heard.push(reason));
    source.offCancel(first);
    source.cancel();
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeInstanceOf(DOMException);
    expect((heard[0] as DOMException).name).toBe('AbortError');
  });

  it('its signal is made on first read: one made before the cancel aborts with it, one made after is already aborted, same reason', () => {
    const early = new CancellationSource();
    const signal = early.signal;
    expect(signal.aborted).toBe(false);
    expect(early.signal).toBe(signal);
    let heard: unknown;
    signal.addEventListener('abort', () => (heard = signal.reason));
    early.cancel('closed');
    expect(heard).toBe('closed');
    const late = new CancellationSource();
    late.cancel();
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(late.reason);
    expect((late.reason as DOMException).name).toBe('AbortError');
  });

  it('signalOf aborts with the reason (at once when already cancelled); cancellationOf hears a signal', () => {
    const source = new CancellationSource();
    const signal = signalOf(source);
    expect(signal.aborted).toBe(false);
    source.cancel('why');
    expect([signal.aborted, signal.reason]).toEqual([true, 'why']);
    expect(signalOf(source).reason).toBe('why');

    const controller = new AbortController();
    const heard: unknown[] = [];
    const view: Cancellation = cancellationOf(controller.signal);
    const removed = (): void => void heard.push('removed');
    view.onCancel((reason) => heard.push(reason));
    view.onCancel(removed);
    view.offCancel(removed);
    controller.abort('gone');
    expect([view.cancelled, view.reason, heard]).toEqual([true, 'gone', ['gone']]);
  });
});

describe('a Peer request given a cancellation', () => {
  it('rejects with request_aborted (cause: the reason) and sends the cancel notification; one already cancelled sends nothing', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport, cancelNotification: cancelled });
    await peer.start();
    const source = new CancellationSource();
    const pending = peer.request('m', undefined, { cancellation: source }).catch((error: unknown) => error);
    source.cancel('user pressed stop');
    const error = (await pending) as JsonRpcLocalError;
    expect([error.code, error.cause]).toEqual(['request_aborted', 'user pressed stop']);
    expect(transport.sent[1]).toEqual(cancelled(0, 'Request aborted'));
    const before = transport.sent.length;
    const late = await peer.request('m', undefined, { cancellation: source }).catch((e: unknown) => e);
    expect((late as JsonRpcLocalError).code).toBe('request_aborted');
    expect(transport.sent).toHaveLength(before);
  });

  it('a request answered leaves no listener on its cancellation: cancelling later changes nothing', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport, cancelNotification: cancelled });
    await peer.start();
    const source = new CancellationSource();
    const answered = peer.request('m', undefined, { cancellation: source });
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":0,"result":7}'));
    expect(await answered).toBe(7);
    source.cancel('late');
    expect(transport.sent).toHaveLength(1);
  });
});

describe('an inbound request has a cancellation, made when first read', () => {
  async function serve() {
    const requests: ContextRequest[] = [];
    const dispatcher = new Dispatcher<unknown>({
      createContext: (ctx, request) => {
        requests.push(request);
        return { id: request.id, method: request.method, get signal() { return request.signal; } };
      },
    });
    dispatcher.register('long', () => new Promise(() => {}));
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    return { peer, transport, requests };
  }

  it('cancelInbound cancels it with the same reason its signal gets, listeners first registered or not', async () => {
    const { peer, transport, requests } = await serve();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":0,"method":"long"}'));
    const cancellation = requests[0]?.cancellation as Cancellation;
    const heard: unknown[] = [];
    cancellation.onCancel((reason) => heard.push(reason));
    expect(cancellation.cancelled).toBe(false);
    peer.cancelInbound(0, 'client cancelled');
    expect(cancellation.cancelled).toBe(true);
    expect((heard[0] as JsonRpcLocalError).code).toBe('request_aborted');
    expect(requests[0]?.signal.reason).toBe(heard[0]);
    cancellation.onCancel(() => heard.push('after'));
    expect(heard).toHaveLength(1);
  });

  it('closing the connection cancels every request in flight (connection_closed)', async () => {
    const { peer, transport, requests } = await serve();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"long"}'));
    const heard: unknown[] = [];
    requests[0]?.cancellation?.onCancel((reason) => heard.push(reason));
    await peer.close();
    expect((heard[0] as JsonRpcLocalError).code).toBe('connection_closed');
  });
});
