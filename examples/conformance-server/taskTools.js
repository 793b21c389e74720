// @ts-check
/**
 * The fixtures of the suite's tasks scenarios (the 2026-07-28 extension `io.modelcontextprotocol/tasks`): `greet`
 * (a plain tool), and the task-capable `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
 * `multi_input` and `test_tool_with_task`. A tool is made task-capable with the `task` option of its definition;
 * the handler is the same one a plain call runs.
 *
 * Guarded: with a core that has no `task` option the task-capable tools would be plain tools (`slow_compute` would
 * hold a call for its `seconds`), so they are registered only when the server then advertises the `tasks`
 * capability; otherwise only `greet` is, and {@link addTaskTools} says so.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** @typedef {import('@switchboard/mcp/server').McpServer} McpServer */
/** @typedef {import('@switchboard/mcp/server').JsonSchema} JsonSchema */
/** @typedef {import('@switchboard/mcp/server').ToolDefinition} ToolDefinition */

/** @type {JsonSchema} */
const NO_ARGUMENTS = { type: 'object', properties: {} };

/** How long (ms) `failing_job` works before it reports its tool error. */
const FAILING_JOB_DELAY_MS = 1000;
/** How long (ms) `test_tool_with_task` works once it has the user name. */
const TASK_WORK_MS = 200;

/** @param {string} text @returns {import('@switchboard/mcp').CallToolResult} */
function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/** @param {import('@switchboard/mcp').ElicitResult} answer @param {string} field */
function fieldOf(answer, field) {
  const value = answer.action === 'accept' ? answer.content?.[field] : undefined;
  return value === undefined ? `(${answer.action})` : String(value);
}

/**
 * A definition with the tasks option, typed loosely so that this file also checks against a core without it.
 * @param {ToolDefinition} definition
 * @param {boolean | { ttlMs?: number, required?: boolean }} task
 * @returns {ToolDefinition}
 */
function withTask(definition, task) {
  return /** @type {ToolDefinition} */ ({ ...definition, task });
}

/**
 * Registers the tasks fixtures.
 * @param {McpServer} server
 * @returns {boolean} whether the task-capable tools were registered (false: the core has no `task` option)
 */
export function addTaskTools(server) {
  server.tool('greet', {
    description: 'A plain tool: greets by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  }, (/** @type {{ name: string }} */ args) => textResult(`Hello, ${args.name}!`));

  const disposeProbe = server.tool('slow_compute', withTask({
    description: 'Task-capable: sleeps for `seconds` seconds, then reports; cancelling the task stops it',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
      required: ['seconds'],
    },
  }, true), async (args, ctx) => {
    const seconds = Number(args.seconds);
    await sleep(seconds * 1000, undefined, { signal: ctx.signal });
    return textResult(`Computed${typeof args.label === 'string' ? ` ${args.label}` : ''} after ${seconds} s`);
  });
  if (server.capabilities.tasks === undefined) {
    disposeProbe();
    return false;
  }

  server.tool('failing_job', withTask({
    description: 'Task-capable (task required): reports a tool execution error after about a second',
    inputSchema: NO_ARGUMENTS,
  }, { required: true }), async (_args, ctx) => {
    await sleep(FAILING_JOB_DELAY_MS, undefined, { signal: ctx.signal });
    return { isError: true, content: [{ type: 'text', text: 'The job failed, as it always does' }] };
  });

  server.tool('protocol_error_job', withTask({
    description: 'Task-capable: fails with a protocol-level error (the task ends "failed")',
    inputSchema: NO_ARGUMENTS,
  }, true), () => {
    throw new Error('protocol_error_job always fails');
  });

  server.tool('confirm_delete', withTask({
    description: 'Task-capable: asks the user to confirm deleting a file, then reports',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
  }, true), async (args, ctx) => {
    const filename = String(args.filename);
    const answer = await ctx.elicit({
      mode: 'form',
      message: `Delete ${filename}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    return textResult(`${filename}: ${fieldOf(answer, 'confirm') === 'true' ? 'deleted' : 'kept'}`);
  });

  server.tool('multi_input', withTask({
    description: 'Task-capable: asks two questions at once, so two input requests are pending together',
    inputSchema: NO_ARGUMENTS,
  }, true), async (_args, ctx) => {
    const schema = { type: /** @type {const} */ ('object'), properties: { name: { type: /** @type {const} */ ('string') }, confirm: { type: /** @type {const} */ ('boolean') } } };
    const [first, second] = await Promise.all([
      ctx.elicit({ mode: 'form', message: 'First input', requestedSchema: schema }),
      ctx.elicit({ mode: 'form', message: 'Second input', requestedSchema: schema }),
    ]);
    return textResult(`Inputs: ${fieldOf(first, 'name')}, ${fieldOf(second, 'name')}`);
  });

  server.tool('test_tool_with_task', withTask({
    description: 'Task-capable (task required): asks for the user name ("user_name"), then works as a task and greets',
    inputSchema: NO_ARGUMENTS,
  }, { required: true }), async (_args, ctx) => {
    const answer = await ctx.elicit({
      mode: 'form',
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    }, { key: 'user_name' });
    await sleep(TASK_WORK_MS, undefined, { signal: ctx.signal });
    return textResult(`Hello, ${fieldOf(answer, 'name')}! (from a task)`);
  });
  return true;
}
