/**
 * What the inbound step refused (`McpServer.onRefused`): one event per request the server answered with the
 * inbound step's error before any middleware or handler ran (-32022 unsupported revision, a malformed envelope,
 * a method the era or the session state does not serve, a capability not declared). Failure analytics count
 * these; a middleware never sees them.
 */
import type { JsonRpcError, JsonRpcId, JsonRpcRequest } from '@switchboard/jsonrpc';
import { isImplementation, parseRequestEnvelope, protocolVersionClaim } from '../protocol/envelope.js';
import type { Era } from '../protocol/revisions.js';
import type { Implementation } from '../protocol/types.js';
import type { DispatchContext } from './connection.js';
import { isRecord } from './params.js';

/** One request the inbound step refused (see {@link McpServer.onRefused}). */
export interface InboundRefusalEvent {
  readonly id: JsonRpcId;
  /** The method as received. */
  readonly method: string;
  /** The tool of a `tools/call` (`params.name`), if it names one. */
  readonly toolName: string | undefined;
  /** The JSON-RPC code of the error it was answered with. */
  readonly code: number;
  /** The message of that error, as it went on the wire. */
  readonly message: string;
  /** `modern` when the request carried a `_meta` revision claim, else `legacy`. */
  readonly era: Era;
  /** The revision it claimed (modern) or its session negotiated (legacy), if any. */
  readonly revision: string | undefined;
  /** The client's `clientInfo` (the envelope's, or the session's), if known. */
  readonly clientInfo: Implementation | undefined;
  /** The transport's authentication facts, untouched. */
  readonly authInfo: unknown;
}

/** A listener of {@link InboundRefusalEvent}s. It must not throw (a throw is logged and ignored). */
export type InboundRefusalListener = (event: InboundRefusalEvent) => void;

/** The event of one refused request, read from the message and its context. */
export function refusalEventOf(message: JsonRpcRequest, ctx: DispatchContext, error: JsonRpcError): InboundRefusalEvent {
  const claim = protocolVersionClaim(message);
  const params = message.params;
  const info = claim === undefined ? ctx.facts.clientInfo : parseRequestEnvelope(message).clientInfo;
  const name = message.method === 'tools/call' && isRecord(params) && typeof params.name === 'string' ? params.name : undefined;
  return {
    id: message.id,
    method: message.method,
    toolName: name,
    code: error.code,
    message: error.message,
    era: claim === undefined ? 'legacy' : 'modern',
    revision: claim === undefined ? ctx.facts.protocolVersion : claim,
    clientInfo: isImplementation(info) ? info : undefined,
    authInfo: ctx.extra?.authInfo ?? ctx.facts.authInfo ?? ctx.connection?.authInfo,
  };
}
