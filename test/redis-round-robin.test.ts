/**
 * The official SDK v1 client (`Client` + `StreamableHTTPClientTransport`) keeps one session across two `serveHttp`
 * instances sharing a real `redis-server` through `redisStores` (stores, notification bus and the handler's cluster
 * option), behind a forwarder that sends each HTTP request to the next instance in turn (round-robin, no stickiness):
 * its calls land on both instances, and a sampling request raised by a tool on one instance is answered through
 * whichever instance the client's answer reaches. Without redis-server the suite skips with one line naming the
 * package.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '@switchboard/jsonrpc';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { redisStores, type RedisStores } from '@switchboard/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

interface Instance {
  readonly name: string;
  readonly stores: RedisStores;
  readonly http: ServeHttpHandle;
}

async function instance(url: string, name: string): Promise<Instance> {
  const stores = redisStores({ url, keyPrefix: 'rr:', instanceId: name });
  await stores.ready;
  const server = new McpServer({ name: 'round-robin', version: '1.0.0' }, { ...stores.serverOptions, logger: silentLogger });
  server.tool('whoami', { description: 'the instance', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: name }] }));
  server.tool('ask', { description: 'samples the client', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `from ${name}` } }], maxTokens: 10 });
    return { content: [{ type: 'text', text: `${name} got ${(answer.content as { text?: string }).text ?? '?'}` }] };
  });
  const served = await serveHttp({ server, ...stores.httpOptions, logger: silentLogger });
  return { name, stores, http: served };
}

/** Sends each request to the next instance in turn; records where each went. */
async function roundRobin(instances: readonly Instance[]): Promise<{ url: string; routed: string[]; server: http.Server }> {
  let turn = 0;
  const routed: string[] = [];
  const server = http.createServer((req, res) => {
    const target = instances[turn++ % instances.length]!;
    routed.push(target.name);
    const upstream = http.request({ host: '127.0.0.1', port: target.http.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      res.on('close', () => answer.destroy());
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, routed, server };
}

describe.skipIf(REDIS_SERVER === undefined)('the SDK v1 client behind round-robin, two instances on one Redis', () => {
  let redis: RedisServer | undefined;
  const instances: Instance[] = [];
  let front: Awaited<ReturnType<typeof roundRobin>> | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    instances.push(await instance(redis.url, 'A'), await instance(redis.url, 'B'));
    front = await roundRobin(instances);
  });

  afterAll(async () => {
    front?.server.closeAllConnections();
    await new Promise((resolve) => front?.server.close(resolve) ?? resolve(undefined));
    for (const one of instances) {
      await one.http.close();
      await one.stores.close();
    }
    await redis?.stop();
  });

  it('keeps one session across both instances, sampling round trips included', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }));
    const transport = new StreamableHTTPClientTransport(new URL(front!.url));
    await client.connect(transport);
    try {
      const names = [];
      for (let i = 0; i < 4; i++) names.push(((await client.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0]!.text);
      expect(new Set(names)).toEqual(new Set(['A', 'B']));
      for (let i = 0; i < 3; i++) {
        const text = ((await client.callTool({ name: 'ask', arguments: {} })).content as { text: string }[])[0]!.text;
        expect(text).toMatch(/^[AB] got hello$/);
      }
      expect(new Set(front!.routed)).toEqual(new Set(['A', 'B']));
      expect(transport.sessionId).toBeDefined();
    } finally {
      await client.close();
    }
  }, 30_000);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
