import { describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from './digest.js';

describe('canonicalJson', () => {
  it('sorts object members at every depth and keeps array order', () => {
    expect(canonicalJson({ b: [3, { d: true, c: null }, 1], a: 'x' })).toBe('{"a":"x","b":[3,{"c":null,"d":true},1]}');
    expect(canonicalJson({ a: 'x', b: [3, { c: null, d: true }, 1] })).toBe(canonicalJson({ b: [3, { d: true, c: null }, 1], a: 'x' }));
  });

  it('sorts by UTF-16 code units, as RFC 8785 does', () => {
    expect(canonicalJson({ b: 1, a: 2, B: 3, é: 4, '\u{1F600}': 5, '\uFFFF': 6 })).toBe('{"B":3,"a":2,"b":1,"é":4,"\u{1F600}":5,"\uFFFF":6}');
  });

  it('writes numbers, strings and literals as JSON.stringify does', () => {
    expect(canonicalJson([1e21, 0.1, -0, 1.5e-7, 'a"\n\u2028', true, false, null])).toBe('[1e+21,0.1,0,1.5e-7,"a\\"\\n\u2028",true,false,null]');
    expect(canonicalJson('\uD800')).toBe('"\\ud800"');
  });

  it('follows JSON.stringify for values JSON has no form for', () => {
    expect(canonicalJson({ a: undefined, b: () => 1, c: Symbol('s'), d: Number.NaN, e: Infinity })).toBe('{"d":null,"e":null}');
    expect(canonicalJson([undefined, () => 1])).toBe('[null,null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('refuses circular values and bigints with a TypeError', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = { loop };
    expect(() => canonicalJson(loop)).toThrow(new TypeError('Cannot write canonical JSON: the value is circular'));
    expect(() => canonicalJson({ n: 1n })).toThrow(new TypeError('Cannot write canonical JSON: a bigint has no JSON form'));
  });

  it('accepts a value seen twice that is not its own ancestor', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"k":1},"b":[{"k":1}]}');
  });
});

describe('canonicalDigest', () => {
  it('is the SHA-256 of the canonical text, whatever the member order', async () => {
    const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    // SHA-256 of '{"a":1,"b":2}'
    const expected = hex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('{"a":1,"b":2}'))));
    expect(hex(await canonicalDigest({ b: 2, a: 1 }))).toBe(expected);
    expect(hex(await canonicalDigest({ a: 1, b: 2 }))).toBe(expected);
    expect(hex(await canonicalDigest({ a: 1, b: 3 }))).not.toBe(expected);
    expect(hex(await canonicalDigest({}))).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});
