import { describe, expect, it } from 'vitest';
import { missingForBrowser } from './cors.js';

const MODERN = ['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

describe('http.cors: what a browser client misses', () => {
  it('a server with no CORS: the status, the origin, the method, every header, and (sessions) the exposed session id', () => {
    expect(missingForBrowser({ status: 405, headers: { allow: 'GET, POST, DELETE' } }, ['content-type', 'mcp-session-id'], true)).toEqual([
      'a 2xx status (got 405)',
      'Access-Control-Allow-Origin',
      'POST in Access-Control-Allow-Methods',
      'content-type, mcp-session-id in Access-Control-Allow-Headers',
      'Mcp-Session-Id in the Access-Control-Expose-Headers of its answers',
    ]);
  });

  it('a partial answer: only what is missing; * allows every method and header', () => {
    const headers = { 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'Content-Type, MCP-Protocol-Version' };
    expect(missingForBrowser({ status: 204, headers }, MODERN, false)).toEqual(['Access-Control-Allow-Origin', 'mcp-method, mcp-name in Access-Control-Allow-Headers']);
    expect(missingForBrowser({ status: 200, headers: { 'access-control-allow-methods': '*', 'access-control-allow-headers': '*' } }, MODERN, false)).toEqual(['Access-Control-Allow-Origin']);
  });
});
