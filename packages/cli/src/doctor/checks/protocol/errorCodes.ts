/**
 * The `protocol.error-codes` check: in each era the server speaks (at the newest revision of each), an unknown
 * method, an unknown tool and an unknown resource, each answered with the code of its revision; every error seen is
 * checked for its shape, for codes MCP reserves, and for a leaked stack trace. Nothing here runs a tool.
 *
 * @see MCP 2025-11-25 server/tools.mdx "Error Handling"; MCP 2026-07-28 server/resources.mdx "Error Handling";
 *   MCP 2026-07-28 basic/index.mdx "Error Codes"
 */
import type { Check, CheckContext, SpecRef } from '../../types.js';
import { errorOf, evidenceOf, openLegacy, openModern, recordOf, resultOf, type RawAnswer, type RawChannel } from '../eras/channel.js';
import { NO_SUCH_TOOL } from '../eras/modernRefusals.js';
import { clientChannel } from './clientChannel.js';
import { errorShapeProblems, reservedCodeProblem, stackFrameIn } from './errorRules.js';

/** A URI no server has. */
export const NO_SUCH_RESOURCE = 'switchboard-doctor://no-such-resource';
/** A method no revision defines. */
export const NO_SUCH_METHOD = 'switchboard-doctor/no-such-method';

/** A channel with what the server advertised on it. */
interface Opened {
  readonly channel: RawChannel;
  readonly capabilities: Readonly<Record<string, unknown>> | undefined;
  /** Whether the answers come through an `McpClient` (ids and HTTP statuses not visible). */
  readonly viaClient: boolean;
}

async function open(ctx: CheckContext, era: 'legacy' | 'modern', revision: string): Promise<Opened | undefined> {
  if (era === 'legacy') {
    const { initialize, channel } = await openLegacy(ctx, revision);
    return channel === undefined ? undefined : { channel, capabilities: recordOf(resultOf(initialize)?.capabilities), viaClient: false };
  }
  const channel = await openModern(ctx, revision);
  const discover = await channel.request('server/discover', {});
  return { channel, capabilities: recordOf(resultOf(discover)?.capabilities), viaClient: false };
}

/** The eras to probe and their revision: the newest of each era the eras check found, narrowed by `--era`. */
function erasToProbe(ctx: CheckContext): { readonly era: 'legacy' | 'modern'; readonly revision: string }[] {
  const legacy = ctx.facts.legacyRevisions.at(-1);
  const modern = ctx.facts.modernRevisions.includes('2026-07-28') ? '2026-07-28' : undefined;
  return [
    ...(legacy !== undefined && ctx.era !== 'modern' ? [{ era: 'legacy' as const, revision: legacy }] : []),
    ...(modern !== undefined && ctx.era !== 'legacy' ? [{ era: 'modern' as const, revision: modern }] : []),
  ];
}

/** Checks every error response for shape, reserved codes and stack traces. */
function judgeError(ctx: CheckContext, opened: Opened, answer: RawAnswer): void {
  const response = answer.response;
  const error = errorOf(answer);
  if (response === undefined || !('error' in response)) return;
  const revision = opened.channel.revision;
  if (!opened.viaClient) {
    const problems = errorShapeProblems(response, { id: answer.id, httpRefusal: (answer.status ?? 200) >= 400 });
    if (problems.length > 0) ctx.report('protocol.error-shape', { message: `An error response is malformed: ${problems.join('; ')}`, evidence: evidenceOf(answer) });
  }
  if (typeof error?.code === 'number') {
    const problem = reservedCodeProblem(error.code, revision);
    if (problem !== undefined) ctx.report('protocol.reserved-code', { message: `Code ${problem}`, evidence: evidenceOf(answer) });
  }
  const frame = stackFrameIn(error);
  if (frame !== undefined) ctx.report('protocol.stack-trace', { message: `An error response quotes a stack frame ("${frame}")`, evidence: evidenceOf(answer) });
}

/**
 * The revision an observation was made at, and — for a session-based revision, when the rule has a section of its own
 * there — that section: a finding about 2025-11-25 cites 2025-11-25, not the requirement's 2026-07-28 section.
 */
function observedAt(opened: Opened, legacySpec?: { readonly spec: SpecRef; readonly since: string }): { readonly revision: string; readonly spec?: SpecRef } {
  const revision = opened.channel.revision;
  if (opened.channel.era === 'modern' || legacySpec === undefined || revision < legacySpec.since) return { revision };
  return { revision, spec: { ...legacySpec.spec, revision: revision < legacySpec.spec.revision ? revision : legacySpec.spec.revision } };
}

/** Where 2025-11-25 sets the shape and the JSON-RPC codes of error responses (-32601 for an unknown method among them); cited for observations at 2025-11-25. */
const ERROR_RESPONSES_LEGACY = { spec: { revision: '2025-11-25', page: 'basic/index.mdx', section: 'Error Responses' }, since: '2025-11-25' } as const;

/** Where 2025-11-25 (and each revision before it, from 2024-11-05, on the same page) says an unknown resource is -32002. */
const RESOURCES_LEGACY = { spec: { revision: '2025-11-25', page: 'server/resources.mdx', section: 'Error Handling' }, since: '2024-11-05' } as const;

/** What an answer was, for a message: `code -32603`, `a result`, `no answer`. */
function described(answer: RawAnswer): string {
  const error = errorOf(answer);
  if (error !== undefined) return `code ${JSON.stringify(error.code)}`;
  if (resultOf(answer) !== undefined) return resultOf(answer)?.isError === true ? 'a tool result with isError: true' : 'a result';
  return answer.status === undefined || answer.status === 0 ? 'no answer' : `HTTP ${answer.status} with no JSON-RPC response`;
}

async function unknownMethod(ctx: CheckContext, opened: Opened, where: string): Promise<void> {
  const answer = await opened.channel.request(NO_SUCH_METHOD, {});
  judgeError(ctx, opened, answer);
  const code = errorOf(answer)?.code;
  if (code !== -32601) {
    if (answer.response === undefined && !opened.viaClient) return; // no answer at all: the transport checks say why
    ctx.report('protocol.unknown-method-code', { message: `${where}: an unknown method got ${described(answer)}, not -32601 Method not found`, evidence: evidenceOf(answer), ...observedAt(opened, ERROR_RESPONSES_LEGACY) });
  } else if (opened.channel.era === 'modern' && answer.status !== undefined && answer.status !== 404) {
    ctx.report('protocol.unknown-method-code', { message: `${where}: an unknown method got -32601 with HTTP ${answer.status}, not 404`, evidence: evidenceOf(answer), ...observedAt(opened) });
  }
}

async function unknownTool(ctx: CheckContext, opened: Opened, where: string): Promise<void> {
  const answer = await opened.channel.request('tools/call', { name: NO_SUCH_TOOL, arguments: {} });
  judgeError(ctx, opened, answer);
  const code = errorOf(answer)?.code;
  if (code === -32602 || (code === -32601 && opened.capabilities?.tools === undefined)) return;
  if (answer.response === undefined && !opened.viaClient) return;
  const isErrorResult = resultOf(answer)?.isError === true;
  ctx.report('protocol.unknown-tool-code', {
    message: `${where}: tools/call of a tool tools/list does not list got ${described(answer)}, not -32602 Invalid params`,
    evidence: evidenceOf(answer),
    ...observedAt(opened),
    // A tool result is handled by every host (the model reads it); -32603 and the rest look like a broken server.
    ...(isErrorResult ? { severity: 'warning' as const } : {}),
  });
}

async function unknownResource(ctx: CheckContext, opened: Opened, where: string): Promise<void> {
  const answer = await opened.channel.request('resources/read', { uri: NO_SUCH_RESOURCE });
  judgeError(ctx, opened, answer);
  const modern = opened.channel.era === 'modern';
  const expected = modern ? -32602 : -32002;
  const error = errorOf(answer);
  if (error?.code === -32601 && opened.capabilities?.resources === undefined) return;
  if (answer.response === undefined && !opened.viaClient) return;
  // Up to 2025-11-25 the code is a SHOULD; from 2026-07-28 a MUST.
  const severity = modern ? ('error' as const) : ('warning' as const);
  const contents = resultOf(answer)?.contents;
  if (Array.isArray(contents) && contents.length === 0) {
    ctx.report('protocol.unknown-resource-code', { message: `${where}: resources/read of an unknown URI got an empty contents array, not an error`, evidence: evidenceOf(answer), severity, ...observedAt(opened, RESOURCES_LEGACY) });
  } else if (error?.code !== expected) {
    // Only the code is a rule; `data.uri` is in the spec's example, not in its text, so its absence is not a finding.
    ctx.report('protocol.unknown-resource-code', { message: `${where}: resources/read of an unknown URI got ${described(answer)}, not ${expected}`, evidence: evidenceOf(answer), severity, ...observedAt(opened, RESOURCES_LEGACY) });
  }
}

async function probe(ctx: CheckContext, opened: Opened): Promise<void> {
  const where = `At ${opened.channel.revision}`;
  ctx.progress(`unknown method, tool and resource at ${opened.channel.revision}`);
  await unknownMethod(ctx, opened, where);
  if (!ctx.signal.aborted) await unknownTool(ctx, opened, where);
  if (!ctx.signal.aborted) await unknownResource(ctx, opened, where);
}

/** Probes through the default client (an HTTP+SSE endpoint, or a server no raw channel could open). */
async function probeThroughClient(ctx: CheckContext): Promise<void> {
  const client = await ctx.client();
  await probe(ctx, { channel: clientChannel(client), capabilities: client.serverCapabilities, viaClient: true });
}

async function run(ctx: CheckContext): Promise<void> {
  const eras = erasToProbe(ctx);
  // A 2024-11-05 HTTP+SSE endpoint takes no POST at its URL: the client's channel is the only way in.
  const sse = ctx.target.transport === 'http' && (await ctx.client().catch(() => undefined))?.transportKind === 'http-sse';
  if (eras.length === 0 || sse) return probeThroughClient(ctx);
  // One channel per era, side by side (each is a fresh process or session).
  const probed = await Promise.all(
    eras.map(async ({ era, revision }) => {
      const opened = ctx.signal.aborted ? undefined : await open(ctx, era, revision);
      if (opened === undefined) return false;
      try {
        await probe(ctx, opened);
      } finally {
        await opened.channel.close();
      }
      return true;
    }),
  );
  if (!probed.includes(true) && !ctx.signal.aborted) await probeThroughClient(ctx);
}

/** The `protocol.error-codes` check (both transports, both eras). */
export const ERROR_CODES_CHECK: Check = {
  id: 'protocol.error-codes',
  title: 'error codes',
  area: 'protocol',
  transports: ['stdio', 'http'],
  requirements: ['protocol.unknown-method-code', 'protocol.unknown-tool-code', 'protocol.unknown-resource-code', 'protocol.reserved-code', 'protocol.error-shape', 'protocol.stack-trace'],
  run,
};
