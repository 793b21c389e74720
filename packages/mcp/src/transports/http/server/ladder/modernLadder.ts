/**
 * The HTTP ladder's rungs for a modern POST (MCP 2026-07-28): the HTTP-only checks (the request metadata headers
 * against the body) interleaved with the inbound step's (`protocol/inbound.ts`, the protocol judgement every
 * transport shares), in this order:
 * 4. `MCP-Protocol-Version` equals the body's claim (-32020): before the envelope and the revision rungs, so a
 *    header `2026-07-28` with a body claiming `v999.0.0` is -32020, not -32022;
 * 5–6. the envelope (-32602), then the revision served (-32022);
 * 7. `Mcp-Method` equals `method`, `Mcp-Name` equals `params.name`, `params.uri` or `params.taskId` (-32020);
 * 8–9. the method exists at the revision with its server capability advertised (-32601, HTTP 404), and the client
 *    capabilities it needs are declared (-32021);
 * 10. the `Mcp-Param-*` headers of the tool's `x-mcp-header` arguments (-32020);
 * then the answer's type (`Accept`, 406). A notification needs only rungs 4–6 and is accepted with 202 (B23).
 * `Mcp-Session-Id` and `Last-Event-ID` mean nothing here: they are never read.
 *
 * The inbound step runs here once per message (rungs 5–6 and 8–9 are its `modernEnvelopeRefusalOf` and
 * `modernMethodRefusalOf`, over the server's own revisions and capabilities): a message this ladder accepts is
 * handed to the server with `judged: true` (`streamableEndpoint.ts`), and the server's gate does not judge it again.
 *
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata", "Server Validation"
 */
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { decodeHeaderValue, mcpNameMember, paramHeaderMismatch, trimHeaderWhitespace } from '../../../../protocol/paramHeaders.js';
import type { HttpCaller, HttpModernDecision, HttpRefusalDecision, HttpServerFacts, StreamableHttpFacts } from './decisions.js';
import { parseRequestEnvelope } from '../../../../protocol/envelope.js';
import { acceptsMediaType, negotiateResponseShape } from '../../media.js';
import { inboundRefusal, modernEnvelopeRefusalOf, modernMethodRefusalOf } from '../../../../protocol/inbound.js';
import type { InboundRefusal } from '../../../../protocol/inbound.js';

/** The inbound step's `headerMismatch` refusal (-32020) with `problem`. */
function headerMismatch(problem: string): InboundRefusal {
  return inboundRefusal('headerMismatch', { problem });
}
import { httpInboundRefusal, httpRefusal } from '../refusals.js';

function refuseWith(refusal: InboundRefusal, id: JsonRpcId | null): HttpRefusalDecision {
  const { httpStatus, jsonrpcError } = httpInboundRefusal(refusal, id);
  return { kind: 'refuse', httpStatus, jsonrpcError };
}

/** Header values are compared after trimming white space around them (RFC 9110 §5.5). */
function trimmed(value: string | undefined): string | undefined {
  return value === undefined ? undefined : trimHeaderWhitespace(value);
}

function paramsOf(message: JsonRpcRequest | JsonRpcNotification): Record<string, unknown> | undefined {
  const params = message.params;
  return typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
}

/**
 * Rung 4: `MCP-Protocol-Version` equals the body's claim. Nothing to compare without a claim, nor with a claim that
 * is not a non-empty string (`''`): the envelope rung names that field (-32602), as on stdio, where a header could
 * only be said to differ from a value the body does not have.
 */
function versionHeaderRefusal(facts: StreamableHttpFacts, claim: string | undefined): InboundRefusal | undefined {
  if (claim === undefined || claim === '') return undefined;
  const header = trimmed(facts.protocolVersionHeader);
  if (header === undefined) return headerMismatch('the MCP-Protocol-Version header is required');
  return header === claim ? undefined : headerMismatch(`MCP-Protocol-Version header value '${header}' does not match the body's protocol version '${claim}'`);
}

/** Rung 7: `Mcp-Method` and `Mcp-Name` against the body (values are case-sensitive; `Mcp-Name` may be base64). */
function standardHeaderRefusal(facts: StreamableHttpFacts, request: JsonRpcRequest): InboundRefusal | undefined {
  const method = trimmed(facts.mcpMethod);
  if (method === undefined) return headerMismatch('the Mcp-Method header is required');
  if (method !== request.method) return headerMismatch(`Mcp-Method header value '${method}' does not match the body's method '${request.method}'`);
  const key = mcpNameMember(request.method);
  const value = key === undefined ? undefined : paramsOf(request)?.[key];
  // A body without the value (or with one of another type) is refused by the method's own params check.
  if (typeof value !== 'string') return undefined;
  const raw = facts.mcpName;
  if (raw === undefined) return headerMismatch(`the Mcp-Name header is required for '${request.method}'`);
  const name = decodeHeaderValue(raw);
  if (name === undefined) return headerMismatch(`Mcp-Name header value '${raw}' is not a valid header value (invalid characters or base64)`);
  return name === value ? undefined : headerMismatch(`Mcp-Name header value '${name}' does not match the body's params.${key} '${value}'`);
}

/**
 * Rung 10: the `Mcp-Param-*` headers of a `tools/call` against its arguments. A tool hidden from this caller by the
 * server's visibility rule has no headers to check: the request goes on and is answered as for an unknown tool
 * (-32602), so the headers cannot reveal that it exists.
 */
function paramHeaderRefusal(facts: StreamableHttpFacts, server: HttpServerFacts, request: JsonRpcRequest): InboundRefusal | undefined {
  if (request.method !== 'tools/call') return undefined;
  const params = paramsOf(request);
  const name = params?.name;
  if (typeof name !== 'string') return undefined;
  let specs = server.paramHeaders(name);
  if (specs === undefined || specs.length === 0) return undefined;
  // Only a tool that declares headers pays for the caller (one object) and the visibility check.
  specs = server.paramHeaders(name, callerOf(facts, request));
  if (specs === undefined) return undefined;
  const headers = facts.headers;
  const mismatch = paramHeaderMismatch(specs, params?.arguments, (field) => headers?.header(field));
  return mismatch === undefined ? undefined : headerMismatch(mismatch);
}

/** The caller of a modern request, for the server's visibility rule. */
function callerOf(facts: StreamableHttpFacts, request: JsonRpcRequest): HttpCaller {
  const envelope = parseRequestEnvelope(request);
  return { authInfo: facts.authInfo, clientInfo: envelope.clientInfo, era: 'modern', protocolVersion: envelope.protocolVersion, sessionId: undefined };
}

/**
 * Classifies one modern POST (a request or notification with a `_meta` claim, or without one when only the
 * `MCP-Protocol-Version` header names a modern revision). Pure.
 * @param facts - The request's facts (headers, `Accept`, the answer mode); `facts.server` must serve a modern
 *   revision (`servesModern`).
 * @param message - The body.
 * @param claim - Its `_meta` version claim (`protocolVersionClaim`, read once by the ladder), `undefined` when only
 *   the header names a modern revision.
 * @returns The decision to answer it, or a refusal carrying the request's id when it has one.
 */
export function classifyModern(
  facts: StreamableHttpFacts,
  message: JsonRpcRequest | JsonRpcNotification,
  claim: string | undefined,
): HttpModernDecision | HttpRefusalDecision {
  const server = facts.server as HttpServerFacts;
  const isRequest = 'id' in message;
  const id = isRequest ? message.id : null;
  // A request without a claim (the header alone named a modern revision) fails the envelope rung: -32602.
  const early = versionHeaderRefusal(facts, claim) ?? (isRequest || claim !== undefined ? modernEnvelopeRefusalOf(message, server.servedRevisions, claim) : undefined);
  if (early !== undefined) return refuseWith(early, id);
  // MCP 2026-07-28 basic/transports/streamable-http.mdx "Sending Messages": a notification accepted ⇒ 202, no body
  // (field bug B23). The headers of notification POSTs are not defined: only the version is cross-checked.
  if (!isRequest) return { kind: 'modern', era: 'modern', message, respondWith: 'accepted' };
  const refusal = standardHeaderRefusal(facts, message)
    ?? modernMethodRefusalOf(message, server.capabilities, claim)
    ?? paramHeaderRefusal(facts, server, message);
  if (refusal !== undefined) return refuseWith(refusal, id);
  if (message.method === 'subscriptions/listen') {
    // MCP 2026-07-28 basic/patterns/subscriptions.mdx: the listen stream is the POST's SSE answer.
    if (acceptsMediaType(facts.accept, 'text/event-stream')) return { kind: 'modern', era: 'modern', message, respondWith: 'sse' };
    const { httpStatus, jsonrpcError } = httpRefusal('notAcceptableSse', { id, detail: `got '${facts.accept ?? ''}'` });
    return { kind: 'refuse', httpStatus, jsonrpcError };
  }
  const respondWith = negotiateResponseShape(facts.accept, facts.responseMode);
  if (respondWith !== undefined) return { kind: 'modern', era: 'modern', message, respondWith };
  const { httpStatus, jsonrpcError } = httpRefusal('notAcceptable', { id, detail: `got '${facts.accept ?? ''}'` });
  return { kind: 'refuse', httpStatus, jsonrpcError };
}
