import { describe, expect, it, vi } from 'vitest';
import type { JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer } from '../mcpServer.js';
import { coerceArgumentsMiddleware } from './coerceArguments.js';

const SCHEMA = {
  type: 'object',
  properties: {
    limit: { type: 'integer' },
    ratio: { type: 'number' },
    exact: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'integer' } },
    filter: { type: 'object', properties: { since: { type: 'integer' }, label: { type: 'string' } } },
    note: { type: 'string' },
    either: { type: ['string', 'number'] },
    maybe: { type: ['integer', 'null'] },
    pair: { type: 'array', prefixItems: [{ type: 'boolean' }, { type: 'number' }] },
    choice: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] },
  },
} as const;

const call = (id: number, args: Record<string, unknown>, name = 'echo'): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

function coercing(options?: Parameters<typeof coerceArgumentsMiddleware>[0]) {
  const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const server = new McpServer({ name: 'coerce', version: '1' }, { logger });
  const received: unknown[] = [];
  const echo = (args: unknown) => {
    received.push(args);
    return { content: [{ type: 'text' as const, text: 'ok' }] };
  };
  server.tool('echo', { inputSchema: SCHEMA }, echo);
  server.tool('other', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, echo);
  if (options !== null) server.use(coerceArgumentsMiddleware(options));
  return { server, logger, received };
}

describe('coerceArgumentsMiddleware', () => {
  it('turns JSON strings into the numbers, booleans, arrays and objects the inputSchema declares, and logs the paths', async () => {
    const { server, logger, received } = coercing();
    const response = await server.handle(call(1, { limit: ' 10 ', ratio: '0.5', exact: 'true', tags: '[1, "2"]', filter: '{"since":"2024","label":"7"}', note: '42', maybe: 'null', pair: ['false', '3'] }));
    expect(response).toMatchObject({ result: { content: [{ text: 'ok' }] } });
    expect(received).toEqual([{ limit: 10, ratio: 0.5, exact: true, tags: [1, 2], filter: { since: 2024, label: '7' }, note: '42', maybe: null, pair: [false, 3] }]);
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledWith('Coerced tool arguments sent as JSON strings', {
      tool: 'echo',
      client: undefined,
      arguments: ['limit: string → integer', 'ratio: string → number', 'exact: string → boolean', 'tags: string → array', 'tags[1]: string → integer', 'filter: string → object', 'filter.since: string → integer', 'maybe: string → null', 'pair[0]: string → boolean', 'pair[1]: string → integer'],
    });
  });

  it('leaves alone what the schema allows as a string, what is not exactly a JSON value of the type, and unclear schemas', async () => {
    const { server, logger, received } = coercing();
    await server.handle(call(1, { either: '5', limit: 7 }));
    const refused = await server.handle(call(2, { limit: '5px' }));
    const fraction = await server.handle(call(3, { limit: '1.5', exact: 'yes' }));
    const unclear = await server.handle(call(4, { choice: '5' }));
    expect(received).toEqual([{ either: '5', limit: 7 }]);
    // Still refused by validation as before: the strings reach it unchanged.
    expect(refused).toMatchObject({ result: { isError: true, content: [{ text: expect.stringContaining('limit') }] } });
    expect(fraction).toMatchObject({ result: { isError: true } });
    expect(unclear).toMatchObject({ result: { isError: true } });
    expect(logger.info).not.toHaveBeenCalled();
  });

  it('is off unless installed: without it the same call fails validation', async () => {
    const { server, received } = coercing(null as never);
    expect(await server.handle(call(1, { limit: '10' }))).toMatchObject({ result: { isError: true } });
    expect(received).toEqual([]);
  });

  it('coerces only the tools it is given, and passes unknown tools and other methods through', async () => {
    const { server, received } = coercing({ tools: ['echo'], level: 'debug' });
    await server.handle(call(1, { limit: '3' }));
    expect(await server.handle(call(2, { n: '3' }, 'other'))).toMatchObject({ result: { isError: true } });
    expect(await server.handle(call(3, { n: '3' }, 'missing'))).toMatchObject({ error: { code: -32602 } });
    expect(received).toEqual([{ limit: 3 }]);
    expect(() => coerceArgumentsMiddleware({ tools: 'echo' as never })).toThrow(TypeError);
  });

  it('coerces the arguments of a 2026-07-28 request, whose params keep their envelope', async () => {
    const { server, received } = coercing();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'quirky-host', version: '0.9' } };
    const response = await server.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { tags: '[4]' }, _meta: meta } });
    expect(response).toMatchObject({ result: { resultType: 'complete', content: [{ text: 'ok' }] } });
    expect(received).toEqual([{ tags: [4] }]);
  });
});
