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
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { describe, expect, it } from 'vitest';
import { NGINX_CLUSTER_MISSING, dataOf, eventually, readUntil, stop, textOf, useNginxCluster } from './helpers/nginxCluster.js';

const REVISION = '2025-11-25';
const NAMES = ['A', 'B', 'C'] as const;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const headers = (session?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': REVISION,
  ...(session === undefined ? {} : { 'mcp-session-id': session }),
});

const LIVE = /^[ABC]$/;

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('three instances on one Redis behind nginx round-robin (no stickiness)', () => {
  const cluster = useNginxCluster({ names: NAMES });

  it('the official SDK v1 client keeps one session across the instances: tools, a resource, sampling and elicitation', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }));
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }));
    const transport = new StreamableHTTPClientTransport(new URL(cluster.url));
    await client.connect(transport);
    try {
      const session = transport.sessionId;
      expect(session).toBeDefined();
      const served: string[] = [];
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask', 'confirm', 'ticker', 'whoami']));
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
      // (nginx logs a request once it has answered it: the last line may come just after the last answer.)
      const upstreams = (): Set<string> => new Set(cluster.accessLog().filter((entry) => entry.session === session).flatMap((entry) => entry.upstreams));
      await eventually(() => upstreams().size === NAMES.length, 5000);
      expect(upstreams()).toEqual(new Set(NAMES));
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a 2026-07-28 McpClient calls tools through nginx on several instances, multi round-trip sampling and elicitation too', async () => {
    const client = await McpClient.connect({
      connector: streamableHttp({ url: cluster.url }), era: 'modern', logger: silent, reconnect: false,
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
    const init = await fetch(cluster.url, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await init.text();
    expect((await fetch(cluster.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(202);

    const call = await fetch(cluster.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ticker', arguments: {}, _meta: { progressToken: 'p5' } } }) });
    const before = await readUntil(call.body!, (text) => /tick 3 on [ABC]/.test(text), 10_000);
    const victim = /tick 3 on ([ABC])/.exec(before)?.[1];
    expect(victim).toBeDefined();
    const beforeEvents = dataOf(before);
    expect(beforeEvents.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)).toEqual([1, 2, 3]);
    expect(beforeEvents.filter((m) => m.method === 'notifications/message').map((m) => m.params.data)).toEqual([1, 2, 3].map((i) => `tick ${i} on ${victim!}`));
    const beforeIds = [...before.matchAll(/^id: ?(.+)$/gm)].map((match) => match[1]!);
    const lastEventId = beforeIds.at(-1);
    expect(lastEventId).toBeDefined();

    await stop(cluster.instances.find((one) => one.name === victim)!.child, 'SIGKILL');
    const killedAt = Date.now();

    // nginx's round-robin may pick the dead instance: a refused connection is passed to the next upstream.
    const resumed = await fetch(cluster.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-session-id': session, 'last-event-id': lastEventId! } });
    expect(resumed.status).toBe(200);
    // Issue 26: the client resumes on another instance within 1 s of the kill (the stream's replay answered).
    const resumedAfterMs = Date.now() - killedAt;
    expect(resumedAfterMs).toBeLessThan(1000);
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
      const answer = await fetch(cluster.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'whoami', arguments: {} } }) });
      expect(answer.status).toBe(200);
      const body = await answer.text();
      const message = body.startsWith('{') ? JSON.parse(body) : dataOf(body).find((m) => m.id === 10 + i);
      served.push(textOf(message.result));
    }
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(served.every((name) => (survivors as string[]).includes(name))).toBe(true);
    expect(new Set(served).size).toBe(2);
    console.log(`redis-nginx-cluster: killed ${victim!}; resumed on another instance ${resumedAfterMs} ms after the kill; instance_lost for its call ${lostAfterMs} ms after the kill; then ${served.join(',')} served the session`);
  }, 60_000);
});

// Without nginx or redis-server the suite above is skipped, and this line says why.
if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
