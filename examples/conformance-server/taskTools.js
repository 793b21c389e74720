// @ts-check
/**
 * The task fixtures of the conformance suite's `tasks-*` scenarios (the 2026-07-28 extension
 * `io.modelcontextprotocol/tasks`), for the conformance server: `greet` (no task), `slow_compute`,
 * `failing_job` (task required), `protocol_error_job`, `confirm_delete`, `multi_input` and `test_tool_with_task`
 * (input gathered on the request first, then a task). Each is an ordinary tool with the `task` option; the same
 * handlers also serve 2025-11-25 core tasks (`params.task`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolError } from '@switchboard/mcp/server';
import { McpError } from '@switchboard/mcp';

/** @typedef {import('@switchboard/mcp/server').McpServer} McpServer */
/** @typedef {import('@switchboard/mcp/server').RequestContext} RequestContext */
/** @typedef {import('@switchboard/mcp').CallToolResult} CallToolResult */

/** @param {string} text @returns {CallToolResult} */
function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/** A yes/no form: what `confirm_delete` and `multi_input` ask. */
const CONFIRM_SCHEMA = Object.freeze({
  type: /** @type {const} */ ('object'),
  properties: { confirm: { type: /** @type {const} */ ('boolean') }, name: { type: /** @type {const} */ ('string') } },
});

/**
 * Registers the task fixtures on `server`.
 * @param {McpServer} server
 */
export function registerTaskTools(server) {
  server.tool('greet', {
    description: 'Greets synchronously (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
  }, (/** @type {{ name?: string }} */ { name }) => textResult(`Hello, ${name ?? 'World'}!`));

  server.tool('slow_compute', {
    description: 'Sleeps "seconds" seconds, then answers (a task for clients that declare the tasks extension)',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
    task: { pollIntervalMs: 200 },
  }, async (/** @type {{ seconds?: number; label?: string }} */ { seconds = 1, label = '' }, ctx) => {
    // Rejects when the task is cancelled: the task then stays `cancelled`.
    await sleep(seconds * 1000, undefined, { signal: ctx.signal });
    return textResult(`Computed ${label} in ${seconds}s`);
  });

  server.tool('failing_job', {
    description: 'Fails with a tool execution error after about a second (runs only as a task)',
    inputSchema: { type: 'object' },
    task: { required: true, pollIntervalMs: 200 },
  }, async (_args, ctx) => {
    await sleep(1000, undefined, { signal: ctx.signal });
    throw new ToolError('The job failed');
  });

  server.tool('protocol_error_job', {
    description: 'Ends with a JSON-RPC error (the task fails)',
    inputSchema: { type: 'object' },
    task: { pollIntervalMs: 200 },
  }, async (_args, ctx) => {
    await sleep(100, undefined, { signal: ctx.signal });
    throw new McpError(-32603, 'Internal error: the job crashed');
  });

  server.tool('confirm_delete', {
    description: 'Asks to confirm the deletion of "filename" (the task waits for the answer), then deletes nothing',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    task: { pollIntervalMs: 200 },
  }, async (/** @type {{ filename?: string }} */ { filename = 'file' }, ctx) => {
    const answer = await ctx.elicit({ message: `Delete "${filename}"?`, requestedSchema: CONFIRM_SCHEMA });
    return textResult(answer.action === 'accept' ? `Deleted ${filename}` : `Kept ${filename}`);
  });

  server.tool('multi_input', {
    description: 'Asks two questions at once (two outstanding input requests)',
    inputSchema: { type: 'object' },
    task: { pollIntervalMs: 200 },
  }, async (_args, ctx) => {
    const [first, second] = await Promise.all([
      ctx.elicit({ message: 'First name?', requestedSchema: CONFIRM_SCHEMA }),
      ctx.elicit({ message: 'Second name?', requestedSchema: CONFIRM_SCHEMA }),
    ]);
    return textResult(`Got ${JSON.stringify(first.content ?? {})} and ${JSON.stringify(second.content ?? {})}`);
  });

  server.tool('test_tool_with_task', {
    description: 'Asks for user_name on the request (input_required), then works on as a task',
    inputSchema: { type: 'object' },
    // Within 100 ms the call answers on its request: round 1 is input_required; the retry becomes a task.
    task: { required: true, afterMs: 100, pollIntervalMs: 200 },
  }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      /** @type {import('@switchboard/mcp/server').ClientRequestOptions} */ ({ key: 'user_name' }),
    );
    await sleep(500, undefined, { signal: ctx.signal });
    /** @type {any} */
    const content = answer.content;
    return textResult(`Hello, ${String(content?.name ?? 'stranger')}! Your task is done.`);
  });
}
