/**
 * Field bugs from docs/field-bugs.md: JSON-RPC core (B05 B06 B07 B08 B09 B45) and stdio framing
 * (B11 B12 B13 B16 B17 B18), the framing ones at the decoder level and through a "decoder + parser +
 * dispatcher" (server) or "decoder + parser + Peer" (client) pipeline.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import { JsonRpcError, JsonRpcLocalError } from './errors.js';
import { NdjsonDecoder } from './ndjson.js';
import { Peer } from './peer.js';
import { captureLogger, scriptedTransport } from './testing.js';
import type { JsonRpcParams } from './message.js';

const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);
const raw = (...values: number[]): Uint8Array => Uint8Array.from(values);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

/** A server with the methods the field-bug inputs use. */
function server(): Dispatcher {
  const dispatcher = new Dispatcher();
  dispatcher.register('ping', () => ({}));
  dispatcher.register('initialize', (params) => ({ protocolVersion: (params as { protocolVersion: string }).protocolVersion }));
  dispatcher.register('notifications/initialized', () => undefined);
  dispatcher.register('tools/list', () => ({ tools: [] }));
  const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
  dispatcher.register('logging/setLevel', () => ({}), {
    validate: (params) => {
      const level = isObject(params) ? (params as { level?: unknown }).level : undefined;
      return ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].includes(level as string)
        ? undefined
        : `"level" must be a log level, got ${JSON.stringify(level)}`;
    },
  });
  dispatcher.register('tools/call', (params) => ({ content: [{ type: 'text', text: JSON.stringify((params as { arguments?: unknown }).arguments ?? {}) }] }), {
    validate: (params) => {
      if (!isObject(params) || typeof (params as { name?: unknown }).name !== 'string') return '"name" must be a string';
      const args = (params as { arguments?: unknown }).arguments;
      return args === undefined || isObject(args) ? undefined : '"arguments" must be an object';
    },
  });
  return dispatcher;
}

/** The stdio server pipeline: bytes → NdjsonDecoder → parseMessage → Dispatcher → parsed replies, in order. */
function stdioServer(options: { maxLineBytes?: number } = {}) {
  const dispatcher = server();
  const decoder = new NdjsonDecoder(options);
  const replies: unknown[] = [];
  const oversized: number[] = [];
  async function process(events: ReturnType<NdjsonDecoder['push']>): Promise<void> {
    for (const event of events) {
      if (event.kind === 'oversized') {
        oversized.push(event.bytes);
        continue;
      }
      const text = await dispatcher.handleText(event.text, undefined);
      if (text !== undefined) replies.push(JSON.parse(text));
    }
  }
  return {
    replies,
    oversized,
    async push(...chunks: Uint8Array[]): Promise<void> {
      for (const chunk of chunks) await process(decoder.push(chunk));
    },
    async end(): Promise<void> {
      await process(decoder.end());
    },
  };
}

/** The stdio client pipeline: bytes → NdjsonDecoder → parseMessage → Peer (which sends through a scripted transport). */
async function stdioClient(options: { maxLineBytes?: number } = {}) {
  const transport = scriptedTransport();
  const logger = captureLogger();
  const peer = new Peer({ transport, logger });
  const errors: Error[] = [];
  peer.onerror = (error) => errors.push(error);
  await peer.start();
  const decoder = new NdjsonDecoder(options);
  const oversized: number[] = [];
  const notifications: unknown[] = [];
  transport.onmessage = ((deliver) => (inbound, extra) => {
    if (inbound.kind === 'notification') notifications.push(inbound.message);
    deliver?.(inbound, extra);
  })(transport.onmessage);
  return {
    peer,
    transport,
    logger,
    errors,
    oversized,
    notifications,
    push(...chunks: Uint8Array[]): void {
      for (const chunk of chunks) {
        for (const event of decoder.push(chunk)) {
          if (event.kind === 'oversized') oversized.push(event.bytes);
          else transport.deliver(parseMessage(event.text));
        }
      }
    },
    request(method: string, params?: JsonRpcParams): Promise<unknown> {
      return peer.request(method, params, { timeoutMs: 2000 });
    },
  };
}

const initialize = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}';

describe('field bugs: JSON-RPC core', () => {
  it('B05: an empty batch gets one -32600 (not an array, not silence)', async () => {
    const dispatcher = server();
    expect(JSON.parse((await dispatcher.handleText('[]', undefined))!)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: an empty batch' },
    });
  });

  it('B05: [1,2] gets an array of two -32600 errors with id null', async () => {
    const out = JSON.parse((await server().handleText('[1,2]', undefined))!) as unknown[];
    expect(out).toHaveLength(2);
    for (const reply of out) expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('B05: a batch of only notifications gets no body at all (never an empty array)', async () => {
    expect(await server().handleText('[{"jsonrpc":"2.0","method":"notifications/initialized"}]', undefined)).toBeUndefined();
  });

  it('B05: a batch of two pings gets an array of two responses', async () => {
    const out = JSON.parse((await server().handleText('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]', undefined))!);
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('B06: "id": null is a request, not a notification: refused with -32600 and id null, never silence', async () => {
    const text = await server().handleText('{"jsonrpc":"2.0","id":null,"method":"ping"}', undefined);
    expect(text).toBeDefined();
    expect(JSON.parse(text!)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('B06: our notifications leave the id member out entirely', async () => {
    const transport = scriptedTransport();
    const peer = new Peer({ transport });
    await peer.notify('notifications/initialized');
    await peer.notify('notifications/progress', { progress: 1 });
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
    ]);
    for (const message of transport.sent) expect(Object.hasOwn(message as object, 'id')).toBe(false);
  });

  it('B07: a notification method sent with an id is a request, answered -32601 with that id', async () => {
    const dispatcher = new Dispatcher();
    expect(JSON.parse((await dispatcher.handleText('{"jsonrpc":"2.0","id":7,"method":"notifications/initialized"}', undefined))!)).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601 },
    });
  });

  it('B07: a request method without an id, and an unknown notification, get nothing back', async () => {
    const dispatcher = server();
    let listed = 0;
    dispatcher.register('tools/list', () => ++listed);
    expect(await dispatcher.handleText('{"jsonrpc":"2.0","method":"tools/list"}', undefined)).toBeUndefined();
    expect(await dispatcher.handleText('{"jsonrpc":"2.0","method":"notifications/unknown_thing"}', undefined)).toBeUndefined();
    expect(listed).toBe(1);
  });

  it('B08: an unknown method gets -32601, not -32602, even with params', async () => {
    const dispatcher = server();
    const bogus = JSON.parse((await dispatcher.handleText('{"jsonrpc":"2.0","id":9,"method":"totally/bogus","params":{}}', undefined))!);
    const completion = JSON.parse(
      (await dispatcher.handleText(
        '{"jsonrpc":"2.0","id":10,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}}}',
        undefined,
      ))!,
    );
    expect(bogus).toMatchObject({ id: 9, error: { code: -32601 } });
    expect(completion).toMatchObject({ id: 10, error: { code: -32601 } });
  });

  it('B09: params refused by the method validator get -32602, not -32603', async () => {
    const dispatcher = server();
    const answers = await Promise.all(
      [
        '{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"loudest"}}',
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":null}}',
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":"x"}}',
      ].map(async (text) => JSON.parse((await dispatcher.handleText(text, undefined))!)),
    );
    expect(answers.map((answer) => [answer.id, answer.error.code])).toEqual([
      [3, -32602],
      [4, -32602],
      [5, -32602],
    ]);
    // Leaving `arguments` out entirely still works.
    expect(JSON.parse((await dispatcher.handleText('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo"}}', undefined))!)).toMatchObject({
      id: 6,
      result: { content: [{ type: 'text', text: '{}' }] },
    });
  });

  it('B45: on send, a parse error carries "id": null (the member is present)', async () => {
    const text = await server().handleText('{not json', undefined);
    expect(text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  });

  it('B45: on receipt, error responses with "id": null or no id are accepted, surfaced, and the connection survives', async () => {
    const client = await stdioClient();
    const pending = client.request('ping');
    client.push(bytes('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'));
    client.push(bytes('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}\n'));
    expect(client.errors).toHaveLength(2);
    for (const error of client.errors) {
      expect(error).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).code).toBe(-32700);
    }
    expect(client.transport.sent).toHaveLength(1); // only our ping: no reply to a response
    expect(client.peer.closed).toBe(false);
    client.push(bytes('{"jsonrpc":"2.0","id":0,"result":{}}\n'));
    await expect(pending).resolves.toEqual({});
  });
});

describe('field bugs: stdio framing', () => {
  it('B11: one line of invalid JSON does not end the session (decoder level)', () => {
    const decoder = new NdjsonDecoder();
    const events = decoder.push(bytes('{bad json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
    expect(events).toEqual([
      { kind: 'line', text: '{bad json' },
      { kind: 'line', text: '{"jsonrpc":"2.0","id":1,"method":"ping"}' },
    ]);
  });

  it('B11: each bad line gets its error and the final ping is still answered (pipeline)', async () => {
    const stdio = stdioServer();
    await stdio.push(
      bytes(
        [
          initialize,
          '{"jsonrpc":"2.0","method":"notifications/initialized"}',
          '{bad json',
          '{"jsonrpc":"2.0","id":5,"method":"","params":{}}',
          '5',
          'null',
          '{"jsonrpc":"2.0","id":9,"method":"ping"}'.replace('2.0', '1.0'),
          '{"jsonrpc":"2.0","id":1,"method":"ping"}',
          '',
        ].join('\n'),
      ),
    );
    const [init, ...rest] = stdio.replies as { id: unknown; error?: { code: number }; result?: unknown }[];
    expect(init).toMatchObject({ id: 'init', result: { protocolVersion: '2025-11-25' } });
    expect(rest.map((reply) => [reply.id, reply.error?.code ?? null])).toEqual([
      [null, -32700],
      [5, -32601],
      [null, -32600],
      [null, -32600],
      [9, -32600],
      [1, null],
    ]);
    expect(rest.at(-1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('B12: CRLF line endings are accepted, including a CR/LF pair split across chunks (decoder level)', () => {
    const decoder = new NdjsonDecoder();
    expect(decoder.push(bytes('{"jsonrpc":"2.0","id":"init","result":{}}\r'))).toEqual([]);
    expect(decoder.push(bytes('\n{"a":1}\r\n'))).toEqual([
      { kind: 'line', text: '{"jsonrpc":"2.0","id":"init","result":{}}' },
      { kind: 'line', text: '{"a":1}' },
    ]);
    expect(decoder.end()).toEqual([]);
  });

  it('B12: a CRLF-terminated initialize is answered and the next request too (server pipeline)', async () => {
    const stdio = stdioServer();
    await stdio.push(bytes(`${initialize}\r`), bytes('\n{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n'));
    expect(stdio.replies).toEqual([
      { jsonrpc: '2.0', id: 'init', result: { protocolVersion: '2025-11-25' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('B12: a CRLF-terminated response resolves the pending request (client pipeline)', async () => {
    const client = await stdioClient();
    const pending = client.request('initialize', {});
    client.push(bytes('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"0"}}}\r'));
    client.push(bytes('\n'));
    await expect(pending).resolves.toMatchObject({ protocolVersion: '2025-11-25' });
  });

  it('B13: a line with a leading BOM is parsed, not dropped (decoder level)', () => {
    const decoder = new NdjsonDecoder();
    const line = concat(raw(0xef, 0xbb, 0xbf), bytes('{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n'));
    expect(decoder.push(line)).toEqual([{ kind: 'line', text: '{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}' }]);
  });

  it('B13: a BOM split across chunks is still stripped, and a U+FEFF inside a string survives', () => {
    const decoder = new NdjsonDecoder();
    expect(decoder.push(raw(0xef))).toEqual([]);
    expect(decoder.push(raw(0xbb))).toEqual([]);
    expect(decoder.push(concat(raw(0xbf), bytes('{"jsonrpc":"2.0","id":3,"result":{"text":"a\uFEFFb"}}\n')))).toEqual([
      { kind: 'line', text: '{"jsonrpc":"2.0","id":3,"result":{"text":"a\uFEFFb"}}' },
    ]);
  });

  it('B13: a leading BOM on the first line of stdin still gets initialize answered (server pipeline)', async () => {
    const stdio = stdioServer();
    await stdio.push(concat(raw(0xef, 0xbb, 0xbf), bytes(`${initialize}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`)));
    expect(stdio.replies).toEqual([
      { jsonrpc: '2.0', id: 'init', result: { protocolVersion: '2025-11-25' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('B13: a response line with a leading BOM resolves the pending request promptly (client pipeline)', async () => {
    const client = await stdioClient();
    client.request('ping').catch(() => undefined); // id 0, never answered
    const tools = client.request('tools/list'); // id 1
    client.push(concat(raw(0xef, 0xbb, 0xbf), bytes('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n')));
    await expect(tools).resolves.toEqual({ tools: [] });
  });

  it('B16: a 5 MiB line is delivered when the cap allows it, and so is the next message (decoder level)', () => {
    const decoder = new NdjsonDecoder({ maxLineBytes: 8 * 1024 * 1024 });
    const big = `{"jsonrpc":"2.0","id":6,"result":{"tools":[{"name":"t","description":"${'A'.repeat(5_000_000)}"}]}}`;
    const data = bytes(`${big}\n{"jsonrpc":"2.0","id":7,"result":{}}\n`);
    const events = [];
    for (let offset = 0; offset < data.length; offset += 65536) events.push(...decoder.push(data.subarray(offset, offset + 65536)));
    expect(events).toEqual([
      { kind: 'line', text: big },
      { kind: 'line', text: '{"jsonrpc":"2.0","id":7,"result":{}}' },
    ]);
  });

  it('B16: over the default 4 MiB cap, only that line is refused; its tail is never parsed; id 7 still resolves (client pipeline)', async () => {
    const client = await stdioClient();
    const six = client.request('tools/list');
    const seven = client.request('ping');
    six.catch(() => undefined);
    const big = `{"jsonrpc":"2.0","id":0,"result":{"tools":[{"name":"t","description":"${'A'.repeat(5_000_000)}"}]}}`;
    // The tail of the oversized line looks like a message of its own: it must never be parsed as one.
    const data = bytes(`${big}{"jsonrpc":"2.0","id":1,"result":"tail"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n`);
    for (let offset = 0; offset < data.length; offset += 65536) client.push(data.subarray(offset, offset + 65536));
    expect(client.oversized).toHaveLength(1);
    await expect(seven).resolves.toEqual({});
    expect(client.peer.pendingCount).toBe(1);
  });

  it('B16: over the cap, the server pipeline keeps answering the next request', async () => {
    const stdio = stdioServer({ maxLineBytes: 1024 });
    await stdio.push(bytes(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(5000)}"}}\n`));
    await stdio.push(bytes('{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
    expect(stdio.oversized).toHaveLength(1);
    expect(stdio.replies).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('B17: a message split across chunks, and two messages in one chunk, are framed correctly (decoder level)', () => {
    const decoder = new NdjsonDecoder();
    const first = decoder.push(bytes('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n{"jsonrpc":"2.0","id":1,"res'));
    const second = decoder.push(bytes('ult":{}}\n'));
    expect([...first, ...second]).toEqual([
      { kind: 'line', text: '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}' },
      { kind: 'line', text: '{"jsonrpc":"2.0","id":1,"result":{}}' },
    ]);
  });

  it('B17: a multi-byte UTF-8 character split across chunks is decoded once the line is complete', () => {
    const decoder = new NdjsonDecoder();
    const data = bytes('{"data":"caf\u00e9"}\n');
    const split = data.indexOf(0xc3) + 1; // between C3 and A9
    expect(decoder.push(data.subarray(0, split))).toEqual([]);
    expect(decoder.push(data.subarray(split))).toEqual([{ kind: 'line', text: '{"data":"café"}' }]);
  });

  it('B17: the notification is delivered, then the response to id 1, in that order (client pipeline)', async () => {
    const client = await stdioClient();
    const zero = client.request('ping');
    const one = client.request('tools/list');
    zero.catch(() => undefined);
    const order: string[] = [];
    void one.then(() => order.push('response'));
    client.push(bytes('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n{"jsonrpc":"2.0","id":1,"res'));
    order.push(`notifications:${client.notifications.length}`);
    client.push(bytes('ult":{}}\n'));
    await expect(one).resolves.toEqual({});
    expect(order).toEqual(['notifications:1', 'response']);
  });

  it('B18: invalid UTF-8 becomes U+FFFD; the line is handed on, not fatal (decoder level)', () => {
    const decoder = new NdjsonDecoder();
    expect(decoder.push(concat(raw(0xff, 0xfe, 0x0a), bytes('{"jsonrpc":"2.0","id":2,"method":"ping"}\n')))).toEqual([
      { kind: 'line', text: '\uFFFD\uFFFD' },
      { kind: 'line', text: '{"jsonrpc":"2.0","id":2,"method":"ping"}' },
    ]);
  });

  it('B18: an invalid UTF-8 line gets -32700 with id null and ping 2 is answered (server pipeline)', async () => {
    const stdio = stdioServer();
    await stdio.push(bytes(`${initialize}\n`), raw(0xff, 0xfe, 0x0a), bytes('{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
    await stdio.end();
    expect(stdio.replies).toEqual([
      { jsonrpc: '2.0', id: 'init', result: { protocolVersion: '2025-11-25' } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('B18: an invalid UTF-8 byte inside a string survives as U+FFFD and the request is still answered', async () => {
    const stdio = stdioServer();
    await stdio.push(concat(bytes('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"a'), raw(0xff), bytes('b"}}\n')));
    expect(stdio.replies).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('stdio client pipeline: closing fails pending requests with connection_closed', async () => {
    const client = await stdioClient();
    const pending = client.request('ping');
    await client.peer.close();
    await expect(pending).rejects.toBeInstanceOf(JsonRpcLocalError);
  });
});
