/**
 * Three Switchboard instances (child processes, `test/fixtures/redis-nginx-instance.mjs`) share a real `redis-server`
 * through `redisStores`, behind a real nginx doing plain round-robin (an `upstream` block, no `ip_hash`, no cookie,
 * `proxy_buffering off`, HTTP/1.1). Everything goes through nginx's port: the official SDK v1 client keeps one
 * session while its calls (tools, a resource, a sampling and an elicitation round trip) land on several instances; a
 * 2026-07-28 McpClient calls tools across them; and an instance is killed with SIGKILL while a call on it streams
 * progress and log events: the client resumes with `Last-Event-ID` on another instance, gets no event twice, the call
 * ends with -32603 `instance_lost`, and the session goes on. Every process is stopped by its own PID. Without nginx or
 * redis-server the suite skips with one line naming what to install.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, freePort, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/redis-nginx-instance.mjs', import.meta.url));
const REVISION = '2025-11-25';
const NAMES = ['A', 'B', 'C'] as const;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** nginx: on PATH, or in /usr/sbin (not on a non-root PATH); `undefined` when not installed. */
function findNginx(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin']) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'nginx');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (spawnSync(candidate, ['-v'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  return undefined;
}

const NGINX = findNginx();

interface Instance {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
}

function startInstance(redisUrl: string, name: string): Promise<Instance> {
  const child = spawn(process.execPath, [FIXTURE, redisUrl, name], { cwd: path.dirname(FIXTURE), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(\{.*\})\n/.exec(out)?.[1];
      if (line !== undefined) resolve({ name, child, port: (JSON.parse(line) as { port: number }).port });
    });
    child.once('exit', (code) => reject(new Error(`instance ${name} exited (${String(code)}): ${stderr}`)));
  });
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, signal);
  return exited;
}

/** Plain round-robin over the instances; the proxy settings of test/reliability/proxy.test.ts (SSE unbuffered). */
function nginxConfig(dir: string, port: number, upstreams: readonly number[]): string {
  return [
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    // Which upstream served each request of which session: the test reads it to see one session cross instances.
    "  log_format cluster '$upstream_addr $request_method $http_mcp_session_id';",
    `  access_log ${dir}/access.log cluster;`,
    `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
    `  upstream switchboard { ${upstreams.map((p) => `server 127.0.0.1:${p};`).join(' ')} }`,
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location /mcp {',
    '      proxy_pass http://switchboard;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Host $host;',
    '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '      proxy_buffering off;',
    '      proxy_read_timeout 1h;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

interface Nginx {
  readonly port: number;
  readonly child: ChildProcess;
  readonly dir: string;
}

async function startNginx(upstreams: readonly number[]): Promise<Nginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-nginx-cluster-'));
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, upstreams));
  const child = spawn(NGINX as string, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return { port, child, dir };
    if (child.exitCode !== null || Date.now() > deadline) {
      let log = '';
      try {
        log = readFileSync(path.join(dir, 'error.log'), 'utf8');
      } catch {
        // no log yet
      }
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const headers = (session?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': REVISION,
  ...(session === undefined ? {} : { 'mcp-session-id': session }),
});

/** Reads an SSE body until `done(text)` holds or `timeoutMs` passes; returns what was read. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean, timeoutMs: number): Promise<string> {
  const reader = body.getReader();
  let text = '';
  const deadline = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    while (!done(text)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

const dataOf = (text: string): any[] => text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter((d) => d !== '').map((d) => JSON.parse(d));
const textOf = (result: object): string => ((result as { content: { text: string }[] }).content)[0]!.text;
const LIVE = /^[ABC]$/;

describe.skipIf(NGINX === undefined || REDIS_SERVER === undefined)('three instances on one Redis behind nginx round-robin (no stickiness)', () => {
  let redis: RedisServer | undefined;
  const instances: Instance[] = [];
  let nginx: Nginx | undefined;
  let url = '';

  beforeAll(async () => {
    redis = await startRedisServer();
    for (const name of NAMES) instances.push(await startInstance(redis.url, name));
    nginx = await startNginx(instances.map((one) => one.port));
    url = `http://127.0.0.1:${nginx.port}/mcp`;
  }, 30_000);

  afterAll(async () => {
    if (nginx !== undefined) {
      await stop(nginx.child, 'SIGTERM');
      rmSync(nginx.dir, { recursive: true, force: true });
    }
    for (const one of instances) await stop(one.child, 'SIGTERM');
    await redis?.stop();
  });

  it('the official SDK v1 client keeps one session across the instances: tools, a resource, sampling and elicitation', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }));
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }));
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
      const session = transport.sessionId;
      expect(session).toBeDefined();
      const served: string[] = [];
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['ask', 'confirm', 'ticker', 'whoami']);
      for (let i = 0; i < 4; i++) served.push(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      const read = await client.readResource({ uri: 'test://where' });
      served.push((read.contents[0] as { text: string }).text);
      for (let i = 0; i < 2; i++) {
        const sampled = textOf(await client.callTool({ name: 'ask', arguments: {} }));
        expect(sampled).toMatch(/^[ABC] sampled hello$/);
        served.push(sampled[0]!);
        const elicited = textOf(await client.callTool({ name: 'confirm', arguments: {} }));
        expect(elicited).toMatch(/^[ABC] elicited accept true$/);
        served.push(elicited[0]!);
      }
      // Round-robin over three with no stickiness: one session's calls were served by more than one instance.
      expect(served.every((name) => LIVE.test(name))).toBe(true);
      expect(new Set(served).size).toBeGreaterThanOrEqual(2);
      expect(transport.sessionId).toBe(session);
      // nginx's own log: the session's requests (answers to sampling and elicitation included) went to every instance.
      const upstreams = readFileSync(path.join(nginx!.dir, 'access.log'), 'utf8').split('\n').filter((line) => line.endsWith(` ${session!}`)).map((line) => line.split(' ')[0]);
      expect(new Set(upstreams)).toEqual(new Set(instances.map((one) => `127.0.0.1:${one.port}`)));
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a 2026-07-28 McpClient calls tools through nginx on several instances, multi round-trip sampling and elicitation too', async () => {
    const client = await McpClient.connect({
      connector: streamableHttp({ url }), era: 'modern', logger: silent, reconnect: false,
      onSampling: () => Promise.resolve({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }),
      onElicitation: () => Promise.resolve({ action: 'accept', content: { ok: true } }),
    });
    try {
      expect(client.era).toBe('modern');
      const served: string[] = [];
      for (let i = 0; i < 6; i++) served.push(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      // Each is two rounds (the input request, then the retry with the answer and the sealed requestState), so with
      // three upstreams in turn the retry lands on another instance than the first round: the shared key verifies it.
      for (let i = 0; i < 3; i++) {
        const sampled = textOf(await client.callTool({ name: 'ask', arguments: {} }));
        expect(sampled).toMatch(/^[ABC] sampled hello$/);
        const elicited = textOf(await client.callTool({ name: 'confirm', arguments: {} }));
        expect(elicited).toMatch(/^[ABC] elicited accept true$/);
        served.push(sampled[0]!, elicited[0]!);
      }
      expect(served.every((name) => LIVE.test(name))).toBe(true);
      expect(new Set(served).size).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('SIGKILL of the instance running a streaming call: resumed with Last-Event-ID on another, no event twice, instance_lost, the session goes on', async () => {
    const init = await fetch(url, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await init.text();
    expect((await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(202);

    const call = await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ticker', arguments: {}, _meta: { progressToken: 'p5' } } }) });
    const before = await readUntil(call.body!, (text) => /tick 3 on [ABC]/.test(text), 10_000);
    const victim = /tick 3 on ([ABC])/.exec(before)?.[1];
    expect(victim).toBeDefined();
    const beforeEvents = dataOf(before);
    expect(beforeEvents.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)).toEqual([1, 2, 3]);
    expect(beforeEvents.filter((m) => m.method === 'notifications/message').map((m) => m.params.data)).toEqual([1, 2, 3].map((i) => `tick ${i} on ${victim!}`));
    const beforeIds = [...before.matchAll(/^id: ?(.+)$/gm)].map((match) => match[1]!);
    const lastEventId = beforeIds.at(-1);
    expect(lastEventId).toBeDefined();

    await stop(instances.find((one) => one.name === victim)!.child, 'SIGKILL');
    const killedAt = Date.now();

    // nginx's round-robin may pick the dead instance: a refused connection is passed to the next upstream.
    const resumed = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': session, 'last-event-id': lastEventId! } });
    expect(resumed.status).toBe(200);
    const after = await readUntil(resumed.body!, (text) => text.includes('"id":5'), 15_000);
    const afterEvents = dataOf(after);
    // Nothing sent before the kill comes again: no event id, no progress, no log line of the call repeated.
    const afterIds = [...after.matchAll(/^id: ?(.+)$/gm)].map((match) => match[1]!);
    expect(afterIds.filter((id) => beforeIds.includes(id))).toEqual([]);
    expect(afterEvents.filter((m) => m.method === 'notifications/progress' || m.method === 'notifications/message')).toEqual([]);
    expect(afterEvents.filter((m) => m.id === 5)).toEqual([{ jsonrpc: '2.0', id: 5, error: expect.objectContaining({ code: -32603, data: { reason: 'instance_lost' } }) }]);
    const lostAfterMs = Date.now() - killedAt;

    // New calls of the same session go on, on the survivors. Bound: the lease of the dead instance is 600 ms
    // (the fixture's leaseTtlMs) and nginx passes a refused connection to the next upstream at once, so these need
    // no wait of their own; 10 s is headroom for a loaded two-core machine, a third of the 30 s the killed call held.
    const began = Date.now();
    const survivors = NAMES.filter((name) => name !== victim);
    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'whoami', arguments: {} } }) });
      expect(answer.status).toBe(200);
      const body = await answer.text();
      const message = body.startsWith('{') ? JSON.parse(body) : dataOf(body).find((m) => m.id === 10 + i);
      served.push(textOf(message.result));
    }
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(served.every((name) => (survivors as string[]).includes(name))).toBe(true);
    expect(new Set(served).size).toBe(2);
    console.log(`redis-nginx-cluster: killed ${victim!}; instance_lost for its call ${lostAfterMs} ms after the kill; then ${served.join(',')} served the session`);
  }, 60_000);
});

// Without nginx or redis-server the suite above is skipped, and this line says why.
if (NGINX === undefined) it.skip('install nginx (Debian: apt-get install nginx)', () => {});
else if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
