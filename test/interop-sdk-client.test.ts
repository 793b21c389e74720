/**
 * Interop: the official TypeScript SDK client (@modelcontextprotocol/sdk 1.32.2) against our conformance
 * example server, over stdio (a child process running main.js --stdio), Streamable HTTP (serveHttp in
 * process on 127.0.0.1, and main.js --port as a child process) and the 2024-11-05 HTTP+SSE endpoint.
 *
 * Every assertion compares exact values: the conformance suite itself only checks presence, which lets a
 * server that answers "tool not found" as an isError result pass some scenarios (an error text satisfies "has
 * text content" and "has isError").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARG1_COMPLETIONS,
  JSON_SCHEMA_2020_12_INPUT_SCHEMA,
  LOG_MESSAGES,
  SERVER_INFO,
  TEST_AUDIO_BASE64,
  TEST_IMAGE_BASE64,
  createConformanceServer,
} from '../examples/conformance-server/server.js';
import { exitWithin, isAlive, stopByPid } from './helpers/process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'examples', 'conformance-server', 'main.js');

const TOOL_NAMES = [
  'json_schema_2020_12_tool',
  'test_audio_content',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_embedded_resource',
  'test_error_handling',
  'test_image_content',
  'test_multiple_content_types',
  'test_reconnection',
  'test_sampling',
  'test_simple_text',
  'test_tool_with_logging',
  'test_tool_with_progress',
  // 2026-07-28 (examples/conformance-server/inputRequiredTools.js, statelessTools.js, taskTools.js)
  'greet',
  'test_input_required_result_capabilities',
  'test_input_required_result_elicitation',
  'test_input_required_result_list_roots',
  'test_input_required_result_multi_round',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_request_state',
  'test_input_required_result_sampling',
  'test_input_required_result_tampered_state',
  'test_logging_tool',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_trigger_prompt_change',
  'test_trigger_tool_change',
  'test_x_mcp_header',
].sort();
/** The task-capable fixtures (the `task` tool option). */
const TASK_TOOL_NAMES = ['confirm_delete', 'failing_job', 'multi_input', 'protocol_error_job', 'slow_compute', 'test_tool_with_task'];

const SAMPLED_TEXT = 'Paris is the capital of France.';
const ELICITED = { response: 'interop answer' };

/** A connected SDK client plus what its handlers recorded. */
interface Harness {
  readonly client: Client;
  readonly samplingRequests: CreateMessageRequest['params'][];
  readonly elicitRequests: ElicitRequest['params'][];
  readonly logs: LoggingMessageNotification['params'][];
  readonly updated: string[];
  /** What the SDK reported through `client.onerror` (protocol anomalies such as unknown progress tokens). */
  readonly errors: Error[];
}

function newHarness(): Harness {
  const client = new Client({ name: 'switchboard-interop-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  const h: Harness = { client, samplingRequests: [], elicitRequests: [], logs: [], updated: [], errors: [] };
  client.onerror = (error) => { h.errors.push(error); };
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    h.samplingRequests.push(request.params);
    return { role: 'assistant', content: { type: 'text', text: SAMPLED_TEXT }, model: 'interop-test-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    h.elicitRequests.push(request.params);
    return { action: 'accept', content: ELICITED };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { h.logs.push(n.params); });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { h.updated.push(n.params.uri); });
  return h;
}

async function connect(transport: SdkTransport): Promise<Harness> {
  const h = newHarness();
  await h.client.connect(transport);
  return h;
}

/**
 * The behaviour every transport must show. `opts.server` is given when the server runs in this process
 * (resource-updated notifications can then be triggered).
 */
function interopSuite(
  getHarness: () => Harness,
  opts: { server?: () => ReturnType<typeof createConformanceServer>; settleMs?: number } = {},
) {
  const text = (t: string) => [{ type: 'text', text: t }];

  it('initializes with the fixture identity and capabilities', () => {
    const { client } = getHarness();
    expect(client.getServerVersion()).toEqual(SERVER_INFO);
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      // The task-capable fixtures make the 2025-11-25 core tasks capability (MCP 2025-11-25 schema.ts ServerCapabilities.tasks).
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it('ping returns an empty result', async () => {
    expect(await getHarness().client.ping()).toEqual({});
  });

  it('lists exactly the contract tools, json_schema_2020_12_tool with its inputSchema verbatim', async () => {
    const { tools } = await getHarness().client.listTools();
    const names = tools.map((t) => t.name).sort();
    const taskTools = names.filter((n) => TASK_TOOL_NAMES.includes(n));
    expect(names.filter((n) => !TASK_TOOL_NAMES.includes(n))).toEqual(TOOL_NAMES);
    expect(taskTools).toEqual(TASK_TOOL_NAMES);
    for (const tool of tools) {
      expect(typeof tool.description).toBe('string');
      expect(tool.inputSchema.type).toBe('object');
    }
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool')!;
    expect(tool.inputSchema).toEqual(JSON_SCHEMA_2020_12_INPUT_SCHEMA);
    expect(tools.find((t) => t.name === 'test_sampling')!.inputSchema).toEqual({
      type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'],
    });
  });

  it('calls test_simple_text (no arguments member)', async () => {
    expect(await getHarness().client.callTool({ name: 'test_simple_text' })).toEqual({
      content: text('This is a simple text response for testing.'),
    });
  });

  it('calls test_image_content', async () => {
    expect(await getHarness().client.callTool({ name: 'test_image_content', arguments: {} })).toEqual({
      content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }],
    });
  });

  it('calls test_audio_content', async () => {
    expect(await getHarness().client.callTool({ name: 'test_audio_content', arguments: {} })).toEqual({
      content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }],
    });
  });

  it('calls test_embedded_resource', async () => {
    expect(await getHarness().client.callTool({ name: 'test_embedded_resource', arguments: {} })).toEqual({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    });
  });

  it('calls test_multiple_content_types', async () => {
    expect(await getHarness().client.callTool({ name: 'test_multiple_content_types', arguments: {} })).toEqual({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    });
  });

  it('test_error_handling returns an isError result with the exact text', async () => {
    expect(await getHarness().client.callTool({ name: 'test_error_handling', arguments: {} })).toEqual({
      isError: true,
      content: text('This tool intentionally returns an error for testing'),
    });
  });

  it('an unknown tool is a -32602 JSON-RPC error (McpError)', async () => {
    const error = await getHarness().client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => { throw new Error('expected a rejection'); },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).code).toBe(-32602);
  });

  it('arguments that fail the inputSchema give an isError result', async () => {
    const result = await getHarness().client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'x', unexpected: 1 } });
    expect(result.isError).toBe(true);
    const valid = await getHarness().client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' } });
    expect(valid).toEqual({ content: text('JSON Schema 2020-12 tool called with: {"name":"Ada","contactMethod":"email","email":"ada@example.com"}') });
  });

  it('setLoggingLevel returns {} and filters test_tool_with_logging; at info the 3 logs arrive in order during the call', async () => {
    const h = getHarness();
    expect(await h.client.setLoggingLevel('error')).toEqual({});
    h.logs.length = 0;
    expect(await h.client.callTool({ name: 'test_tool_with_logging', arguments: {} })).toEqual({
      content: text('Tool with logging executed successfully'),
    });
    expect(h.logs).toEqual([]);

    expect(await h.client.setLoggingLevel('info')).toEqual({});
    h.logs.length = 0;
    await h.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(h.logs.map((l) => l.level)).toEqual(['info', 'info', 'info']);
    expect(h.logs.map((l) => l.data)).toEqual([...LOG_MESSAGES]);
    expect(h.logs.map((l) => l.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  });

  it('test_tool_with_progress reports 0, 50, 100 of 100 through onprogress', async () => {
    const progress: Progress[] = [];
    const result = await getHarness().client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => { progress.push(p); },
    });
    expect(progress).toEqual([
      { progress: 0, total: 100, message: 'Completed step 0 of 100' },
      { progress: 50, total: 100, message: 'Completed step 50 of 100' },
      { progress: 100, total: 100, message: 'Completed step 100 of 100' },
    ]);
    // The SDK uses the request id as progress token; the tool echoes the token.
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^\d+$/) }]);
  });

  it('test_reconnection delivers its result (over HTTP after the client resumes the closed stream with GET + Last-Event-ID)', async () => {
    const started = Date.now();
    expect(await getHarness().client.callTool({ name: 'test_reconnection', arguments: {} })).toEqual({
      content: text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.'),
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('test_sampling sends sampling/createMessage and embeds the sampled text', async () => {
    const h = getHarness();
    h.samplingRequests.length = 0;
    const result = await h.client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is the capital of France?' } });
    expect(h.samplingRequests).toHaveLength(1);
    expect(h.samplingRequests[0]).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
      maxTokens: 100,
    });
    expect(result).toEqual({ content: text(`LLM response: ${SAMPLED_TEXT}`) });
  });

  it('test_elicitation sends elicitation/create and reports the accepted content', async () => {
    const h = getHarness();
    h.elicitRequests.length = 0;
    const result = await h.client.callTool({ name: 'test_elicitation', arguments: { message: 'Please tell me something' } });
    expect(h.elicitRequests).toHaveLength(1);
    expect(h.elicitRequests[0]).toMatchObject({
      message: 'Please tell me something',
      requestedSchema: { type: 'object', properties: { response: { type: 'string', description: "User's response" } }, required: ['response'] },
    });
    expect(result).toEqual({ content: text(`User response: action=accept, content=${JSON.stringify(ELICITED)}`) });
    expect(result).toEqual({ content: text('User response: action=accept, content={"response":"interop answer"}') });
  });

  it('test_elicitation_sep1034_defaults asks with a default for every primitive type', async () => {
    const h = getHarness();
    h.elicitRequests.length = 0;
    const result = await h.client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    const props = (h.elicitRequests[0] as { requestedSchema: { properties: Record<string, { type: string; default?: unknown; enum?: unknown }> } }).requestedSchema.properties;
    expect(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, [v.type, v.default]]))).toEqual({
      name: ['string', 'John Doe'], age: ['integer', 30], score: ['number', 95.5], status: ['string', 'active'], verified: ['boolean', true],
    });
    expect(props.status!.enum).toEqual(['active', 'inactive', 'pending']);
    expect(result).toEqual({ content: text(`Elicitation completed: action=accept, content=${JSON.stringify(ELICITED)}`) });
  });

  it('test_elicitation_sep1330_enums asks with the 5 enum shapes', async () => {
    const h = getHarness();
    h.elicitRequests.length = 0;
    await h.client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    const props = (h.elicitRequests[0] as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema.properties;
    expect(props).toMatchObject({
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
    });
  });

  it('lists the direct resources and the template', async () => {
    const { client } = getHarness();
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
      ['test://static-text', 'static-text', 'text/plain'],
      ['test://static-binary', 'static-binary', 'image/png'],
      ['test://watched-resource', 'watched-resource', 'text/plain'],
    ]);
    for (const r of resources) expect(typeof r.description).toBe('string');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{
      uriTemplate: 'test://template/{id}/data',
      name: 'template',
      title: 'Resource Template',
      description: 'A resource template with parameter substitution',
      mimeType: 'application/json',
    }]);
  });

  it('reads test://static-text, test://static-binary, test://watched-resource and the template', async () => {
    const { client } = getHarness();
    expect(await client.readResource({ uri: 'test://static-text' })).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
    expect(await client.readResource({ uri: 'test://static-binary' })).toEqual({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }],
    });
    expect(await client.readResource({ uri: 'test://watched-resource' })).toEqual({
      contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
    });
    expect(await client.readResource({ uri: 'test://template/123/data' })).toEqual({
      contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' }],
    });
  });

  it('reading an unknown resource is a JSON-RPC error carrying the uri', async () => {
    const error = await getHarness().client.readResource({ uri: 'test://nonexistent-resource-for-conformance-testing' }).then(
      () => { throw new Error('expected a rejection'); },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect([-32002, -32602]).toContain((error as McpError).code);
    expect((error as McpError).data).toEqual({ uri: 'test://nonexistent-resource-for-conformance-testing' });
  });

  it('subscribes to and unsubscribes from test://watched-resource', async () => {
    const h = getHarness();
    h.updated.length = 0;
    expect(await h.client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    const server = opts.server?.();
    if (server) {
      await server.notifyResourceUpdated('test://watched-resource');
      await expect.poll(() => h.updated, { timeout: 2000 }).toEqual(['test://watched-resource']);
    }
    expect(await h.client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    if (server) {
      await server.notifyResourceUpdated('test://watched-resource');
      await new Promise((r) => setTimeout(r, 100));
      expect(h.updated).toEqual(['test://watched-resource']);
    }
  });

  it('lists the 5 prompts with descriptions and arguments', async () => {
    const { prompts } = await getHarness().client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image', 'test_input_required_result_prompt',
    ]);
    for (const p of prompts) expect(typeof p.description).toBe('string');
    expect(prompts[1]!.arguments).toEqual([
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ]);
    expect(prompts[2]!.arguments).toEqual([{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }]);
  });

  it('gets every prompt with its exact messages', async () => {
    const { client } = getHarness();
    expect((await client.getPrompt({ name: 'test_simple_prompt' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    expect((await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" } },
    ]);
    expect((await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } })).messages).toEqual([
      { role: 'user', content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ]);
    expect((await client.getPrompt({ name: 'test_prompt_with_image' })).messages).toEqual([
      { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ]);
  });

  it('a prompt missing a required argument is a -32602 error', async () => {
    const error = await getHarness().client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'only one' } }).then(
      () => { throw new Error('expected a rejection'); },
      (e: unknown) => e,
    );
    expect((error as McpError).code).toBe(-32602);
  });

  it('completes arg1 of test_prompt_with_arguments', async () => {
    const { client } = getHarness();
    const result = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    expect(result.completion.values).toEqual(['paris', 'park', 'party']);
    expect(result.completion.values).toEqual(ARG1_COMPLETIONS.filter((c) => c.startsWith('par')));
    expect(result.completion.hasMore ?? false).toBe(false);
    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'zzz' } });
    expect(none.completion.values).toEqual([]);
  });

  // SDK 1.x clients resume a primed POST SSE stream that ended with a JSON-RPC *error* response as if the
  // response were missing (typescript-sdk PR #2638): ~1 s later they GET with Last-Event-ID. The server must
  // handle that without making the client report errors (the official server keeps the resumed stream open).
  it('the SDK client reports no protocol errors, also in the seconds after an error response', async () => {
    const h = getHarness();
    await expect(h.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toBeInstanceOf(McpError);
    if (opts.settleMs) await new Promise((r) => setTimeout(r, opts.settleMs));
    expect(h.errors.map((e) => e.message)).toEqual([]);
  });
}

// ------------------------------------------------------------------------------------------------

describe('SDK client ↔ conformance server over stdio (main.js --stdio)', () => {
  let h: Harness | undefined;
  let transport: StdioClientTransport | undefined;
  let pid: number | null = null;

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, '--stdio'], cwd: ROOT, stderr: 'pipe' });
    h = await connect(transport);
    pid = transport.pid;
  });

  afterAll(async () => {
    await h?.client.close();
    if (pid !== null && isAlive(pid)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      throw new Error(`the stdio server (pid ${pid}) was still running after client.close()`);
    }
  });

  interopSuite(() => h!);
});

describe('SDK client ↔ conformance server over Streamable HTTP (serveHttp in process)', () => {
  let h: Harness | undefined;
  let server: ReturnType<typeof createConformanceServer> | undefined;
  let handle: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    const { serveHttp } = await import('@switchboard/mcp/node');
    server = createConformanceServer();
    const served = await serveHttp({ server, port: 0, host: '127.0.0.1' });
    handle = served;
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    h = await connect(new StreamableHTTPClientTransport(new URL(served.url)));
  });

  afterAll(async () => {
    await h?.client.close();
    await handle?.close();
    await server?.close();
  });

  interopSuite(() => h!, { server: () => server!, settleMs: 3500 });

  it('serves the 2024-11-05 HTTP+SSE transport at /sse', async () => {
    const legacy = await connect(new SSEClientTransport(new URL(handle!.url.replace(/\/mcp$/, '/sse'))));
    try {
      expect(legacy.client.getServerVersion()).toEqual(SERVER_INFO);
      expect(await legacy.client.callTool({ name: 'test_simple_text', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      });
      // A server → client request on the legacy transport: the answer is POSTed back.
      expect(await legacy.client.callTool({ name: 'test_sampling', arguments: { prompt: 'legacy' } })).toEqual({
        content: [{ type: 'text', text: `LLM response: ${SAMPLED_TEXT}` }],
      });
      expect(legacy.samplingRequests).toHaveLength(1);
      expect(await legacy.client.setLoggingLevel('info')).toEqual({});
      await legacy.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(legacy.logs.map((l) => l.data)).toEqual([...LOG_MESSAGES]);
    } finally {
      await legacy.client.close();
    }
  });
});

describe('main.js --port (child process)', () => {
  let child: ChildProcess | undefined;

  afterAll(() => stopByPid(child));

  it('prints the URL on stderr, serves /mcp on 127.0.0.1 and exits 0 on SIGTERM', async () => {
    child = spawn(process.execPath, [MAIN, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`no URL on stderr within 10 s: ${stderr}`)), 10_000);
      child!.stderr!.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
        if (m && m[1] !== '0') { clearTimeout(timer); resolve(m[0]); }
      });
      child!.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code}: ${stderr}`)); });
    });
    const h = await connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(await h.client.callTool({ name: 'test_simple_text' })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      });
    } finally {
      await h.client.close();
    }
    expect(stdout).toBe('');
    process.kill(child.pid!, 'SIGTERM');
    expect(await exitWithin(child, 3000)).toBe(0);
  });
});

describe('main.js --stdio process behaviour', () => {
  let child: ChildProcess | undefined;

  afterAll(() => stopByPid(child));

  it('writes nothing but JSON-RPC lines on stdout and exits promptly on stdin EOF', async () => {
    child = spawn(process.execPath, [MAIN, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
    const lines = () => stdout.split('\n').filter((l) => l !== '');
    const send = (m: unknown) => child!.stdin!.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'eof-test', version: '1.0.0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_tool_with_logging', arguments: {} } });
    send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await expect.poll(() => lines().filter((l) => l.includes('"id":2')).length, { timeout: 5000 }).toBe(1);

    child.stdin!.end();
    expect(await exitWithin(child, 2000)).toBe(0);

    const messages = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const m of messages) expect(m.jsonrpc).toBe('2.0');
    expect(messages.find((m) => m.id === 1)).toMatchObject({ result: { serverInfo: SERVER_INFO } });
    expect(messages.find((m) => m.id === 3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(messages.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { data: unknown }).data)).toEqual([...LOG_MESSAGES]);
    expect(messages.find((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] } });
  });

  it('exits promptly when stdin closes before any message', async () => {
    const quiet = spawn(process.execPath, [MAIN, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    child = quiet;
    let stdout = '';
    quiet.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    // Give it a moment to start reading, then close stdin.
    await new Promise((r) => setTimeout(r, 300));
    quiet.stdin.end();
    expect(await exitWithin(quiet, 2000)).toBe(0);
    expect(stdout).toBe('');
  });
});
