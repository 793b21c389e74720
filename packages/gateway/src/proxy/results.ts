/**
 * An upstream result made fit for the front's era. A 2026-07-28 upstream's result carries `resultType`, its own
 * identity in `_meta` and, when cacheable, `ttlMs`/`cacheScope` (MCP 2026-07-28 basic/index.mdx "ResultType",
 * server/utilities/caching.mdx). The front sets `resultType` and its own identity itself; the upstream's cache hint
 * is kept for a 2026-07-28 front client (a proxied result is cacheable only as the upstream says) and dropped for a
 * session-era one, which has no such fields. A session-era upstream's result is returned as it is.
 */
import { isModernRevision } from '@switchboard/mcp';
import type { RequestContext } from '@switchboard/mcp/server';

const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** `result` as the front serves it to the client of `ctx` (see the module comment). */
export function forFront<T>(result: T, ctx: RequestContext): T {
  const record = result as Record<string, unknown>;
  if (record.resultType === undefined) return result;
  const { resultType: _type, ttlMs, cacheScope, _meta, ...rest } = record;
  const out: Record<string, unknown> = rest;
  if (isModernRevision(ctx.protocolVersion)) {
    if (ttlMs !== undefined) out.ttlMs = ttlMs;
    if (cacheScope !== undefined) out.cacheScope = cacheScope;
  }
  if (typeof _meta === 'object' && _meta !== null) {
    const { [SERVER_INFO_META_KEY]: _info, ...meta } = _meta as Record<string, unknown>;
    if (Object.keys(meta).length > 0) out._meta = meta;
  }
  return out as T;
}
