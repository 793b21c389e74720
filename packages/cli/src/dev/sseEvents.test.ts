import { describe, expect, it } from 'vitest';
import { EventSplitter, MAX_SSE_EVENT_CHARS, sseMessage } from './sseEvents.js';

describe('EventSplitter', () => {
  it('yields whole events only, whatever the chunking and the line ends (CRLF split across chunks too)', () => {
    const splitter = new EventSplitter();
    expect(splitter.push('event: message\r\ndata: {"jsonrpc":"2.0","id":1,')).toEqual([]);
    expect(splitter.push('"result":{}}\r')).toEqual([]);
    const [event] = splitter.push('\n\r\n: keep-alive\n\n');
    expect(event).toEqual({ text: 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', message: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(splitter.push('data: not json\n\n')).toEqual([{ text: 'data: not json\n\n', message: undefined }]);
  });

  it('leaves out id lines when asked (one generation\'s event ids mean nothing to the next)', () => {
    expect(new EventSplitter().push('id: 7\ndata: {"jsonrpc":"2.0","method":"x"}\n\n', true)).toEqual([{ text: 'data: {"jsonrpc":"2.0","method":"x"}\n\n', message: { jsonrpc: '2.0', method: 'x' } }]);
    // A priming event (an id and nothing else) is dropped whole.
    expect(new EventSplitter().push('id: 1\n\n', true)).toEqual([]);
  });

  it('cuts an event that never ends past its bound', () => {
    const splitter = new EventSplitter();
    splitter.push(`data: ${'x'.repeat(MAX_SSE_EVENT_CHARS)}`);
    expect(splitter.overflowed).toBe(true);
  });

  it('writes a message as one event', () => {
    expect(new EventSplitter().push(sseMessage({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }))[0]!.message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });
});
