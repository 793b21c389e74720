import { describe, expect, it } from 'vitest';
import type { InboundSingle } from './classify.js';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import type { JsonRpcNotification } from './message.js';
import { Peer } from './peer.js';
import { captureLogger, scriptedTransport } from './testing.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('Peer routing hooks (named hand-offs in place of wrapping the transport)', () => {
  it('batchRefusal answers a batch it refuses with its response, and none of the members is read', async () => {
    const ran: string[] = [];
    const dispatcher = new Dispatcher();
    dispatcher.register('a', () => ran.push('a'));
    dispatcher.register('n', () => void ran.push('n'));
    const judged: (readonly InboundSingle[])[] = [];
    const transport = scriptedTransport();
    const peer = new Peer({
      transport,
      dispatcher,
      batchRefusal: (items) => {
        judged.push(items);
        return items.length > 2 ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no batches here' } } : undefined;
      },
    });
    await peer.start();
    const mine = peer.request('x', undefined, { timeoutMs: 50 });
    transport.deliver(parseMessage('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":0,"result":"yours"}]'));
    await tick();
    expect(ran).toEqual([]);
    expect(transport.sent.slice(1)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no batches here' } }]);
    // The response inside the refused batch settled nothing: the request times out.
    await expect(mine).rejects.toMatchObject({ code: 'request_timeout' });
    // A batch it lets through runs as usual; a single message is never judged.
    transport.deliver(parseMessage('[{"jsonrpc":"2.0","id":2,"method":"a"}]'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":3,"method":"a"}'));
    await tick();
    expect(ran).toEqual(['a', 'a']);
    expect(judged).toHaveLength(2);
    expect(transport.sent.slice(-2)).toEqual([[{ jsonrpc: '2.0', id: 2, result: 1 }], { jsonrpc: '2.0', id: 3, result: 2 }]);
  });

  it('a batchRefusal that throws is logged and the batch runs', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('a', () => 'A');
    const transport = scriptedTransport();
    const logger = captureLogger();
    const peer = new Peer({ transport, dispatcher, logger, batchRefusal: () => { throw new Error('judge broke'); } });
    await peer.start();
    transport.deliver(parseMessage('[{"jsonrpc":"2.0","id":1,"method":"a"}]'));
    await tick();
    expect(transport.sent).toEqual([[{ jsonrpc: '2.0', id: 1, result: 'A' }]]);
    expect(logger.lines.some((e) => e.level === 'error' && e.message === 'batchRefusal failed')).toBe(true);
  });

  it('onNotification receives every notification (batch members too) in arrival order, and the dispatcher none', async () => {
    const dispatched: string[] = [];
    const dispatcher = new Dispatcher();
    dispatcher.register('n', () => void dispatched.push('n'));
    dispatcher.register('r', () => 'R');
    const routed: string[] = [];
    const transport = scriptedTransport();
    const logger = captureLogger();
    const peer = new Peer({
      transport,
      dispatcher,
      logger,
      onNotification: (notification: JsonRpcNotification) => {
        routed.push(`${notification.method}:${JSON.stringify(notification.params)}`);
        if (JSON.stringify(notification.params) === '{"boom":true}') throw new Error('listener broke');
      },
    });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","method":"n","params":[1]}'));
    transport.deliver(parseMessage('[{"jsonrpc":"2.0","method":"n","params":[2]},{"jsonrpc":"2.0","id":1,"method":"r"},{"jsonrpc":"2.0","method":"other","params":[3]}]'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","method":"n","params":{"boom":true}}'));
    transport.deliver(parseMessage('{"jsonrpc":"2.0","method":"n","params":[4]}'));
    await tick();
    expect(routed).toEqual(['n:[1]', 'n:[2]', 'other:[3]', 'n:{"boom":true}', 'n:[4]']);
    expect(dispatched).toEqual([]);
    expect(transport.sent).toEqual([[{ jsonrpc: '2.0', id: 1, result: 'R' }]]);
    expect(logger.lines.some((e) => e.level === 'error' && e.message === 'onNotification handler failed')).toBe(true);
  });
});
