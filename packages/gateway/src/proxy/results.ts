/**
 * An upstream result made fit for the front's era. A 2026-07-28 upstream's result carries `resultType`, its own
 * identity in `_meta` and, when cacheable, `ttlMs`/`cacheScope` (MCP 2026-07-28 basic/index.mdx "ResultType",
 * server/utilities/caching.mdx). The front sets `resultType` and its own identity itself; the upstream's cache hint
 * is kept for a 2026-07-28 front client (a proxied result is cacheable only as the upstream says) and dropped for a
 * session-era one, which has no such fields. A session-era upstream's result is returned as it is.
 */
import { McpError, McpErrorCode, ResourceNotFoundError, isModernRevision } from '@switchboard/mcp';
import { ConnectionClosedError, ConnectionRefusedError, RequestAbortedError, RequestTimeoutError, SessionExpiredError, SpawnError } from '@switchboard/mcp/client';
import { ToolError, type RequestContext } from '@switchboard/mcp/server';
import type { Logger } from '@switchboard/jsonrpc';

const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';
/** How much of an upstream's masked error text the log keeps, in UTF-16 code units. */
const MAX_LOGGED_TEXT = 1000;

/**
 * The code the Python MCP SDK's low-level server answers a handler's uncaught exception with, the exception's text as
 * the message (`Server._handle_request`, `except Exception`: `ErrorData(code=0, message=str(err))`). No revision
 * defines 0 (JSON-RPC 2.0 §5.1 reserves -32768..-32000; MCP's own codes are in that range), so an upstream's 0 is
 * read as its internal error.
 */
const PYTHON_SDK_CRASH_CODE = 0;

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

/**
 * Why the proxy ended its calls in flight: it closed, with its upstream connection (a gateway closes a mounted
 * upstream's proxy when that connection is replaced: the upstream died, a call reported it failed, or it was
 * reconfigured). The upstream is answered -32603 for a question it still waits on.
 */
export class ProxyClosedError extends McpError {
  constructor() {
    super(McpErrorCode.InternalError, 'The proxy closed');
    this.name = 'ProxyClosedError';
  }
}

/**
 * How the upstream's connection was lost, in the words the front answers with; `undefined` when `error` is no loss of
 * the connection. Never the client error's own message: it carries the upstream's last stderr line, its command or
 * its address, which are the operator's (the log, the gateway's health), not the caller's.
 */
export function upstreamLoss(error: unknown): string | undefined {
  if (error instanceof ConnectionClosedError) return 'its connection ended';
  if (error instanceof ConnectionRefusedError) return 'it refused the connection';
  if (error instanceof SessionExpiredError) return 'its session expired';
  if (error instanceof SpawnError) return 'it could not be started';
  if (error instanceof ProxyClosedError || (error instanceof RequestAbortedError && error.cause instanceof ProxyClosedError)) return 'its connection was closed';
  return undefined;
}

/**
 * An upstream failure as the front answers it:
 * - -32603 is answered "Internal error" with none of the upstream's text: it may describe the upstream's
 *   internals, which a server never sends (as for the front's own handlers). The text goes to `logger` (a warning,
 *   cut to 1,000 characters, in the field `text`) so the operator still sees why. Code 0 is taken for the same:
 *   it is no JSON-RPC or MCP code, and the Python SDK answers every exception a handler raises with it and the
 *   exception's text ({@link PYTHON_SDK_CRASH_CODE});
 * - the upstream's "resource not found" (-32002 through 2025-11-25, -32602 with `data.uri` from 2026-07-28: MCP
 *   2026-07-28 server/resources.mdx "Error Handling") becomes a {@link ResourceNotFoundError}, which the front
 *   answers with the code of its client's revision;
 * - an upstream request that ran out of time (the upstream client's `timeoutMs`) says so: a tool's as an `isError`
 *   result the model can act on, any other as -32603 "Upstream request timed out";
 * - an upstream connection lost says how ({@link upstreamLoss}), the same two ways;
 * - anything else as it is.
 * A tool's `isError` result does not name the tool: its caller knows it, under another name when the proxy is mounted.
 * @param tool the tool's name when the request is a `tools/call` (`undefined` otherwise)
 * @param logger where a masked upstream text is logged
 */
export function failureForFront(error: unknown, tool: string | undefined, logger: Logger): unknown {
  if (error instanceof RequestTimeoutError) {
    return tool === undefined ? new McpError(McpErrorCode.InternalError, 'Upstream request timed out') : new ToolError('The upstream server did not answer in time');
  }
  const loss = upstreamLoss(error);
  if (loss !== undefined) {
    return tool === undefined ? new McpError(McpErrorCode.InternalError, `Upstream server unavailable: ${loss}`) : new ToolError(`The upstream server is unavailable: ${loss}`);
  }
  if (!(error instanceof McpError)) return error;
  if (error instanceof ResourceNotFoundError) return error;
  if (error.code === McpErrorCode.InternalError || error.code === PYTHON_SDK_CRASH_CODE) {
    logger.warn(`Proxy: the upstream answered ${error.code}; its text is logged here and not sent on`, {
      ...(tool === undefined ? {} : { tool }),
      text: error.message.length > MAX_LOGGED_TEXT ? `${error.message.slice(0, MAX_LOGGED_TEXT)}…` : error.message,
    });
    return new McpError(McpErrorCode.InternalError, 'Internal error');
  }
  const data = error.data as { uri?: unknown } | undefined;
  if ((error.code === McpErrorCode.ResourceNotFound || error.code === McpErrorCode.InvalidParams) && typeof data?.uri === 'string' && error.message.startsWith('Resource not found')) {
    return new ResourceNotFoundError(data.uri);
  }
  return error;
}
