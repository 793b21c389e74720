// @ts-check
/**
 * The multi round-trip test tools and prompt of the conformance suite (2026-07-28): each asks the client for input
 * with `ctx.elicit`, `ctx.sample` or `ctx.listRoots` under the key the suite answers, so on a modern-era request the
 * first round is answered `input_required` (with a signed `requestState`) and the retry, carrying
 * `inputResponses`, completes (MCP 2026-07-28 basic/patterns/mrtr.mdx). On a session (legacy era) the same calls
 * are live server → client requests, so the tools work there too.
 *
 * The handlers run again from the start on every retry: nothing before the first input request has side effects,
 * and their own progress goes in `ctx.requestState`, which the server signs, so a state the client altered is
 * refused with -32602 before the handler runs.
 */
import { isLegacyRevision } from '@switchboard/mcp';

/** @typedef {import('@switchboard/mcp/server').McpServer} McpServer */
/** @typedef {import('@switchboard/mcp/server').RequestContext} RequestContext */
/** @typedef {import('@switchboard/mcp/server').JsonSchema} JsonSchema */
/** @typedef {import('@switchboard/mcp').ElicitParams} ElicitParams */

/** @type {JsonSchema} */
const NO_ARGUMENTS = { type: 'object', properties: {} };

/**
 * The text a `requestState`-checking tool returns once the state it issued came back intact (the suite looks for
 * `state-ok`).
 */
export const STATE_OK_TEXT = 'state-ok: the request state came back as issued';

/** @param {string} text @returns {import('@switchboard/mcp').CallToolResult} */
function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/**
 * A form elicitation asking for one string (or boolean) field.
 * @param {string} message
 * @param {string} field
 * @param {'string' | 'boolean'} [type]
 * @returns {ElicitParams}
 */
function askFor(message, field, type = 'string') {
  return { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] } };
}

/**
 * A field of an accepted elicitation, as text.
 * @param {import('@switchboard/mcp').ElicitResult} answer
 * @param {string} field
 */
function fieldOf(answer, field) {
  const value = answer.action === 'accept' ? answer.content?.[field] : undefined;
  return value === undefined ? `(${answer.action})` : String(value);
}

/** @param {import('@switchboard/mcp').CreateMessageResult} result */
function sampledText(result) {
  /** @type {any} */
  const content = result.content;
  return content?.type === 'text' && typeof content.text === 'string' ? content.text : '(no text)';
}

/** @param {import('@switchboard/mcp').ListRootsResult} result */
function rootList(result) {
  return result.roots.map((root) => root.uri).join(', ') || '(none)';
}

/**
 * Sets the handler's own state for the next round; a session (legacy era) has no rounds, so nothing is carried.
 * @param {RequestContext} ctx
 * @param {unknown} state
 */
function carry(ctx, state) {
  if (!isLegacyRevision(ctx.protocolVersion)) ctx.requestState = state;
}

/**
 * Whether the state this handler issued came back (always true on a session, which has no rounds).
 * @param {RequestContext} ctx
 * @param {string} stage
 */
function carried(ctx, stage) {
  if (isLegacyRevision(ctx.protocolVersion)) return true;
  const state = /** @type {{ stage?: unknown } | undefined} */ (ctx.requestState);
  return state?.stage === stage;
}

/** The sampling request of the sampling tools. @param {string} text @param {number} maxTokens */
function samplingOf(text, maxTokens) {
  return { messages: [{ role: /** @type {const} */ ('user'), content: { type: /** @type {const} */ ('text'), text } }], maxTokens };
}

/**
 * Registers the `test_input_required_result_*` tools and the `test_input_required_result_prompt` prompt.
 * @param {McpServer} server
 */
export function addInputRequiredTools(server) {
  server.tool('test_input_required_result_elicitation', {
    description: 'Asks for the user name with an elicitation input request (key "user_name"), then greets',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    const answer = await ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' });
    return textResult(`Hello, ${fieldOf(answer, 'name')}!`);
  });

  server.tool('test_input_required_result_sampling', {
    description: 'Asks the client to sample an LLM (key "capital_question"), then returns its answer',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    const answer = await ctx.sample(samplingOf('What is the capital of France?', 100), { key: 'capital_question' });
    return textResult(`Sampling response: ${sampledText(answer)}`);
  });

  server.tool('test_input_required_result_list_roots', {
    description: 'Asks the client for its roots (key "client_roots"), then lists them',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    const roots = await ctx.listRoots({ key: 'client_roots' });
    return textResult(`Client roots: ${rootList(roots)}`);
  });

  server.tool('test_input_required_result_request_state', {
    description: 'Carries its own state across the rounds (requestState) and confirms it came back intact',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    const intact = carried(ctx, 'awaiting-confirmation');
    carry(ctx, { stage: 'awaiting-confirmation' });
    const answer = await ctx.elicit(askFor('Please confirm', 'ok', 'boolean'), { key: 'confirm' });
    // Only reached with the client's answer: on a modern-era request that is the retry, which must bring the state.
    return textResult(intact ? `${STATE_OK_TEXT} (ok=${fieldOf(answer, 'ok')})` : 'state-missing: the retry did not bring the request state back');
  });

  server.tool('test_input_required_result_multiple_inputs', {
    description: 'Asks for an elicitation ("user_name"), a sampling ("greeting") and the roots ("client_roots") in one round',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    carry(ctx, { stage: 'gathering' });
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' }),
      ctx.sample(samplingOf('Generate a greeting', 50), { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    return textResult(`${sampledText(greeting)} ${fieldOf(name, 'name')} (roots: ${rootList(roots)})`);
  });

  server.tool('test_input_required_result_multi_round', {
    description: 'Asks "step1" (a name), then in a second round "step2" (a colour), its state changing between rounds',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    carry(ctx, { stage: 'step1' });
    const first = await ctx.elicit(askFor('Step 1: What is your name?', 'name'), { key: 'step1' });
    const name = fieldOf(first, 'name');
    carry(ctx, { stage: 'step2', name });
    const second = await ctx.elicit(askFor('Step 2: What is your favorite color?', 'color'), { key: 'step2' });
    return textResult(`${name} likes ${fieldOf(second, 'color')}`);
  });

  server.tool('test_input_required_result_tampered_state', {
    description: 'Issues an integrity-protected requestState; a retry with an altered one is refused (-32602)',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    carry(ctx, { stage: 'awaiting-confirmation' });
    const answer = await ctx.elicit(askFor('Please confirm', 'ok', 'boolean'), { key: 'confirm' });
    return textResult(`Confirmed: ${fieldOf(answer, 'ok')}`);
  });

  server.tool('test_input_required_result_capabilities', {
    description: 'Asks only for the input the client declared a capability for (elicitation, sampling, roots)',
    inputSchema: NO_ARGUMENTS,
  }, async (_args, ctx) => {
    const declared = ctx.clientCapabilities;
    /** @type {Promise<string>[]} */
    const asks = [];
    if (declared.elicitation !== undefined) {
      asks.push(ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' }).then((a) => `name=${fieldOf(a, 'name')}`));
    }
    if (declared.sampling !== undefined) {
      asks.push(ctx.sample(samplingOf('What is the capital of France?', 100), { key: 'capital_question' }).then((r) => `sampled=${sampledText(r)}`));
    }
    if (declared.roots !== undefined) asks.push(ctx.listRoots({ key: 'client_roots' }).then((r) => `roots=${rootList(r)}`));
    if (asks.length === 0) return textResult('The client declared no capability to ask for input with');
    return textResult((await Promise.all(asks)).join('; '));
  });

  server.prompt('test_input_required_result_prompt', {
    title: 'Prompt Needing Input',
    description: 'A prompt that asks the user for its context (elicitation input request, key "user_context")',
  }, async (_args, ctx) => {
    const answer = await ctx.elicit(askFor('What context should the prompt use?', 'context'), { key: 'user_context' });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${fieldOf(answer, 'context')}` } }] };
  });
}
