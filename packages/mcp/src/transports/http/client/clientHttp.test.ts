import { describe, expect, it } from 'vitest';
import { headerList, headerPairs, requestHeaders, type HttpHeaderFields } from './clientHttp.js';

describe('the header fields of a request: the fetch path (requestHeaders) and the direct request (headerList) agree', () => {
  const own = { 'Content-Type': 'application/json', 'Mcp-Session-Id': 'ours' };
  const cases: [string, HttpHeaderFields | undefined][] = [
    ['no caller fields', undefined],
    ['a record whose names differ only in case: the last wins', { Authorization: 'Bearer old', authorization: 'Bearer new', 'X-Trace': '1' }],
    ['a Headers instance', new Headers([['x-trace', '1'], ['x-trace', '2']])],
    ['caller fields the transport sets: the transport wins', { 'mcp-session-id': 'theirs', 'content-type': 'text/plain' }],
  ];

  it.each(cases)('%s', async (_what, fields) => {
    const viaFetch: [string, string][] = [];
    (await requestHeaders(fields, own)).forEach((value, name) => viaFetch.push([name, value]));
    const list = headerList(fields, own);
    expect(headerPairs(list)).toEqual(viaFetch);
    expect(new Set(list.filter((_, i) => i % 2 === 0)).size).toBe(list.length / 2);
  });

  it('a name or value fetch would refuse is refused by both', async () => {
    const bad = { 'x-token': 'a\r\nx-injected: 1' };
    await expect(requestHeaders(bad, own)).rejects.toThrow(TypeError);
    expect(() => headerList(bad, own)).toThrow(TypeError);
  });
});
