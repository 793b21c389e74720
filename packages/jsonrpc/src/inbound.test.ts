import { describe, expect, it } from 'vitest';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import type { ContextRequest, HandlerContext } from './handlerContext.js';
import type { JsonRpcId } from './message.js';
import { Peer } from './peer.js';
import { scriptedTransport } from './testing.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function setup(maxConcurrentInbound = 4) {
  const transport = scriptedTransport();
  const cancelledIds: JsonRpcId[] = [];
  transport.requestCancelled = (id) => cancelledIds.push(id);
  const dispatcher = new Dispatcher<unknown>();
  dispatcher.register('now', () => 'done');
  dispatcher.register('wait', (_params, ctx: HandlerContext) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)));
  const peer = new Peer({ transport, dispatcher, maxConcurrentInbound });
  await peer.start();
  const deliver = (text: string) => transport.deliver(parseMessage(text));
  return { transport, peer, deliver, cancelledIds };
}

describe('Transport.requestCancelled', () => {
  it('is called once per cancelled inbound request, running or queued, and no response is sent for it', async () => {
    const { peer, deliver, cancelledIds, transport } = await setup(1);
    deliver('{"jsonrpc":"2.0","id":1,"method":"wait"}');
    deliver('{"jsonrpc":"2.0","id":"q","method":"wait"}');
    expect(peer.cancelInbound(1)).toBe(true);
    expect(peer.cancelInbound(1)).toBe(false);
    await tick();
    expect(peer.cancelInbound('q')).toBe(true);
    await tick();
    expect(cancelledIds).toEqual([1, 'q']);
    expect(transport.sent).toEqual([]);
  });

  it('is never called for a request that already answered, an unknown id, or on close', async () => {
    const { peer, deliver, cancelledIds, transport } = await setup();
    deliver('{"jsonrpc":"2.0","id":7,"method":"now"}');
    expect(peer.cancelInbound(7)).toBe(false);
    expect(peer.cancelInbound(8)).toBe(false);
    deliver('{"jsonrpc":"2.0","id":9,"method":"wait"}');
    await peer.close();
    expect(cancelledIds).toEqual([]);
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 7, result: 'done' }]);
  });
});

describe('ContextRequest', () => {
  it('hands createContext the id, the method and a signal that is aborted on cancellation', async () => {
    const seen: ContextRequest[] = [];
    const dispatcher = new Dispatcher<unknown>({
      createContext: (_ctx, request) => {
        seen.push(request);
        return { id: request.id, method: request.method, get signal() { return request.signal; } };
      },
    });
    dispatcher.register('wait', (_params, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason))));
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":"r","method":"wait"}'));
    expect(seen.map((request) => [request.id, request.method])).toEqual([['r', 'wait']]);
    peer.cancelInbound('r', 'user stop');
    expect(seen[0]!.signal.aborted).toBe(true);
    expect((seen[0]!.signal.reason as Error).message).toBe('Request cancelled: user stop');
  });

  it('a request cancelled before its handler reads the signal gets one already aborted', async () => {
    let request: ContextRequest | undefined;
    const dispatcher = new Dispatcher<unknown>({
      createContext: (_ctx, r) => {
        request = r;
        return { id: r.id, method: r.method, signal: new AbortController().signal };
      },
    });
    dispatcher.register('wait', () => new Promise(() => {}));
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"wait"}'));
    peer.cancelInbound(1);
    expect(request!.signal.aborted).toBe(true);
  });

  it('Dispatcher.dispatch without a signal gives createContext the message id and method and a signal that never aborts', async () => {
    const seen: [JsonRpcId | undefined, string, boolean][] = [];
    const dispatcher = new Dispatcher<unknown>({
      createContext: (_ctx, r) => {
        seen.push([r.id, r.method, r.signal.aborted]);
        return { id: r.id, method: r.method, signal: r.signal };
      },
    });
    dispatcher.register('m', () => 1);
    await dispatcher.dispatch({ jsonrpc: '2.0', id: 3, method: 'm' }, undefined);
    await dispatcher.dispatch({ jsonrpc: '2.0', method: 'm' }, undefined);
    expect(seen).toEqual([
      [3, 'm', false],
      [undefined, 'm', false],
    ]);
  });
});

describe('a request id still in flight', () => {
  // MCP 2025-11-25 basic/index.mdx "Requests": an id is not reused within a session. Each request gets one answer:
  // the duplicate -32600 with its id, the first its result; once answered (or cancelled), the id is free again.
  const refused = { code: -32600, message: 'Invalid Request: this request id is already in flight on this session' };

  it('is refused with -32600 and that id, running or queued, while the first runs on', async () => {
    const { peer, deliver, transport } = await setup(1);
    deliver('{"jsonrpc":"2.0","id":1,"method":"wait"}');
    deliver('{"jsonrpc":"2.0","id":"q","method":"wait"}');
    deliver('{"jsonrpc":"2.0","id":1,"method":"now"}');
    deliver('{"jsonrpc":"2.0","id":"q","method":"now"}');
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: refused }, { jsonrpc: '2.0', id: 'q', error: refused }]);
    expect(peer.inboundCount).toBe(2);
    // Ids are never coerced: "1" is not 1. Cancelled, 1 and q are free again.
    expect(peer.cancelInbound(1)).toBe(true);
    expect(peer.cancelInbound('q')).toBe(true);
    await tick();
    deliver('{"jsonrpc":"2.0","id":"1","method":"now"}');
    deliver('{"jsonrpc":"2.0","id":1,"method":"now"}');
    await tick();
    expect(transport.sent.slice(2)).toEqual([{ jsonrpc: '2.0', id: '1', result: 'done' }, { jsonrpc: '2.0', id: 1, result: 'done' }]);
    await peer.close();
  });

  it('inside one batch: the second member gets the refusal in the batch answer', async () => {
    const { deliver, transport, peer } = await setup();
    deliver('[{"jsonrpc":"2.0","id":5,"method":"now"},{"jsonrpc":"2.0","id":6,"method":"wait"},{"jsonrpc":"2.0","id":6,"method":"now"}]');
    expect(peer.cancelInbound(6)).toBe(true);
    await tick();
    expect(transport.sent).toEqual([[{ jsonrpc: '2.0', id: 5, result: 'done' }, { jsonrpc: '2.0', id: 6, error: refused }]]);
    await peer.close();
  });
});
