/**
 * The `protocol.bad-arguments` check, only with `--call` and only on that tool (it may run it): `tools/call` with
 * arguments built to break the tool's `inputSchema` (a required property left out, or a property of the wrong type,
 * or one the schema forbids). From 2025-11-25 the answer is a tool result with `isError: true`; before, a -32602 is
 * as good.
 *
 * @see MCP 2025-11-25 server/tools.mdx "Error Handling" (SEP-1303); field bug B40
 */
import { McpError } from '@switchboard/mcp';
import type { Check, CheckContext } from '../../types.js';
import { recordOf } from '../eras/channel.js';

/** A value of another JSON type than `type`. */
function wrongValueFor(type: unknown): unknown {
  if (type === 'string') return 12345;
  if (type === 'number' || type === 'integer') return 'not a number';
  if (type === 'boolean') return 'not a boolean';
  if (type === 'array') return 'not an array';
  if (type === 'object') return 'not an object';
  return undefined;
}

/** Arguments that break `schema`, and how; `undefined` when the schema accepts anything the doctor can build. */
export function breakingArguments(schema: unknown, valid: Readonly<Record<string, unknown>>): { readonly args: Record<string, unknown>; readonly how: string } | undefined {
  const root = recordOf(schema);
  if (root === undefined) return undefined;
  const required = Array.isArray(root.required) ? root.required.filter((r): r is string => typeof r === 'string') : [];
  if (required.length > 0) {
    const args = { ...valid };
    delete args[required[0]!];
    return { args, how: `without the required property "${required[0]!}"` };
  }
  const properties = recordOf(root.properties) ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const wrong = wrongValueFor(recordOf(property)?.type);
    if (wrong !== undefined) return { args: { ...valid, [name]: wrong }, how: `with "${name}" of the wrong type (${JSON.stringify(wrong)})` };
  }
  if (root.additionalProperties === false) return { args: { ...valid, 'switchboard-doctor-unexpected': true }, how: 'with a property the schema forbids' };
  return undefined;
}

async function run(ctx: CheckContext): Promise<void> {
  const call = ctx.call;
  if (call === undefined) return ctx.skip('no --call: the doctor calls no tool unless told to');
  const client = await ctx.client();
  const tools = await client.listAllTools({ timeoutMs: ctx.requestTimeoutMs, signal: ctx.signal });
  const tool = tools.find((t) => t.name === call.name);
  const broken = tool === undefined ? undefined : breakingArguments(tool.inputSchema, call.args);
  if (broken === undefined) {
    return ctx.skip(tool === undefined ? `no tool "${call.name}" in tools/list` : `nothing breaks the inputSchema of "${call.name}"`);
  }
  ctx.progress(`calling ${call.name} ${broken.how}`);
  const revision = client.protocolVersion;
  const sent = `tools/call ${JSON.stringify({ name: call.name, arguments: broken.args })}`.slice(0, 500);
  const toolErrorsOnly = revision >= '2025-11-25';
  try {
    const result = await client.callTool({ name: call.name, arguments: broken.args }, { timeoutMs: ctx.requestTimeoutMs, signal: ctx.signal });
    if (result.isError === true) return;
    ctx.report('protocol.invalid-arguments', { message: `At ${revision}, tools/call of "${call.name}" ${broken.how} succeeded: the tool accepts arguments its inputSchema forbids`, evidence: [`sent: ${sent}`, `got: ${JSON.stringify(result).slice(0, 400)}`] });
  } catch (error) {
    if (!(error instanceof McpError)) {
      // No answer (a timeout, a closed connection): the transport checks say why.
      ctx.progress(`no answer to the call: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (error.code === -32602 && !toolErrorsOnly) return;
    const got = `got: ${JSON.stringify({ code: error.code, message: error.message, data: error.data }).slice(0, 400)}`;
    const why = error.code === -32602 ? 'a protocol error, which most hosts do not show to the model, where 2025-11-25 asks for a tool result with isError: true' : 'not a tool result with isError: true';
    ctx.report('protocol.invalid-arguments', { message: `At ${revision}, tools/call of "${call.name}" ${broken.how} got code ${error.code}: ${why}`, evidence: [`sent: ${sent}`, got] });
  }
}

/** The `protocol.bad-arguments` check (only with `--call`). */
export const BAD_ARGUMENTS_CHECK: Check = {
  id: 'protocol.bad-arguments',
  title: 'invalid tool arguments',
  area: 'protocol',
  transports: ['stdio', 'http'],
  requirements: ['protocol.invalid-arguments'],
  run,
};
