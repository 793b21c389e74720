/**
 * Two demo processes (`examples/demo/main.js --port 0`) on one real `redis-server`, one given `--redis-url`, the
 * other `SWITCHBOARD_REDIS_URL`, both the same `SWITCHBOARD_REQUEST_STATE_SECRET`: the official SDK v1 client, whose
 * every HTTP request goes to the other process than the one before (a round robin with no stickiness), keeps one
 * session opened on the first — tools, a resource, and an `execute_sql` whose `elicitation/create` is raised on one
 * process and answered through the other; a 2026-07-28 `input_required` result sealed by one process is continued by
 * the other. A demo whose Redis does not answer is one line and exit 1 (`--stdio` with it: a usage error). Without redis-server the suite skips with one
 * line naming the package.
 */
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MAIN, ROOT, confirmForm, orderIds, startDemoHttp, type DemoHttp } from './helpers/demoServer.js';
import { exitWithin, stopByPid } from './helpers/process.js';
import { freePort, INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const MODERN = '2026-07-28';
const SECRET = 'the demo-redis test shares this secret of 32+ bytes';
const QUERY = 'SELECT id FROM orders ORDER BY id';
const TEST_MS = 30_000;

describe.skipIf(REDIS_SERVER === undefined)('two demo processes sharing one Redis (--redis-url)', () => {
  let redis: RedisServer | undefined;
  let first: DemoHttp | undefined;
  let second: DemoHttp | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { SWITCHBOARD_REQUEST_STATE_SECRET: SECRET };
    [first, second] = await Promise.all([
      startDemoHttp({ args: ['--redis-url', redis.url], env }),
      startDemoHttp({ env: { ...env, SWITCHBOARD_REDIS_URL: redis.url } }),
    ]);
  }, TEST_MS);

  afterAll(async () => {
    const codes = await Promise.all([first?.stop(), second?.stop()]);
    await redis?.stop();
    expect(codes).toEqual([0, 0]); // a graceful stop closes the Redis connections too
  }, TEST_MS);

  it('says where its stores are', () => {
    for (const demo of [first!, second!]) expect(demo.stderr()).toContain(`demo: sessions, events, tasks and notifications shared through Redis at ${redis!.url}`);
  });

  it('one SDK v1 session across both processes, every request on the other one: tools, a resource, an elicitation answered through the other', async () => {
    const urls = [first!.url, second!.url];
    const served: string[] = [];
    let turn = 0;
    /** The round robin: each request to the other process than the last, whatever the client asked for. */
    const roundRobin = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const target = urls[turn++ % 2]!;
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: { name?: string }; result?: unknown }) : undefined;
      const what = body === undefined ? '' : ` ${body.method ?? ('result' in body ? 'answer' : '?')}${body.params?.name === undefined ? '' : ` ${body.params.name}`}`;
      served.push(`${(init?.method ?? 'GET').toUpperCase()} ${target === first!.url ? 'first' : 'second'}${what}`);
      void input;
      return fetch(target, init);
    };
    const client = new Client({ name: 'demo-redis-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(first!.url), { fetch: roundRobin }));
    try {
      expect(served[0]).toBe('POST first initialize');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['execute_sql', 'add_numbers']));
      expect(await client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3 } })).toMatchObject({ structuredContent: { sum: 5 } });
      const schema = await client.readResource({ uri: 'sqlite://demo/schema/orders' });
      expect(schema.contents[0]!.uri).toBe('sqlite://demo/schema/orders');
      const rows = await client.callTool({ name: 'execute_sql', arguments: { query: QUERY, limit: 501 } });
      expect(asked).toEqual([confirmForm(501)]);
      expect(rows).toEqual(orderIds(501));
      // The call ran on one process; the client's answer to its elicitation/create was POSTed to the other.
      const call = served.find((line) => line.endsWith('tools/call execute_sql'))!;
      const answer = served.find((line) => line.endsWith(' answer'))!;
      expect(call.split(' ')[1]).not.toBe(answer.split(' ')[1]);
    } finally {
      await client.close();
    }
  }, TEST_MS);

  it('2026-07-28: an input_required result sealed by one process is continued by the other', async () => {
    const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'demo-redis-test', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const call = { name: 'execute_sql', arguments: { query: QUERY, limit: 501 } };
    const post = async (url: string, id: number, params: Record<string, unknown>): Promise<any> => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'execute_sql' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: envelope } }),
      });
      const text = await res.text();
      return (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
        ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.replace(/^data: ?/, ''))).find((m) => m.id === id)
        : JSON.parse(text);
    };
    const asked = await post(first!.url, 1, call);
    expect(asked.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm_rows: { method: 'elicitation/create', params: confirmForm(501) } } });
    const inputResponses = { confirm_rows: { action: 'accept', content: { confirm: true } } };
    const continued = await post(second!.url, 2, { ...call, inputResponses, requestState: asked.result.requestState });
    expect(continued.result).toMatchObject({ ...orderIds(501), resultType: 'complete' });
    // Used once in the deployment: the first process refuses the same state (the used states are in Redis).
    const replayed = await post(first!.url, 3, { ...call, inputResponses, requestState: asked.result.requestState });
    expect(replayed.error).toEqual({ code: -32602, message: 'Invalid params: "requestState" was already used: a request state continues one retry only' });
  }, TEST_MS);

  it('a Redis that does not answer is one line and exit code 1, the password hidden; with --stdio it is a usage error', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [DEMO_MAIN, '--port', '0', '--redis-url', `redis://:hunter2-secret@127.0.0.1:${port}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      expect(await exitWithin(child, 15_000)).toBe(1);
    } finally {
      stopByPid(child);
    }
    expect(stderr).toMatch(new RegExp(`^demo: cannot reach Redis at redis://…@127\\.0\\.0\\.1:${port}: .*\\n$`, 'm'));
    expect(stderr).not.toContain('hunter2');
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    // stdio serves one client: sharing its stores is a usage error.
    const stdio = spawn(process.execPath, [DEMO_MAIN, '--stdio', '--redis-url', redis!.url], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let usage = '';
    stdio.stderr.on('data', (chunk: Buffer) => (usage += chunk.toString()));
    try {
      expect(await exitWithin(stdio, 15_000)).toBe(2);
    } finally {
      stopByPid(stdio);
    }
    expect(usage).toMatch(/^demo: --redis-url shares the stores of HTTP instances; stdio serves one client \(drop --stdio or --redis-url\)\nusage: /);
  }, TEST_MS);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
