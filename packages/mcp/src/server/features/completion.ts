/**
 * `completion/complete`: argument completions of prompts and resource templates.
 *
 * @see MCP 2025-11-25 server/utilities/completion.mdx
 */
import type { JsonRpcParams } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import type { CompleteResult } from '../../protocol/types.js';
import { EMPTY_RESULT, invalidParams, isRecord, paramsRecord } from '../params.js';
import type { CompletionHandler } from '../types.js';
import type { FeatureHost } from './featureHost.js';
import { visibleLookup } from '../visibility.js';

/** Maximum number of values in a `completion/complete` result (MCP 2025-11-25 server/utilities/completion.mdx). */
export const MAX_COMPLETION_VALUES = 100;

/** `completion/complete`: at most {@link MAX_COMPLETION_VALUES} values, with `total` and `hasMore`. */
export async function complete(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Promise<CompleteResult> {
  const p = paramsRecord(params);
  const ref = p.ref;
  const argument = p.argument;
  if (!isRecord(ref) || typeof ref.type !== 'string') throw invalidParams('"ref" must be an object with a "type"');
  if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('"argument" must be an object with string "name" and "value"');
  }
  // A prompt or template hidden from the caller is unknown to it (visibility.ts): the same -32602.
  let completers: Readonly<Record<string, CompletionHandler>> | undefined;
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') throw invalidParams('"ref.name" must be a string');
    const prompt = visibleLookup(host, 'prompts', ctx).get(ref.name);
    if (prompt === undefined) throw invalidParams(`unknown prompt "${echo(ref.name)}"`);
    completers = prompt.complete;
  } else if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw invalidParams('"ref.uri" must be a string');
    const template = visibleLookup(host, 'resourceTemplates', ctx).get(ref.uri);
    if (template === undefined && visibleLookup(host, 'resources', ctx).get(ref.uri) === undefined) throw invalidParams(`unknown resource template "${echo(ref.uri)}"`);
    completers = template?.complete;
  } else {
    throw invalidParams(`unknown reference type "${echo(ref.type)}"`);
  }
  const completer = completers !== undefined && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  if (completer === undefined) return { completion: { values: [], total: 0, hasMore: false } };
  const context = p.context;
  const contextArgs = isRecord(context) && isRecord(context.arguments) ? (context.arguments as Record<string, string>) : EMPTY_RESULT;
  const values = await completer(argument.value, { arguments: contextArgs });
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETION_VALUES),
      total: values.length,
      hasMore: values.length > MAX_COMPLETION_VALUES,
    },
  };
}
