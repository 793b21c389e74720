/**
 * `RequestOptions.tag` comes back as `InputContext.requestTag` with the questions the server asks for that request
 * (and as `LogContext.requestTag` with the logs it sends for it):
 * over Streamable HTTP a session's server → client request on the POST's own stream (both requests in flight at
 * once, each question told apart), a 2026-07-28 input request always; in memory (one channel, as stdio) nothing
 * relates a question to a request, so it carries none.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '@switchboard/jsonrpc';
import { McpServer } from '../server/mcpServer.js';
import { streamableHttp } from '../transports/http/client/clientConnectors.js';
import { serveHttp, type ServeHttpHandle } from '../transports/node/index.js';
import { inMemoryConnector } from '../testing/index.js';
import { McpClient } from './mcpClient.js';
import type { ClientConnector } from '../protocol/transport.js';
import type { InputContext } from './options.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

let server: McpServer;
let http: ServeHttpHandle;
let client: McpClient | undefined;

beforeEach(async () => {
  server = new McpServer({ name: 'asker', version: '1' }, { logger: silent, capabilities: { tools: {}, logging: {} } });
  // Both calls are in flight before either question is answered: the second waits for the first to ask.
  let first: (() => void) | undefined;
  const firstAsked = new Promise<void>((resolve) => (first = resolve));
  server.tool('ask', { inputSchema: { type: 'object', properties: { who: { type: 'string' } } } }, async (args, ctx) => {
    if (args.who === 'two') await firstAsked;
    else first?.();
    await ctx.log('info', `log of ${String(args.who)}`);
    const answer = await ctx.elicit({ message: `question of ${String(args.who)}`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: String(answer.content?.name) }] };
  });
  http = await serveHttp({ server, port: 0 });
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await http.close({ drainMs: 0 });
  await server.close();
});

/** Two tagged calls at once; each question is answered with the tag it came back with. */
async function twoCalls(connector: ClientConnector, era: 'legacy' | 'modern'): Promise<{ texts: string[]; seen: Array<[string, unknown]>; logs: Array<[unknown, unknown]> }> {
  const seen: Array<[string, unknown]> = [];
  const logs: Array<[unknown, unknown]> = [];
  client = await McpClient.connect({
    notifications: { message: (params, ctx) => void logs.push([params.data, ctx.requestTag]) },
    connector,
    era,
    logger: silent,
    verdictStore: new InMemoryEraVerdictStore(),
    onElicitation: (params, ctx: InputContext) => {
      seen.push([params.message, ctx.requestTag]);
      return Promise.resolve({ action: 'accept', content: { name: `answered for ${String(ctx.requestTag)}` } });
    },
  });
  await client.setLoggingLevel('debug');
  const results = await Promise.all(['one', 'two'].map((who) => (client as McpClient).callTool({ name: 'ask', arguments: { who } }, { tag: `tag-${who}` })));
  return { texts: results.map((r) => (r.content[0] as { text: string }).text), seen, logs };
}

describe('RequestOptions.tag → InputContext.requestTag and LogContext.requestTag', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}, Streamable HTTP: each question and each log carries the tag of the request it was sent for`, async () => {
      const { texts, seen, logs } = await twoCalls(streamableHttp({ url: http.url }), era);
      expect(texts).toEqual(['answered for tag-one', 'answered for tag-two']);
      expect(seen.sort()).toEqual([['question of one', 'tag-one'], ['question of two', 'tag-two']]);
      // 2026-07-28 runs the handler again on the retry, so it logs once per round; each log names its own request.
      expect(new Set(logs.map(([data]) => data))).toEqual(new Set(['log of one', 'log of two']));
      for (const [data, tag] of logs) expect(tag).toBe(`tag-${String(data).replace('log of ', '')}`);
    });
  }

  it('legacy, in memory (one channel, like stdio): a question or a log names no request, so it carries no tag', async () => {
    const { seen, logs } = await twoCalls(inMemoryConnector(server), 'legacy');
    expect(seen.map(([, tag]) => tag)).toEqual([undefined, undefined]);
    expect(logs.map(([, tag]) => tag)).toEqual([undefined, undefined]);
  });
});
