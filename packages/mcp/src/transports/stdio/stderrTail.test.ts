/**
 * StderrTail on its own: bytes in any chunking become the same lines, the tail and each line stay bounded.
 */
import { describe, expect, it } from 'vitest';
import { MAX_STDERR_LINE_CHARS, StderrTail } from './stderrTail.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('StderrTail', () => {
  it('decodes a UTF-8 sequence split across chunks once complete, and counts an unterminated last line at the end', () => {
    const seen: string[] = [];
    const tail = new StderrTail({ maxLines: 5, online: (line) => seen.push(line) });
    const text = bytes('café\r\nnaïve\nlast');
    for (let i = 0; i < text.length; i++) tail.push(text.subarray(i, i + 1));
    expect(seen).toEqual(['café', 'naïve']);
    tail.end();
    expect(seen).toEqual(['café', 'naïve', 'last']);
    expect(tail.lines).toEqual(['café', 'naïve', 'last']);
  });

  it('keeps the newest maxLines lines, skips blank ones, and caps a line that arrives over several chunks', () => {
    const tail = new StderrTail({ maxLines: 2 });
    tail.push(bytes('one\n\n  \ntwo\n'));
    for (let i = 0; i < 5; i++) tail.push(bytes('y'.repeat(500)));
    tail.push(bytes('\nthree\n'));
    expect(tail.lines).toEqual([`${'y'.repeat(MAX_STDERR_LINE_CHARS)}…`, 'three']);
  });

  it('keeps nothing with maxLines 0 but still hands every line on', () => {
    const seen: string[] = [];
    const tail = new StderrTail({ maxLines: 0, online: (line) => seen.push(line) });
    tail.push(bytes('a\nb\n'));
    expect(tail.lines).toEqual([]);
    expect(seen).toEqual(['a', 'b']);
  });
});
