/**
 * Per-tool scopes enforced before dispatch: once an endpoint has read the body, each `tools/call` it holds is
 * resolved to its tool (a modern POST's `params.name` was already cross-checked with `Mcp-Name` by the ladder's rung
 * 7), and a caller lacking a scope the tool declares (`ToolDefinition.scopes`) is answered 403 `WWW-Authenticate:
 * Bearer error="insufficient_scope", scope="<the scopes the call needs>"` — never dispatched, so a client can step up
 * and retry (the TS SDK can only answer such a call from inside the handler, with an `isError` result).
 *
 * The `scope` of the challenge is every scope the operation needs (the request-wide `requiredScopes` and each
 * refused tool's), in one challenge: MCP 2026-07-28 basic/authorization/index.mdx "Server Scope Management":
 * servers "SHOULD include all scopes required for the current operation in a single challenge" and "are not
 * required to include the client's previously granted scopes" (the client unions them, "Step-Up Authorization
 * Flow").
 */
import type { Inbound, InboundSingle, JsonRpcId, JsonRpcRequest } from '@switchboard/jsonrpc';
import { scopesGranted } from '../../../../protocol/auth/authInfo.js';
import { parseRequestEnvelope } from '../../../../protocol/envelope.js';
import type { HttpInput, HttpOutput } from '../inputOutput.js';
import type { HttpToolCaller, McpHttpServerLike } from '../serverLike.js';
import { challengeOutput } from './bearer.js';
import type { ResourceServer } from './resourceServer.js';
import type { SessionEntry } from '../sessions/sessionTable.js';


/** The tool a `tools/call` request names, or `undefined` for any other message. */
function calledTool(item: InboundSingle): { readonly request: JsonRpcRequest; readonly name: string } | undefined {
  if (item.kind !== 'request' || item.message.method !== 'tools/call') return undefined;
  const params = item.message.params;
  const name = typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? { request: item.message, name } : undefined;
}

/** The caller of `request`, as the server's visibility rule is asked about it. */
function callerOf(input: HttpInput, request: JsonRpcRequest, session: SessionEntry | undefined): HttpToolCaller {
  if (session !== undefined) {
    const transport = session.transport;
    return { authInfo: input.authInfo, clientInfo: session.session?.clientInfo, era: 'legacy', protocolVersion: transport.protocolVersion, sessionId: transport.sessionId };
  }
  const envelope = parseRequestEnvelope(request);
  return { authInfo: input.authInfo, clientInfo: envelope.clientInfo, era: 'modern', protocolVersion: envelope.protocolVersion, sessionId: undefined };
}

/**
 * The 403 answering the `tools/call` requests of `inbound` whose caller lacks a scope of the tool, or `undefined`
 * when every call (or none) may go on. A body with one request carries its id; a batch (2025-03-26) is refused as a
 * whole when one member is, with `"id": null`.
 * @param check - `input`: the authenticated request; `inbound`: its body; `session`: the legacy session it came on
 *   (`undefined` for a modern POST).
 */
export function toolScopeRefusal(
  auth: ResourceServer,
  server: McpHttpServerLike,
  check: { readonly input: HttpInput; readonly inbound: Inbound; readonly session: SessionEntry | undefined },
): HttpOutput | undefined {
  if (server.toolScopes === undefined) return undefined;
  const { input, inbound, session } = check;
  const items = inbound.kind === 'batch' ? inbound.items : [inbound];
  let needed: Set<string> | undefined;
  let id: JsonRpcId | null = null;
  for (const item of items) {
    const call = calledTool(item);
    if (call === undefined) continue;
    const scopes = server.toolScopes(call.name, callerOf(input, call.request, session));
    if (scopes === undefined || scopesGranted(input.authInfo, scopes)) continue;
    needed ??= new Set(auth.requiredScopes);
    for (const scope of scopes) needed.add(scope);
    id = inbound.kind === 'batch' ? null : call.request.id;
  }
  if (needed === undefined) return undefined;
  // MCP 2026-07-28 basic/authorization/index.mdx "Runtime Insufficient Scope Errors": 403, `error="insufficient_scope"`,
  // `scope`, `resource_metadata` "for consistency with 401 responses".
  const description = 'the access token lacks a scope this tool requires';
  // JSON-RPC 2.0 §5: a batch refused whole names no one request: `"id": null`.
  return challengeOutput(auth.challenge(input, { error: 'insufficient_scope', description, scopes: [...needed] }), id, { batch: inbound.kind === 'batch' });
}

/**
 * The tool a body's `tools/call` requests name, when they name one (a batch naming two tools: `undefined`): what a
 * 403 of {@link toolScopeRefusal} is counted under by the failure analytics (`HttpRefusalEvent.toolName`).
 */
export function calledToolName(inbound: Inbound): string | undefined {
  let name: string | undefined;
  for (const item of inbound.kind === 'batch' ? inbound.items : [inbound]) {
    const call = calledTool(item);
    if (call === undefined) continue;
    if (name !== undefined && name !== call.name) return undefined;
    name = call.name;
  }
  return name;
}
