/**
 * `resources/list`, `resources/templates/list` and `resources/read`, on the request context alone.
 *
 * @see MCP 2025-11-25 server/resources.mdx
 */
import type { JsonRpcParams } from '@switchboard/jsonrpc';
import type { CachePolicy } from '../cachePolicy.js';
import { MissingClientCapabilityError, ResourceNotFoundError, resourceNotFound } from '../../protocol/errors.js';
import { isLegacyRevision } from '../../protocol/revisions.js';
import { invalidParams, paramsRecord, requireString } from '../params.js';
import { isUri } from '../definitions.js';
import { echo } from '@switchboard/jsonrpc';
import { invalidResult, resourceResultProblem } from '../results.js';
import { withMeta, type FeatureHost } from './featureHost.js';
import { listPage, visibleLookup } from '../visibility.js';

/** `resources/list`: one page. */
export function listResources(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Record<string, unknown> {
  return listPage(host, { kind: 'resources', items: host.registry.list('resources'), params, ctx });
}

/** `resources/templates/list`: one page. */
export function listResourceTemplates(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Record<string, unknown> {
  return listPage(host, { kind: 'resourceTemplates', items: host.registry.list('resourceTemplates'), params, ctx });
}

/**
 * `resources/read`: a static resource, else the first matching template; none, or a handler's
 * {@link ResourceNotFoundError}, is the revision's resource-not-found error (-32002 up to 2025-11-25, -32602
 * from 2026-07-28, MCP 2025-11-25 server/resources.mdx "Error Handling").
 */
export async function readResource(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Promise<unknown> {
  const p = paramsRecord(params);
  const uri = requireString(p, 'uri');
  // Params that fail their schema are -32602 on every revision, a `uri` that is not a URI included (it is not a
  // "not found": MCP 2025-11-25 schema.ts ReadResourceRequestParams `uri` is format uri).
  if (!isUri(uri)) throw invalidParams('"uri" must be a URI', { uri: echo(uri) });
  const call = withMeta(ctx, p);
  // A resource or template hidden from the caller does not exist for it: not found, as an unknown URI.
  const fixed = visibleLookup(host, 'resources', ctx).get(uri);
  let result: unknown;
  let cache: CachePolicy | undefined;
  try {
    if (fixed !== undefined) {
      cache = fixed.cache;
      result = await fixed.handler(uri, call);
    } else {
      let found = false;
      for (const entry of visibleLookup(host, 'resourceTemplates', ctx).values()) {
        const variables = entry.template.match(uri);
        if (variables === undefined) continue;
        found = true;
        cache = entry.cache;
        result = await entry.handler(uri, variables, call);
        break;
      }
      if (!found) throw new ResourceNotFoundError(uri);
    }
  } catch (error) {
    throw eraError(error, call.facts.protocolVersion);
  }
  const problem = resourceResultProblem(result, host.checkResults);
  if (problem !== undefined) throw invalidResult(host.logger, `Resource handler for "${uri}"`, problem);
  // The resource's own cache hint; the modern-era rules fill in the server's where it sets none.
  if (cache === undefined || call.facts.era !== 'modern') return result;
  const r = result as Record<string, unknown>;
  return { ...r, ttlMs: r.ttlMs ?? cache.ttlMs ?? 0, cacheScope: r.cacheScope ?? cache.scope ?? 'private' };
}

/**
 * A handler's exception as the answer of `revision`: resource-not-found gets the revision's code; a missing
 * client capability is -32021 from 2026-07-28 and a plain failure (-32603, logged) before it, where the code
 * does not exist; anything else is left to the dispatcher (a plain Error is -32603 with no text).
 */
export function eraError(error: unknown, revision: string | undefined): unknown {
  if (error instanceof ResourceNotFoundError) return resourceNotFound(error.uri, revision);
  if (error instanceof MissingClientCapabilityError && (revision === undefined || isLegacyRevision(revision))) {
    return new Error(`Handler failed: ${error.message}`, { cause: error });
  }
  return error;
}

