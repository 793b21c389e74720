/**
 * Deeply nested JSON is refused before `JSON.parse` pays for it (the engine's parseJson depth cap): -32600 with
 * the limit in `data`, HTTP 400 (the body has no `id` member: B45, the HTTP form of an unknown id), on the Streamable HTTP endpoint and the 2024-11-05 one.
 */
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../../server/mcpServer.js';
import { createMcpHttpHandler } from './handler.js';

const URL_BASE = 'http://127.0.0.1:3999';
const deepRequest = (depth: number): string =>
  `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)},"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`;

describe('JSON nesting cap over HTTP', () => {
  const server = new McpServer({ name: 'nesting', version: '0' });
  const handler = createMcpHttpHandler({ server });
  const post = (body: string): Promise<Response> =>
    handler.fetch(new Request(`${URL_BASE}/mcp`, {
      method: 'POST',
      headers: { host: '127.0.0.1:3999', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    }));

  it('a body nested 100 deep gets 400 with -32600, no id, data.maxDepth 64', async () => {
    const response = await post(deepRequest(100));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: JSON nested deeper than 64 levels', data: { maxDepth: 64 } },
    });
  });

  it('a body nested up to the limit is served (initialize with a 62-deep extra member)', async () => {
    const response = await post(deepRequest(62));
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
    await handler.close();
  });
});
