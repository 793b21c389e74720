import { describe, expect, it } from 'vitest';
import { bindWarning } from './serveHttp.js';

describe('serveHttp bind warning', () => {
  it('a non-loopback bind without Host validation says what is off, what is still checked and what to set', () => {
    expect(bindWarning('0.0.0.0', false, false)).toBe(
      'MCP HTTP server bound to "0.0.0.0" without Host validation: set allowedHosts to the names clients use (e.g. ["mcp.example.com"]) to enable it; Origin is still checked (a browser request from another origin gets 403 unless listed in allowedOrigins)',
    );
    expect(bindWarning('::', false, true)).toBe(
      'MCP HTTP server bound to "::" without Host validation: set allowedHosts to the names clients use (e.g. ["mcp.example.com"]) to enable it; Origin validation is off too (allowAnyOrigin: true): set allowedOrigins instead to accept only the listed browser pages',
    );
    expect(bindWarning('0.0.0.0', true, false)).toBeUndefined();
    expect(bindWarning('127.0.0.1', false, false)).toBeUndefined();
    expect(bindWarning('localhost', false, true)).toBeUndefined();
  });
});
