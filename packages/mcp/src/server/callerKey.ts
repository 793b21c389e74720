/**
 * Who a request comes from, for the server's per-caller shares of its shared budgets (live tasks, finished task
 * results, listen streams and their subscribed URIs, buffered SSE bytes): one notion of a caller for all of them.
 */
import type { TransportMessageExtra } from '@switchboard/jsonrpc';
import { isRecord } from './params.js';

/**
 * The caller key of a request: the transport's (HTTP: the handler's `callerIdentity`, else `address:<peer>`,
 * loopback included), else the authenticated client (`client:<clientId>`), else `undefined`: a request that names
 * no caller (stdio, whose one connection is one client; the Web handler with no address and no identity) has no
 * share of its own and is bounded by the totals alone, as before the shares existed.
 */
export function callerKeyOf(ctx: { readonly extra: TransportMessageExtra | undefined; readonly authInfo: unknown }): string | undefined {
  const extra = ctx.extra as { readonly caller?: unknown } | undefined;
  if (typeof extra?.caller === 'string' && extra.caller !== '') return extra.caller;
  const auth = ctx.authInfo;
  if (isRecord(auth) && typeof auth.clientId === 'string' && auth.clientId !== '') return `client:${auth.clientId}`;
  return undefined;
}
