/**
 * `switchboard dev --port` keeps hosts connected across reloads (issue 22): the official SDK v1 client (1.32.2),
 * which never initializes again after a 404, and Switchboard's `McpClient` in both eras stay connected through
 * three reloads (one adds a tool): every call after a reload works, and the host hears
 * `notifications/tools/list_changed` and then lists the new tool. Each `dev` runs in-process (`run` with an abort
 * signal for SIGINT); its generations are child processes, all gone when the test ends.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SERVER_JS = pathToFileURL(path.join(ROOT, 'packages', 'mcp', 'dist', 'server.js')).href;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const TEST_MS = 90_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-dev-hosts-'));
  writeFileSync(
    path.join(dir, 'server.mjs'),
    [
      `import { McpServer } from ${JSON.stringify(SERVER_JS)};`,
      `import { greeting, extra } from './tools.mjs';`,
      `const server = new McpServer({ name: 'dev-hosts', version: '1.0.0' });`,
      `server.tool('greet', { description: 'Greets', inputSchema: { type: 'object', properties: {} } }, () => ({ content: [{ type: 'text', text: greeting }] }));`,
      `server.tool('slow', { description: 'Answers after 1.5 s', inputSchema: { type: 'object', properties: {} } }, () => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: 'text', text: 'slow ' + greeting }] }), 1500)));`,
      `server.tool('crash', { description: 'Exits the process', inputSchema: { type: 'object', properties: {} } }, () => process.exit(7));`,
      `for (const name of extra) server.tool(name, { description: 'Added', inputSchema: { type: 'object', properties: {} } }, () => ({ content: [{ type: 'text', text: name }] }));`,
      'export default server;',
      '',
    ].join('\n'),
  );
  edit('one', []);
});
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** The PIDs of running generations (`switchboard dev-generation`) of this test's module (Linux /proc). */
function generations(): number[] {
  const file = path.join(dir, 'server.mjs');
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('dev-generation') && argv.includes(file)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

function edit(greeting: string, extra: string[]): void {
  writeFileSync(path.join(dir, 'tools.mjs'), `export const greeting = ${JSON.stringify(greeting)};\nexport const extra = ${JSON.stringify(extra)};\n`);
}

async function devHttp(): Promise<{ io: ReturnType<typeof captureIo>; url: string; stop: () => Promise<number> }> {
  const abort = new AbortController();
  const io = captureIo({ cwd: dir, env: process.env, signal: abort.signal });
  const done = run(['dev', 'server.mjs', '--port', '0'], io);
  const stop = (): Promise<number> => {
    abort.abort();
    return done;
  };
  cleanups.push(stop);
  await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/dev serving .* on http:\/\/127\.0\.0\.1:\d+\/mcp /);
  return { io, url: /on (http:\/\/\S+) /.exec(io.err())![1]!, stop };
}

/** The three reloads: the greeting changes each time, the second one adds a tool. */
const RELOADS = [
  { greeting: 'two', extra: [] },
  { greeting: 'three', extra: ['added'] },
  { greeting: 'four', extra: ['added'] },
] as const;

async function reload(io: ReturnType<typeof captureIo>, n: number): Promise<void> {
  const step = RELOADS[n]!;
  edit(step.greeting, [...step.extra]);
  await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(new RegExp(`reloaded after tools\\.mjs \\(generation ${n + 2}, \\d+ ms\\); generation ${n + 1} stops: hosts stay connected`));
}

describe('switchboard dev --port keeps hosts connected across reloads', () => {
  it('the official SDK v1 client: its session survives three reloads, it hears list_changed and lists the added tool', async () => {
    const { io, url, stop } = await devHttp();
    const client = new Client({ name: 'sdk-host', version: '1.0.0' });
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    cleanups.unshift(() => client.close());
    const sessionId = transport.sessionId;
    const greet = async (): Promise<unknown> => ((await client.callTool({ name: 'greet', arguments: {} })).content as { text: string }[])[0]!.text;
    expect(await greet()).toBe('one');
    // The SDK opens its standalone GET stream after notifications/initialized: wait until dev holds it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let n = 0; n < RELOADS.length; n++) {
      await reload(io, n);
      expect(await greet()).toBe(RELOADS[n]!.greeting);
      await expect.poll(() => listChanged, { timeout: 10_000 }).toBe(n + 1);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(['greet', 'slow', 'crash', ...RELOADS[n]!.extra]);
    }
    expect(((await client.callTool({ name: 'added', arguments: {} })).content as { text: string }[])[0]!.text).toBe('added');
    // The host never initialized again: the same session all along.
    expect(transport.sessionId).toBe(sessionId);
    await client.close();
    expect(await stop()).toBe(0);
  }, TEST_MS);

  it('McpClient, legacy session: the same through three reloads', async () => {
    const { io, url, stop } = await devHttp();
    let listChanged = 0;
    const client = await McpClient.connect({ connector: streamableHttp({ url }), era: 'legacy', logger: silent, reconnect: false, notifications: { toolsListChanged: () => listChanged++ } });
    cleanups.unshift(() => client.close());
    const greet = async (): Promise<unknown> => ((await client.callTool({ name: 'greet', arguments: {} })).content[0] as { text: string }).text;
    expect([client.era, await greet()]).toEqual(['legacy', 'one']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let n = 0; n < RELOADS.length; n++) {
      await reload(io, n);
      expect(await greet()).toBe(RELOADS[n]!.greeting);
      await expect.poll(() => listChanged, { timeout: 10_000 }).toBe(n + 1);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet', 'slow', 'crash', ...RELOADS[n]!.extra]);
    }
    await client.close();
    expect(await stop()).toBe(0);
  }, TEST_MS);

  it('McpClient, 2026-07-28: each request reaches the current generation; one listen stream stays open and hears list_changed', async () => {
    const { io, url, stop } = await devHttp();
    const client = await McpClient.connect({ connector: streamableHttp({ url }), era: 'modern', logger: silent, reconnect: false });
    cleanups.unshift(() => client.close());
    const greet = async (): Promise<unknown> => ((await client.callTool({ name: 'greet', arguments: {} })).content[0] as { text: string }).text;
    expect([client.era, await greet()]).toEqual(['modern', 'one']);
    const heard: string[] = [];
    const subscription = await client.listen({ toolsListChanged: true });
    subscription.on((notification) => heard.push(notification.method));
    let ended: unknown;
    void subscription.closed.then((how) => { ended = how; });
    for (let n = 0; n < RELOADS.length; n++) {
      await reload(io, n);
      expect(await greet()).toBe(RELOADS[n]!.greeting);
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBe(n + 1);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet', 'slow', 'crash', ...RELOADS[n]!.extra]);
    }
    expect(heard).toEqual(RELOADS.map(() => 'notifications/tools/list_changed'));
    // The subscription was never ended by a generation going away: dev moved it to each new one, so no replaced
    // generation is held for its drain (10 s) by the listen request it took.
    expect(ended).toBe(undefined);
    if (process.platform === 'linux') await expect.poll(() => generations().length, { timeout: 6000 }).toBe(1);
    expect(await greet()).toBe('four');
    await subscription.close();
    await client.close();
    expect(await stop()).toBe(0);
  }, TEST_MS);

  it('a call in flight at a reload is answered by the old generation; one a generation never answers (it exited) gets -32603', async () => {
    const { io, url, stop } = await devHttp();
    const client = new Client({ name: 'sdk-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.unshift(() => client.close());
    const slow = client.callTool({ name: 'slow', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await reload(io, 0);
    // Generation 1 drains: the call it took is answered by it (with its greeting), then it stops.
    expect(((await slow).content as { text: string }[])[0]!.text).toBe('slow one');
    expect(((await client.callTool({ name: 'slow', arguments: {} })).content as { text: string }[])[0]!.text).toBe('slow two');
    // Generation 2 exits while handling a call: a JSON-RPC error, not a cut connection or an HTTP 502.
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('switchboard dev: generation 2 ended before it answered; send the request again') });
    await expect.poll(() => io.err(), { timeout: 10_000 }).toContain('the server (generation 2) ended by itself (exit code 7)');
    // The next generation takes the session over from the one that exited.
    edit('three', []);
    await expect.poll(() => io.err(), { timeout: 20_000 }).toMatch(/reloaded after tools\.mjs \(generation 3, \d+ ms\)\n/);
    expect(((await client.callTool({ name: 'greet', arguments: {} })).content as { text: string }[])[0]!.text).toBe('three');
    await client.close();
    expect(await stop()).toBe(0);
  }, TEST_MS);
});
