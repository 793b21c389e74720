/**
 * A whole interop run of the official SDK v1 client (`@modelcontextprotocol/sdk`) through a real nginx doing plain
 * round-robin over three Switchboard instances on one real `redis-server` (`test/helpers/nginxCluster.ts`): one
 * session, every request landing where nginx sends it. Tools, prompts, completion, resources, a subscription whose
 * `notifications/resources/updated` is raised on other instances and reaches the client's standalone GET stream (held
 * by one instance), a `list_changed` raised on another instance on that stream too, `logging/setLevel` honoured by the
 * instances it did not land on, progress, and a sampling and an elicitation round trip. Then the same for the oldest
 * revision: an McpClient pinned to 2024-11-05 over Streamable HTTP keeps one session across the instances. The
 * client's fetch is wrapped only to tag each request with its method (`X-Test-Tag`, in nginx's access log) and to keep
 * a copy of the GET stream's bytes; nginx's log then shows where each request landed.
 *
 * Spec: MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server" (the GET stream),
 * server/resources.mdx "Subscriptions", server/utilities/logging.mdx "Setting Log Level", basic/utilities/progress.mdx.
 *
 * Then, on the same cluster (no process is killed here, so both suites share it), the reliability suite's load test
 * (test/reliability/load.test.ts: nothing lost, nothing misrouted) through nginx's port only: a bounded load of both
 * eras at once, sessions of the 2025-11-25 era (each request of a session landing on any instance) and 2026-07-28
 * stateless calls, several requests in flight per worker, every call with its own argument. Each request must be
 * answered exactly once, with its own id, its own argument and its own session back (0 lost, 0 misrouted, 0
 * duplicated), and the requests must spread over all three instances (the answers name the instance; nginx's access
 * log agrees). Throughput is printed for the record, never asserted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NGINX_CLUSTER_MISSING, dataOf, eventually, taggedFetch, textOf, useNginxCluster, type AccessEntry } from './helpers/nginxCluster.js';

const NAMES = ['A', 'B', 'C'] as const;
const LIVE = /^[ABC]$/;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

// One cluster for both suites of this file (the interop runs, then the load): neither kills a process, and each
// reads nginx's access log by its own session or tag.
const cluster = useNginxCluster({ names: NAMES });

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('a whole interop run across three instances behind nginx round-robin', () => {
  it('the official SDK v1 client: tools, prompts, completion, resources, subscriptions on the GET stream, setLevel, progress, sampling, elicitation', async () => {
    const getStreams: string[] = [];
    const logs: LoggingMessageNotification['params'][] = [];
    const updated: string[] = [];
    let listChanged = 0;
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }));
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    const transport = new StreamableHTTPClientTransport(new URL(cluster.url), { fetch: taggedFetch({ getStreams }) });
    await client.connect(transport);
    const session = transport.sessionId!;
    expect(session).toBeTruthy();
    try {
      // The SDK opens its standalone GET stream after notifications/initialized.
      expect(await eventually(() => getStreams.length === 1, 5000)).toBe(true);
      const served = (result: object): string => textOf(result);

      // Tools.
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'echo', 'ask', 'confirm', 'chatty', 'progress', 'touch', 'register', 'job']));
      const echoed = [];
      for (let i = 0; i < 3; i++) echoed.push(served(await client.callTool({ name: 'echo', arguments: { text: `e${i}` } })));
      expect(echoed.map((text) => text.slice(0, text.lastIndexOf('@')))).toEqual([0, 1, 2].map((i) => `e${i}@${session}`));

      // Prompts and completion.
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['greet']);
      const greeted: string[] = [];
      for (const who of ['alice', 'bob', 'carol']) {
        const prompt = await client.getPrompt({ name: 'greet', arguments: { who } });
        const text = (prompt.messages[0]!.content as { text: string }).text;
        expect(text).toMatch(new RegExp(`^hello ${who} from [ABC]$`));
        greeted.push(text.at(-1)!);
      }
      expect(new Set(greeted)).toEqual(new Set(NAMES));
      for (const [value, values] of [['a', ['alice']], ['b', ['bob']], ['', ['alice', 'bob', 'carol']]] as const) {
        const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value } });
        expect(completion.completion.values).toEqual(values);
      }

      // Resources.
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['test://where']);
      expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(['test://watched/{n}']);
      const read = await client.readResource({ uri: 'test://watched/7' });
      expect((read.contents[0] as { text: string }).text).toMatch(/^7 on [ABC]$/);

      // A subscription taken on one instance; updates raised on each instance in turn reach the GET stream.
      await client.subscribeResource({ uri: 'test://watched/1' });
      const raisers: string[] = [];
      for (let i = 0; i < 3; i++) raisers.push(served(await client.callTool({ name: 'touch', arguments: { uri: 'test://watched/1' } })));
      expect(new Set(raisers)).toEqual(new Set(NAMES));
      expect(await eventually(() => updated.length >= 3, 5000)).toBe(true);
      // Updates of a URI not subscribed to are not sent; after unsubscribe (on whichever instance) neither.
      await client.callTool({ name: 'touch', arguments: { uri: 'test://watched/2' } });
      await client.unsubscribeResource({ uri: 'test://watched/1' });
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'touch', arguments: { uri: 'test://watched/1' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(updated).toEqual(['test://watched/1', 'test://watched/1', 'test://watched/1']);
      // ...each of them on the standalone GET stream (the copy of its bytes the wrapper kept).
      const onGet = dataOf(getStreams[0]!);
      expect(onGet.filter((m) => m.method === 'notifications/resources/updated')).toEqual([0, 1, 2].map(() => ({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched/1' } })));

      // logging/setLevel lands on one instance and is honoured by all three.
      await client.setLoggingLevel('warning');
      const chatty: string[] = [];
      for (let i = 0; i < 3; i++) chatty.push(served(await client.callTool({ name: 'chatty', arguments: {} })));
      expect(new Set(chatty)).toEqual(new Set(NAMES));
      expect(logs.map((line) => `${line.level} ${String(line.data)}`).sort()).toEqual(NAMES.flatMap((name) => [`error error on ${name}`, `warning warning on ${name}`]).sort());
      logs.length = 0;
      await client.setLoggingLevel('debug');
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'chatty', arguments: {} });
      expect(logs.map((line) => `${line.level} ${String(line.data)}`).sort()).toEqual(NAMES.flatMap((name) => ['debug', 'info', 'warning', 'error'].map((level) => `${level} ${level} on ${name}`)).sort());

      // Progress, for a call on each instance.
      for (let i = 0; i < 3; i++) {
        const steps: number[] = [];
        const name = served(await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (p) => void steps.push(p.progress) }));
        expect(name).toMatch(LIVE);
        expect(steps).toEqual([1, 2, 3]);
      }

      // A sampling and an elicitation round trip (the answers are POSTs that land where nginx sends them).
      expect(served(await client.callTool({ name: 'ask', arguments: {} }))).toMatch(/^[ABC] sampled hello$/);
      expect(served(await client.callTool({ name: 'confirm', arguments: {} }))).toMatch(/^[ABC] elicited accept true$/);

      // A tool registered at runtime on each instance in turn: each list_changed reaches the GET stream.
      const registeredOn: string[] = [];
      for (let i = 0; i < 3; i++) registeredOn.push(served(await client.callTool({ name: 'register', arguments: { tool: `late${i}` } })));
      expect(new Set(registeredOn)).toEqual(new Set(NAMES));
      expect(await eventually(() => listChanged >= 3, 5000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(listChanged).toBe(3);
      expect(dataOf(getStreams[0]!).filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(3);

      expect(transport.sessionId).toBe(session);
      expect(getStreams).toHaveLength(1); // one GET stream all along: never reopened

      await client.close();
      // nginx logs a request when it ends: the GET stream now too. Where was each request served?
      expect(await eventually(() => cluster.accessLog().some((e) => e.session === session && e.tag === 'GET'), 5000)).toBe(true);
      const log = cluster.accessLog().filter((entry) => entry.session === session);
      const holder = log.find((entry) => entry.tag === 'GET')!.upstreams.at(-1)!;
      const where = (tag: string): string[] => log.filter((entry) => entry.tag === tag).map((entry) => entry.upstreams.at(-1)!);
      expect(new Set(log.flatMap((entry) => entry.upstreams))).toEqual(new Set(NAMES));
      // Updates were raised on the instances that do not hold the GET stream, as well as on the one that does.
      expect(raisers.filter((name) => name !== holder)).toHaveLength(2);
      // Each setLevel landed on one instance; chatty calls were served by the other two as well.
      const setLevelOn = where('logging/setLevel');
      expect(setLevelOn).toHaveLength(2);
      expect(new Set(where('tools/call:chatty'))).toEqual(new Set(NAMES));
      expect(where('resources/subscribe')).toHaveLength(1);
      // The answers to the sampling and elicitation requests are POSTs too; every one answered 202 or 200.
      expect(where('answer')).toHaveLength(2);
      expect(log.filter((entry) => entry.tag !== 'GET').every((entry) => entry.status === 200 || entry.status === 202)).toBe(true);
      console.log(`redis-nginx-interop: GET stream on ${holder}; updates raised on ${raisers.join(',')}; tools registered on ${registeredOn.join(',')}; setLevel on ${setLevelOn.join(',')}; ${log.length} requests over ${[...new Set(log.flatMap((e) => e.upstreams))].sort().join(',')}`);
    } finally {
      await client.close();
    }
  }, 40_000);

  it('an McpClient pinned to 2024-11-05 over Streamable HTTP keeps one session across the instances', async () => {
    const client = await McpClient.connect({
      connector: streamableHttp({ url: cluster.url, headers: { 'x-test-tag': 'rev-2024-11-05' } }),
      pin: '2024-11-05', logger: silent, reconnect: false,
      onSampling: () => Promise.resolve({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }),
    });
    try {
      expect(client.era).toBe('legacy');
      expect(client.protocolVersion).toBe('2024-11-05');
      expect(client.transportKind).toBe('streamable-http'); // not the 2024-11-05 HTTP+SSE fallback
      const served: string[] = [];
      for (let i = 0; i < 3; i++) served.push(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      const read = await client.readResource({ uri: 'test://where' });
      served.push((read.contents[0] as { text: string }).text);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'bob' } });
      served.push((prompt.messages[0]!.content as { text: string }).text.at(-1)!);
      const sampled = textOf(await client.callTool({ name: 'ask', arguments: {} }));
      expect(sampled).toMatch(/^[ABC] sampled hello$/);
      served.push(sampled[0]!);
      expect(served.every((name) => LIVE.test(name))).toBe(true);
      expect(new Set(served)).toEqual(new Set(NAMES));
    } finally {
      await client.close();
    }
    const tagged = (): AccessEntry[] => cluster.accessLog().filter((entry) => entry.tag === 'rev-2024-11-05');
    await eventually(() => new Set(tagged().flatMap((entry) => entry.upstreams)).size === NAMES.length, 5000);
    const log = tagged();
    const sessions = new Set(log.map((entry) => entry.session).filter((id) => id !== ''));
    expect(sessions.size).toBe(1); // one session: the initialize answer's id, on every later request
    expect(new Set(log.flatMap((entry) => entry.upstreams))).toEqual(new Set(NAMES));
  }, 30_000);
});

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

// Without nginx or redis-server the suites above are skipped, and this line says why.
if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
