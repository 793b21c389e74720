/**
 * `toolTimeoutMiddleware`: a deadline per `tools/call`, one default and one per tool. At the deadline the handler's
 * `ctx.signal` aborts (reason: a `TimeoutError` `DOMException`) and the call is answered at once with an `isError`
 * result, whether or not the handler stops: a tool that ignores its signal cannot hold its caller.
 *
 * Why an `isError` result and not a JSON-RPC error: a tool that ran out of time is a failure of the tool's
 * execution, which the model should see and can act on (ask for less, try later): MCP 2025-11-25 server/tools.mdx
 * "Error Handling" reports tool execution errors in the result with `isError: true` so the model can self-correct,
 * and keeps JSON-RPC errors for unknown tools, malformed requests and server errors (2026-07-28 keeps the split).
 */
import { echo } from '@switchboard/jsonrpc';
import { checkMs, checkMsOption, setUnrefTimeout, shownValue } from '@switchboard/jsonrpc/internal';
import type { CallToolResult } from '../../protocol/types.js';
import type { Middleware } from './call.js';

/** Options of {@link toolTimeoutMiddleware}. */
export interface ToolTimeoutMiddlewareOptions {
  /** Milliseconds a tool call may run; `Infinity`: no deadline. @default 60000 ({@link DEFAULT_TOOL_TIMEOUT_MS}) */
  readonly timeoutMs?: number;
  /** Per tool name, its own deadline in milliseconds instead of `timeoutMs` (`Infinity`: none). @default {} */
  readonly tools?: Readonly<Record<string, number>>;
}

/**
 * Default for {@link ToolTimeoutMiddlewareOptions.timeoutMs}: 60 s, the official TypeScript SDK client's default
 * request timeout (`DEFAULT_REQUEST_TIMEOUT_MSEC`), past which most clients have given up anyway.
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** A deadline: above 0 ms, `Infinity` for none. */
const DEADLINE = { above: 0, max: Infinity };

/** The result a timed-out call is answered with. */
function timedOut(tool: string, ms: number): CallToolResult {
  return { content: [{ type: 'text', text: `Tool "${echo(tool)}" timed out after ${ms} ms` }], isError: true };
}

/**
 * A middleware that gives each `tools/call` `timeoutMs` (or its tool's entry in `tools`): past it the handler's
 * `ctx.signal` aborts, a warning is logged, and the call is answered `{ isError: true, content: [{ type: "text",
 * text: 'Tool "name" timed out after N ms' }] }`; whatever the handler returns later is dropped. Other methods pass
 * untouched. The handler's signal still aborts when the client cancels. A call that becomes a task is timed until
 * the task is created, not while it runs (tasks have their own `ttl`).
 *
 * @throws TypeError when `tools` is not an object or a deadline is not a number; RangeError when a deadline is not above
 *   0
 * @example
 * server.use(toolTimeoutMiddleware({ timeoutMs: 30_000, tools: { build: 300_000 } }));
 */
export function toolTimeoutMiddleware(options: ToolTimeoutMiddlewareOptions = {}): Middleware {
  const timeoutMs = checkMsOption('timeoutMs', options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, DEADLINE);
  const tools = new Map<string, number>();
  const given: unknown = options.tools;
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    throw new TypeError(`Invalid option tools: expected an object of deadlines by tool name, got ${shownValue(given)}`);
  }
  for (const [tool, ms] of Object.entries(options.tools ?? {})) tools.set(tool, checkMs(`option tools["${tool}"]`, ms, DEADLINE));
  return (call, next) => {
    if (call.method !== 'tools/call' || call.isNotification) return next();
    const name = call.name ?? '';
    const ms = tools.get(name) ?? timeoutMs;
    if (ms === Infinity) return next();
    const controller = new AbortController();
    const outer = call.signal;
    const follow = (): void => controller.abort(outer.reason);
    if (outer.aborted) follow();
    else outer.addEventListener('abort', follow, { once: true });
    return new Promise<unknown>((resolve, reject) => {
      const timer = setUnrefTimeout(() => {
        outer.removeEventListener('abort', follow);
        call.logger.warn('Tool call timed out', { tool: echo(name), timeoutMs: ms });
        controller.abort(new DOMException(`Tool "${echo(name)}" timed out after ${ms} ms`, 'TimeoutError'));
        resolve(timedOut(name, ms));
      }, ms);
      const settle = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        outer.removeEventListener('abort', follow);
      };
      // After the deadline these settle a promise already resolved: the late answer is dropped.
      next({ signal: controller.signal }).then(
        (result) => {
          settle();
          resolve(result);
        },
        (error: unknown) => {
          settle();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  };
}
