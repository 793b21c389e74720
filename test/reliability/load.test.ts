/**
 * Load (the standing reliability suite): many clients with many calls in flight at once, over Streamable HTTP
 * keep-alive connections on loopback and over stdio, against a server in a child process. Nothing may be lost
 * (every call answered exactly once) or misrouted (every answer carries its own request's id, content and
 * session). Latency percentiles are printed for the record, never asserted as a speed target.
 *
 * Smoke size in `npm test` (100 clients × 10 calls in flight over HTTP, 1,000 in flight on stdio); full size with
 * `STRESS=1` (`npm run test:stress`: 1,000 clients × 10 = 10,000 in flight over HTTP, 10,000 on stdio).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { call, inSession, openSession } from './http-wire.js';

const STRESS = process.env.STRESS === '1';
const CLIENTS = STRESS ? 1000 : 100;
const PER_CLIENT = 10;
/** Closed-loop rounds after the barrier wave: each client keeps `PER_CLIENT` calls outstanding for this many more. */
const ROUNDS = STRESS ? 5 : 3;
const STDIO_IN_FLIGHT = STRESS ? 10_000 : 1000;
const FIXTURE = fileURLToPath(new URL('./fixtures/reliability-server.mjs', import.meta.url));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
});

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function summary(latencies: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (n: number): number => Math.round(n * 10) / 10;
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? Number.NaN) };
}

function startFixture(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  child.stderr?.resume();
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8');
    const onData = (chunk: string): void => {
      out += chunk;
      const m = /listening (\S+)/.exec(out);
      if (m !== null) {
        child.stdout?.off('data', onData);
        resolve({ child, url: m[1] as string });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`fixture exited ${String(code)}`)));
  });
}

interface Outcome {
  answered: number;
  lost: number;
  /** Why calls were lost (the first few). */
  reasons: string[];
  misrouted: string[];
  latencies: number[];
}

/** One tools/call whose answer must be `{ id, result: text@sid }` and nothing else. */
async function checkedCall(url: string, agent: http.Agent, sid: string, id: string, tool: string, text: string, target: number, out: Outcome): Promise<void> {
  const t0 = performance.now();
  let reply: Awaited<ReturnType<typeof call>>;
  try {
    reply = await call(url, {
      agent,
      body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { text, target } } },
      headers: inSession(sid),
    });
  } catch (error) {
    out.lost++;
    if (out.reasons.length < 5) out.reasons.push(`${id}: ${String(error)}`);
    return;
  }
  out.latencies.push(performance.now() - t0);
  const messages = reply.status === 200 ? reply.messages : [];
  if (messages.length === 0) {
    out.lost++;
    if (out.reasons.length < 5) out.reasons.push(`${id}: ${reply.status} ${reply.body.slice(0, 200)}`);
    return;
  }
  out.answered++;
  const expected = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `${text}@${sid}` }] } };
  if (messages.length !== 1 || JSON.stringify(messages[0]) !== JSON.stringify(expected)) {
    out.misrouted.push(`${id}: ${JSON.stringify(messages).slice(0, 300)}`);
  }
}

it(`HTTP: ${CLIENTS} clients × ${PER_CLIENT} calls in flight on keep-alive connections, 0 lost, 0 misrouted`, { timeout: STRESS ? 600_000 : 120_000 }, async () => {
  const { url } = await startFixture(['--http']);
  const agents: http.Agent[] = [];
  try {
    // One session and one keep-alive pool of PER_CLIENT sockets per client, opened 50 clients at a time (PER_CLIENT
    // concurrent pings open the pool) so that the waves below run on established connections.
    const clients: { agent: http.Agent; sid: string }[] = [];
    for (let i = 0; i < CLIENTS; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, CLIENTS - i) }, async () => {
          const agent = new http.Agent({ keepAlive: true, maxSockets: PER_CLIENT });
          agents.push(agent);
          const sid = await openSession(url, { agent });
          await Promise.all(Array.from({ length: PER_CLIENT }, (_, k) => call(url, { agent, body: { jsonrpc: '2.0', id: `open-${k}`, method: 'ping' }, headers: inSession(sid) })));
          return { agent, sid };
        }),
      );
      clients.push(...batch);
    }
    expect(new Set(clients.map((c) => c.sid)).size).toBe(CLIENTS);

    // Wave 1: every call waits inside the server until all CLIENTS × PER_CLIENT are running at once.
    const total = CLIENTS * PER_CLIENT;
    const wave: Outcome = { answered: 0, lost: 0, reasons: [], misrouted: [], latencies: [] };
    const t0 = performance.now();
    await Promise.all(
      clients.flatMap((c, ci) =>
        Array.from({ length: PER_CLIENT }, (_, k) => checkedCall(url, c.agent, c.sid, `w-${ci}-${k}`, 'barrier', `c${ci} k${k} ${Math.random()}`, total, wave)),
      ),
    );
    const waveMs = performance.now() - t0;
    const stats = await call(url, {
      agent: clients[0]?.agent,
      body: { jsonrpc: '2.0', id: 'stats', method: 'tools/call', params: { name: 'stats', arguments: {} } },
      headers: inSession(clients[0]?.sid ?? ''),
    });
    const maxRunning = (JSON.parse((stats.messages[0] as { result: { content: { text: string }[] } }).result.content[0]?.text ?? '{}') as { maxRunning: number }).maxRunning;

    // Closed loop: each client keeps PER_CLIENT calls outstanding for ROUNDS more rounds (latency recorded).
    const loop: Outcome = { answered: 0, lost: 0, reasons: [], misrouted: [], latencies: [] };
    const t1 = performance.now();
    await Promise.all(
      clients.flatMap((c, ci) =>
        Array.from({ length: PER_CLIENT }, async (_, k) => {
          for (let r = 0; r < ROUNDS; r++) await checkedCall(url, c.agent, c.sid, `l-${ci}-${k}-${r}`, 'tag', `c${ci} k${k} r${r} ${Math.random()}`, 0, loop);
        }),
      ),
    );
    const loopMs = performance.now() - t1;
    const figures = {
      transport: 'http',
      clients: CLIENTS,
      inFlight: total,
      serverMaxRunning: maxRunning,
      waveCalls: wave.answered,
      waveMs: Math.round(waveMs),
      loopCalls: loop.answered,
      loopMs: Math.round(loopMs),
      lost: wave.lost + loop.lost,
      misrouted: wave.misrouted.length + loop.misrouted.length,
      loopLatencyMs: summary(loop.latencies),
    };
    process.stderr.write(`reliability load ${JSON.stringify(figures)}\n`);
    expect([...wave.reasons, ...loop.reasons]).toEqual([]);
    expect(wave.misrouted.slice(0, 5)).toEqual([]);
    expect(loop.misrouted.slice(0, 5)).toEqual([]);
    expect({ lost: figures.lost, waveCalls: wave.answered, loopCalls: loop.answered, maxRunning }).toEqual({ lost: 0, waveCalls: total, loopCalls: total * ROUNDS, maxRunning: total });
  } finally {
    for (const agent of agents) agent.destroy();
  }
});

it(`stdio: ${STDIO_IN_FLIGHT} calls in flight on one session, 0 lost, 0 misrouted`, { timeout: STRESS ? 300_000 : 60_000 }, async () => {
  const child = spawn(process.execPath, [FIXTURE, '--stdio', '--concurrency', String(STDIO_IN_FLIGHT)], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  child.stderr?.resume();
  const sent = new Map<string, { text: string; at: number }>();
  const answers = new Map<string, unknown[]>();
  const latencies: number[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    const now = performance.now();
    for (const line of lines) {
      if (line === '') continue;
      const message = JSON.parse(line) as { id?: string };
      const id = String(message.id);
      const list = answers.get(id) ?? [];
      list.push(message);
      answers.set(id, list);
      const request = sent.get(id);
      if (request !== undefined && list.length === 1) latencies.push(now - request.at);
    }
    for (const w of [...waiters]) w();
  });
  const until = (count: number, ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (answers.size < count) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${answers.size} of ${count} answers within ${ms} ms`));
      }, ms);
      waiters.add(check);
      check();
    });
  const write = (message: unknown): void => {
    child.stdin?.write(`${JSON.stringify(message)}\n`);
  };
  write({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'load', version: '0' } } });
  await until(1, 20_000);
  write({ jsonrpc: '2.0', method: 'notifications/initialized' });

  const wave = (prefix: string, tool: string): string => {
    let text = '';
    const at = performance.now();
    for (let i = 0; i < STDIO_IN_FLIGHT; i++) {
      const id = `${prefix}-${i}`;
      const t = `${prefix} ${i} ${Math.random()}`;
      sent.set(id, { text: t, at });
      text += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { text: t, target: STDIO_IN_FLIGHT } } })}\n`;
    }
    return text;
  };
  // Wave 1: every call waits inside the server until all are running at once. Wave 2: plain calls, written at once.
  const t0 = performance.now();
  child.stdin?.write(wave('b', 'barrier'));
  await until(1 + STDIO_IN_FLIGHT, STRESS ? 240_000 : 50_000);
  const waveMs = performance.now() - t0;
  latencies.length = 0;
  const t1 = performance.now();
  child.stdin?.write(wave('t', 'tag'));
  await until(1 + 2 * STDIO_IN_FLIGHT, STRESS ? 240_000 : 50_000);
  const tagMs = performance.now() - t1;
  write({ jsonrpc: '2.0', id: 'stats', method: 'tools/call', params: { name: 'stats', arguments: {} } });
  await until(2 + 2 * STDIO_IN_FLIGHT, 20_000);
  const stats = answers.get('stats')?.[0] as { result: { content: { text: string }[] } };
  const maxRunning = (JSON.parse(stats.result.content[0]?.text ?? '{}') as { maxRunning: number }).maxRunning;

  const misrouted: string[] = [];
  let lost = 0;
  for (const [id, { text }] of sent) {
    const got = answers.get(id);
    if (got === undefined) {
      lost++;
      continue;
    }
    const expected = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `${text}@` }] } };
    if (got.length !== 1 || JSON.stringify(got[0]) !== JSON.stringify(expected)) misrouted.push(`${id}: ${JSON.stringify(got).slice(0, 300)}`);
  }
  const figures = { transport: 'stdio', inFlight: STDIO_IN_FLIGHT, serverMaxRunning: maxRunning, calls: sent.size, waveMs: Math.round(waveMs), tagMs: Math.round(tagMs), lost, misrouted: misrouted.length, latencyMs: summary(latencies) };
  process.stderr.write(`reliability load ${JSON.stringify(figures)}\n`);
  child.stdin?.end();
  expect(misrouted.slice(0, 5)).toEqual([]);
  expect({ lost, answers: answers.size, maxRunning }).toEqual({ lost: 0, answers: 2 + 2 * STDIO_IN_FLIGHT, maxRunning: STDIO_IN_FLIGHT });
});
