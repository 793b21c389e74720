/**
 * The reliability suite's load test (test/reliability/load.test.ts: nothing lost, nothing misrouted) against a
 * cluster: three Switchboard instances on one real `redis-server` behind a real nginx doing plain round-robin
 * (`test/helpers/nginxCluster.ts`), through nginx's port only. A bounded load of both eras at once: sessions of the
 * 2025-11-25 era (each request of a session landing on any instance) and 2026-07-28 stateless calls, several
 * requests in flight per worker, every call with its own argument. Each request must be answered exactly once, with
 * its own id, its own argument and its own session back (0 lost, 0 misrouted, 0 duplicated), and the requests must
 * spread over all three instances (the answers name the instance; nginx's access log agrees). Throughput is printed
 * for the record, never asserted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NGINX_CLUSTER_MISSING, dataOf, eventually, useNginxCluster, type AccessEntry } from './helpers/nginxCluster.js';

const NAMES = ['A', 'B', 'C'] as const;
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
/** Workers of each era; each keeps IN_FLIGHT calls outstanding until it made CALLS. */
const WORKERS = 10;
const IN_FLIGHT = 4;
const CALLS = 100;
const TAG = 'load';

interface Outcome {
  /** Answers by argument text (a text answered twice is a duplicate). */
  readonly answered: Map<string, number>;
  readonly lost: string[];
  readonly misrouted: string[];
  readonly byInstance: Map<string, number>;
}

/** CPU time (user + system, ms) a process used so far, from /proc (Linux; ticks of 10 ms); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-test-tag': TAG };

async function openSession(url: string): Promise<string> {
  const init = await fetch(url, { method: 'POST', headers: { ...base, 'mcp-protocol-version': LEGACY }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'load', version: '1' } } }) });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get('mcp-session-id')!;
  const ready = await fetch(url, { method: 'POST', headers: { ...base, 'mcp-protocol-version': LEGACY, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(ready.status).toBe(202);
  return session;
}

/** One call: `echo { text }` with id `id`, in a session (legacy) or stateless (modern); checks its answer. */
async function call(url: string, out: Outcome, era: 'legacy' | 'modern', id: number, text: string, session: string | undefined): Promise<void> {
  const params = era === 'legacy'
    ? { name: 'echo', arguments: { text } }
    : { name: 'echo', arguments: { text }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'load', version: '1' } } };
  const headers = era === 'legacy'
    ? { ...base, 'mcp-protocol-version': LEGACY, 'mcp-session-id': session! }
    : { ...base, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
  let messages: any[];
  try {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) });
    const body = await res.text();
    if (res.status !== 200) {
      out.lost.push(`${text}: HTTP ${res.status} ${body.slice(0, 200)}`);
      return;
    }
    messages = (res.headers.get('content-type') ?? '').startsWith('text/event-stream') ? dataOf(body) : [JSON.parse(body)];
  } catch (error) {
    out.lost.push(`${text}: ${String(error)}`);
    return;
  }
  const answer = messages.filter((m) => m.id !== undefined);
  const got = answer[0]?.result?.content?.[0]?.text as string | undefined;
  const match = got === undefined ? null : /^(.*)@([^@]*)@([ABC])$/.exec(got);
  if (answer.length !== 1 || answer[0].id !== id || match === null || match[1] !== text || match[2] !== (session ?? '-')) {
    out.misrouted.push(`${text} (id ${id}): ${JSON.stringify(messages).slice(0, 300)}`);
    return;
  }
  out.answered.set(text, (out.answered.get(text) ?? 0) + 1);
  out.byInstance.set(match[3]!, (out.byInstance.get(match[3]!) ?? 0) + 1);
}

/** A worker: CALLS calls, IN_FLIGHT at a time, ids 1..CALLS, texts `<era>-<worker>-<n>`. */
async function worker(url: string, out: Outcome, era: 'legacy' | 'modern', index: number): Promise<void> {
  const session = era === 'legacy' ? await openSession(url) : undefined;
  let next = 1;
  const lane = async (): Promise<void> => {
    while (next <= CALLS) {
      const id = next++;
      await call(url, out, era, id, `${era}-${index}-${id}`, session);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('load through nginx round-robin over three instances on one Redis', () => {
  const cluster = useNginxCluster({ names: NAMES });

  it(`${WORKERS} sessions and ${WORKERS} stateless workers × ${CALLS} calls, ${IN_FLIGHT} in flight each: 0 lost, 0 misrouted, 0 duplicated, spread over all instances`, async () => {
    const out: Outcome = { answered: new Map(), lost: [], misrouted: [], byInstance: new Map() };
    const pids = [...cluster.instances.map((one) => one.child.pid!), cluster.redis.child.pid!];
    const cpuBefore = pids.map(cpuMs);
    const started = performance.now();
    await Promise.all([
      ...Array.from({ length: WORKERS }, (_, i) => worker(cluster.url, out, 'legacy', i)),
      ...Array.from({ length: WORKERS }, (_, i) => worker(cluster.url, out, 'modern', i)),
    ]);
    const ms = performance.now() - started;
    const cpu = pids.map((pid, i) => cpuMs(pid) - cpuBefore[i]!);
    const total = 2 * WORKERS * CALLS;
    expect(out.lost.slice(0, 5)).toEqual([]);
    expect(out.misrouted.slice(0, 5)).toEqual([]);
    const duplicated = [...out.answered].filter(([, n]) => n !== 1).map(([text]) => text);
    expect(duplicated).toEqual([]);
    expect(out.answered.size).toBe(total);
    for (const era of ['legacy', 'modern']) {
      for (let w = 0; w < WORKERS; w++) for (let n = 1; n <= CALLS; n++) expect(out.answered.has(`${era}-${w}-${n}`)).toBe(true);
    }
    // Round-robin: each instance served about a third (at least a fifth, whatever the interleaving).
    const counts = NAMES.map((name) => out.byInstance.get(name) ?? 0);
    for (const count of counts) expect(count).toBeGreaterThan(total / 5);
    // nginx agrees: every tools/call POST logged once, by the instance the answer named.
    // nginx logs a request once it has answered it: the last few lines may come just after the last answer.
    const answered = (): AccessEntry[] => cluster.accessLog().filter((e) => e.tag === TAG && e.method === 'POST' && e.status === 200);
    await eventually(() => answered().length >= total + WORKERS, 5000);
    const log = answered();
    const logged = NAMES.map((name) => log.filter((e) => e.upstreams.at(-1) === name).length);
    // The log also holds each session's initialize (200); notifications/initialized is 202 and not counted.
    expect(logged.reduce((a, b) => a + b, 0)).toBe(total + WORKERS);
    for (const [i, count] of counts.entries()) expect(Math.abs(logged[i]! - count)).toBeLessThanOrEqual(WORKERS);
    console.log(`redis-nginx-load: ${total} calls (${total / 2} in ${WORKERS} sessions, ${total / 2} stateless) in ${Math.round(ms)} ms (${Math.round((total / ms) * 1000)} req/s); by instance ${NAMES.map((name, i) => `${name} ${counts[i]!}`).join(', ')}; 0 lost, 0 misrouted, 0 duplicated; CPU µs per call: instances ${Math.round((cpu.slice(0, 3).reduce((a, b) => a + b, 0) / total) * 1000)}, redis-server ${Math.round((cpu[3]! / total) * 1000)}`);
  }, 40_000);
});

// Without nginx or redis-server the suite above is skipped, and this line says why.
if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
