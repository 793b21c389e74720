/**
 * The inbound classifier of the MCP HTTP endpoint: a pure function from the facts of one HTTP request (method,
 * the headers that matter, the already-classified body, the session lookup result) to either a decision to
 * dispatch or a refusal `{ jsonrpcError, httpStatus }`.
 *
 * Classification is body-primary (docs/architecture.md "Transports"; MCP 2026-07-28 basic/versioning.mdx "Eras";
 * TS SDK `inboundClassification.ts`): a request or notification whose `params._meta` names
 * `io.modelcontextprotocol/protocolVersion` belongs to the modern era; `initialize`, GET, DELETE, batches and
 * posted responses belong to the session era. Headers are cross-checked, never trusted alone. A modern message
 * goes through the rungs of `modernLadder.ts` when the server serves a modern revision, else it is refused
 * (`-32022`, HTTP 400, naming the revisions served).
 *
 * The order of the ladder (each step's rule is cited where it is applied):
 * 1. HTTP method (405) — POST, GET, DELETE;
 * 2. POST: `Content-Type` (415), then the body (400 -32700 / -32600);
 * 3. era (modern claims → refusal or `modern` decision);
 * 4. `initialize`: no batch (400), not on a live session (400, B30), unknown session (404), `Accept` (406);
 * 5. otherwise: session id present (400; an `MCP-Protocol-Version` naming no revision is named first then),
 *    session known (404), `MCP-Protocol-Version` (400, B22), batches only from 2025-03-26 sessions (400), `Accept`
 *    (406, B19) when a response body is due.
 *
 * Origin/Host validation (403), the body size limit (413) and the session cap (503) are applied by the
 * transport before or around this function, because they need configuration or I/O.
 */
import type {
  Inbound,
  InboundSingle,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
} from '@switchboard/jsonrpc';
import { protocolVersionClaim } from '../../../../protocol/envelope.js';
import { eraRefusalOf, inboundRefusal, unsupportedRevisionRefusal } from '../../../../protocol/inbound.js';
import {
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  PROTOCOL_REVISIONS,
  REVISION_FEATURES,
  isLegacyRevision,
  isModernRevision,
} from '../../../../protocol/revisions.js';
import type { ProtocolRevision } from '../../../../protocol/revisions.js';
import { acceptsMediaType, isJsonContentType, negotiateResponseShape } from '../../media.js';
import { classifyModern } from './modernLadder.js';
import type {
  HttpMessageDecision,
  HttpRefusalDecision,
  HttpSessionFacts,
  StreamableHttpDecision,
  StreamableHttpFacts,
} from './decisions.js';
import { httpInboundRefusal, httpRefusal } from '../refusals.js';
import type { HttpRefusalName, RefusalOutputOptions } from '../refusals.js';


/** The HTTP methods of the Streamable HTTP endpoint, as sent in `Allow` with a 405. */
export const STREAMABLE_HTTP_ALLOW = 'GET, POST, DELETE';
/** The `Allow` of an endpoint that serves no session-based revision: modern traffic is POST only. */
export const MODERN_ONLY_ALLOW = 'POST';

function refuse(name: HttpRefusalName, options?: RefusalOutputOptions): HttpRefusalDecision {
  const { httpStatus, jsonrpcError } = httpRefusal(name, options);
  return { kind: 'refuse', httpStatus, jsonrpcError };
}

// ---------------------------------------------------------------------------------------------------------
// Era

/** The revision a refused modern batch is named by. */
const MODERN_REVISION_NAME: string = MODERN_REVISIONS[0];

function isKnownRevision(value: string): boolean {
  return (PROTOCOL_REVISIONS as readonly string[]).includes(value);
}

/**
 * A modern-era message this endpoint does not serve: the inbound step's `unsupportedRevision` refusal (the code,
 * message and `data` stdio sends), over HTTP with status 400.
 * MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation": -32022 + data.supported/requested.
 */
function unserved(message: JsonRpcRequest | JsonRpcNotification, version: string, revisions: readonly ProtocolRevision[]): StreamableHttpDecision {
  const id = 'id' in message ? message.id : null;
  // What this endpoint answers: the session-based revisions (a modern one listed without a way to serve it is not).
  const served = revisions.filter(isLegacyRevision);
  // The inbound step's era rung for a `_meta` claim; a message whose header alone names the revision is refused
  // alike.
  const refusal = eraRefusalOf(message, served) ?? unsupportedRevisionRefusal(version, served);
  const { httpStatus, jsonrpcError } = httpInboundRefusal(refusal, id);
  return { kind: 'refuse', httpStatus, jsonrpcError };
}

/**
 * A message without a modern claim on an endpoint that serves no session-based revision: -32022 naming the
 * revisions served (MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility": a modern-only server names its
 * versions in any error it returns to `initialize`), with the revision the message asked for when it names one.
 */
function legacyUnserved(message: JsonRpcRequest | JsonRpcNotification, facts: StreamableHttpFacts, served: readonly ProtocolRevision[]): StreamableHttpDecision {
  const params = message.params as Record<string, unknown> | undefined;
  const asked = message.method === 'initialize' && typeof params?.protocolVersion === 'string' ? params.protocolVersion : facts.protocolVersionHeader?.trim();
  const refusal = unsupportedRevisionRefusal(asked ?? '', served);
  const { httpStatus, jsonrpcError } = httpInboundRefusal(refusal, 'id' in message ? message.id : null);
  return { kind: 'refuse', httpStatus, jsonrpcError };
}

// ---------------------------------------------------------------------------------------------------------
// The ladder

/**
 * Checks what can be checked from the request line and headers alone, before reading a body: the method (405)
 * and, for POST, the `Content-Type` (415). Pure; {@link classifyStreamableHttp} runs it again as its first step.
 * @returns A refusal, or `undefined` to go on.
 */
export function checkStreamableHttpHead(httpMethod: string, contentType: string | undefined): HttpRefusalDecision | undefined {
  if (httpMethod === 'POST') {
    // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server": the body is a JSON-RPC message
    // (application/json); B21: parameters and letter case tolerated; anything else 415 (TS SDK convention).
    return isJsonContentType(contentType) ? undefined : refuse('unsupportedMediaType', { detail: `got '${contentType ?? ''}'` });
  }
  if (httpMethod === 'GET' || httpMethod === 'DELETE') return undefined;
  // MCP 2025-11-25 basic/transports.mdx: the endpoint supports POST and GET (and DELETE, "Session Management"
  // item 5); other methods 405 with Allow (RFC 9110 §15.5.6).
  return { ...refuse('methodNotAllowed', { detail: `'${httpMethod}'` }), allow: STREAMABLE_HTTP_ALLOW };
}

/** Whether the request names a session (an empty `Mcp-Session-Id` names none). */
function namesSession(facts: StreamableHttpFacts): boolean {
  return facts.sessionId !== undefined && facts.sessionId !== '';
}

/**
 * Session checks shared by every non-initialize request. `id`: the request's id when the body is one request (its
 * refusal then carries it, field bug B45), else `null`.
 */
function checkSession(facts: StreamableHttpFacts, id: JsonRpcId | null): HttpRefusalDecision | undefined {
  if (!namesSession(facts)) {
    // MCP 2025-11-25 basic/transports.mdx "Protocol Version Header": a version that is no revision is 400 with or
    // without a session; it is named first, since it is why the client sent no session this server knows of.
    // `data.supported`: every revision served, as a client without a session may open either era.
    const header = facts.protocolVersionHeader?.trim();
    if (header !== undefined && !isKnownRevision(header)) return unknownVersionHeader(header, facts.server?.servedRevisions ?? LEGACY_REVISIONS, id);
    // Same section, "Session Management" item 2: missing id on a non-initialize request ⇒ 400.
    return refuse('missingSessionId', { id });
  }
  // Same section, item 3: unknown or terminated session ⇒ 404 (+ -32001, TS SDK convention).
  if (facts.session === undefined) return refuse('sessionNotFound', { id });
  return checkProtocolVersionHeader(facts, facts.session, id);
}

/**
 * Field bug B22; MCP 2025-11-25 basic/transports.mdx "Protocol Version Header": absent ⇒ the session's negotiated
 * version is used (2025-03-26 only when nothing else is known, which a session never is); a value that is not a
 * revision ⇒ 400; a header-carrying revision (2025-06-18+) other than the negotiated one ⇒ 400.
 *
 * Tolerated: a value naming a revision that never defined the header (2024-11-05, 2025-03-26). Such a value
 * is the spec's own "assume 2025-03-26" fallback spelled out, not a claim a real client of that revision makes; the
 * official conformance suite 0.1.16 sends `2025-03-26` on its 2025-11-25 sessions (`server-sse-multiple-streams`,
 * `server-sse-polling`) and the TS SDK accepts any supported value. It is served as the negotiated version.
 */
function checkProtocolVersionHeader(facts: StreamableHttpFacts, session: HttpSessionFacts, id: JsonRpcId | null): HttpRefusalDecision | undefined {
  const header = facts.protocolVersionHeader;
  if (header === undefined) return undefined;
  const value = header.trim();
  // `data.supported`: the session-based revisions this server serves (a session is of that era).
  if (!isKnownRevision(value)) return unknownVersionHeader(value, (facts.server?.servedRevisions ?? LEGACY_REVISIONS).filter(isLegacyRevision), id);
  const negotiated = session.protocolVersion;
  if (negotiated === undefined || value === negotiated) return undefined;
  if (isLegacyRevision(value) && !REVISION_FEATURES[value].protocolVersionHeader) return undefined;
  return refuse('protocolVersionMismatch', { id, detail: `'${value}' instead of '${negotiated}'` });
}

/**
 * 400 for an `MCP-Protocol-Version` that names no revision, with the data of a -32022 for it (`supported`, newest
 * first, and `requested`: `unsupportedRevisionRefusal`), so a client reads one shape whichever refusal it got.
 */
function unknownVersionHeader(value: string, supported: readonly ProtocolRevision[], id: JsonRpcId | null): HttpRefusalDecision {
  return refuse('unsupportedProtocolVersion', { id, detail: `'${value}'`, data: unsupportedRevisionRefusal(value, supported).data });
}

function classifyPost(facts: StreamableHttpFacts, body: Inbound): StreamableHttpDecision {
  if (body.kind === 'invalid') {
    // JSON-RPC 2.0 §5.1: -32700 (id null) or -32600 (id when readable); MCP 2025-11-25 basic/transports.mdx
    // "Sending Messages to the Server" item 4: an input the server cannot accept gets an HTTP error status.
    const name = body.reply.error.code === -32700 ? 'parseError' : 'invalidRequest';
    return { kind: 'refuse', httpStatus: httpRefusal(name).httpStatus, jsonrpcError: body.reply };
  }

  if (body.kind === 'batch') {
    // MCP 2025-03-26 basic/lifecycle.mdx "Initialization": initialize MUST NOT be part of a batch.
    for (const item of body.items) {
      if (item.kind === 'request' && item.message.method === 'initialize') {
        return refuse('initializeInBatch', { id: item.message.id });
      }
    }
    // MCP 2026-07-28 basic/transports/streamable-http.mdx "Sending Messages": a body is one message; a batch
    // holding a modern message, or sent to an endpoint without sessions, is refused whole (-32600).
    const modernMember = body.items.find((item) => item.kind !== 'invalid' && item.kind !== 'response' && protocolVersionClaim(item.message) !== undefined);
    if (modernMember !== undefined || facts.server?.servesLegacy === false) {
      const refusal = inboundRefusal('batchNotAllowed', { revision: MODERN_REVISION_NAME });
      const { httpStatus, jsonrpcError } = httpInboundRefusal(refusal, null);
      return { kind: 'refuse', httpStatus, jsonrpcError };
    }
    const sessionRefusal = checkSession(facts, null);
    if (sessionRefusal !== undefined) return sessionRefusal;
    // MCP 2025-03-26 basic/index.mdx "Batching": receive MUST at 2025-03-26; removed in 2025-06-18 (changelog),
    // absent in 2024-11-05. A session whose version is not known yet cannot batch either. Where batches are not
    // taken the array itself is the invalid request: 400 and one -32600, no member read, a batch of notifications
    // only included (field bug B05); but a batch that answers our requests and holds no request is never answered
    // (JSON-RPC 2.0 §5). Those, and where batches are taken a batch of responses and notifications only, are
    // accepted: 202 with no body (§6 "nothing at all"; MCP 2025-11-25 basic/transports.mdx "Sending Messages to the
    // Server" item 4).
    const negotiated = facts.session?.protocolVersion;
    const answerable = body.items.some((item) => item.kind === 'request' || item.kind === 'invalid');
    const answersOurs = !answerable && body.items.some((item) => item.kind === 'response');
    if (!answersOurs && (negotiated === undefined || !isLegacyRevision(negotiated) || !REVISION_FEATURES[negotiated].batches)) {
      // The inbound step's refusal, so stdio and HTTP word this rule the same way.
      const refusal = inboundRefusal('batchNotAllowed', { revision: negotiated ?? 'an uninitialized session' });
      const { httpStatus, jsonrpcError } = httpInboundRefusal(refusal, null);
      return { kind: 'refuse', httpStatus, jsonrpcError };
    }
    const valid: InboundSingle[] = [];
    const requestIds: JsonRpcId[] = [];
    const replies: JsonRpcErrorResponse[] = [];
    for (const item of body.items) {
      if (item.kind === 'invalid') replies.push(item.reply);
      else {
        valid.push(item);
        if (item.kind === 'request') requestIds.push(item.message.id);
      }
    }
    return messageDecision(facts, { sessionId: facts.sessionId as string, inbound: { kind: 'batch', items: valid }, requestIds, replies, batch: true });
  }

  const server = facts.server;
  if (body.kind === 'request' || body.kind === 'notification') {
    const message = body.message;
    const claim = protocolVersionClaim(message);
    const served = server?.servedRevisions ?? LEGACY_REVISIONS;
    // MCP 2026-07-28 basic/versioning.mdx "Eras" + TS SDK inboundClassification.ts step 4: a `_meta` protocol
    // version claim makes the message modern, whatever the headers or the method (even `initialize`).
    if (claim !== undefined) return server?.servesModern === true ? classifyModern(facts, message, claim) : unserved(message, claim, served);
    // Step 6 there, for requests too: without a claim, a message is modern when the header names a modern
    // revision and no live session is named (a request then fails the envelope rung, -32602, rather than the
    // session rungs; a stale session id is ignored, as on all modern traffic).
    const header = facts.protocolVersionHeader?.trim();
    if (header !== undefined && isModernRevision(header) && facts.session === undefined) {
      if (server?.servesModern === true) return classifyModern(facts, message, undefined);
      // A server without the modern era refuses it -32022 naming what it serves (MCP 2026-07-28 basic/versioning.mdx
      // "Protocol Version Negotiation"), so a client that tried it falls back to `initialize`; not `initialize`
      // itself (B22 (e): its body negotiates), nor a message naming a session (the session rungs answer it).
      if (!namesSession(facts) && !(body.kind === 'request' && message.method === 'initialize')) return unserved(message, header, served);
    }
    if (server?.servesLegacy === false) return legacyUnserved(message, facts, served);
    if (body.kind === 'request' && message.method === 'initialize') return classifyInitialize(facts, body.message);
  } else if (server?.servesLegacy === false) {
    // A posted response: only a session's server→client request is answered that way.
    return refuse('missingSessionId');
  }

  const sessionRefusal = checkSession(facts, body.kind === 'request' ? body.message.id : null);
  if (sessionRefusal !== undefined) return sessionRefusal;
  const requestIds = body.kind === 'request' ? [body.message.id] : [];
  return messageDecision(facts, { sessionId: facts.sessionId as string, inbound: body, requestIds, replies: NO_REPLIES, batch: false });
}

function classifyInitialize(facts: StreamableHttpFacts, request: JsonRpcRequest): StreamableHttpDecision {
  if (namesSession(facts)) {
    // MCP 2025-11-25 basic/transports.mdx "Session Management" item 3: a stale id ⇒ 404, and the client then
    // re-initializes without one.
    if (facts.session === undefined) return refuse('sessionNotFound', { id: request.id });
    // Field bug B30: a second initialize on a live session ⇒ 400 + -32600 with its id; the session keeps its
    // negotiated version and capabilities.
    return refuse('alreadyInitialized', { id: request.id });
  }
  // Field bug B22 (e): the body's protocolVersion drives negotiation; a header on initialize is not checked.
  const respondWith = negotiateResponseShape(facts.accept, facts.responseMode);
  if (respondWith === undefined) return refuse('notAcceptable', { id: request.id, detail: `got '${facts.accept ?? ''}'` });
  return { kind: 'initialize', era: 'legacy', request, respondWith };
}

const NO_REPLIES: readonly JsonRpcErrorResponse[] = Object.freeze([]);

/** A POST's messages for {@link messageDecision}: a {@link HttpMessageDecision} before its answer is chosen. */
type PostedMessages = Pick<HttpMessageDecision, 'sessionId' | 'inbound' | 'requestIds' | 'replies' | 'batch'>;

function messageDecision(facts: StreamableHttpFacts, posted: PostedMessages): StreamableHttpDecision {
  const { sessionId, inbound, requestIds, replies, batch } = posted;
  // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 4: only responses/notifications ⇒
  // 202 Accepted with no body.
  if (requestIds.length === 0 && replies.length === 0) {
    return { kind: 'message', era: 'legacy', sessionId, inbound, requestIds, replies, batch, respondWith: 'accepted' };
  }
  // Item 5 there + B19: answer with a type the client accepts, or 406.
  const respondWith = negotiateResponseShape(facts.accept, facts.responseMode);
  if (respondWith === undefined) return refuse('notAcceptable', { id: batch ? null : (requestIds[0] ?? null), detail: `got '${facts.accept ?? ''}'` });
  for (let i = 0; i < requestIds.length; i++) {
    for (let j = i + 1; j < requestIds.length; j++) {
      // JSON-RPC 2.0 §4 / MCP 2025-11-25 basic/index.mdx "Requests": ids are unique within a session.
      if (requestIds[i] === requestIds[j]) return refuse('duplicateRequestId', { id: requestIds[i] ?? null });
    }
  }
  return { kind: 'message', era: 'legacy', sessionId, inbound, requestIds, replies, batch, respondWith };
}

/**
 * Classifies one request to the Streamable HTTP endpoint. Pure: no I/O, no clock, no session mutation.
 *
 * @param facts - The request's facts; for POST, `body` must be set (use `parseMessage`/`classifyValue`).
 * @returns A decision to dispatch, or a refusal with the HTTP status and the JSON-RPC error body.
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"; MCP 2026-07-28 basic/versioning.mdx "Eras"
 * @example
 * const decision = classifyStreamableHttp({ httpMethod: 'DELETE', sessionId: undefined, session: undefined, ... });
 * // { kind: 'refuse', httpStatus: 400, jsonrpcError: { ..., error: { code: -32000, ... } } }
 */
export function classifyStreamableHttp(facts: StreamableHttpFacts): StreamableHttpDecision {
  const head = checkStreamableHttpHead(facts.httpMethod, facts.contentType);
  if (head !== undefined) return head;

  if (facts.httpMethod === 'POST') {
    if (facts.body === undefined) return refuse('parseError');
    return classifyPost(facts, facts.body);
  }

  // MCP 2026-07-28 basic/transports/streamable-http.mdx "Earlier Streamable HTTP Revisions" + field bug B26: an
  // endpoint that serves no session-based revision has no GET stream and no session to end: 405, POST only.
  if (facts.server?.servesLegacy === false) return { ...refuse('methodNotAllowed', { detail: `'${facts.httpMethod}'` }), allow: MODERN_ONLY_ALLOW };
  const sessionRefusal = checkSession(facts, null);
  if (sessionRefusal !== undefined) return sessionRefusal;
  const sessionId = facts.sessionId as string;

  if (facts.httpMethod === 'GET') {
    // MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server" item 1: Accept must list
    // text/event-stream.
    if (!acceptsMediaType(facts.accept, 'text/event-stream')) return refuse('notAcceptableSse', { detail: `got '${facts.accept ?? ''}'` });
    const lastEventId = facts.lastEventId === undefined || facts.lastEventId === '' ? undefined : facts.lastEventId;
    return { kind: 'listen', era: 'legacy', sessionId, lastEventId };
  }
  // DELETE — MCP 2025-11-25 basic/transports.mdx "Session Management" item 5.
  return { kind: 'terminate', era: 'legacy', sessionId };
}
