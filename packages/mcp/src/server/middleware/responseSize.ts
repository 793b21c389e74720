/**
 * `responseSizeMiddleware`: a result whose JSON exceeds a number of bytes is not sent; an error says so instead.
 *
 * The error's shape: for `tools/call`, an `isError` result naming the size and the limit, because the size of a
 * tool's answer follows from its arguments (a query too broad, a file too large) and the model can ask again for
 * less (MCP 2025-11-25 server/tools.mdx "Error Handling": tool execution errors are `isError` results, so the model
 * can self-correct). For every other method a JSON-RPC error -32603 (the server could not produce an answer within
 * its own limit; the client cannot fix the request), with `data: { bytes, maxBytes }` and no other detail.
 */
import { echo } from '@switchboard/jsonrpc';
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import { McpError, McpErrorCode } from '../../protocol/errors.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { Middleware } from './call.js';

/** Options of {@link responseSizeMiddleware}. */
export interface ResponseSizeMiddlewareOptions {
  /** The largest result allowed: bytes of its UTF-8 JSON (the `result` member, not the JSON-RPC envelope). @default 1 MiB */
  readonly maxBytes?: number;
}

/** Default for {@link ResponseSizeMiddlewareOptions.maxBytes}: 1 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

/** UTF-8 bytes of `text`: 1 to 4 per code point (a lone surrogate is written as U+FFFD, 3 bytes). */
function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two UTF-16 units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** Bytes of `result` as JSON when over `maxBytes`, else `undefined` (also when it cannot be serialized: not ours to judge). */
function oversize(result: unknown, maxBytes: number): number | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  // Each UTF-16 unit is at most 3 bytes: a short text needs no count.
  if (json.length * 3 <= maxBytes) return undefined;
  const bytes = utf8Bytes(json);
  return bytes > maxBytes ? bytes : undefined;
}

function tooLargeResult(tool: string, bytes: number, maxBytes: number): CallToolResult {
  return {
    content: [{ type: 'text', text: `Tool "${echo(tool)}" returned ${bytes} bytes, over this server's limit of ${maxBytes} bytes: ask for less` }],
    isError: true,
  };
}

/**
 * A middleware that measures each result (its JSON, once more than the transport does: the price of the guard)
 * and replaces one over `maxBytes` with an error, logging a warning with the method, name, size and limit: for
 * `tools/call` `{ isError: true, content: [{ type: "text", text: 'Tool "x" returned N bytes, over this server's
 * limit of M bytes: ask for less' }] }`, for other methods -32603 `Result too large` with `data: { bytes, maxBytes }`.
 * A 2026-07-28 result is measured as sent (with `resultType` and the server's identity). Errors and notifications
 * pass untouched.
 *
 * @throws RangeError when `maxBytes` is not a positive integer (TypeError when not a number)
 * @example
 * server.use(responseSizeMiddleware({ maxBytes: 256 * 1024 }));
 */
export function responseSizeMiddleware(options: ResponseSizeMiddlewareOptions = {}): Middleware {
  const maxBytes = checkCountOption('maxBytes', options.maxBytes ?? DEFAULT_MAX_RESULT_BYTES);
  return (call, next) => {
    if (call.isNotification) return next();
    return next().then((result) => {
      const bytes = oversize(result, maxBytes);
      if (bytes === undefined) return result;
      const name = call.name;
      call.logger.warn('Result over the size limit replaced by an error', { method: echo(call.method), name: name === undefined ? undefined : echo(name), bytes, maxBytes });
      if (call.method === 'tools/call') return tooLargeResult(name ?? '', bytes, maxBytes);
      throw new McpError(McpErrorCode.InternalError, 'Result too large', { bytes, maxBytes });
    });
  };
}
