import { describe, expect, it } from 'vitest';
import { parseMessage } from './classify.js';
import { DEFAULT_MAX_BATCH_SIZE, Dispatcher } from './dispatcher.js';
import type { HandlerContext } from './handlerContext.js';
import { ErrorCode, JsonRpcError } from './errors.js';
import { captureLogger } from './testing.js';
import type { JsonRpcResponse } from './message.js';

const request = (id: number | string, method: string, params?: unknown) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });

async function reply(dispatcher: Dispatcher<any>, text: string, ctx: unknown = undefined): Promise<unknown> {
  const out = await dispatcher.handleText(text, ctx);
  return out === undefined ? undefined : JSON.parse(out);
}

describe('Dispatcher', () => {
  it('Dispatcher answers a request with the handler result', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('add', (params) => (params as number[])[0]! + (params as number[])[1]!);
    expect(await reply(dispatcher, request(1, 'add', [1, 2]))).toEqual({ jsonrpc: '2.0', id: 1, result: 3 });
  });

  it('Dispatcher awaits an async handler and sends undefined as null', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('later', async () => {
      await Promise.resolve();
      return undefined;
    });
    expect(await reply(dispatcher, request('x', 'later'))).toEqual({ jsonrpc: '2.0', id: 'x', result: null });
  });

  it('Dispatcher answers an unknown method with -32601', async () => {
    const dispatcher = new Dispatcher();
    expect(await reply(dispatcher, request(7, 'nope'))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'Method not found: "nope"' },
    });
  });

  it('Dispatcher answers inherited Object.prototype names with -32601', async () => {
    const dispatcher = new Dispatcher();
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(dispatcher.has(name)).toBe(false);
      expect(await reply(dispatcher, request(1, name))).toMatchObject({ error: { code: -32601 } });
    }
  });

  it('Dispatcher can register a method literally named __proto__', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('__proto__', () => 'ok');
    expect(await reply(dispatcher, request(1, '__proto__'))).toMatchObject({ result: 'ok' });
  });

  it('Dispatcher refuses to register rpc.-prefixed names', () => {
    const dispatcher = new Dispatcher();
    expect(() => dispatcher.register('rpc.discover', () => 1)).toThrow(TypeError);
    expect(dispatcher.has('rpc.discover')).toBe(false);
  });

  it('Dispatcher register returns a disposer and replaces earlier handlers', async () => {
    const dispatcher = new Dispatcher();
    const disposeFirst = dispatcher.register('m', () => 1);
    const disposeSecond = dispatcher.register('m', () => 2);
    disposeFirst();
    expect(await reply(dispatcher, request(1, 'm'))).toMatchObject({ result: 2 });
    disposeSecond();
    expect(dispatcher.has('m')).toBe(false);
  });

  it('Dispatcher answers -32602 with the validator message and does not run the handler', async () => {
    const dispatcher = new Dispatcher();
    let ran = false;
    dispatcher.register('m', () => (ran = true), { validate: (params) => (Array.isArray(params) ? undefined : 'expected an array') });
    expect(await reply(dispatcher, request(1, 'm', { a: 1 }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Invalid params: expected an array' },
    });
    expect(ran).toBe(false);
    dispatcher.register('n', () => 0, { validate: () => 'Invalid params: "a" is required' });
    expect(await reply(dispatcher, request(2, 'n', {}))).toMatchObject({ error: { message: 'Invalid params: "a" is required' } });
  });

  it('Dispatcher answers a thrown JsonRpcError with exactly that error', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('m', () => {
      throw new JsonRpcError(-32001, 'Custom: detail', { field: 'a' });
    });
    expect(await reply(dispatcher, request(1, 'm'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Custom: detail', data: { field: 'a' } },
    });
  });

  it('Dispatcher answers any other throw with -32603 and no text of the error, and logs it', async () => {
    const logger = captureLogger();
    const dispatcher = new Dispatcher({ logger });
    const secret = new Error('password=hunter2');
    dispatcher.register('sync', () => {
      throw secret;
    });
    dispatcher.register('async', () => Promise.reject(secret));
    for (const method of ['sync', 'async']) {
      const text = await dispatcher.handleText(request(1, method), undefined);
      expect(JSON.parse(text!)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
      expect(text).not.toContain('hunter2');
    }
    expect(logger.lines.filter((line) => line.level === 'error' && line.fields?.['error'] === secret)).toHaveLength(2);
  });

  it('Dispatcher never answers a notification, even on error, and logs it', async () => {
    const logger = captureLogger();
    const dispatcher = new Dispatcher({ logger });
    dispatcher.register('throws', () => {
      throw new Error('x');
    });
    dispatcher.register('wire', () => {
      throw new JsonRpcError(1, 'y');
    });
    dispatcher.register('valid', () => 1, { validate: () => 'no' });
    for (const method of ['throws', 'wire', 'valid', 'unknown']) {
      expect(await dispatcher.handleText(JSON.stringify({ jsonrpc: '2.0', method }), undefined)).toBeUndefined();
    }
    expect(logger.lines.map((line) => line.level)).toEqual(['error', 'debug', 'debug', 'debug']);
  });

  it('Dispatcher passes the context with id, method and signal to handlers', async () => {
    const dispatcher = new Dispatcher<{ user: string }>();
    let seen: ({ user: string } & HandlerContext) | undefined;
    dispatcher.register('m', (_params, ctx) => {
      seen = ctx;
    });
    const controller = new AbortController();
    await dispatcher.handle(parseMessage(request('r', 'm')), { user: 'u' }, controller.signal);
    expect(seen).toMatchObject({ user: 'u', id: 'r', method: 'm' });
    expect(seen!.signal).toBe(controller.signal);
    await dispatcher.handle(parseMessage('{"jsonrpc":"2.0","method":"m"}'), { user: 'v' });
    expect(seen!.id).toBeUndefined();
    expect(seen!.signal.aborted).toBe(false);
  });

  it('Dispatcher keeps class-instance context methods reachable', async () => {
    class Session {
      constructor(readonly name: string) {}
      greet(): string {
        return `hi ${this.name}`;
      }
    }
    const dispatcher = new Dispatcher<Session>();
    dispatcher.register('m', (_params, ctx) => `${ctx.greet()} ${String(ctx.id)}`);
    expect(await reply(dispatcher, request(3, 'm'), new Session('s'))).toMatchObject({ result: 'hi s 3' });
  });

  it('Dispatcher guard refuses requests (answered) and notifications (dropped), even unknown methods', async () => {
    const dispatcher = new Dispatcher<{ ready: boolean }>({
      guard: (message, ctx) => (ctx.ready || message.method === 'init' ? undefined : new JsonRpcError(-32002, 'Not initialized')),
    });
    let calls = 0;
    dispatcher.register('work', () => ++calls);
    dispatcher.register('init', () => 'ok');
    expect(await reply(dispatcher, request(1, 'work'), { ready: false })).toMatchObject({ id: 1, error: { code: -32002 } });
    expect(await reply(dispatcher, request(2, 'unknown'), { ready: false })).toMatchObject({ error: { code: -32002 } });
    expect(await reply(dispatcher, '{"jsonrpc":"2.0","method":"work"}', { ready: false })).toBeUndefined();
    expect(await reply(dispatcher, request(3, 'init'), { ready: false })).toMatchObject({ result: 'ok' });
    expect(await reply(dispatcher, request(4, 'work'), { ready: true })).toMatchObject({ result: 1 });
    expect(calls).toBe(1);
  });

  it('Dispatcher handle returns undefined for a response', async () => {
    const dispatcher = new Dispatcher();
    expect(await dispatcher.handle(parseMessage('{"jsonrpc":"2.0","id":1,"result":1}'), undefined)).toBeUndefined();
  });

  it('Dispatcher answers a batch with an array in input order, even when later members finish first', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('wait', (params) => new Promise((resolve) => setTimeout(() => resolve(params), (params as number[])[0])));
    const text = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'wait', params: [30] },
      { jsonrpc: '2.0', method: 'wait', params: [0] },
      7,
      { jsonrpc: '2.0', id: 2, method: 'wait', params: [0] },
    ]);
    const out = (await reply(dispatcher, text)) as JsonRpcResponse[];
    expect(out.map((response) => response.id)).toEqual([1, null, 2]);
  });

  it('Dispatcher runs batch members concurrently', async () => {
    const dispatcher = new Dispatcher();
    let inFlight = 0;
    let maxInFlight = 0;
    dispatcher.register('slow', async () => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
    });
    const batch = Array.from({ length: 10 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'slow' }));
    expect(await reply(dispatcher, JSON.stringify(batch))).toHaveLength(10);
    expect(maxInFlight).toBe(10);
  });

  it('Dispatcher answers a batch of one with an array, and an all-notification batch with nothing', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('m', () => 1);
    expect(await reply(dispatcher, `[${request(1, 'm')}]`)).toEqual([{ jsonrpc: '2.0', id: 1, result: 1 }]);
    expect(await reply(dispatcher, '[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"x"}]')).toBeUndefined();
  });

  it('Dispatcher refuses a batch over maxBatchSize with one -32600 error and runs none of it', async () => {
    const dispatcher = new Dispatcher();
    let calls = 0;
    dispatcher.register('m', () => ++calls);
    const batch = Array.from({ length: DEFAULT_MAX_BATCH_SIZE + 1 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'm' }));
    expect(await reply(dispatcher, JSON.stringify(batch))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: batch of 101 messages exceeds the limit of 100' },
    });
    expect(calls).toBe(0);
    expect(await reply(dispatcher, JSON.stringify(batch.slice(0, 100)))).toHaveLength(100);
    const small = new Dispatcher({ maxBatchSize: 2 });
    expect(await reply(small, JSON.stringify(batch.slice(0, 3)))).toMatchObject({ error: { code: ErrorCode.InvalidRequest } });
  });

  it('Dispatcher rejects an invalid maxBatchSize', () => {
    expect(() => new Dispatcher({ maxBatchSize: 0 })).toThrow(RangeError);
    expect(() => new Dispatcher({ maxBatchSize: 1.5 })).toThrow(RangeError);
  });

  it('Dispatcher handleText answers -32603 for a result that cannot be serialized (deep nesting)', async () => {
    const dispatcher = new Dispatcher();
    // The handler builds the deep value itself (inbound text that deep is refused by parseJson's depth cap).
    dispatcher.register('deep', () => {
      let value: unknown[] = [];
      for (let i = 0; i < 20_000; i++) value = [value];
      return value;
    });
    expect(await reply(dispatcher, request(5, 'deep'))).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32603, message: 'Internal error' },
    });
    dispatcher.register('big', () => 10n);
    expect(await reply(dispatcher, request(6, 'big'))).toMatchObject({ id: 6, error: { code: -32603 } });
  });

  it('Dispatcher never lets __proto__ params pollute Object.prototype', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('echo', (params) => params);
    const out = await dispatcher.handleText('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"__proto__":{"polluted":1}}}', undefined);
    expect(out).toBe('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":1}}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('Dispatcher method kinds', () => {
  it('B07: a request for a notification-only method is -32601; a notification for a request-only method is ignored', async () => {
    const { Dispatcher: D } = await import('./dispatcher.js');
    let ran = 0;
    const d = new D();
    d.register('notifications/initialized', () => {
      ran++;
    }, { kind: 'notification' });
    d.register('tools/call', () => {
      ran++;
      return {};
    }, { kind: 'request' });
    expect(await d.dispatch({ jsonrpc: '2.0', id: 7, method: 'notifications/initialized' }, undefined)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'Method not found: "notifications/initialized"' },
    });
    expect(await d.dispatch({ jsonrpc: '2.0', method: 'tools/call', params: {} }, undefined)).toBeUndefined();
    expect(ran).toBe(0);
    expect(await d.dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' }, undefined)).toBeUndefined();
    expect(ran).toBe(1);
  });
});

describe('Dispatcher echoes', () => {
  it('Dispatcher quotes an unknown method name in at most 200 characters (a 4 MiB name never makes a 4 MiB error)', async () => {
    const dispatcher = new Dispatcher();
    const huge = 'm'.repeat(4 * 1024 * 1024);
    expect(await reply(dispatcher, JSON.stringify({ jsonrpc: '2.0', id: 1, method: huge }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: `Method not found: "${'m'.repeat(200)}…"` },
    });
  });
});

describe('Dispatcher.intercept', () => {
  it('runs every handler call through the interceptor, which may change params, answer itself, or throw', async () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('add', (params) => (params as number[])[0]! + (params as number[])[1]!);
    dispatcher.register('note', () => 'ignored');
    const seen: unknown[] = [];
    dispatcher.intercept((handler, params, ctx) => {
      seen.push([ctx.method, ctx.id]);
      if (ctx.method === 'add' && (params as number[])[0] === 0) return 'short-circuit';
      if (ctx.method === 'add' && (params as number[])[0] === -1) throw new JsonRpcError(-32001, 'refused');
      return handler((params as number[]).map((n) => n * 10), ctx);
    });
    expect(await reply(dispatcher, request(1, 'add', [1, 2]))).toEqual({ jsonrpc: '2.0', id: 1, result: 30 });
    expect(await reply(dispatcher, request(2, 'add', [0, 2]))).toEqual({ jsonrpc: '2.0', id: 2, result: 'short-circuit' });
    expect(await reply(dispatcher, request(3, 'add', [-1, 2]))).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32001, message: 'refused' } });
    expect(await reply(dispatcher, JSON.stringify({ jsonrpc: '2.0', method: 'note', params: [1] }))).toBeUndefined();
    expect(seen).toEqual([['add', 1], ['add', 2], ['add', 3], ['note', undefined]]);
  });

  it('is not called for what the guard, the method table or a validator refuses; undefined removes it', async () => {
    const dispatcher = new Dispatcher({ guard: (message) => (message.method === 'guarded' ? new JsonRpcError(-32600, 'no') : undefined) });
    dispatcher.register('guarded', () => 1);
    dispatcher.register('checked', () => 1, { validate: () => 'bad' });
    dispatcher.register('ok', () => 'handler');
    let calls = 0;
    dispatcher.intercept((handler, params, ctx) => {
      calls++;
      return handler(params, ctx);
    });
    await reply(dispatcher, request(1, 'guarded'));
    await reply(dispatcher, request(2, 'missing'));
    await reply(dispatcher, request(3, 'checked'));
    expect(calls).toBe(0);
    await reply(dispatcher, request(4, 'ok'));
    expect(calls).toBe(1);
    dispatcher.intercept(undefined);
    expect(await reply(dispatcher, request(5, 'ok'))).toEqual({ jsonrpc: '2.0', id: 5, result: 'handler' });
    expect(calls).toBe(1);
    expect(() => dispatcher.intercept('x' as never)).toThrow(TypeError);
  });
});

describe('Dispatcher.dispatchInto', () => {
  const message = (id: number | undefined, method: string) => (id === undefined ? { jsonrpc: '2.0' as const, method } : { jsonrpc: '2.0' as const, id, method });
  const sink = () => {
    const got: (JsonRpcResponse | undefined)[] = [];
    return { got, id: undefined, method: '', signal: new AbortController().signal, settle: (reply: JsonRpcResponse | undefined) => void got.push(reply) };
  };

  it('settles a synchronous answer (and a refusal) within the call, once', () => {
    const dispatcher = new Dispatcher();
    dispatcher.register('now', () => 'sync');
    const s = sink();
    dispatcher.dispatchInto(message(1, 'now'), undefined, s);
    dispatcher.dispatchInto(message(2, 'nope'), undefined, s);
    dispatcher.dispatchInto(message(undefined, 'now'), undefined, s);
    expect(s.got).toEqual([{ jsonrpc: '2.0', id: 1, result: 'sync' }, { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: "nope"' } }, undefined]);
  });

  it('settles an asynchronous answer when the handler settles: its result, a wire error, or -32603 with no internal text', async () => {
    const logger = captureLogger();
    const dispatcher = new Dispatcher({ logger });
    dispatcher.register('later', () => Promise.resolve('async'));
    dispatcher.register('refuse', () => Promise.reject(new JsonRpcError(-32602, 'Invalid params: no')));
    dispatcher.register('crash', () => Promise.reject(new Error('secret detail')));
    const s = sink();
    dispatcher.dispatchInto(message(1, 'later'), undefined, s);
    dispatcher.dispatchInto(message(2, 'refuse'), undefined, s);
    dispatcher.dispatchInto(message(3, 'crash'), undefined, s);
    expect(s.got).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(s.got).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'async' },
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: no' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error' } },
    ]);
    expect(JSON.stringify(s.got)).not.toContain('secret');
  });

  it('answers -32603 even when the logger throws on the failure it reports', async () => {
    const throwing = { debug() {}, info() {}, warn() {}, error() { throw new Error('logger down'); } };
    const dispatcher = new Dispatcher({ logger: throwing });
    dispatcher.register('crash', () => Promise.reject(new Error('boom')));
    const s = sink();
    dispatcher.dispatchInto(message(1, 'crash'), undefined, s);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(s.got).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } }]);
  });
});
