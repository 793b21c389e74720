import { describe, expect, it } from 'vitest';
import { HostGuard, parseHostPort } from './security.js';

describe('HostGuard', () => {
  it('parses host[:port] with IPv6 brackets', () => {
    expect(parseHostPort('LocalHost:3000')).toEqual({ hostname: 'localhost', port: '3000' });
    expect(parseHostPort('[::1]:8080')).toEqual({ hostname: '[::1]', port: '8080' });
    // RFC 9110 §7.2 / RFC 3986 §3.2.2: an IPv6 address in a Host value is bracketed; a bare one is malformed.
    expect(parseHostPort('::1')).toBeUndefined();
    expect(new HostGuard({ protection: true, allowedHosts: ['::1'] }).hostAllowed('[::1]:1')).toBe(true);
    expect(parseHostPort('[::1')).toBeUndefined();
  });

  it('Host: loopback defaults and explicit lists; off without protection', () => {
    const guard = new HostGuard({ protection: true });
    expect(guard.hostAllowed('localhost:1234')).toBe(true);
    expect(guard.hostAllowed('127.0.0.1')).toBe(true);
    expect(guard.hostAllowed('evil.example.com')).toBe(false);
    expect(guard.hostAllowed(undefined)).toBe(false);

    const custom = new HostGuard({ protection: true, allowedHosts: ['mcp.example.com', 'api.example.com:8443'] });
    expect(custom.hostAllowed('mcp.example.com:1')).toBe(true);
    expect(custom.hostAllowed('api.example.com:8443')).toBe(true);
    expect(custom.hostAllowed('api.example.com')).toBe(false);

    expect(new HostGuard({ protection: false }).hostAllowed('anything')).toBe(true);
  });

  it('Origin: absent allowed; same origin (scheme, host, port) or listed; else refused, with or without Host protection', () => {
    for (const protection of [true, false]) {
      const guard = new HostGuard({ protection, allowedOrigins: ['https://APP.example.com/'] });
      expect(guard.originAllowed(undefined, 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('HTTP://LocalHost:3000', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://[::1]:3000', '[::1]:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://10.0.0.5:3000', '10.0.0.5:3000', 'http')).toBe(true);
      // default ports are implied on either side
      expect(guard.originAllowed('http://mcp.example.com', 'mcp.example.com:80', 'http')).toBe(true);
      expect(guard.originAllowed('https://mcp.example.com:443', 'mcp.example.com', 'https')).toBe(true);
      // port, scheme or host mismatch
      expect(guard.originAllowed('http://localhost:5173', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('http://localhost', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('https://localhost:3000', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('http://127.0.0.1:3000', 'localhost:3000', 'http')).toBe(false);
      expect(guard.originAllowed('http://evil.example.com', 'localhost:3000', 'http')).toBe(false);
      // null, opaque, non-http(s), paths, credentials, no Host
      for (const bad of ['null', '', 'file://', 'chrome-extension://abc', 'http://localhost:3000/x', 'http://u@localhost:3000']) {
        expect(guard.originAllowed(bad, 'localhost:3000', 'http')).toBe(false);
      }
      expect(guard.originAllowed('http://localhost:3000', undefined, 'http')).toBe(false);
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000/x', 'http')).toBe(false);
      // the list: exact, case-insensitive, trailing slash ignored
      expect(guard.originAllowed('https://app.example.com', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('https://app.example.com:8443', 'localhost:3000', 'http')).toBe(false);
      // the same-origin cache never lets a different triple through
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000', 'http')).toBe(true);
      expect(guard.originAllowed('http://localhost:3000', 'localhost:3000', 'https')).toBe(false);
    }
    const any = new HostGuard({ protection: false, allowAnyOrigin: true });
    expect(any.originAllowed('http://evil.example.com', 'localhost:3000', 'http')).toBe(true);
    expect(any.originAllowed('null', 'localhost:3000', 'http')).toBe(true);
  });

  // RFC 9110 §7.2 (Host = uri-host [":" port]) and RFC 6454 §6.2/§7.1 (one serialized origin: scheme "://" host
  // [":" port]): a malformed value is refused as not allowed, never read as the loopback name it starts with.
  const HOSTS: readonly (readonly [string, boolean])[] = [
    ['localhost', true], ['localhost:3000', true], ['LOCALHOST:3000', true], ['127.0.0.1', true], ['127.0.0.1:3000', true],
    ['[::1]', true], ['[::1]:3000', true], ['127.0.0.1:', true], ['127.0.0.1:65535', true], [' 127.0.0.1:3000 ', true],
    ['a@127.0.0.1', false], ['a@127.0.0.1:3000', false], ['127.0.0.1:abc', false], ['127.0.0.1:3000x', false],
    ['127.0.0.1:65536', false], ['127.0.0.1:99999', false], ['127.0.0.1:-1', false], ['127.0.0.1:+80', false],
    ['127.0.0.1:3000:4000', false], ['localhost.evil.com', false], ['127.0.0.1 foo', false], ['127.0.0.1\tfoo', false],
    ['127.0.0.1/x', false], ['127.0.0.1?x', false], ['127.0.0.1#x', false], ['[::1]x', false], ['[::1]:abc', false],
    ['[::1', false], ['::1', false], ['[::1]:3000x', false], ['localhost%2e', false], ['localhost,evil.com', false],
    ['', false], [':3000', false], ['[]:3000', false],
  ];
  for (const [host, allowed] of HOSTS) {
    it(`Host ${JSON.stringify(host)}: ${allowed ? 'accepted' : 'refused'}`, () => {
      expect(new HostGuard({ protection: true }).hostAllowed(host)).toBe(allowed);
    });
  }

  const ORIGINS: readonly (readonly [string, boolean])[] = [
    ['http://127.0.0.1:3000', true], ['HTTP://127.0.0.1:3000', true], [' http://127.0.0.1:3000 ', true], ['http://127.0.0.1:03000', true],
    ['http://a@127.0.0.1:3000', false], ['http://a:b@127.0.0.1:3000', false], ['http://127.0.0.1:abc', false],
    ['http://127.0.0.1:3000x', false], ['http://127.0.0.1:99999', false], ['http://127.0.0.1:3000/', false],
    ['http://127.0.0.1:3000/x', false], ['http://127.0.0.1:3000?x', false], ['http://127.0.0.1:3000#x', false],
    ['http://127.0.0.1:3000 http://127.0.0.1:3000', false], ['http://127.0.0.1 foo', false], ['http://localhost.evil.com:3000', false],
    ['http://2130706433:3000', false], ['http://127.1:3000', false], ['http:127.0.0.1:3000', false], ['ws://127.0.0.1:3000', false], ['null', false],
  ];
  for (const [origin, allowed] of ORIGINS) {
    it(`Origin ${JSON.stringify(origin)} with Host 127.0.0.1:3000: ${allowed ? 'accepted' : 'refused'}`, () => {
      expect(new HostGuard({ protection: true }).originAllowed(origin, '127.0.0.1:3000', 'http')).toBe(allowed);
    });
  }

  it('Origin [::1]: the IPv6 literal with its port is the request\'s own origin; listed origins compare canonically', () => {
    const guard = new HostGuard({ protection: true, allowedOrigins: ['http://app.example.com:80', 'null'] });
    expect(guard.originAllowed('http://[::1]:3000', '[::1]:3000', 'http')).toBe(true);
    expect(guard.originAllowed('http://[::1]:3001', '[::1]:3000', 'http')).toBe(false);
    expect(guard.originAllowed('http://app.example.com', 'localhost:3000', 'http')).toBe(true);
    expect(guard.originAllowed('http://u@app.example.com', 'localhost:3000', 'http')).toBe(false);
    expect(guard.originAllowed('null', 'localhost:3000', 'http')).toBe(true);
  });
});
