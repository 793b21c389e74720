/**
 * The `eras.modern-refusals` check: the refusals of the modern era, each provoked once with a request that has no
 * side effect. -32022 for a revision claim the server does not serve (both transports), -32021 for a request that
 * needs an undeclared client capability (`tasks/get` without the tasks extension), and over HTTP -32020 for request
 * metadata headers missing or disagreeing with the body, each with HTTP 400.
 *
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Protocol Version Header", "Server Validation";
 *   basic/versioning.mdx "Protocol Version Negotiation"; basic/index.mdx "Error Codes"
 */
import type { Check, CheckContext } from '../../types.js';
import { errorOf, evidenceOf, openModern, recordOf, type RawAnswer, type RawChannel } from './channel.js';
import { UNKNOWN_REVISION } from './revisionsCheck.js';

/** The id of the tasks extension (io.modelcontextprotocol/tasks "Capability Negotiation"). */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A tool name no server has: `tools/call` of it runs nothing, whatever the server does with the headers. */
export const NO_SUCH_TOOL = 'switchboard-doctor-no-such-tool';

/**
 * The refusal's shape problem (code, then HTTP status), or `undefined` when it is `code` with status 400 — or when
 * nothing came back in time (a process that died, a slow answer under load: the other checks say why).
 */
function refusalProblem(answer: RawAnswer, code: number): string | undefined {
  if (answer.response === undefined && (answer.status === undefined || answer.status === 0)) return undefined;
  const error = errorOf(answer);
  if (answer.response === undefined) return `HTTP ${String(answer.status)} with no JSON-RPC error`;
  if (error === undefined) return 'a result';
  if (error.code !== code) return `code ${JSON.stringify(error.code)}`;
  if (answer.status !== undefined && answer.status !== 400) return `code ${code} with HTTP ${answer.status} (400 expected)`;
  return undefined;
}

async function unsupportedVersion(ctx: CheckContext, channel: RawChannel): Promise<void> {
  ctx.progress(`claiming ${UNKNOWN_REVISION}`);
  const answer = await channel.request('tools/list', {}, { claim: UNKNOWN_REVISION });
  const problem = refusalProblem(answer, -32022);
  if (problem !== undefined) {
    ctx.report('eras.unsupported-version', { message: `A request claiming revision ${UNKNOWN_REVISION} got ${problem}, not -32022 UnsupportedProtocolVersion`, evidence: evidenceOf(answer) });
    return;
  }
  const data = recordOf(errorOf(answer)?.data);
  const supported = data?.supported;
  const missing = [
    ...(Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string') ? [] : ['data.supported (a non-empty array of revisions)']),
    ...(typeof data?.requested === 'string' ? [] : ['data.requested']),
  ];
  if (missing.length > 0) ctx.report('eras.unsupported-version', { message: `The -32022 refusal lacks ${missing.join(' and ')}, so the client cannot pick a revision to retry with`, evidence: evidenceOf(answer) });
}

async function missingCapability(ctx: CheckContext, channel: RawChannel): Promise<void> {
  ctx.progress('tasks/get without the tasks extension');
  const answer = await channel.request('tasks/get', { taskId: 'switchboard-doctor-no-such-task' });
  const error = errorOf(answer);
  const discover = await channel.request('server/discover', {});
  const extensions = recordOf(recordOf(recordOf(discover.response?.result)?.capabilities)?.extensions);
  const advertised = extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION);
  if (!advertised && error?.code !== -32021) {
    // No method of this server needs a client capability whatever the handler does: nothing to provoke.
    ctx.progress('skipped -32021: the server does not advertise the tasks extension');
    return;
  }
  const problem = refusalProblem(answer, -32021);
  if (problem !== undefined) {
    ctx.report('eras.missing-client-capability', { message: `tasks/get without the tasks extension declared got ${problem}, not -32021 MissingRequiredClientCapability`, evidence: evidenceOf(answer) });
    return;
  }
  const required = recordOf(error?.data)?.requiredCapabilities;
  if (recordOf(required) === undefined) ctx.report('eras.missing-client-capability', { message: 'The -32021 refusal lacks data.requiredCapabilities (an object naming the capabilities needed)', evidence: evidenceOf(answer) });
}

/** The header faults provoked over HTTP: each request is harmless even if the server ignores the headers. */
const HEADER_FAULTS: readonly { readonly what: string; readonly method: string; readonly params: Readonly<Record<string, unknown>>; readonly headers: Readonly<Record<string, string | null>> }[] = [
  { what: 'an Mcp-Method header that names another method', method: 'tools/list', params: {}, headers: { 'mcp-method': 'prompts/list' } },
  { what: 'no Mcp-Method header', method: 'tools/list', params: {}, headers: { 'mcp-method': null } },
  { what: 'no Mcp-Name header', method: 'tools/call', params: { name: NO_SUCH_TOOL, arguments: {} }, headers: { 'mcp-name': null } },
  { what: 'an Mcp-Name header that names another tool', method: 'tools/call', params: { name: NO_SUCH_TOOL, arguments: {} }, headers: { 'mcp-name': `${NO_SUCH_TOOL}-other` } },
  { what: 'an MCP-Protocol-Version header that differs from the _meta claim', method: 'tools/list', params: {}, headers: { 'mcp-protocol-version': '2025-11-25' } },
];

async function headerMismatch(ctx: CheckContext, channel: RawChannel): Promise<void> {
  for (const fault of HEADER_FAULTS) {
    if (ctx.signal.aborted) return;
    ctx.progress(`sending ${fault.what}`);
    const answer = await channel.request(fault.method, fault.params, { headers: fault.headers });
    const problem = refusalProblem(answer, -32020);
    if (problem !== undefined) ctx.report('eras.header-mismatch', { message: `A ${fault.method} request with ${fault.what} got ${problem}, not HTTP 400 with -32020 HeaderMismatch`, evidence: evidenceOf(answer) });
  }
}

async function run(ctx: CheckContext): Promise<void> {
  const revision = ctx.facts.modernRevisions.find((r) => r === '2026-07-28');
  if (ctx.era === 'legacy' || revision === undefined) {
    return ctx.skip(ctx.era === 'legacy' ? '--era legacy: the 2026-07-28 refusals are not probed' : 'the server does not speak 2026-07-28');
  }
  const channel = await openModern(ctx, revision);
  try {
    await unsupportedVersion(ctx, channel);
    if (!ctx.signal.aborted) await missingCapability(ctx, channel);
    if (!ctx.signal.aborted && ctx.target.transport === 'http') await headerMismatch(ctx, channel);
  } finally {
    await channel.close();
  }
}

/** The `eras.modern-refusals` check (both transports; the header rules over HTTP only). */
export const MODERN_REFUSALS_CHECK: Check = {
  id: 'eras.modern-refusals',
  title: '2026-07-28 refusals',
  area: 'eras',
  transports: ['stdio', 'http'],
  requirements: ['eras.unsupported-version', 'eras.missing-client-capability', 'eras.header-mismatch'],
  run,
};
