/**
 * 2026-07-28 `tools/list`: each tool's `x-mcp-header` annotations are compiled and handed to the transport; a tool
 * whose annotations are invalid is dropped from the list with a warning naming it (the http-invalid-tool-headers
 * conformance scenario's tools).
 */
import { describe, expect, it } from 'vitest';
import { parseMessage, type JsonRpcRequest, type Logger } from '@switchboard/jsonrpc';
import type { ParamHeader } from '../protocol/paramHeaders.js';
import type { ClientConnector, ClientTransport } from '../protocol/transport.js';
import { McpClient } from './mcpClient.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const annotated = (name: string, property: Record<string, unknown>) => ({ name, inputSchema: { type: 'object', properties: { p: property } } });
const TOOLS = [
  annotated('valid_tool', { type: 'string', 'x-mcp-header': 'Region' }),
  annotated('empty_name', { type: 'string', 'x-mcp-header': '' }),
  annotated('on_number', { type: 'number', 'x-mcp-header': 'N' }),
  annotated('on_object', { type: 'object', 'x-mcp-header': 'O' }),
  annotated('space', { type: 'string', 'x-mcp-header': 'A B' }),
  annotated('non_ascii', { type: 'string', 'x-mcp-header': 'Région' }),
  { name: 'duplicate', inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } } } },
  { name: 'plain', inputSchema: { type: 'object' } },
];

function modernServer(era: 'modern' | 'legacy') {
  const headers: [string, readonly ParamHeader[] | undefined][] = [];
  const connector: ClientConnector = {
    kind: 'streamable-http',
    verdictKey: `headers:${Math.random()}`,
    open() {
      const transport: ClientTransport = {
        kind: 'streamable-http',
        start: () => Promise.resolve(),
        send(message) {
          const m = message as JsonRpcRequest;
          if ('id' in m) {
            const result =
              m.method === 'server/discover'
                ? { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } }
                : m.method === 'initialize'
                  ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } }
                  : { tools: TOOLS };
            queueMicrotask(() => transport.onmessage?.(parseMessage(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }))));
          }
          return Promise.resolve();
        },
        close() {
          transport.onclose?.();
          return Promise.resolve();
        },
        setProtocol() {},
        setToolParamHeaders: (tool, h) => void headers.push([tool, h]),
      };
      return Promise.resolve(transport);
    },
  };
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} };
  return { connect: () => McpClient.connect({ connector, era, logger, verdictStore: new InMemoryEraVerdictStore() }), headers, warnings };
}

describe('x-mcp-header annotations on tools/list', () => {
  it('modern: valid annotations go to the transport, invalid ones drop their tool with a warning', async () => {
    const server = modernServer('modern');
    const client = await server.connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['valid_tool', 'plain']);
    expect(server.headers).toEqual([
      ['valid_tool', [{ header: 'Region', field: 'mcp-param-region', path: ['p'], type: 'string' }]],
      ['empty_name', undefined],
      ['on_number', undefined],
      ['on_object', undefined],
      ['space', undefined],
      ['non_ascii', undefined],
      ['duplicate', undefined],
      ['plain', undefined],
    ]);
    expect(server.warnings).toEqual(['empty_name', 'on_number', 'on_object', 'space', 'non_ascii', 'duplicate'].map((name) => `Tool "${name}" dropped: its x-mcp-header annotations are invalid`));
    await client.close();
  });

  it('legacy: the list is returned as the server sent it (the annotations mean nothing before 2026-07-28)', async () => {
    const server = modernServer('legacy');
    const client = await server.connect();
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    expect(server.headers).toEqual([]);
    await client.close();
  });
});
