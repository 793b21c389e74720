/**
 * `prompts/list` and `prompts/get`, on the request context alone.
 *
 * @see MCP 2025-11-25 server/prompts.mdx
 */
import type { JsonRpcParams } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { ResourceNotFoundError } from '../../protocol/errors.js';
import { invalidParams, namedCall, paramsRecord } from '../params.js';
import { invalidResult, promptResultProblem } from '../results.js';
import { withMeta, type FeatureHost } from './featureHost.js';
import { eraError } from './resources.js';
import { listPage, visibleLookup } from '../visibility.js';

/** `prompts/list`: one page. */
export function listPrompts(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Record<string, unknown> {
  return listPage(host, { kind: 'prompts', items: host.registry.list('prompts'), params, ctx });
}

/** `prompts/get`: unknown prompt, a non-string argument or a missing required one → -32602 (MCP 2025-11-25 server/prompts.mdx). */
export async function getPrompt(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Promise<unknown> {
  const p = paramsRecord(params);
  const { name, entry: prompt, args } = namedCall(p, visibleLookup(host, 'prompts', ctx), 'prompt');
  for (const key of Object.keys(args)) {
    if (typeof args[key] !== 'string') throw invalidParams(`argument "${echo(key)}" of prompt "${name}" must be a string`);
  }
  for (const key of prompt.required) {
    if (!Object.hasOwn(args, key)) throw invalidParams(`missing required argument "${key}" of prompt "${name}"`);
  }
  const call = withMeta(ctx, p);
  let result: unknown;
  try {
    result = await prompt.handler(args as Record<string, string>, call);
  } catch (error) {
    // Resource-not-found means nothing for a prompt: a failure like any other (-32603, logged).
    throw error instanceof ResourceNotFoundError ? new Error(`Prompt "${name}" failed: ${error.message}`, { cause: error }) : eraError(error, call.facts.protocolVersion);
  }
  const problem = promptResultProblem(result, host.checkResults);
  if (problem !== undefined) throw invalidResult(host.logger, `Prompt "${name}"`, problem);
  return result;
}
