/**
 * The kill test on Redis: two instances (child processes, `test/fixtures/redis-instance.mjs`) share a real
 * `redis-server` through `redisStores`. A call runs on A and has sent one event on its SSE stream; A is killed with
 * SIGKILL; the client resumes the stream on B with `Last-Event-ID` and gets, instead of waiting forever, the typed
 * error for the call that died with A (-32603, `data.reason: 'instance_lost'`, once A's lease lapsed); the session
 * goes on on B. Every process is stopped by its own PID. Without redis-server the suite skips with one line naming the
 * package.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { INSTALL_REDIS, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redisServer.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/redis-instance.mjs', import.meta.url));
const REVISION = '2025-11-25';

interface Child {
  readonly child: ChildProcess;
  readonly url: string;
}

function start(redisUrl: string, name: string): Promise<Child> {
  const child = spawn(process.execPath, [FIXTURE, redisUrl, name], { cwd: path.dirname(FIXTURE), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(\{.*\})\n/.exec(out)?.[1];
      if (line !== undefined) resolve({ child, url: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}/mcp` });
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

describe.skipIf(REDIS_SERVER === undefined)('an instance killed with SIGKILL mid-call (Redis-backed cluster, child processes)', () => {
  let redis: RedisServer | undefined;
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of children) await stop(child, 'SIGTERM');
    await redis?.stop();
  });

  it('the client resumes on the other instance and gets a typed error for the call that died; the session goes on', async () => {
    redis = await startRedisServer();
    const a = await start(redis.url, 'A');
    children.push(a.child);
    const b = await start(redis.url, 'B');
    children.push(b.child);

    const init = await fetch(a.url, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await fetch(a.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

    const call = await fetch(a.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {} } }) });
    const before = await readUntil(call.body!, (text) => text.includes('waiting on A'), 10_000);
    const lastEventId = [...before.matchAll(/^id: ?(.+)$/gm)].at(-1)?.[1];
    expect(lastEventId).toBeDefined();

    await stop(a.child, 'SIGKILL');

    const resumed = await fetch(b.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': session, 'last-event-id': lastEventId! } });
    expect(resumed.status).toBe(200);
    const after = await readUntil(resumed.body!, (text) => text.includes('"id":5'), 15_000);
    expect(dataOf(after).find((m) => m.id === 5)).toEqual({ jsonrpc: '2.0', id: 5, error: expect.objectContaining({ code: -32603, data: { reason: 'instance_lost' } }) });

    const whoami = await fetch(b.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'whoami', arguments: {} } }) });
    const answer = await whoami.text();
    expect(answer.startsWith('{') ? JSON.parse(answer) : dataOf(answer).find((m) => m.id === 6)).toEqual({ jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'B' }] } });
  }, 60_000);
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
