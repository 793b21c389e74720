import { describe, expect, it } from 'vitest';
import { SseChannel, formatMessageEvent, formatPrimingEvent, formatRetry } from './sseChannel.js';
import { SseDecoder } from './sseDecoder.js';


/** Feeds `chunks` one by one and collects every event. */
function decodeAll(chunks: readonly string[]): ReturnType<SseDecoder['push']> {
  const decoder = new SseDecoder();
  return chunks.flatMap((chunk) => decoder.push(chunk));
}

describe('SseDecoder', () => {
  it('reads what the writer formats: the priming event (empty data), message events with ids, a retry', () => {
    const decoder = new SseDecoder();
    const text = formatPrimingEvent('s.1', 500) + formatMessageEvent('{"jsonrpc":"2.0","id":1,"result":{}}', 's.2') + formatRetry(250);
    expect(decoder.push(text)).toEqual([
      { event: 'message', data: '', id: 's.1', retry: 500 },
      { event: 'message', data: '{"jsonrpc":"2.0","id":1,"result":{}}', id: 's.2' },
    ]);
    expect(decoder.lastEventId).toBe('s.2');
    expect(decoder.retryMs).toBe(250);
  });

  it('joins data lines with \\n, names the event, carries retry, ignores comments and unknown fields', () => {
    const text = ': keep-alive\nevent: endpoint\ndata: a\ndata:b\nretry: 3000\nfoo: bar\n\n';
    expect(decodeAll([text])).toEqual([{ event: 'endpoint', data: 'a\nb', id: '', retry: 3000 }]);
  });

  it('takes CR, LF and CRLF line ends, also a CRLF split across chunks', () => {
    expect(decodeAll(['data: 1\r\n\r\ndata: 2\r\rdata: 3\n\n'])).toEqual([
      { event: 'message', data: '1', id: '' },
      { event: 'message', data: '2', id: '' },
      { event: 'message', data: '3', id: '' },
    ]);
    expect(decodeAll(['data: x\r', '\n\r', '\ndata: y\r\n\r\n'])).toEqual([
      { event: 'message', data: 'x', id: '' },
      { event: 'message', data: 'y', id: '' },
    ]);
  });

  it('emits an event only once an empty line ends it; an unterminated final event is not emitted', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('id: 7\ndata: {"a":')).toEqual([]);
    expect(decoder.push('1}\n')).toEqual([]);
    expect(decoder.push('\ndata: half')).toEqual([{ event: 'message', data: '{"a":1}', id: '7' }]);
    expect(decoder.push('')).toEqual([]);
  });

  it('keeps the id across events, ignores an id holding NUL, a non-numeric retry and an event with no data', () => {
    expect(decodeAll(['id: 1\ndata: a\n\ndata: b\n\nid: x\0y\nretry: 1s\ndata: c\n\nevent: nothing\n\ndata: d\n\n'])).toEqual([
      { event: 'message', data: 'a', id: '1' },
      { event: 'message', data: 'b', id: '1' },
      { event: 'message', data: 'c', id: '1' },
      { event: 'message', data: 'd', id: '1' },
    ]);
  });

  it('drops one leading space of a value, a field without colon has an empty value, a leading BOM is skipped', () => {
    expect(decodeAll(['\uFEFFdata:  two spaces\ndata\n\n'])).toEqual([{ event: 'message', data: ' two spaces\n', id: '' }]);
  });
});

describe('SseChannel', () => {
  it('buffers until attached, then flushes in one write; end before attach ends on attach', () => {
    const channel = new SseChannel();
    expect(channel.write('a')).toBe(true);
    expect(channel.write('b')).toBe(true);
    channel.end();
    expect(channel.write('c')).toBe(false);
    const writes: string[] = [];
    let ended = false;
    channel.attach({ write: (c) => writes.push(c), end: () => { ended = true; }, buffered: () => 0, abort: () => {} });
    expect(writes).toEqual(['ab']);
    expect(ended).toBe(true);
  });

  it('detach fires ondetach once, unless the server ended the stream first; a throwing sink detaches', () => {
    let detached = 0;
    const a = new SseChannel();
    a.ondetach = () => detached++;
    a.attach({ write: () => { throw new Error('gone'); }, end: () => {} , buffered: () => 0, abort: () => {} });
    expect(a.write('x')).toBe(false);
    a.detach();
    expect(detached).toBe(1);
    expect(a.open).toBe(false);

    const b = new SseChannel();
    b.ondetach = () => detached++;
    b.end();
    b.detach();
    expect(detached).toBe(1);
  });

  it('ondelivered fires once the end reached a sink (attach, end, takeComplete), never when the client left first', () => {
    const fired: string[] = [];
    const a = new SseChannel();
    a.ondelivered = () => fired.push('a');
    a.write('x');
    a.attach({ write: () => {}, end: () => {} , buffered: () => 0, abort: () => {} });
    expect(fired).toEqual([]);
    a.end();
    a.end();
    expect(fired).toEqual(['a']);

    const b = new SseChannel();
    b.ondelivered = () => fired.push('b');
    b.write('p');
    b.write('q');
    expect(b.takeComplete()).toBeUndefined(); // not ended yet: nothing taken
    b.end();
    expect(b.takeComplete()).toBe('pq');
    expect(b.takeComplete()).toBeUndefined();
    b.attach({ write: () => { throw new Error('already taken'); }, end: () => {} , buffered: () => 0, abort: () => {} });
    expect(fired).toEqual(['a', 'b']);

    const c = new SseChannel();
    c.ondelivered = () => fired.push('c');
    c.write('x');
    c.detach();
    c.end();
    expect(c.takeComplete()).toBeUndefined();
    const d = new SseChannel();
    d.ondelivered = () => fired.push('d');
    d.end();
    d.attach({ write: () => {}, end: () => { throw new Error('gone'); }, buffered: () => 0, abort: () => {} });
    expect(fired).toEqual(['a', 'b']);
  });

  it('formats events per the SSE grammar', () => {
    expect(formatMessageEvent('{"a":1}')).toBe('event: message\ndata: {"a":1}\n\n');
    expect(formatMessageEvent('{}', 's.1')).toBe('id: s.1\nevent: message\ndata: {}\n\n');
    expect(formatPrimingEvent('s.1', 500)).toBe('id: s.1\nretry: 500\ndata: \n\n');
    expect(formatRetry(20.7)).toBe('retry: 20\n\n');
  });
});
