import { describe, expect, it } from 'vitest';
import { McpServer } from '../../server/mcpServer.js';
import { bindWarning, serveHttp } from './serveHttp.js';

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

describe('serveHttp auth without resource', () => {
  const verifier = { verify: () => ({ refused: 'no' }) };

  it('bound elsewhere than loopback without allowedHosts, it refuses before listening (the audience would come from any Host, RFC 8707 §2)', async () => {
    const server = new McpServer({ name: 'x', version: '1' });
    const auth = { authorizationServers: ['https://as.example'], verifier };
    // 192.0.2.1 (RFC 5737, documentation only): not loopback, and never bindable here, so a regression fails to
    // listen instead of listening on every interface.
    await expect(serveHttp({ server, host: '192.0.2.1', port: 0, auth })).rejects.toThrow(TypeError);
    await expect(serveHttp({ server, host: '192.0.2.1', port: 0, auth })).rejects.toThrow(/set auth\.resource to this server's canonical URL .*or allowedHosts/);
  });
});

describe('serveHttp otherPaths', () => {
  it('refuses a value that is not a listener before anything listens (served paths: packages/dashboard/src/dashboard.test.ts)', async () => {
    const server = new McpServer({ name: 'x', version: '1' });
    await expect(serveHttp({ server, otherPaths: 'dashboard' as never })).rejects.toThrow('Invalid option otherPaths: expected a function, got "dashboard"');
  });
});
