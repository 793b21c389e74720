import { describe, expect, it } from 'vitest';
import { responseIdAtHead } from './cutLineId.js';

describe('responseIdAtHead', () => {
  it('reads a top-level id written before the large result', () => {
    expect(responseIdAtHead('{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xxxx')).toBe(12);
    expect(responseIdAtHead(' {"id" : "a\\"b", "result":')).toBe('a"b');
  });

  it('finds nothing where it cannot be sure', () => {
    // The id comes after the result, or is cut by the end of the head, or is nested, or this is a request.
    expect(responseIdAtHead('{"jsonrpc":"2.0","result":{"id":3,"text":"xxxx')).toBeUndefined();
    expect(responseIdAtHead('{"jsonrpc":"2.0","id":12')).toBeUndefined();
    expect(responseIdAtHead('{"method":"x","id":4,"params":{')).toBeUndefined();
    expect(responseIdAtHead('{"result":"has \\"id\\":5 in it", "x":')).toBeUndefined();
    expect(responseIdAtHead('[{"id":1}')).toBeUndefined();
    expect(responseIdAtHead('')).toBeUndefined();
  });
});
