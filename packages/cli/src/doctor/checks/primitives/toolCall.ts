/**
 * `--call NAME --args JSON`: the one tool call the doctor makes, and only when asked (a tool may have side effects).
 * The call goes through the client's `callTool` (the modern era's input rounds and `Mcp-Param-*` headers need it);
 * a result the client refuses (`InvalidResultError`) is taken from the error and judged here, by the rules of
 * `callResult.ts`. A JSON-RPC error for a listed tool is a tool failure reported as a protocol error (MCP 2025-11-25
 * server/tools.mdx "Error Handling").
 */
import type { Check, CheckContext } from '../../types.js';
import { resultProblems } from './callResult.js';
import { connectedClient, errorText } from './catalogue.js';
import { quote } from './pages.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function callTool(ctx: CheckContext): Promise<void> {
  const call = ctx.call;
  // A check that called no tool showed nothing: it is skipped, with its reason, never counted as passed.
  if (call === undefined) return ctx.skip('no tool was called: the doctor calls one only with --call NAME');
  const client = await connectedClient(ctx);
  if (client === undefined) return ctx.skip(`"${call.name}" was not called: no MCP connection for the call`);
  const tool = ctx.facts.tools?.find((t) => t.name === call.name);
  if (client.era === 'modern') {
    // The client learns each tool's header mirroring from a listing on this connection.
    await client.listAllTools({ timeoutMs: ctx.requestTimeoutMs, signal: ctx.signal }).catch(() => undefined);
  }
  ctx.progress(`calling ${call.name}`);
  const request = { name: call.name, arguments: { ...call.args } };
  let result: unknown;
  try {
    result = await client.callTool(request, { timeoutMs: ctx.requestTimeoutMs, signal: ctx.signal });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'invalid_result' && isRecord(error) && 'result' in error) {
      result = error.result;
    } else if (typeof code === 'number') {
      if (tool === undefined) {
        ctx.progress(`"${call.name}" is not listed: ${errorText(error)}`);
        return ctx.skip(`"${call.name}" is not a listed tool (${errorText(error)})`);
      }
      // Before 2025-11-25, invalid arguments were a protocol error (-32602) by the spec's own examples.
      if (code === -32602 && client.protocolVersion < '2025-11-25') return;
      ctx.report('primitives.call-error-not-result', {
        message: `Calling the listed tool "${call.name}" gave a JSON-RPC error (${code}) instead of a result with "isError": true`,
        revision: client.protocolVersion,
        evidence: [`→ ${quote({ method: 'tools/call', params: request })}`, `← ${quote({ error: { code, message: (error as { message?: unknown }).message, data: (error as { data?: unknown }).data } })}`],
      });
      return;
    } else if (code === 'request_timeout') {
      ctx.report('primitives.call-unanswered', { message: `Tool "${call.name}" gave no answer within ${ctx.requestTimeoutMs} ms`, evidence: [`→ ${quote({ method: 'tools/call', params: request })}`] });
      return;
    } else {
      // The connection ended or the budget ran out: the other checks say why.
      ctx.progress(`calling ${call.name} failed: ${errorText(error)}`);
      return ctx.skip(`calling "${call.name}" got no result: ${errorText(error)}`);
    }
  }
  for (const problem of await resultProblems({ name: call.name, result, tool, revision: client.protocolVersion })) {
    ctx.report(problem.id, { message: problem.message, evidence: [`← ${quote(result)}`], revision: client.protocolVersion });
  }
}

/** The `--call` check. */
export const CALL_CHECKS: readonly Check[] = [
  {
    id: 'primitives.call',
    title: 'the --call tool result',
    area: 'primitives',
    transports: ['stdio', 'http'],
    requirements: ['primitives.call-result-invalid', 'primitives.call-error-not-result', 'primitives.structured-content-mismatch', 'primitives.structured-content-no-text', 'primitives.call-unanswered'],
    run: callTool,
  },
];
