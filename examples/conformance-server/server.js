// @ts-check
/**
 * The MCP conformance test server, built on Switchboard's own McpServer.
 *
 * It exposes exactly the handler set the official conformance suite (`@modelcontextprotocol/conformance`)
 * expects of a server: the `test_*` tools, the `test://` resources and template, and the `test_*` prompts, with
 * the texts and payloads of the suite's reference fixture, and for 2026-07-28 the multi round-trip tools
 * (`inputRequiredTools.js`), the stateless diagnostics (`statelessTools.js`) and the tasks fixtures
 * (`taskTools.js`). It is dual-era: the same handlers answer sessions (2024-11-05 … 2025-11-25) and stateless
 * 2026-07-28 requests. The same definition is served over Streamable HTTP (`main.js --port N`) and stdio
 * (`main.js --stdio`).
 *
 * The contract is the one the suite's own fixture server implements (`examples/servers/typescript/everything-server.ts`
 * in the public `modelcontextprotocol/conformance` repository); `scripts/conformance.mjs` runs the suite against
 * this server.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer, ToolError } from '@switchboard/mcp/server';
import { addInputRequiredTools } from './inputRequiredTools.js';
import { addStatelessTools } from './statelessTools.js';
import { registerTaskTools } from './taskTools.js';

/** @typedef {import('@switchboard/mcp/server').RequestContext} RequestContext */
/** @typedef {import('@switchboard/mcp/server').JsonSchema} JsonSchema */

/** The `serverInfo` the suite's fixture reports. */
export const SERVER_INFO = Object.freeze({ name: 'mcp-conformance-test-server', version: '1.0.0' });

/** A 1×1 PNG (base64), the fixture's test image. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file (base64), the fixture's test audio. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/**
 * The inputSchema of `json_schema_2020_12_tool`, advertised verbatim by `tools/list` (SEP-1613 `$schema`,
 * `$defs`, `additionalProperties`; SEP-2106 `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`). This is the
 * conformance 0.2 version of the schema; 0.1.16 checks a subset of it.
 * @type {JsonSchema}
 */
export const JSON_SCHEMA_2020_12_INPUT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** Candidates offered by `completion/complete` for `test_prompt_with_arguments` → `arg1`. */
export const ARG1_COMPLETIONS = Object.freeze(['paris', 'park', 'party', 'test1', 'test2', 'testValue1']);

/** Log lines of `test_tool_with_logging`, in order. */
export const LOG_MESSAGES = Object.freeze(['Tool execution started', 'Tool processing data', 'Tool execution completed']);

/** Milliseconds between the notifications of the logging and progress tools. */
const STEP_DELAY_MS = 50;
/** The `retry:` hint (ms) sent when `test_reconnection` closes its SSE stream. */
const RECONNECT_RETRY_MS = 500;

/** @type {JsonSchema} */
const NO_ARGUMENTS = { type: 'object', properties: {} };

/**
 * @param {string} text
 * @returns {import('@switchboard/mcp').CallToolResult}
 */
function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/** @param {unknown} error */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Asks the client for input and renders the answer the way the fixture does.
 * @param {RequestContext} ctx
 * @param {import('@switchboard/mcp').ElicitParams} params
 * @param {string} prefix
 */
async function elicitAndRender(ctx, params, prefix) {
  let result;
  try {
    result = await ctx.elicit(params);
  } catch (error) {
    throw new ToolError(`Elicitation not supported or error: ${messageOf(error)}`, { cause: error });
  }
  return textResult(`${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
}

/** How long `closeRequestStream` waits for the stream to become closable (its priming event stored), in ms. */
const CLOSE_WAIT_MS = 1000;

/**
 * Closes the POST SSE stream that carries `ctx`'s request, when the transport can (Streamable HTTP with
 * resumability). The client must then reconnect with GET and `Last-Event-ID` to receive the result
 * (SEP-1699). On stdio, and on transports without that ability, this does nothing.
 *
 * A stream can be closed on purpose only once the client holds an event id (its priming event). An event store
 * that assigns ids asynchronously (Redis: one round trip) has none yet when the handler starts, so this retries
 * every 10 ms for up to {@link CLOSE_WAIT_MS}; with the in-memory store the first attempt succeeds.
 * @param {RequestContext} ctx
 * @returns {Promise<boolean>} whether the stream was closed
 */
async function closeRequestStream(ctx) {
  /** @type {any} */
  const transport = ctx.session?.transport;
  // Duck-typed (StreamableHttpSessionTransport#closeSseStream) so the stdio path never loads the HTTP module.
  if (typeof transport?.closeSseStream !== 'function') return false;
  for (let waited = 0; waited < CLOSE_WAIT_MS; waited += 10) {
    if (transport.closeSseStream(ctx.requestId, { retryMs: RECONNECT_RETRY_MS })) return true;
    await sleep(10, undefined, { signal: ctx.signal });
  }
  return false;
}

/**
 * Builds the conformance test server: one definition, served to any number of sessions.
 * @param {import('@switchboard/mcp/server').McpServerOptions} [options] extra server options (logger …)
 * @returns {McpServer}
 */
export function createConformanceServer(options = {}) {
  const server = new McpServer(SERVER_INFO, {
    ...options,
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      ...options.capabilities,
    },
  });

  // ===== Tools: content types =====

  server.tool('test_simple_text', { description: 'Tests simple text content response', inputSchema: NO_ARGUMENTS },
    () => textResult('This is a simple text response for testing.'));

  server.tool('test_image_content', { description: 'Tests image content response', inputSchema: NO_ARGUMENTS },
    () => ({ content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }] }));

  server.tool('test_audio_content', { description: 'Tests audio content response', inputSchema: NO_ARGUMENTS },
    () => ({ content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }] }));

  server.tool('test_embedded_resource', { description: 'Tests embedded resource content response', inputSchema: NO_ARGUMENTS },
    () => ({
      content: [{
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      }],
    }));

  server.tool('test_multiple_content_types',
    { description: 'Tests response with multiple content types (text, image, resource)', inputSchema: NO_ARGUMENTS },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
        },
      ],
    }));

  // ===== Tools: notifications during a call =====

  server.tool('test_tool_with_logging',
    { description: 'Tests tool that emits log messages during execution', inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      for (const [i, message] of LOG_MESSAGES.entries()) {
        if (i > 0) await sleep(STEP_DELAY_MS, undefined, { signal: ctx.signal });
        await ctx.log('info', message);
      }
      return textResult('Tool with logging executed successfully');
    });

  server.tool('test_tool_with_progress',
    { description: 'Tests tool that reports progress notifications', inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        await ctx.progress(progress, 100, `Completed step ${progress} of 100`);
        // Also after the last step: a terminal progress notification read in the same chunk as the result is
        // dropped by the official SDK client (and reported through its onerror, which some hosts treat as a
        // broken transport): modelcontextprotocol/typescript-sdk#2580. Keeping them apart avoids that race.
        await sleep(STEP_DELAY_MS, undefined, { signal: ctx.signal });
      }
      return textResult(String(ctx.requestMeta?.progressToken ?? 0));
    });

  // ===== Tools: errors =====

  server.tool('test_error_handling', { description: 'Tests error response handling', inputSchema: NO_ARGUMENTS },
    () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }));

  // ===== Tools: SSE stream resumption (SEP-1699) =====

  server.tool('test_reconnection', {
    description: 'Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call '
      + 'and send the result after client reconnects.',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    await closeRequestStream(ctx);
    // Give the client time to reconnect (it honours the retry hint) before the result is produced.
    await sleep(100, undefined, { signal: ctx.signal });
    return textResult('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
  });

  // ===== Tools: server → client requests =====

  server.tool('test_sampling', {
    description: 'Tests server-initiated sampling (LLM completion request)',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
  }, async (/** @type {{ prompt: string }} */ args, ctx) => {
    let result;
    try {
      result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 });
    } catch (error) {
      throw new ToolError(`Sampling not supported or error: ${messageOf(error)}`, { cause: error });
    }
    /** @type {any} */
    const content = result.content;
    const text = content?.type === 'text' && typeof content.text === 'string' ? content.text : 'No response';
    return textResult(`LLM response: ${text}`);
  });

  server.tool('test_elicitation', {
    description: 'Tests server-initiated elicitation (user input request)',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  }, (/** @type {{ message: string }} */ args, ctx) => elicitAndRender(ctx, {
    mode: 'form',
    message: args.message,
    requestedSchema: {
      type: 'object',
      properties: { response: { type: 'string', description: "User's response" } },
      required: ['response'],
    },
  }, 'User response'));

  server.tool('test_elicitation_sep1034_defaults',
    { description: 'Tests elicitation with default values per SEP-1034', inputSchema: NO_ARGUMENTS },
    (_args, ctx) => elicitAndRender(ctx, {
      mode: 'form',
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    }, 'Elicitation completed'));

  server.tool('test_elicitation_sep1330_enums',
    { description: 'Tests elicitation with enum schema improvements per SEP-1330', inputSchema: NO_ARGUMENTS },
    (_args, ctx) => elicitAndRender(ctx, {
      mode: 'form',
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    }, 'Elicitation completed'));

  // ===== Tools: JSON Schema 2020-12 (SEP-1613, SEP-2106) =====

  server.tool('json_schema_2020_12_tool', {
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
    inputSchema: JSON_SCHEMA_2020_12_INPUT_SCHEMA,
  }, (args) => textResult(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`));

  // ===== Resources =====

  server.resource('test://static-text', {
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  }, (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }));

  server.resource('test://static-binary', {
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
  }, (uri) => ({ contents: [{ uri, mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }] }));

  server.resourceTemplate('test://template/{id}/data', {
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  }, (uri, variables) => {
    const id = String(variables.id);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
  });

  server.resource('test://watched-resource', {
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource clients can subscribe to (resources/subscribe)',
    mimeType: 'text/plain',
  }, (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] }));

  // ===== Prompts =====

  server.prompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
    () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }));

  server.prompt('test_prompt_with_arguments', {
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    complete: { arg1: (value) => ARG1_COMPLETIONS.filter((candidate) => candidate.startsWith(value)) },
  }, (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
  }));

  server.prompt('test_prompt_with_embedded_resource', {
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  }, (args) => ({
    messages: [
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: String(args.resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }));

  server.prompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' },
    () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }));

  // ===== 2026-07-28: input requests (tools and a prompt), stateless diagnostics, tasks =====

  addInputRequiredTools(server);
  addStatelessTools(server, options.cluster);
  registerTaskTools(server);

  return server;
}
