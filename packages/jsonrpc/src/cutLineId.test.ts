import { describe, expect, it } from 'vitest';
import { oversizedLineId } from './cutLineId.js';

const atHead = (head: string): unknown => oversizedLineId({ head });

describe('oversizedLineId', () => {
  it('reads a top-level id written before the large result', () => {
    expect(atHead('{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xxxx')).toBe(12);
    expect(atHead(' {"id" : "a\\"b", "result":')).toBe('a"b');
    expect(atHead('\uFEFF{"id":"x","result":')).toBe('x');
  });

  it('finds nothing in a head where it cannot be sure', () => {
    // The id comes after the result, or is cut by the end of the head, or is nested, or this is a request.
    expect(atHead('{"jsonrpc":"2.0","result":{"id":3,"text":"xxxx')).toBeUndefined();
    expect(atHead('{"jsonrpc":"2.0","id":12')).toBeUndefined();
    expect(atHead('{"method":"x","id":4,"params":{')).toBeUndefined();
    expect(atHead('{"result":"has \\"id\\":5 in it", "x":')).toBeUndefined();
    expect(atHead('[{"id":1}')).toBeUndefined();
    expect(atHead('')).toBeUndefined();
  });

  it('reads an id written last from the tail when the head does not say, never when the head is a request', () => {
    const head = '{"result":{"tools":[{"name":"t","id":3,"description":"xxxx';
    expect(oversizedLineId({ head, tail: 'xxxx"}]},"jsonrpc":"2.0","id":"b"}' })).toBe('b');
    expect(oversizedLineId({ head, tail: 'xxxx"}]},"id":7 }\r' })).toBe(7);
    expect(oversizedLineId({ head, tail: 'xxxx"}]}}' })).toBeUndefined();
    expect(oversizedLineId({ head: '{"jsonrpc":"2.0","method":"x","params":{"p":"xxx', tail: 'xxx"},"id":3}' })).toBeUndefined();
    expect(oversizedLineId({ head: '{"jsonrpc":"2.0","id":1,"result":"xxx', tail: 'xxx","id":2}' })).toBe(1);
  });
});
