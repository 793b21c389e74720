import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyValue, isValidId, parseMessage } from './classify.js';
import type { Inbound } from './classify.js';

function replyOf(inbound: Inbound): unknown {
  expect(inbound.kind).toBe('invalid');
  return inbound.kind === 'invalid' ? inbound.reply : undefined;
}

describe('parseMessage', () => {
  it('parseMessage classifies a request and passes the parsed object through', () => {
    const inbound = parseMessage('{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"extra":true}');
    expect(inbound.kind).toBe('request');
    if (inbound.kind === 'request') {
      expect(inbound.message).toEqual({ jsonrpc: '2.0', id: 1, method: 'm', params: { a: 1 }, extra: true });
    }
  });

  it('parseMessage classifies a message without an id member as a notification', () => {
    expect(parseMessage('{"jsonrpc":"2.0","method":"m"}').kind).toBe('notification');
  });

  it('parseMessage answers malformed JSON with -32700 and id null', () => {
    expect(replyOf(parseMessage('{bad'))).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('parseMessage answers an empty text and whitespace with -32700', () => {
    expect(replyOf(parseMessage(''))).toMatchObject({ error: { code: -32700 } });
    expect(replyOf(parseMessage(' \t '))).toMatchObject({ error: { code: -32700 } });
  });

  it('parseMessage ignores a leading BOM', () => {
    expect(parseMessage('\uFEFF{"jsonrpc":"2.0","id":1,"method":"m"}').kind).toBe('request');
  });

  it('parseMessage refuses "id": null with -32600 and id null (B06: never a notification)', () => {
    const reply = replyOf(parseMessage('{"jsonrpc":"2.0","id":null,"method":"ping"}'));
    expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('parseMessage refuses an integer id beyond 2^53 - 1 with -32600 and id null', () => {
    for (const token of ['9007199254740993', '12345678901234567890', '-9007199254740993', '1e300']) {
      const reply = replyOf(parseMessage(`{"jsonrpc":"2.0","id":${token},"method":"m"}`));
      expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });

  it('parseMessage accepts the largest safe integer id and fractional ids', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":9007199254740991,"method":"m"}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","id":-9007199254740991,"method":"m"}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","id":1.5,"method":"m"}').kind).toBe('request');
  });

  it('parseMessage echoes a readable id in an invalid request reply', () => {
    expect(replyOf(parseMessage('{"jsonrpc":"2.0","id":"a","method":"m","params":null}'))).toMatchObject({
      id: 'a',
      error: { code: -32600, message: 'Invalid Request: "params" must be an array or an object' },
    });
    expect(replyOf(parseMessage('{"jsonrpc":"1.0","id":9,"method":"ping"}'))).toMatchObject({ id: 9, error: { code: -32600 } });
    expect(replyOf(parseMessage('{"jsonrpc":"2.0","id":true,"method":"m"}'))).toMatchObject({ id: null });
  });

  it('parseMessage treats a message with method and result as an invalid request, not a response', () => {
    expect(replyOf(parseMessage('{"jsonrpc":"2.0","id":1,"method":"m","result":1}'))).toMatchObject({ id: 1, error: { code: -32600 } });
  });

  it('parseMessage classifies an empty array as one -32600 reply, not a batch', () => {
    expect(replyOf(parseMessage('[]'))).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('parseMessage classifies each batch member on its own', () => {
    const inbound = parseMessage('[{"jsonrpc":"2.0","id":1,"method":"m"},5,{"jsonrpc":"2.0","id":2,"result":0},[]]');
    expect(inbound.kind).toBe('batch');
    if (inbound.kind === 'batch') expect(inbound.items.map((item) => item.kind)).toEqual(['request', 'invalid', 'response', 'invalid']);
  });

  it('parseMessage keeps a __proto__ key as inert own data and never pollutes Object.prototype', () => {
    const inbound = parseMessage('{"jsonrpc":"2.0","id":1,"method":"m","params":{"__proto__":{"polluted":true}}}');
    expect(inbound.kind).toBe('request');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('parseMessage does not read members inherited from the prototype chain', () => {
    const polluted = Object.create({ id: 1, method: 'm' }) as Record<string, unknown>;
    polluted['jsonrpc'] = '2.0';
    polluted['method'] = 'n';
    expect(classifyValue(polluted).kind).toBe('notification');
  });

  it('does not read a member Object.prototype was given (a polluted realm)', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto['id'] = 7;
    proto['error'] = { code: 1, message: 'inherited' };
    try {
      expect(parseMessage('{"jsonrpc":"2.0","method":"m"}')).toMatchObject({ kind: 'notification' });
      expect(parseMessage('{"jsonrpc":"2.0","method":"m","id":1}')).toMatchObject({ kind: 'request', message: { id: 1 } });
      expect(parseMessage('{"jsonrpc":"2.0","id":1,"result":2}')).toMatchObject({ kind: 'response', message: { result: 2 } });
      expect(parseMessage('{"jsonrpc":"2.0","id":1,"error":{"code":5}}')).toMatchObject({ kind: 'response', invalid: '"error.message" must be a string' });
    } finally {
      delete proto['id'];
      delete proto['error'];
    }
  });

  it('does not read through a getter Object.prototype was given, whatever it answers Object.prototype itself', () => {
    Object.defineProperty(Object.prototype, 'id', { configurable: true, get(this: unknown) { return this === Object.prototype ? undefined : 42; } });
    try {
      expect(parseMessage('{"jsonrpc":"2.0","method":"m"}')).toMatchObject({ kind: 'notification' });
    } finally {
      delete (Object.prototype as Record<string, unknown>)['id'];
    }
  });

  it('a message not made by JSON.parse: its own members are read by name, enumerable or not, and no other getter runs', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { jsonrpc: '2.0', id: 1 });
    Object.defineProperty(bare, 'method', { value: 'm', enumerable: false });
    Object.defineProperty(bare, 'unrelated', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(classifyValue(bare)).toMatchObject({ kind: 'request', message: { id: 1 } });
    const odd = { jsonrpc: '2.0', method: 'm' };
    Object.defineProperty(odd, '__proto__', { get: () => { throw new Error('boom'); } });
    expect(classifyValue(odd)).toMatchObject({ kind: 'notification' });
  });

  it('reads a message with an own __proto__ member, or without a prototype, by its own members only', () => {
    expect(parseMessage('{"__proto__":{"id":1},"jsonrpc":"2.0","method":"m"}')).toMatchObject({ kind: 'notification' });
    expect(parseMessage('{"__proto__":{"id":1},"jsonrpc":"2.0","method":"m","id":"a"}')).toMatchObject({ kind: 'request', message: { id: 'a' } });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { jsonrpc: '2.0', id: 2, method: 'm' });
    expect(classifyValue(bare)).toMatchObject({ kind: 'request', message: { id: 2 } });
  });

  it('parseMessage uses the last of duplicate keys', () => {
    const inbound = parseMessage('{"jsonrpc":"2.0","method":"subtract","method":"sum","id":1}');
    expect(inbound.kind === 'request' && inbound.message.method).toBe('sum');
  });

  it('parseMessage never throws on arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const inbound = parseMessage(text);
        expect(['request', 'notification', 'response', 'invalid', 'batch']).toContain(inbound.kind);
      }),
      { numRuns: 2000 },
    );
  });

  it('parseMessage never throws on arbitrary JSON values (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const inbound = parseMessage(JSON.stringify(value));
        expect(inbound.kind).not.toBe(undefined);
        if (inbound.kind === 'invalid') expect(inbound.reply.error.code).toBe(-32600);
      }),
      { numRuns: 2000 },
    );
  });

  it('parseMessage never throws on JSON-RPC-shaped objects with arbitrary member values (property)', () => {
    const member = fc.oneof(fc.constant(undefined), fc.jsonValue());
    fc.assert(
      fc.property(
        fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), member), id: member, method: member, params: member, result: member, error: member }),
        (shape) => {
          const inbound = parseMessage(JSON.stringify(shape));
          if (inbound.kind === 'invalid') expect([-32600]).toContain(inbound.reply.error.code);
          if (inbound.kind === 'request') expect(isValidId(inbound.message.id)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('classifyValue (responses)', () => {
  it('classifyValue accepts a success response and an error response', () => {
    expect(classifyValue({ jsonrpc: '2.0', id: 1, result: null })).toMatchObject({ kind: 'response' });
    const error = classifyValue({ jsonrpc: '2.0', id: 'x', error: { code: -1, message: 'm', data: 1 } });
    expect(error).toMatchObject({ kind: 'response', message: { id: 'x', error: { code: -1 } } });
    expect(error.kind === 'response' && error.invalid).toBeUndefined();
  });

  it('classifyValue reads an error response without an id member as id null (B45)', () => {
    const inbound = classifyValue({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } });
    expect(inbound).toMatchObject({ kind: 'response', message: { id: null, error: { code: -32700 } } });
    expect(inbound.kind === 'response' && inbound.invalid).toBeUndefined();
  });

  it('classifyValue marks a malformed response as invalid with a synthesized -32600 error for its id', () => {
    const cases: [unknown, unknown][] = [
      [{ jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } }, 1],
      [{ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }, 1],
      [{ jsonrpc: '2.0', id: 1, error: { code: 1 } }, 1],
      [{ jsonrpc: '2.0', id: 1, error: 'x' }, 1],
      [{ id: 1, result: 1 }, 1],
      [{ jsonrpc: '2.0', result: 1 }, null],
      [{ jsonrpc: '2.0', id: null, result: 1 }, null],
      [{ jsonrpc: '2.0', id: true, result: 1 }, null],
    ];
    for (const [value, id] of cases) {
      const inbound = classifyValue(value);
      expect(inbound.kind).toBe('response');
      if (inbound.kind === 'response') {
        expect(inbound.invalid).toEqual(expect.any(String));
        expect(inbound.message).toMatchObject({ id, error: { code: -32600 } });
      }
    }
  });

  it('classifyValue refuses non-object top-level values with -32600', () => {
    for (const value of [1, null, 'x', true, undefined]) expect(replyOf(classifyValue(value))).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('isValidId accepts strings, safe integers and fractions only', () => {
    expect([0, -1, '', 'a', 1.5, Number.MAX_SAFE_INTEGER].every(isValidId)).toBe(true);
    expect([null, undefined, true, [], {}, NaN, Infinity, 2 ** 53, 1e300].some(isValidId)).toBe(false);
  });
});
