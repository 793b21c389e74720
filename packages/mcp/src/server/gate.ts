/**
 * The gate in front of every handler (the dispatcher's guard): on a connection, the inbound step's verdict
 * ({@link inboundRefusalOf}) over the connection's facts; for a request answered with no session
 * (`McpServer.handle`), the session-only requests do not exist and the capability gate reads the caller's
 * facts. A refusal becomes the wire error; an accepted message costs no allocation here.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 */
import { ErrorCode, JsonRpcError, type JsonRpcNotification, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { capabilityRefusalOf, eraRefusalOf, inboundRefusalOf, type InboundRefusal } from '../protocol/inbound.js';
import { SERVED_REVISIONS } from '../protocol/revisions.js';
import type { ServerCapabilities } from '../protocol/types.js';
import type { DispatchContext } from './context.js';
import { SESSION_REQUESTS } from './eras/session.js';

function wireError(refusal: InboundRefusal | undefined): JsonRpcError | undefined {
  return refusal === undefined ? undefined : new JsonRpcError(refusal.code, refusal.message, refusal.data);
}

/**
 * The refusal of one inbound message, or `undefined` to dispatch it.
 * @param current the server's capabilities now (for `McpServer.handle` when the caller names none)
 */
export function gateInbound(message: JsonRpcRequest | JsonRpcNotification, ctx: DispatchContext, current: { readonly capabilities: ServerCapabilities }): JsonRpcError | undefined {
  const connection = ctx.connection;
  if (connection !== undefined) return wireError(inboundRefusalOf(message, connection.inboundFacts));
  // No session: the era rung still applies (a claimed revision this server does not serve is -32022 here too).
  const unserved = eraRefusalOf(message, SERVED_REVISIONS);
  if (unserved !== undefined) return wireError(unserved);
  if (!('id' in message)) return undefined;
  const method = message.method;
  if (SESSION_REQUESTS.has(method)) return new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: "${method}" (it exists only on a session)`);
  return wireError(capabilityRefusalOf(method, ctx.facts.serverCapabilities ?? current.capabilities));
}
