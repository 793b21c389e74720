import { describe, expect, it } from 'vitest';
import { JsonRpcLocalError } from './errors.js';
import { createMemoryTransportPair } from './memory.js';
import type { Inbound } from './classify.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createMemoryTransportPair', () => {
  it('createMemoryTransportPair delivers asynchronously, in order, classified', async () => {
    const [a, b] = createMemoryTransportPair();
    const received: Inbound[] = [];
    b.onmessage = (message) => received.push(message);
    await Promise.all([a.start(), b.start()]);
    const sends = [
      a.send({ jsonrpc: '2.0', id: 1, method: 'm' }),
      a.send({ jsonrpc: '2.0', method: 'n' }),
      a.send([{ jsonrpc: '2.0', id: 2, result: 1 }]),
    ];
    expect(received).toEqual([]); // not synchronous
    await Promise.all(sends);
    await tick();
    expect(received.map((message) => message.kind)).toEqual(['request', 'notification', 'batch']);
  });

  it('createMemoryTransportPair delivers a copy, not the sent object', async () => {
    const [a, b] = createMemoryTransportPair();
    const received: Inbound[] = [];
    b.onmessage = (message) => received.push(message);
    await Promise.all([a.start(), b.start()]);
    const params = { list: [1] };
    await a.send({ jsonrpc: '2.0', id: 1, method: 'm', params });
    params.list.push(2);
    await tick();
    const first = received[0]!;
    expect(first.kind === 'request' && first.message.params).toEqual({ list: [1] });
  });

  it('createMemoryTransportPair holds messages until the receiver starts', async () => {
    const [a, b] = createMemoryTransportPair();
    const received: Inbound[] = [];
    b.onmessage = (message) => received.push(message);
    await a.start();
    await a.send({ jsonrpc: '2.0', method: 'early' });
    await tick();
    expect(received).toEqual([]);
    await b.start();
    await tick();
    expect(received).toHaveLength(1);
  });

  it('createMemoryTransportPair closes both ends, fires onclose once each, after delivering what was sent', async () => {
    const [a, b] = createMemoryTransportPair();
    const events: string[] = [];
    a.onclose = () => events.push('a closed');
    b.onclose = () => events.push('b closed');
    b.onmessage = () => events.push('b received');
    await Promise.all([a.start(), b.start()]);
    await a.send({ jsonrpc: '2.0', method: 'last' });
    await a.close();
    await b.close();
    await a.close();
    expect(events).toEqual(['b received', 'a closed', 'b closed']);
  });

  it('createMemoryTransportPair rejects sends after close with connection_closed on both ends', async () => {
    const [a, b] = createMemoryTransportPair();
    await Promise.all([a.start(), b.start()]);
    await b.close();
    for (const end of [a, b]) {
      const error = await end.send({ jsonrpc: '2.0', method: 'x' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(JsonRpcLocalError);
      expect((error as JsonRpcLocalError).code).toBe('connection_closed');
    }
  });

  it('createMemoryTransportPair rejects a message that cannot be serialized', async () => {
    const [a, b] = createMemoryTransportPair();
    await Promise.all([a.start(), b.start()]);
    await expect(a.send({ jsonrpc: '2.0', id: 1, result: 1n })).rejects.toBeInstanceOf(TypeError);
  });
});
