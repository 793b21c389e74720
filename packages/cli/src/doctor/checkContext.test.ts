import { describe, expect, it } from 'vitest';
import { revisionOfRequest } from './checkContext.js';

describe('revisionOfRequest', () => {
  it('reads the revision a raw HTTP request speaks: initialize offer, then the header, then the 2026-07-28 envelope', () => {
    expect(revisionOfRequest({ method: 'POST', body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }, headers: { 'MCP-Protocol-Version': '2025-11-25' } })).toBe('2025-06-18');
    expect(revisionOfRequest({ method: 'DELETE', headers: { 'mcp-protocol-version': '2025-11-25' } })).toBe('2025-11-25');
    expect(revisionOfRequest({ method: 'POST', body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } } })).toBe('2026-07-28');
    expect(revisionOfRequest({ method: 'GET' })).toBeUndefined();
    expect(revisionOfRequest({ method: 'POST', body: 'not json' })).toBeUndefined();
  });
});
