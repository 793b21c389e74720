// @ts-check
/**
 * The diagnostic tools the suite's 2026-07-28 stateless checks call: a tool that needs a capability the client may
 * not have declared (-32021), one whose response stream may carry only the result, one that logs (only when the
 * request set a log level), the triggers that change the tool and prompt lists while listen streams are open, and a
 * tool whose `region` argument is mirrored into the `Mcp-Param-Region` header (MCP 2026-07-28
 * basic/transports/streamable-http.mdx "Request Metadata Headers").
 */

import { appChannel } from '@switchboard/mcp/stores';

/** @typedef {import('@switchboard/mcp/server').McpServer} McpServer */
/** @typedef {import('@switchboard/mcp/server').ServerClusterOptions} ServerClusterOptions */
/** @typedef {import('@switchboard/mcp/stores').ClusterAppMessage} ClusterAppMessage */
/** @typedef {import('@switchboard/mcp/server').JsonSchema} JsonSchema */

/** @type {JsonSchema} */
const NO_ARGUMENTS = { type: 'object', properties: {} };

/** Log lines of `test_logging_tool`, in order. */
export const LOGGING_TOOL_MESSAGES = Object.freeze(['Logging tool started', 'Logging tool completed']);

/** The tool `test_trigger_tool_change` adds and removes in turn. */
export const DYNAMIC_TOOL = 'test_dynamic_tool';
/** The prompt `test_trigger_prompt_change` adds and removes in turn. */
export const DYNAMIC_PROMPT = 'test_dynamic_prompt';

/**
 * The inputSchema of `test_x_mcp_header`: `region` is annotated `x-mcp-header: "Region"`, so over Streamable HTTP
 * the client sends it as `Mcp-Param-Region` and the server checks that header against the body.
 * @type {JsonSchema}
 */
export const X_MCP_HEADER_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'The region to query; mirrored into the Mcp-Param-Region header', 'x-mcp-header': 'Region' },
    query: { type: 'string', description: 'Free text, not mirrored' },
  },
  required: ['region'],
};

/** @param {string} text @returns {import('@switchboard/mcp').CallToolResult} */
function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/** The application channel on which the instances of a cluster tell each other of a trigger's change. */
const DYNAMIC_CHANNEL = appChannel('conformance-dynamic');

/**
 * A registration that is either present or not.
 * @param {() => () => void} register registers the primitive and returns its disposer
 * @returns {{ readonly present: boolean, set(present: boolean): void }}
 */
function presence(register) {
  /** @type {(() => void) | undefined} */
  let dispose;
  return {
    get present() {
      return dispose !== undefined;
    },
    set(present) {
      if (present && dispose === undefined) dispose = register();
      else if (!present && dispose !== undefined) {
        dispose();
        dispose = undefined;
      }
    },
  };
}

/**
 * The triggers' toggles: each call adds the primitive, or removes it when present, so every call changes the list
 * once. In a cluster (the server's `cluster` option) the change is made cluster-wide, the way an application that
 * changes its registry at run time must: a registry is per process, so the instance that decided the change applies
 * it, then tells the others on an application channel of the cluster bus, and each of them applies it too (its own
 * registration announces the change to its own connections, as the deciding instance's does).
 * @param {Record<'tool' | 'prompt', ReturnType<typeof presence>>} registrations
 * @param {ServerClusterOptions | undefined} cluster
 * @returns {(kind: 'tool' | 'prompt') => Promise<string>} the toggle of `kind`: resolves `added` or `removed` once
 *   the other instances were told
 */
function toggles(registrations, cluster) {
  if (cluster !== undefined) {
    cluster.bus.subscribe(DYNAMIC_CHANNEL, (/** @type {ClusterAppMessage} */ message) => {
      /** @type {any} */
      const data = message.data;
      if (message.type !== 'app' || message.from === cluster.instanceId || (data?.kind !== 'tool' && data?.kind !== 'prompt')) return;
      registrations[/** @type {'tool' | 'prompt'} */ (data.kind)].set(data.present === true);
    });
  }
  return async (kind) => {
    const present = !registrations[kind].present;
    registrations[kind].set(present);
    if (cluster !== undefined) await cluster.bus.publish(DYNAMIC_CHANNEL, { type: 'app', from: cluster.instanceId, data: { kind, present } });
    return present ? 'added' : 'removed';
  };
}

/**
 * Registers the diagnostic tools of the stateless checks.
 * @param {McpServer} server
 * @param {ServerClusterOptions} [cluster] the server's `cluster` option, when it is one instance of a cluster: the
 *   triggers then change the lists of every instance (see {@link toggles})
 */
export function addStatelessTools(server, cluster) {
  server.tool('test_missing_capability', {
    description: 'Needs the client\'s sampling capability; a request that did not declare it is refused with -32021',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    // Not caught: without the capability this is MissingClientCapabilityError, answered -32021 with
    // data.requiredCapabilities { sampling: {} }.
    const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }, { key: 'hello' });
    /** @type {any} */
    const content = result.content;
    return textResult(`Sampled: ${content?.type === 'text' ? content.text : '(no text)'}`);
  });

  server.tool('test_streaming_elicitation', {
    description: 'Asks for input while its response streams: on 2026-07-28 an input request in the result, never a request on the stream',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      mode: 'form',
      message: 'What should the streaming tool echo?',
      requestedSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    }, { key: 'echo_text' });
    return textResult(`Echo: ${answer.action === 'accept' ? String(answer.content?.text ?? '') : `(${answer.action})`}`);
  });

  server.tool('test_logging_tool', {
    description: 'Logs two messages; on 2026-07-28 they are sent only when the request set a log level',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    for (const message of LOGGING_TOOL_MESSAGES) await ctx.log('info', message);
    return textResult('Logging tool executed');
  });

  const toggle = toggles({
    tool: presence(() => server.tool(DYNAMIC_TOOL, {
      description: 'Added and removed by test_trigger_tool_change',
      inputSchema: NO_ARGUMENTS,
    }, () => textResult('This is the dynamic tool.'))),
    prompt: presence(() => server.prompt(DYNAMIC_PROMPT, {
      description: 'Added and removed by test_trigger_prompt_change',
    }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is the dynamic prompt.' } }] }))),
  }, cluster);
  server.tool('test_trigger_tool_change', {
    description: `Adds ${DYNAMIC_TOOL}, or removes it when present, so the tool list changes (notifications/tools/list_changed)`,
    inputSchema: NO_ARGUMENTS,
  }, async () => textResult(`${DYNAMIC_TOOL} ${await toggle('tool')}`));
  server.tool('test_trigger_prompt_change', {
    description: `Adds ${DYNAMIC_PROMPT}, or removes it when present, so the prompt list changes (notifications/prompts/list_changed)`,
    inputSchema: NO_ARGUMENTS,
  }, async () => textResult(`${DYNAMIC_PROMPT} ${await toggle('prompt')}`));

  server.tool('test_x_mcp_header', {
    description: 'Echoes its region, which the client mirrors into the Mcp-Param-Region header',
    inputSchema: X_MCP_HEADER_INPUT_SCHEMA,
  }, (args) => textResult(`Region: ${String(args.region)}`));
}
