import { describe, expect, it } from 'vitest';
import { terminalJson, terminalText } from './terminalText.js';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminalText', () => {
  it('writes every sequence a terminal acts on as a visible escape', () => {
    expect(terminalText('a\u001b[31mred\u001b]8;;https://x/\u0007link\u001b]52;c;eA==\u001b\\')).toBe('a\\x1b[31mred\\x1b]8;;https://x/\\x07link\\x1b]52;c;eA==\\x1b\\');
    expect(terminalText('bell\u0007 cr\r del\u007f bs\u0008 nul\u0000')).toBe('bell\\x07 cr\\r del\\x7f bs\\x08 nul\\x00');
    expect(terminalText('csi\u009b2J nel\u0085 osc\u009d0;t\u009c')).toBe('csi\\u009b2J nel\\u0085 osc\\u009d0;t\\u009c');
    expect(terminalText('\u202eevil\u202c \u2066iso\u2069')).toBe('\\u202eevil\\u202c \\u2066iso\\u2069');
  });

  it('keeps line feeds and tabs in a block, escapes them on one line', () => {
    expect(terminalText('a\n\tb\r\n', 'block')).toBe('a\n\tb\\r\n');
    expect(terminalText('a\n\tb', 'line')).toBe('a\\n\\tb');
    expect(terminalText('a\n\tb\u00a0\ufeff', 'evidence')).toBe('a\n\\tb\\u00a0\\ufeff');
  });

  it('leaves printable text, backslashes and wide characters alone; is idempotent', () => {
    const text = 'C:\\path ünïcödé 漢字 🙂 — “quotes”';
    expect(terminalText(text)).toBe(text);
    const once = terminalText('\u001b[2J\u009b');
    expect(terminalText(once)).toBe(once);
    expect(terminalText(42)).toBe('42');
  });
});

describe('terminalJson', () => {
  it('escapes DEL, C1 and bidi overrides as JSON escapes, and stays JSON of the same value', () => {
    const value = { name: 'a\u001b[31m\u009b\u0085\u007f\u202e\u2066z' };
    const text = terminalJson(value);
    expect(text).not.toMatch(RAW);
    expect(text).toContain('\\u001b[31m\\u009b\\u0085\\u007f\\u202e\\u2066z');
    expect(JSON.parse(text)).toEqual(value);
    expect(terminalJson(undefined)).toBe('null');
  });
});
