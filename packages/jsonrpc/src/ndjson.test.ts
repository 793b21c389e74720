import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NdjsonDecoder, encodeNdjson, DEFAULT_MAX_LINE_BYTES } from './ndjson.js';
import type { NdjsonEvent } from './ndjson.js';

const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);

function feed(decoder: NdjsonDecoder, chunks: readonly Uint8Array[]): NdjsonEvent[] {
  const events: NdjsonEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}

const lines = (events: readonly NdjsonEvent[]): string[] =>
  events.flatMap((event) => (event.kind === 'line' ? [event.text] : []));

/** Splits `data` at the given cut points (sorted, deduplicated, clamped). */
function cut(data: Uint8Array, points: readonly number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((p) => Math.min(Math.max(p, 0), data.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of sorted) {
    chunks.push(data.subarray(start, point));
    start = point;
  }
  chunks.push(data.subarray(start));
  return chunks;
}

describe('NdjsonDecoder', () => {
  it('NdjsonDecoder yields several lines from one chunk, in order', () => {
    expect(lines(feed(new NdjsonDecoder(), [bytes('{"a":1}\n{"b":2}\n{"c":3}\n')]))).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('NdjsonDecoder joins a line split over many chunks', () => {
    const data = bytes('{"text":"hello world"}\n');
    const chunks = Array.from(data, (byte) => Uint8Array.of(byte));
    expect(lines(feed(new NdjsonDecoder(), chunks))).toEqual(['{"text":"hello world"}']);
  });

  it('NdjsonDecoder flushes a final unterminated line on end()', () => {
    const decoder = new NdjsonDecoder();
    expect(decoder.push(bytes('{"a":1}'))).toEqual([]);
    expect(decoder.end()).toEqual([{ kind: 'line', text: '{"a":1}' }]);
    expect(decoder.end()).toEqual([]);
  });

  it('NdjsonDecoder skips blank and whitespace-only lines', () => {
    expect(lines(feed(new NdjsonDecoder(), [bytes('\n  \n\t\r\n\r\n{"a":1}\n\n')]))).toEqual(['{"a":1}']);
  });

  it('NdjsonDecoder keeps raw U+2028 and U+2029 inside a line', () => {
    const text = '{"s":"a\u2028b\u2029c"}';
    expect(lines(feed(new NdjsonDecoder(), [bytes(`${text}\n`)]))).toEqual([text]);
  });

  it('NdjsonDecoder keeps a U+FEFF that is not at the start of a line (B13 control)', () => {
    const text = '{"jsonrpc":"2.0","id":3,"result":{"text":"a\uFEFFb"}}';
    expect(lines(feed(new NdjsonDecoder(), [bytes(`${text}\n`)]))).toEqual([text]);
  });

  it('NdjsonDecoder strips a BOM at the start of every line, not only the first', () => {
    const data = bytes('\uFEFF{"a":1}\n\uFEFF{"b":2}\n\uFEFF\n');
    expect(lines(feed(new NdjsonDecoder(), [data]))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('NdjsonDecoder does not retain the caller buffer for a partial line', () => {
    const decoder = new NdjsonDecoder();
    const chunk = bytes('{"a":1');
    decoder.push(chunk);
    chunk.fill(0x20);
    expect(decoder.push(bytes('}\n'))).toEqual([{ kind: 'line', text: '{"a":1}' }]);
  });

  it('NdjsonDecoder defaults maxLineBytes to 4 MiB and rejects invalid values', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(4 * 1024 * 1024);
    expect(() => new NdjsonDecoder({ maxLineBytes: 0 })).toThrow(RangeError);
  });

  it('NdjsonDecoder accepts a line of exactly maxLineBytes and refuses one byte more', () => {
    const decoder = new NdjsonDecoder({ maxLineBytes: 10 });
    expect(decoder.push(bytes('"12345678"\n'))).toEqual([{ kind: 'line', text: '"12345678"' }]);
    expect(decoder.push(bytes('"123456789"\n'))).toEqual([{ kind: 'oversized', bytes: 11, head: '"123456789"' }]);
  });

  it('NdjsonDecoder never buffers more than maxLineBytes, reports an oversized line once, and resynchronises', () => {
    const decoder = new NdjsonDecoder({ maxLineBytes: 64 });
    const events: NdjsonEvent[] = [];
    events.push(...decoder.push(bytes('{"big":"')));
    for (let i = 0; i < 100; i++) {
      events.push(...decoder.push(bytes('A'.repeat(50))));
      expect(decoder.bufferedBytes).toBeLessThanOrEqual(64);
    }
    events.push(...decoder.push(bytes('"}\n{"next":1}\n')));
    expect(events.filter((event) => event.kind === 'oversized')).toHaveLength(1);
    expect(lines(events)).toEqual(['{"next":1}']);
  });

  it('NdjsonDecoder drops an oversized unterminated line at end()', () => {
    const decoder = new NdjsonDecoder({ maxLineBytes: 4 });
    expect(decoder.push(bytes('123456'))).toEqual([{ kind: 'oversized', bytes: 6, head: '123456' }]);
    expect(decoder.end()).toEqual([]);
    expect(decoder.push(bytes('{}\n'))).toEqual([{ kind: 'line', text: '{}' }]);
  });

  it('NdjsonDecoder splits any sequence of messages identically regardless of chunking (property)', () => {
    const message = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => JSON.stringify({ s, emoji: '😀é\u2028' })),
    );
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 0, maxLength: 12 }),
        fc.array(fc.nat(2000), { maxLength: 20 }),
        fc.boolean(),
        fc.boolean(),
        (messages, points, crlf, bom) => {
          const text = messages.map((m) => `${bom ? '\uFEFF' : ''}${m}${crlf ? '\r\n' : '\n'}`).join('');
          const data = bytes(text);
          const whole = lines(feed(new NdjsonDecoder(), [data]));
          const chunked = lines(feed(new NdjsonDecoder(), cut(data, points)));
          const byteByByte = lines(feed(new NdjsonDecoder(), Array.from(data, (b) => Uint8Array.of(b))));
          const expected = messages.filter((m) => m.trim() !== '');
          expect(whole).toEqual(expected);
          expect(chunked).toEqual(expected);
          expect(byteByByte).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('hands out what a line-by-line reading would, for any bytes, chunking and cap (property)', () => {
    // The reading the decoder must match: split on LF (a last line without one included); per line, over the cap ⇒
    // `oversized`; one CR at its end dropped; decoded alone (non-fatal, one leading BOM dropped); blank ⇒ skipped. Bytes are drawn from those that
    // matter at line ends: LF, CR, the BOM's bytes, a multi-byte character, bytes that are never UTF-8, space.
    const alphabet = [0x0a, 0x0a, 0x0d, 0xef, 0xbb, 0xbf, 0xe2, 0x82, 0xac, 0xff, 0xc3, 0x20, 0x7b, 0x7d, 0x61];
    const reference = (data: Uint8Array, cap: number): NdjsonEvent[] => {
      const events: NdjsonEvent[] = [];
      let start = 0;
      for (;;) {
        const newline = data.indexOf(0x0a, start);
        let line = data.subarray(start, newline === -1 ? data.length : newline);
        if (line.length > cap) events.push({ kind: 'oversized', bytes: line.length, head: '' });
        else {
          if (line.at(-1) === 0x0d) line = line.subarray(0, -1);
          const text = new TextDecoder().decode(line);
          if (!/^[ \t\r\n]*$/.test(text)) events.push({ kind: 'line', text });
        }
        if (newline === -1) return events;
        start = newline + 1;
      }
    };
    const kinds = (events: readonly NdjsonEvent[]): string[] => events.map((e) => (e.kind === 'line' ? `line:${e.text}` : 'oversized'));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), { maxLength: 80 }),
        fc.array(fc.nat(80), { maxLength: 8 }),
        fc.integer({ min: 1, max: 24 }),
        (drawn, points, cap) => {
          const data = Uint8Array.from(drawn);
          const expected = kinds(reference(data, cap));
          expect(kinds(feed(new NdjsonDecoder({ maxLineBytes: cap }), [data]))).toEqual(expected);
          expect(kinds(feed(new NdjsonDecoder({ maxLineBytes: cap }), cut(data, points)))).toEqual(expected);
          expect(kinds(feed(new NdjsonDecoder({ maxLineBytes: cap }), Array.from(data, (b) => Uint8Array.of(b))))).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('NdjsonDecoder handles a 5 MiB line in linear time when it arrives in 64 KiB chunks', () => {
    const decoder = new NdjsonDecoder({ maxLineBytes: 8 * 1024 * 1024 });
    const payload = `{"d":"${'A'.repeat(5 * 1024 * 1024)}"}\n`;
    const data = bytes(payload);
    const started = performance.now();
    const events = feed(decoder, cut(data, Array.from({ length: Math.ceil(data.length / 65536) }, (_, i) => i * 65536)));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(lines(events)).toEqual([payload.slice(0, -1)]);
  });
});

describe('NdjsonDecoder raw mode', () => {
  const raw = (maxLineBytes?: number): NdjsonDecoder => new NdjsonDecoder({ raw: true, ...(maxLineBytes === undefined ? {} : { maxLineBytes }) });

  it('hands out every line as written: CR, BOM, blank and empty lines and U+FFFD for invalid bytes, across any chunking', () => {
    const data = Uint8Array.from([...bytes('{"a":1}\r\n\uFEFF{"b":2}\n\n  \n\u20ac'), 0xff, ...bytes('\n')]);
    const expected = ['{"a":1}\r', '\uFEFF{"b":2}', '', '  ', '\u20ac\uFFFD'];
    expect(lines(feed(raw(), [data]))).toEqual(expected);
    expect(lines(feed(raw(), Array.from(data, (b) => Uint8Array.of(b))))).toEqual(expected);
    expect(lines(feed(raw(), [bytes('last')]))).toEqual(['last']);
    expect(feed(raw(), [bytes('x\n')]).length).toBe(1);
  });

  it('reports a line over the limit once, at its end, with its whole length, its first maxLineBytes and its last bytes', () => {
    const decoder = raw(10);
    const events: NdjsonEvent[] = [];
    events.push(...decoder.push(bytes('{"id":1,"result":"')));
    for (let i = 0; i < 20; i++) {
      events.push(...decoder.push(bytes('A'.repeat(100))));
      expect(decoder.bufferedBytes).toBeLessThanOrEqual(10);
    }
    expect(events).toEqual([]);
    events.push(...decoder.push(bytes('"}\r\n{"next":1}\n')));
    expect(events).toEqual([
      { kind: 'oversized', bytes: 18 + 2000 + 3, head: '{"id":1,"r', tail: `${'A'.repeat(1021)}"}\r` },
      { kind: 'line', text: '{"next":1}' },
    ]);
    expect(raw(4).push(bytes('12345'))).toEqual([]);
    const atEnd = raw(4);
    atEnd.push(bytes('123456'));
    expect(atEnd.end()).toEqual([{ kind: 'oversized', bytes: 6, head: '1234', tail: '56' }]);
  });
});

describe('encodeNdjson', () => {
  it('encodeNdjson writes one line with a single trailing LF and no raw newlines', () => {
    const line = encodeNdjson({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb\r\nc\u2028' } });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
    expect(JSON.parse(line)).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb\r\nc\u2028' } });
  });

  it('encodeNdjson throws TypeError for a value without JSON form', () => {
    expect(() => encodeNdjson(undefined)).toThrow(TypeError);
    expect(() => encodeNdjson(1n)).toThrow(TypeError);
  });
});
