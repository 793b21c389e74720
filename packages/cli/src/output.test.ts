import { describe, expect, it } from 'vitest';
import { captureIo } from './cliIo.js';
import { cut, Output } from './output.js';

/** What `cut` did before it was made linear (and before it escaped controls): the reference for plain text. */
function reference(text: string, width: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  if (flat.length <= width) return flat;
  return width <= 1 ? flat.slice(0, Math.max(0, width)) : `${flat.slice(0, width - 1)}…`;
}

describe('cut', () => {
  it('flattens line feeds (and the white space around them) to one space, then cuts with an ellipsis, as before', () => {
    const samples = ['a\n\nb', '\nb', 'a\n', '\n\n', 'a \n  \n b', 'plain', '  lead\ntrail  ', 'x'.repeat(30), 'a\r\nb', 'a\u00a0\n\u2003b', ' \n', '\n ', 'ab\n\n\ncd\n'];
    for (const text of samples) for (const width of [0, 1, 2, 5, 10, 40]) expect(cut(text, width), `${JSON.stringify(text)} in ${width}`).toBe(reference(text, width));
  });

  it('escapes controls and counts the escapes in the width', () => {
    expect(cut('a\u001b[31mb', 100)).toBe('a\\x1b[31mb');
    expect(cut('\u001b\u001b\u001b', 9)).toBe('\\x1b\\x1b…');
  });

  it('is linear on a long run of white space without a line feed (the old pattern backtracked quadratically)', () => {
    // 200,000 spaces: the old pattern took about 25 s here (1.6 s for 50,000); linear, it is a millisecond. A budget of
    // 2 s (the call blocks the thread, so the test's own timeout could not interrupt it).
    const started = performance.now();
    expect(cut(`${' '.repeat(200_000)}x`, 10)).toBe('         …');
    expect(cut(`a${' '.repeat(200_000)}\n${' '.repeat(200_000)}b`, 10)).toBe('a b');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('Output.table', () => {
  it('pads fixed columns to their widest cut cell, cuts the flexible one to the width, escapes every cell', () => {
    const io = captureIo({ columns: 40 });
    new Output(io).table([{ header: 'NAME' }, { header: 'DESCRIPTION', flexible: true }], [['a\u009b', 'one\ntwo'], ['longer_name', 'x'.repeat(100)]]);
    expect(io.out().split('\n')).toEqual(['NAME         DESCRIPTION', 'a\\u009b      one two', `longer_name  ${'x'.repeat(26)}…`, '']);
  });
});
