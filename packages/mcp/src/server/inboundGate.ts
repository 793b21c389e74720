/**
 * The gate in front of every handler (the dispatcher's guard): a modern-era message (a `_meta` version claim)
 * gets the inbound step's verdict ({@link inboundRefusalOf}) over the server's served revisions and current
 * capabilities, wherever it arrives; a legacy-era one on a connection, over the connection's facts; a
 * legacy-era request answered with no session (`McpServer.handle`) finds no session-only request and the
 * capability gate reads the caller's facts. A refusal becomes the wire error; an accepted message costs no allocation here.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 */
import { ErrorCode, JsonRpcError, type JsonRpcNotification, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { protocolVersionClaim } from '../protocol/envelope.js';
import { capabilityRefusalOf, inboundRefusalOf, isModernOnlyRequest, type InboundFacts, type InboundRefusal } from '../protocol/inbound.js';
import type { DispatchContext } from './connection.js';
import { SESSION_REQUESTS } from './eras/legacy.js';

function wireError(refusal: InboundRefusal | undefined): JsonRpcError | undefined {
  return refusal === undefined ? undefined : new JsonRpcError(refusal.code, refusal.message, refusal.data);
}

/**
 * The refusal of one inbound message, or `undefined` to dispatch it.
 * @param stateless the server's served revisions and current capabilities (what a message with no session is
 *   checked against)
 */
export function gateInbound(message: JsonRpcRequest | JsonRpcNotification, ctx: DispatchContext, stateless: InboundFacts): JsonRpcError | undefined {
  // A modern-era message is judged by its own envelope, on a connection or not (the dual-era server).
  if (protocolVersionClaim(message) !== undefined) return wireError(inboundRefusalOf(message, stateless));
  const connection = ctx.connection;
  if (connection !== undefined) return wireError(inboundRefusalOf(message, connection.inboundFacts));
  // A legacy-era message with no session (`McpServer.handle` given facts): the era-neutral operations only.
  if (!('id' in message)) return undefined;
  const method = message.method;
  // A method of the modern era alone, without its envelope: the inbound step's -32602.
  if (isModernOnlyRequest(method)) return wireError(inboundRefusalOf(message, stateless));
  if (SESSION_REQUESTS.has(method)) return new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: "${method}" (it exists only on a session)`);
  return wireError(capabilityRefusalOf(method, ctx.facts.serverCapabilities ?? stateless.serverCapabilities));
}
