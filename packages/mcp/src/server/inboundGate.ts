/**
 * The gate in front of every handler (the dispatcher's guard): a modern-era message (a `_meta` version claim)
 * gets the inbound step's verdict ({@link modernRefusalOf}) over the server's served revisions and current
 * capabilities, wherever it arrives; a legacy-era one on a connection, over the connection's facts
 * ({@link legacyRefusalOf}); a legacy-era request answered with no session (`McpServer.handle`) finds no
 * session-only request and the capability gate reads the caller's facts. A message the transport already ran
 * through the inbound step (the HTTP ladder: {@link GateContext.judged}) is not judged again. A refusal becomes
 * the wire error; an accepted message costs no allocation here.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 */
import { ErrorCode, JsonRpcError, type JsonRpcNotification, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { protocolVersionClaim } from '../protocol/envelope.js';
import { capabilityRefusalOf, isModernOnlyRequest, legacyRefusalOf, modernRefusalOf, type InboundFacts, type InboundRefusal } from '../protocol/inbound.js';
import type { DispatchContext } from './connection.js';
import { SESSION_REQUESTS } from './eras/legacy.js';

/** The dispatch context as the gate reads it. */
export interface GateContext extends DispatchContext {
  /**
   * The transport ran this message through the inbound step over the server's own served revisions and
   * capabilities, and the step accepted it: the Streamable HTTP ladder does for a modern POST
   * (`transports/http/server/ladder/modernLadder.ts`), because the spec puts its header rungs between the
   * step's rungs. Set by `McpServer.handle` from `HandleOptions.judged`; absent on a connection's messages.
   */
  readonly judged?: boolean;
}

function wireError(refusal: InboundRefusal | undefined): JsonRpcError | undefined {
  return refusal === undefined ? undefined : new JsonRpcError(refusal.code, refusal.message, refusal.data);
}

/**
 * The refusal of one inbound message, or `undefined` to dispatch it.
 * @param stateless the server's served revisions and current capabilities (what a message with no session is
 *   checked against)
 */
export function gateInbound(message: JsonRpcRequest | JsonRpcNotification, ctx: GateContext, stateless: InboundFacts): JsonRpcError | undefined {
  // Judged once: the transport's verdict stands.
  if (ctx.judged === true) return undefined;
  // A modern-era message is judged by its own envelope, on a connection or not (the dual-era server). Its context
  // was built from its claim (`modernDispatchOf`): read there, not from the envelope again.
  const claim = ctx.claim ?? protocolVersionClaim(message);
  if (claim !== undefined) return wireError(modernRefusalOf(message, claim, stateless));
  const connection = ctx.connection;
  if (connection !== undefined) return wireError(legacyRefusalOf(message, connection.inboundFacts));
  // A legacy-era message with no session (`McpServer.handle` given facts): the era-neutral operations only.
  if (!('id' in message)) return undefined;
  const method = message.method;
  // A method of the modern era alone, without its envelope: the inbound step's -32602.
  if (isModernOnlyRequest(method)) return wireError(legacyRefusalOf(message, stateless));
  if (SESSION_REQUESTS.has(method)) return new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: "${method}" (it exists only on a session)`);
  return wireError(capabilityRefusalOf(method, ctx.facts.serverCapabilities ?? stateless.serverCapabilities));
}
