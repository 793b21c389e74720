/**
 * The era bridge against a real upstream: `@modelcontextprotocol/server-everything` (SDK v1, session-based
 * revisions only) over stdio behind `createProxyServer`, served on Streamable HTTP, driven at the same time by the
 * official v2 client pinned to 2026-07-28 (which that server cannot speak) and the v1 client at 2025-11-25: tools
 * that work offline, resources and templates, prompts, completion, progress, logs, sampling and elicitation round
 * trips (a live request on the v1 session; input_required rounds for the v2 client, the upstream's live request
 * held across them), a cancel on the front that cancels on the upstream, and one upstream session (one
 * `initialize`, one process) for the whole run, counted on the upstream's wire.
 */
import path from 'node:path';
import type * as V2Module from '@modelcontextprotocol/client';
import type { Client as ModernClientType } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxyServer, type ProxyServer } from '@switchboard/gateway';
import { serveHttp } from '@switchboard/mcp/node';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { recordingFetch, type RecordedExchange } from './helpers/demoServer.js';
import { ROOT, capturingLogger, missingPackage, recordingConnector, sentNotifications, sentRequests, wireLog } from './interop-servers/harness.js';

const MISSING = missingPackage('@modelcontextprotocol/server-everything', '@modelcontextprotocol/client', '@modelcontextprotocol/sdk');
const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const MODERN = '2026-07-28';
const LONG = 'trigger-long-running-operation';
const TEST_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content?.[0]?.text ?? '');
/** What the v1 SDK and the v2 SDK each keep of a listed tool (the wire fields a proxy must not change). */
const listed = (tool: Record<string, unknown>) => ({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations, icons: tool.icons, _meta: tool._meta });

describe.skipIf(MISSING !== undefined)('server-everything (stdio, legacy only) behind the proxy: a v2 client at 2026-07-28 and a v1 client at 2025-11-25 at once', () => {
  const wire = wireLog();
  const logger = capturingLogger();
  let front: ProxyServer;
  let http: Awaited<ReturnType<typeof serveHttp>>;
  let modern: ModernClientType;
  let legacy: LegacyClient;
  const modernHttp: RecordedExchange[] = [];
  const legacyHttp: RecordedExchange[] = [];
  const asked: Array<{ client: 'v1' | 'v2'; method: string; params: any }> = [];
  const legacyLogs: unknown[] = [];
  const modernLogs: unknown[] = [];

  beforeAll(async () => {
    front = await createProxyServer({
      upstream: recordingConnector(spawnStdio({ command: process.execPath, args: [EVERYTHING, 'stdio'] }), wire),
      client: { logger, timeoutMs: 15_000 },
      server: { logger },
    });
    http = await serveHttp({ server: front, port: 0, logger });
    const v2: typeof V2Module = await import('@modelcontextprotocol/client');
    modern = new v2.Client({ name: 'bridge-v2', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode: { pin: MODERN } } });
    modern.setRequestHandler('elicitation/create', (request) => {
      asked.push({ client: 'v2', method: 'elicitation/create', params: request.params });
      return { action: 'accept', content: { name: 'Grace' } };
    });
    modern.setRequestHandler('sampling/createMessage', (request) => {
      asked.push({ client: 'v2', method: 'sampling/createMessage', params: request.params });
      return { role: 'assistant', model: 'v2-model', content: { type: 'text', text: 'sampled by v2' } };
    });
    modern.setNotificationHandler('notifications/message', (notification) => void modernLogs.push(notification.params));
    await modern.connect(new v2.StreamableHTTPClientTransport(new URL(http.url), { fetch: recordingFetch(modernHttp) }));
    legacy = new LegacyClient({ name: 'bridge-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
    legacy.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push({ client: 'v1', method: 'elicitation/create', params: request.params });
      return { action: 'accept', content: { name: 'Ada' } };
    });
    legacy.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push({ client: 'v1', method: 'sampling/createMessage', params: request.params });
      return { role: 'assistant', model: 'v1-model', content: { type: 'text', text: 'sampled by v1' } };
    });
    legacy.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void legacyLogs.push(notification.params));
    await legacy.connect(new LegacyHttp(new URL(http.url), { fetch: recordingFetch(legacyHttp) }));
    // The upstream adds its sampling and elicitation tools once it knows the proxy's capabilities, and says so.
    for (let i = 0; i < 100 && !(await legacy.listTools()).tools.some((t) => t.name === 'trigger-elicitation-request'); i++) await sleep(50);
  }, TEST_MS);

  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    await http?.close({ drainMs: 1000 });
    await front?.close();
  });

  it('the v2 client speaks 2026-07-28 with no session, the v1 client holds a 2025-11-25 session; both see the upstream as itself', () => {
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(front.upstream.era).toBe('legacy');
    expect(modern.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    expect(legacy.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    for (const exchange of modernHttp) expect(exchange.headers).not.toHaveProperty('mcp-session-id');
    expect(legacyHttp.slice(1).every((e) => e.headers['mcp-protocol-version'] === '2025-11-25')).toBe(true);
    // The v2 client's probe was answered by the front (the upstream has no server/discover).
    expect(modernHttp.some((e) => (e.body as { method?: string }).method === 'server/discover')).toBe(true);
    expect(sentRequests(wire, 'server/discover').length).toBeLessThanOrEqual(1);
  });

  it('lists tools exactly as the upstream lists them, to both clients; resources, templates, prompts too', async () => {
    const upstream = (await front.upstream.listAllTools()).map((t) => listed(t as unknown as Record<string, unknown>));
    const [v1Tools, v2Tools] = await Promise.all([legacy.listTools(), modern.listTools()]);
    expect(v1Tools.tools.map((t) => listed(t))).toEqual(upstream);
    expect(v2Tools.tools.map((t) => listed(t as unknown as Record<string, unknown>))).toEqual(upstream);
    expect(upstream.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', LONG, 'trigger-sampling-request', 'trigger-elicitation-request']));
    const [v1Resources, v2Templates, v1Prompts] = await Promise.all([legacy.listResources(), modern.listResourceTemplates(), legacy.listPrompts()]);
    expect(v1Resources.resources.map((r) => r.uri)).toEqual((await front.upstream.listAllResources()).map((r) => r.uri));
    expect(v2Templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(expect.arrayContaining(['demo://resource/dynamic/text/{resourceId}']));
    expect(v1Prompts.prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt']));
  }, TEST_MS);

  it('calls the offline tools from both clients at once, each answered in its own era', async () => {
    const calls = (client: 'v1' | 'v2', n: number) => {
      const call = (name: string, args: Record<string, unknown>) => (client === 'v1' ? legacy.callTool({ name, arguments: args }) : modern.callTool({ name, arguments: args }));
      return Promise.all([
        call('echo', { message: `${client}-${n}` }),
        call('get-sum', { a: n, b: 100 }),
        call('get-tiny-image', {}),
        call('get-annotated-message', { messageType: 'success', includeImage: false }),
        call('get-structured-content', { location: 'New York' }),
        call('get-resource-reference', { resourceType: 'Text', resourceId: 3 }),
        call('get-resource-links', { count: 2 }),
      ]);
    };
    const [v1, v2] = await Promise.all([calls('v1', 1), calls('v2', 2)]);
    for (const [results, client, n] of [[v1, 'v1', 1], [v2, 'v2', 2]] as const) {
      expect(text(results[0])).toBe(`Echo: ${client}-${n}`);
      expect(text(results[1])).toContain(String(n + 100));
      expect((results[2] as { content: Array<{ type: string }> }).content.some((c) => c.type === 'image')).toBe(true);
      expect((results[3] as { content: unknown[] }).content.length).toBeGreaterThan(0);
      expect((results[4] as { structuredContent?: unknown }).structuredContent).toMatchObject({ temperature: expect.any(Number) });
      expect(JSON.stringify(results[5])).toContain('demo://resource/dynamic/text/3');
      expect((results[6] as { content: Array<{ type: string }> }).content.filter((c) => c.type === 'resource_link')).toHaveLength(2);
    }
    // A 2026-07-28 result carries the front's resultType handling: the v2 SDK accepted it as complete.
    const last = modernHttp.filter((e) => (e.body as { method?: string }).method === 'tools/call').at(-1);
    expect(last?.headers['mcp-method']).toBe('tools/call');
    expect(last?.headers['mcp-name']).toEqual(expect.any(String));
  }, TEST_MS);

  it('reads resources, gets prompts and completes arguments for both clients', async () => {
    const [v1Read, v2Read, v1Prompt, v2Prompt, v1Complete, v2Complete] = await Promise.all([
      legacy.readResource({ uri: 'demo://resource/dynamic/text/1' }),
      modern.readResource({ uri: 'demo://resource/dynamic/text/2' }),
      legacy.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } }),
      modern.getPrompt({ name: 'args-prompt', arguments: { city: 'Lima' } }),
      legacy.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } }),
      modern.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'M' } }),
    ]);
    expect(v1Read.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/1', text: expect.stringContaining('Resource 1') });
    expect(v2Read.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/2', text: expect.stringContaining('Resource 2') });
    expect(JSON.stringify(v1Prompt.messages)).toContain('Paris');
    expect(JSON.stringify(v2Prompt.messages)).toContain('Lima');
    expect(v1Complete.completion.values).toEqual(['Engineering']);
    expect(v2Complete.completion.values).toEqual(expect.arrayContaining(['Marketing']));
    // A proxied result is not cacheable: the session-era upstream gave no cache hint.
    const read = modernHttp.find((e) => (e.body as { method?: string }).method === 'resources/read');
    expect(read).toBeDefined();
  }, TEST_MS);

  it('relays progress to each client from its own call', async () => {
    const v1Progress: number[] = [];
    const v2Progress: number[] = [];
    await Promise.all([
      legacy.callTool({ name: LONG, arguments: { duration: 0.4, steps: 4 } }, undefined, { onprogress: (p) => v1Progress.push(p.progress) }),
      modern.callTool({ name: LONG, arguments: { duration: 0.3, steps: 3 } }, { onprogress: (p) => v2Progress.push(p.progress) }),
    ]);
    expect(v1Progress).toEqual([1, 2, 3, 4]);
    expect(v2Progress).toEqual([1, 2, 3]);
  }, TEST_MS);

  it('sampling and elicitation round trips: a live request on the v1 session, input_required rounds for the v2 client', async () => {
    asked.length = 0;
    const modernFrom = modernHttp.length;
    expect(text(await legacy.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'one' } }))).toContain('v1-model');
    expect(text(await modern.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'two' } }))).toContain('v2-model');
    expect(JSON.stringify(await legacy.callTool({ name: 'trigger-elicitation-request', arguments: {} }))).toContain('Ada');
    expect(JSON.stringify(await modern.callTool({ name: 'trigger-elicitation-request', arguments: {} }))).toContain('Grace');
    expect(asked.map((a) => `${a.client} ${a.method}`)).toEqual(['v1 sampling/createMessage', 'v2 sampling/createMessage', 'v1 elicitation/create', 'v2 elicitation/create']);
    expect(asked[1]!.params.messages[0].content.text).toContain('two');
    // The v2 client's calls were each answered input_required, then retried with inputResponses and requestState.
    const retries = modernHttp.slice(modernFrom).map((e) => e.body as { method?: string; params?: Record<string, unknown> }).filter((b) => b.method === 'tools/call');
    expect(retries).toHaveLength(4);
    expect(retries[1]!.params).toMatchObject({ inputResponses: { 'upstream-0': expect.objectContaining({ model: 'v2-model' }) }, requestState: expect.any(String) });
    expect(retries[3]!.params).toMatchObject({ inputResponses: { 'upstream-0': { action: 'accept', content: { name: 'Grace' } } }, requestState: expect.any(String) });
    expect(front.stats.held).toBe(0);
  }, TEST_MS);

  it('relays upstream logs to a v1 session that set its level', async () => {
    await legacy.setLoggingLevel('debug');
    await legacy.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    for (let i = 0; i < 200 && legacyLogs.length === 0; i++) await sleep(50);
    await legacy.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    expect(legacyLogs[0]).toMatchObject({ level: expect.any(String), data: expect.stringMatching(/message/) });
  }, TEST_MS);

  it('relays an upstream log sent during a 2026-07-28 call to that call, at the logLevel its _meta asks for', async () => {
    modernLogs.length = 0;
    const meta = { 'io.modelcontextprotocol/logLevel': 'debug' };
    // The upstream logs once at once when logging is turned on: during this call, so it is this call's.
    await modern.callTool({ name: 'toggle-simulated-logging', arguments: {}, _meta: meta });
    await modern.callTool({ name: 'toggle-simulated-logging', arguments: {}, _meta: meta });
    expect(modernLogs[0]).toMatchObject({ level: expect.any(String), data: expect.stringMatching(/message/) });
  }, TEST_MS);

  it('a cancel on the front cancels the upstream request: notifications/cancelled (v1) and a closed stream (v2)', async () => {
    for (const client of ['v1', 'v2'] as const) {
      const abort = new AbortController();
      let progressed = false;
      const options = { signal: abort.signal, onprogress: () => { progressed = true; } };
      const call = client === 'v1'
        ? legacy.callTool({ name: LONG, arguments: { duration: 20, steps: 40 } }, undefined, options)
        : modern.callTool({ name: LONG, arguments: { duration: 20, steps: 40 } }, options);
      call.catch(() => {});
      for (let i = 0; i < 100 && !progressed; i++) await sleep(20);
      const upstreamCall = sentRequests(wire, 'tools/call').at(-1)!;
      expect(upstreamCall.params).toMatchObject({ name: LONG, arguments: { duration: 20 } });
      abort.abort();
      await expect(call).rejects.toThrow();
      for (let i = 0; i < 100 && !sentNotifications(wire, 'notifications/cancelled').some((n) => n.params?.requestId === upstreamCall.id); i++) await sleep(20);
      expect(sentNotifications(wire, 'notifications/cancelled').map((n) => n.params?.requestId)).toContain(upstreamCall.id);
    }
    expect(front.stats.inFlight).toBe(0);
  }, TEST_MS);

  it('one upstream session served the whole run: one process, one initialize', () => {
    expect(wire.opened).toBe(1);
    expect(sentRequests(wire, 'initialize')).toHaveLength(1);
    expect(sentRequests(wire, 'tools/call').length).toBeGreaterThan(20);
  });
});
