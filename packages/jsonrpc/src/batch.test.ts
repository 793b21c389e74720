import { describe, expect, it } from 'vitest';
import { batchTooLarge, runBatch, type BatchMember, type BatchSlot } from './batch.js';
import { classifyValue, parseMessage, type InboundSingle } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import type { JsonRpcResponse } from './message.js';
import { Peer } from './peer.js';
import { scriptedTransport } from './testing.js';

function members(values: unknown[]): readonly InboundSingle[] {
  const inbound = classifyValue(values);
  if (inbound.kind !== 'batch') throw new Error('not a batch');
  return inbound.items;
}

describe('batch engine', () => {
  it('batchTooLarge builds the one refusal: -32600, id null, the size and the limit', () => {
    expect(batchTooLarge(3, 2)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: batch of 3 messages exceeds the limit of 2' },
    });
  });

  it('runBatch refuses an oversized batch whole without handing any member over', () => {
    const seen: BatchMember[] = [];
    let reply: unknown;
    runBatch(members([{ jsonrpc: '2.0', id: 1, method: 'a' }, { jsonrpc: '2.0', id: 2, method: 'b' }]), {
      maxBatchSize: 1,
      member: (item) => seen.push(item),
      done: (value) => (reply = value),
    });
    expect(seen).toEqual([]);
    expect(reply).toEqual(batchTooLarge(2, 1));
  });

  it('runBatch keeps input order whatever order members settle in, with invalid members answered in place', () => {
    const slots: BatchSlot[] = [];
    const replies: (JsonRpcResponse | JsonRpcResponse[] | undefined)[] = [];
    runBatch(members([{ jsonrpc: '2.0', id: 1, method: 'a' }, 5, { jsonrpc: '2.0', id: 2, method: 'b' }]), {
      maxBatchSize: 10,
      member: (_item, slot) => slots.push(slot),
      done: (value) => replies.push(value),
    });
    expect(replies).toEqual([]);
    slots[1]!.settle({ jsonrpc: '2.0', id: 2, result: 'b' });
    expect(replies).toEqual([]);
    slots[0]!.settle({ jsonrpc: '2.0', id: 1, result: 'a' });
    expect(replies).toEqual([
      [
        { jsonrpc: '2.0', id: 1, result: 'a' },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } },
        { jsonrpc: '2.0', id: 2, result: 'b' },
      ],
    ]);
  });

  it('runBatch answers a batch of notifications and responses with nothing, synchronously', () => {
    const replies: unknown[] = [];
    runBatch(members([{ jsonrpc: '2.0', method: 'n' }, { jsonrpc: '2.0', id: 4, result: 1 }]), {
      maxBatchSize: 10,
      member: (_item, slot) => slot.settle(undefined),
      done: (value) => replies.push(value),
    });
    expect(replies).toEqual([undefined]);
  });

  it('the Dispatcher and the Peer refuse an oversized batch with the same message', async () => {
    const dispatcher = new Dispatcher({ maxBatchSize: 2 });
    dispatcher.register('m', () => 1);
    const text = '[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":2,"method":"m"},{"jsonrpc":"2.0","id":3,"method":"m"}]';
    const viaDispatcher = await dispatcher.handle(parseMessage(text), undefined);
    const transport = scriptedTransport();
    const peer = new Peer({ transport, dispatcher });
    await peer.start();
    transport.deliver(parseMessage(text));
    expect(viaDispatcher).toEqual(batchTooLarge(3, 2));
    expect(transport.sent).toEqual([batchTooLarge(3, 2)]);
  });

  it('the Dispatcher waits for a batch member notification before it answers the batch, as before', async () => {
    const dispatcher = new Dispatcher();
    const order: string[] = [];
    dispatcher.register('slow', () => new Promise<void>((resolve) => setTimeout(() => (order.push('notification done'), resolve()), 5)));
    dispatcher.register('m', () => 1);
    const reply = await dispatcher.handle(parseMessage('[{"jsonrpc":"2.0","method":"slow"},{"jsonrpc":"2.0","id":1,"method":"m"}]'), undefined);
    order.push('replied');
    expect(order).toEqual(['notification done', 'replied']);
    expect(reply).toEqual([{ jsonrpc: '2.0', id: 1, result: 1 }]);
  });
});
