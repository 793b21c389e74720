/**
 * The facts the HTTP ladder reads and the decisions it hands back (one place for the types both rung files share:
 * `ladder.ts` for the session era and the head, `modernLadder.ts` for a modern POST).
 */
import type { Inbound, JsonRpcErrorResponse, JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import type { ParamHeader } from '../../../../protocol/paramHeaders.js';
import type { ProtocolRevision } from '../../../../protocol/revisions.js';
import type { Implementation, ServerCapabilities } from '../../../../protocol/types.js';
import type { ResponseMode, ResponseShape } from '../../media.js';
import type { HttpStatusCode } from '../refusals.js';

/** What the modern rungs need to know about the server, read once per endpoint (capabilities: per request). */
export interface HttpServerFacts {
  /** The revisions served. */
  readonly servedRevisions: readonly ProtocolRevision[];
  /** Whether a modern revision is served and the server can answer modern messages (`handle`). */
  readonly servesModern: boolean;
  /** Whether a session-based revision is served (else GET and DELETE are 405, `initialize` is -32022). */
  readonly servesLegacy: boolean;
  /** The capabilities a modern request is served with (the method rung's gate). */
  readonly capabilities: ServerCapabilities;
  /**
   * The compiled `x-mcp-header` arguments of tool `toolName`; `undefined` for an unknown tool, or for one hidden
   * from `caller` by the server's visibility rule (so a hidden tool is answered as an unknown one, never by its
   * headers).
   */
  paramHeaders(toolName: string, caller?: HttpCaller): readonly ParamHeader[] | undefined;
}

/**
 * Who sends a modern request, as the server's visibility rule is asked about it (structurally the server's
 * `VisibilityCaller`: the transport imports nothing from `server/`).
 */
export interface HttpCaller {
  readonly authInfo: unknown;
  readonly clientInfo: Implementation | undefined;
  readonly era: 'modern';
  readonly protocolVersion: string | undefined;
  readonly sessionId: undefined;
}

/**
 * A modern message to answer with no session. The inbound step accepted it (`classifyModern` ran its rungs): the
 * endpoint hands it to the server with `judged: true`, so it is not judged twice.
 */
export interface HttpModernDecision {
  readonly kind: 'modern';
  readonly era: 'modern';
  readonly message: JsonRpcRequest | JsonRpcNotification;
  /** `accepted`: a notification, answered 202 with no body. */
  readonly respondWith: ResponseShape | 'accepted';
}

/** What the classifier needs to know about the session named by `Mcp-Session-Id`. */
export interface HttpSessionFacts {
  /** The revision negotiated by `initialize`; `undefined` while the `initialize` response is pending. */
  readonly protocolVersion: string | undefined;
}

/** The facts of one HTTP request to the MCP endpoint. Header values are as received (`undefined` when absent). */
export interface StreamableHttpFacts {
  /** The HTTP method, upper case (`POST`, `GET`, `DELETE`, …). */
  readonly httpMethod: string;
  /** `Content-Type`. */
  readonly contentType: string | undefined;
  /** `Accept`. Absent means any type is acceptable (RFC 9110 §12.5.1). */
  readonly accept: string | undefined;
  /** `Mcp-Session-Id`. */
  readonly sessionId: string | undefined;
  /** `MCP-Protocol-Version`. */
  readonly protocolVersionHeader: string | undefined;
  /** `Last-Event-ID`. */
  readonly lastEventId: string | undefined;
  /** The session `sessionId` names, or `undefined` when there is no id or no such live session. */
  readonly session: HttpSessionFacts | undefined;
  /** POST only: the body classified by `parseMessage`/`classifyValue` (a parse failure is an `invalid` kind). */
  readonly body: Inbound | undefined;
  /** The server's preferred way to answer requests. */
  readonly responseMode: ResponseMode;
  /** `Mcp-Method` (modern requests). */
  readonly mcpMethod?: string | undefined;
  /** `Mcp-Name` (modern `tools/call`, `prompts/get`, `resources/read`, `tasks/*`). */
  readonly mcpName?: string | undefined;
  /** Any header by lower-case name (the `Mcp-Param-*` headers of a modern `tools/call`). */
  readonly headers?: { header(name: string): string | undefined } | undefined;
  /** What the server serves; absent: the session-based revisions only (a modern message is refused, -32022). */
  readonly server?: HttpServerFacts | undefined;
  /** What the transport authenticated (`HttpInput.authInfo`), for the server's visibility rule. */
  readonly authInfo?: unknown;
}

/** A refusal: send `jsonrpcError` as the JSON body with `httpStatus` (plus `Allow` when given). */
export interface HttpRefusalDecision {
  readonly kind: 'refuse';
  readonly httpStatus: HttpStatusCode;
  readonly jsonrpcError: JsonRpcErrorResponse;
  /** The `Allow` header of a 405. */
  readonly allow?: string;
}

/** A new session-era session: create it, then dispatch `request`. */
export interface HttpInitializeDecision {
  readonly kind: 'initialize';
  readonly era: 'legacy';
  readonly request: JsonRpcRequest;
  readonly respondWith: ResponseShape;
}

/** A POST to a live session. */
export interface HttpMessageDecision {
  readonly kind: 'message';
  readonly era: 'legacy';
  readonly sessionId: string;
  /** What to hand to the session: the body, with invalid batch members removed (their replies are in `replies`). */
  readonly inbound: Inbound;
  /** The ids of the requests in the body, in order; each gets a response on this POST's stream. */
  readonly requestIds: readonly JsonRpcId[];
  /** Error replies for invalid batch members, answered by the transport itself. */
  readonly replies: readonly JsonRpcErrorResponse[];
  /** Whether the body was a JSON-RPC batch (a JSON response is then an array). */
  readonly batch: boolean;
  /** `accepted`: only notifications and responses, answer 202 with no body. */
  readonly respondWith: ResponseShape | 'accepted';
}

/** A GET: open the standalone SSE stream, or resume one with `Last-Event-ID`. */
export interface HttpListenDecision {
  readonly kind: 'listen';
  readonly era: 'legacy';
  readonly sessionId: string;
  readonly lastEventId: string | undefined;
}

/** A DELETE: end the session. */
export interface HttpTerminateDecision {
  readonly kind: 'terminate';
  readonly era: 'legacy';
  readonly sessionId: string;
}

/** The classifier's verdict. */
export type StreamableHttpDecision =
  | HttpRefusalDecision
  | HttpModernDecision
  | HttpInitializeDecision
  | HttpMessageDecision
  | HttpListenDecision
  | HttpTerminateDecision;
