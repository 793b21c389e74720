/**
 * Closing an SSE stream on purpose so that the client reconnects with `GET` + `Last-Event-ID` (the 2025-11-25 "SSE
 * polling" pattern), from a handler.
 * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6
 */
import type { JsonRpcId, Transport } from '@switchboard/jsonrpc';
import { StreamableHttpSessionTransport, type CloseSseStreamOptions } from './sessionTransport.js';

/**
 * Closes the POST SSE stream of the request a handler is serving, so the client reconnects with
 * `GET` + `Last-Event-ID` (the 2025-11-25 "SSE polling" pattern; conformance `test_reconnection`). Does nothing
 * (returns `false`) on other transports or when the client could not resume.
 *
 * @param ctx - The handler's context (`ctx.session`, `ctx.requestId`).
 * @param options - `retryMs`: the reconnection delay hint.
 * @returns Whether a stream was closed.
 * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 6
 * @example
 * server.tool('poll_me', {}, async (_args, ctx) => {
 *   closeRequestSseStream(ctx, { retryMs: 500 });
 *   await sleep(100);
 *   return { content: [{ type: 'text', text: 'done' }] };
 * });
 */
export function closeRequestSseStream(
  ctx: { readonly session?: { readonly transport: Transport } | undefined; readonly requestId: JsonRpcId },
  options?: CloseSseStreamOptions,
): boolean {
  const transport = ctx.session?.transport;
  return transport instanceof StreamableHttpSessionTransport ? transport.closeSseStream(ctx.requestId, options) : false;
}
