import { describe, expect, it } from 'vitest';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import type { HandlerContext } from './handlerContext.js';
import { JsonRpcError } from './errors.js';
import type { Instrumentation, RequestOutcome } from './instrument.js';
import { Peer } from './peer.js';
import type { PeerOptions } from './peerOptions.js';
import { captureLogger, scriptedTransport } from './testing.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Records every begin and end, and fails the test on a second end for one request. */
function recorder() {
  const events: string[] = [];
  const hook =
    (side: string) =>
    (info: { id: unknown; method: string }) => {
      events.push(`${side} begin ${String(info.id)} ${info.method}`);
      let ended = false;
      return (outcome: RequestOutcome) => {
        if (ended) throw new Error(`ended twice: ${side} ${String(info.id)}`);
        ended = true;
        events.push(`${side} end ${String(info.id)} ${JSON.stringify(outcome)}`);
      };
    };
  const instrumentation: Instrumentation = { onInboundRequest: hook('in'), onOutboundRequest: hook('out') };
  return { events, instrumentation };
}

async function setup(options: Partial<PeerOptions<unknown>> = {}) {
  const transport = scriptedTransport();
  const logger = captureLogger();
  const { events, instrumentation } = recorder();
  const dispatcher = new Dispatcher<unknown>();
  dispatcher.register('echo', (params) => params);
  dispatcher.register('refuse', () => {
    throw new JsonRpcError(-32001, 'refused');
  });
  dispatcher.register('crash', () => {
    throw new Error('boom');
  });
  dispatcher.register('wait', (_params, ctx: HandlerContext) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)));
  const peer = new Peer({ transport, logger, dispatcher, instrumentation, ...options });
  await peer.start();
  const deliver = (text: string) => transport.deliver(parseMessage(text));
  return { transport, logger, peer, events, deliver };
}

describe('Peer instrumentation', () => {
  it('sees each inbound request begin and end once: result, error response, crashed handler, unknown method', async () => {
    const { events, deliver, transport } = await setup();
    deliver('{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}');
    deliver('{"jsonrpc":"2.0","id":2,"method":"refuse"}');
    deliver('{"jsonrpc":"2.0","id":3,"method":"crash"}');
    deliver('{"jsonrpc":"2.0","id":4,"method":"missing"}');
    deliver('{"jsonrpc":"2.0","method":"echo"}');
    expect(events).toEqual([
      'in begin 1 echo',
      'in end 1 {"kind":"result"}',
      'in begin 2 refuse',
      'in end 2 {"kind":"error","code":-32001}',
      'in begin 3 crash',
      'in end 3 {"kind":"error","code":-32603}',
      'in begin 4 missing',
      'in end 4 {"kind":"error","code":-32601}',
    ]);
    expect(transport.sent).toHaveLength(4);
  });

  it('ends the synchronous fast path synchronously, before the next message is read', async () => {
    const { events, deliver } = await setup();
    deliver('{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}');
    expect(events).toEqual(['in begin 1 echo', 'in end 1 {"kind":"result"}']);
  });

  it('sees a cancelled inbound request end as cancelled once, and one abandoned by close as connection_closed', async () => {
    const { events, deliver, peer, transport } = await setup({ maxConcurrentInbound: 1 });
    deliver('{"jsonrpc":"2.0","id":"a","method":"wait"}');
    deliver('{"jsonrpc":"2.0","id":"b","method":"wait"}');
    deliver('{"jsonrpc":"2.0","id":"c","method":"wait"}');
    expect(peer.cancelInbound('a')).toBe(true);
    await tick();
    expect(peer.cancelInbound('c')).toBe(true);
    await peer.close();
    await tick();
    expect(events).toEqual([
      'in begin a wait',
      'in begin b wait',
      'in begin c wait',
      'in end a {"kind":"cancelled"}',
      'in end c {"kind":"cancelled"}',
      'in end b {"kind":"local","code":"connection_closed"}',
    ]);
    expect(transport.sent).toEqual([]);
  });

  it('sees a request whose context cannot be built end with -32603', async () => {
    const { events, deliver } = await setup({
      context: () => {
        throw new Error('no context');
      },
    });
    deliver('{"jsonrpc":"2.0","id":9,"method":"echo"}');
    expect(events).toEqual(['in begin 9 echo', 'in end 9 {"kind":"error","code":-32603}']);
  });

  it('sees batch members begin and end like single requests', async () => {
    const { events, deliver, transport } = await setup();
    deliver('[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":2,"method":"refuse"}]');
    expect(events).toEqual([
      'in begin 1 echo',
      'in end 1 {"kind":"result"}',
      'in begin 2 refuse',
      'in end 2 {"kind":"error","code":-32001}',
    ]);
    expect(transport.sent).toEqual([
      [
        { jsonrpc: '2.0', id: 1, result: null },
        { jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'refused' } },
      ],
    ]);
  });

  it('sees each outbound request end once: result, error, timeout, abort, send failure, close', async () => {
    const { events, deliver, peer, transport } = await setup();
    const ok = peer.request('one');
    const failed = peer.request('two');
    const timedOut = peer.request('three', undefined, { timeoutMs: 1 });
    const controller = new AbortController();
    const aborted = peer.request('four', undefined, { signal: controller.signal });
    deliver('{"jsonrpc":"2.0","id":0,"result":7}');
    deliver('{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"client refused"}}');
    deliver('{"jsonrpc":"2.0","id":0,"result":8}');
    await expect(ok).resolves.toBe(7);
    await expect(failed).rejects.toThrow('client refused');
    await expect(timedOut).rejects.toThrow('timed out');
    controller.abort();
    await expect(aborted).rejects.toThrow('aborted');
    transport.failSends = new Error('pipe broken');
    await expect(peer.request('five')).rejects.toThrow('Send failed');
    transport.failSends = undefined;
    const open = peer.request('six');
    await peer.close();
    await expect(open).rejects.toThrow('Connection closed');
    await expect(peer.request('seven')).rejects.toThrow('Connection closed');
    expect(events).toEqual([
      'out begin 0 one',
      'out begin 1 two',
      'out begin 2 three',
      'out begin 3 four',
      'out end 0 {"kind":"result"}',
      'out end 1 {"kind":"error","code":-32600}',
      'out end 2 {"kind":"timeout"}',
      'out end 3 {"kind":"cancelled"}',
      'out begin 4 five',
      'out end 4 {"kind":"local","code":"send_failed"}',
      'out begin 5 six',
      'out end 5 {"kind":"local","code":"connection_closed"}',
    ]);
  });

  it('a hook that throws is logged and the request goes on', async () => {
    const transport = scriptedTransport();
    const logger = captureLogger();
    const dispatcher = new Dispatcher<unknown>();
    dispatcher.register('echo', () => 1);
    const peer = new Peer({
      transport,
      logger,
      dispatcher,
      instrumentation: {
        onInboundRequest: () => () => {
          throw new Error('end failed');
        },
        onOutboundRequest: () => {
          throw new Error('begin failed');
        },
      },
    });
    await peer.start();
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":1,"method":"echo"}'));
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: 1 }]);
    const answer = peer.request('m');
    transport.deliver(parseMessage('{"jsonrpc":"2.0","id":0,"result":2}'));
    await expect(answer).resolves.toBe(2);
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'Instrumentation failed: request end',
      'Instrumentation failed: request begin',
    ]);
  });
});
