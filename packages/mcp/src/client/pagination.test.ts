/**
 * The list helpers against a scripted server (field bug B44): only a missing `nextCursor` ends a listing, `""` and
 * a repeated cursor are followed, and a runaway server ends with PaginationLimitError carrying what was read.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage, type JsonRpcRequest, type Logger } from '@switchboard/jsonrpc';
import type { ClientConnector, ClientTransport } from '../protocol/transport.js';
import { PaginationLimitError } from './errors.js';
import { McpClient } from './mcpClient.js';
import { collectPages } from './pagination.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A legacy server whose `tools/list` answers come from `pages`, in order; records the cursors asked for. */
function pagedServer(pages: (cursor: unknown, n: number) => Record<string, unknown>) {
  const cursors: unknown[] = [];
  const connector: ClientConnector = {
    kind: 'stdio',
    verdictKey: `paged:${Math.random()}`,
    open() {
      const transport: ClientTransport = {
        kind: 'stdio',
        start: () => Promise.resolve(),
        send(message) {
          const m = message as JsonRpcRequest;
          if ('id' in m) {
            let result: unknown = {};
            if (m.method === 'initialize') result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'p', version: '1' } };
            if (m.method === 'tools/list') {
              const cursor = (m.params as { cursor?: unknown } | undefined)?.cursor;
              cursors.push(cursor);
              result = pages(cursor, cursors.length);
            }
            queueMicrotask(() => transport.onmessage?.(parseMessage(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }))));
          }
          return Promise.resolve();
        },
        close() {
          transport.onclose?.();
          return Promise.resolve();
        },
        setProtocol() {},
      };
      return Promise.resolve(transport);
    },
  };
  return { connector, cursors };
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
const connect = (connector: ClientConnector, maxPages?: number) =>
  McpClient.connect({ connector, era: 'legacy', logger: silent, verdictStore: new InMemoryEraVerdictStore(), ...(maxPages === undefined ? {} : { maxPages }) });

describe('listAll helpers', () => {
  it('B44: "" is a cursor, a repeated cursor with a new page is followed, only a missing nextCursor ends', async () => {
    const server = pagedServer((_cursor, n) => [
      { tools: [tool('a')], nextCursor: '' },
      { tools: [tool('b')], nextCursor: 'same' },
      { tools: [tool('c')], nextCursor: 'same' },
      { tools: [tool('d')] },
    ][n - 1]!);
    const client = await connect(server.connector);
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(server.cursors).toEqual([undefined, '', 'same', 'same']);
    await client.close();
  });

  it('a cursor answered twice with the very same page is a loop: PaginationLimitError with the items so far', async () => {
    const server = pagedServer((cursor) => (cursor === undefined ? { tools: [tool('a')], nextCursor: 'x' } : { tools: [tool('b')], nextCursor: 'x' }));
    const client = await connect(server.connector);
    const error = await client.listAllTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(error).toMatchObject({ code: 'pagination_limit', stop: 'cursor_loop', method: 'tools/list', pages: 3, items: [tool('a'), tool('b')] });
    await client.close();
  });

  it('maxPages bounds a server that never stops, with the items so far', async () => {
    const server = pagedServer((_cursor, n) => ({ tools: [tool(`t${n}`)], nextCursor: `c${n}` }));
    const client = await connect(server.connector, 3);
    const error = await client.listAllTools().catch((e: unknown) => e);
    expect(error).toMatchObject({ constructor: PaginationLimitError, stop: 'max_pages', pages: 3, message: 'Pagination stopped on "tools/list": still a "nextCursor" after 3 pages (maxPages)' });
    expect((error as PaginationLimitError).items).toHaveLength(3);
    expect(server.cursors).toHaveLength(3);
    await client.close();
  });

  it('a nextCursor that is not a string is an invalid result', async () => {
    const server = pagedServer(() => ({ tools: [], nextCursor: 7 }));
    const client = await connect(server.connector);
    await expect(client.listTools()).rejects.toMatchObject({ code: 'invalid_result', message: 'Invalid result of "tools/list": "nextCursor" is not a string' });
    await client.close();
  });

  it('collectPages refuses a maxPages that is not a positive integer', async () => {
    await expect(collectPages({ method: 'm', maxPages: 0, maxBytes: 1024, page: () => Promise.resolve({ items: [], nextCursor: undefined }) })).rejects.toBeInstanceOf(RangeError);
  });
});
