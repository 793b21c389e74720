/**
 * The upstream's server → client requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) and how one
 * reaches the front: asked through the front request's own context (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`),
 * so the front's era rules apply (a live request on a session; an input request, answered on the retry, at
 * 2026-07-28), and its answer or error handed back to the upstream.
 *
 * @see MCP 2025-11-25 client/elicitation.mdx, client/sampling.mdx, client/roots.mdx; MCP 2026-07-28
 *   basic/patterns/mrtr.mdx
 */
import { ClientRequestError, McpError, McpErrorCode, MissingClientCapabilityError } from '@switchboard/mcp';
import type { CreateMessageParams, ElicitParams } from '@switchboard/mcp';
import type { RequestContext } from '@switchboard/mcp/server';

/** One upstream question waiting for the front's answer. */
export interface UpstreamQuestion {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params: Record<string, unknown> | undefined;
  /** Aborted when the upstream withdraws it (`notifications/cancelled`) or its request ends. */
  readonly signal: AbortSignal;
}

/**
 * Asks `question` through the front request's context. Legacy front: the front client is asked on its session.
 * Modern front: an input request under `key` (answered at once on a retry that carries it, else the front request
 * answers `input_required`: the `InputRequiredSignal` rejection propagates).
 */
export function askFront(ctx: RequestContext, question: UpstreamQuestion, key: string | undefined): Promise<unknown> {
  const options = key === undefined ? { signal: question.signal } : { key, signal: question.signal };
  switch (question.method) {
    case 'elicitation/create':
      return ctx.elicit(question.params as unknown as ElicitParams, options);
    case 'sampling/createMessage':
      return ctx.sample(question.params as unknown as CreateMessageParams, options);
    case 'roots/list':
      return ctx.listRoots(options);
  }
}

/**
 * What the upstream is answered when the front could not answer: the front client's own error answer as it was
 * (its code and message), a missing front capability as -32601 (the front client has no such method), anything
 * else as -32603 with no text of ours.
 */
export function upstreamAnswerError(error: unknown): McpError {
  if (error instanceof ClientRequestError) return error.cause;
  if (error instanceof MissingClientCapabilityError) return new McpError(McpErrorCode.MethodNotFound, 'Method not found: the client behind the proxy did not declare this capability');
  if (error instanceof McpError) return error;
  return new McpError(McpErrorCode.InternalError, 'Internal error');
}

/** The answer to a question no front request can take (nothing in flight on this upstream session). */
export function unattributedQuestion(method: string): McpError {
  return new McpError(McpErrorCode.InternalError, `No request of the proxy's clients is in flight to take "${method}"`);
}
