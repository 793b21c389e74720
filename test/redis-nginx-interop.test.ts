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
import { describe, expect, it } from 'vitest';
import { NGINX_CLUSTER_MISSING, dataOf, eventually, taggedFetch, textOf, useNginxCluster, type AccessEntry } from './helpers/nginxCluster.js';

const NAMES = ['A', 'B', 'C'] as const;
const LIVE = /^[ABC]$/;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('a whole interop run across three instances behind nginx round-robin', () => {
  const cluster = useNginxCluster({ names: NAMES });

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

// Without nginx or redis-server the suite above is skipped, and this line says why.
if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
