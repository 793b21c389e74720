import { describe, expect, it } from 'vitest';
import { HostGuard, parseHostPort } from './security.js';

describe('HostGuard', () => {
  it('parses host[:port] with IPv6 brackets', () => {
    expect(parseHostPort('LocalHost:3000')).toEqual({ hostname: 'localhost', port: '3000' });
    expect(parseHostPort('[::1]:8080')).toEqual({ hostname: '[::1]', port: '8080' });
    expect(parseHostPort('::1')).toEqual({ hostname: '[::1]', port: undefined });
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
});
