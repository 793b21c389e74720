/**
 * MCP error codes and the typed errors that carry them. Every typed error is a {@link McpError}: a JSON-RPC
 * wire error whose `code` and `data` are enough to rebuild it on the other side ({@link mcpErrorFromWire}).
 * {@link ClientRequestError} is the one local error here: what a server handler sees when the client answered
 * one of its requests with an error.
 *
 * @see MCP 2025-11-25 schema.ts (error codes); MCP 2026-07-28 basic/index.mdx "Error Codes"
 */
import { ErrorCode, JsonRpcError, type JsonRpcErrorObject } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { REVISION_FEATURES, isProtocolRevision } from './revisions.js';

/** JSON-RPC codes MCP uses, standard and MCP-defined. */
export const McpErrorCode = {
  ...ErrorCode,
  /** Resource not found on `resources/read` (≤ 2025-11-25; 2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /** Streamable HTTP session not found (SDK convention, TS SDK streamableHttp.ts; sent with HTTP 404). */
  SessionNotFound: -32001,
  /** Implementation-defined server error, used for transport-level refusals (bad headers, no session id). */
  ServerError: -32000,
  /** URL elicitation required (2025-11-25). */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: header/body mismatch. */
  HeaderMismatch: -32020,
  /** 2026-07-28: a client capability the request needs was not declared. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: unsupported protocol version. */
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * An MCP wire error: a {@link JsonRpcError} (so a handler that throws one answers with exactly this error
 * object) that the typed subclasses below extend. {@link mcpErrorFromWire} turns a received error object back
 * into the most specific class its `code` and `data` describe.
 *
 * @example
 * throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: "limit" must be positive', { limit: -1 });
 */
export class McpError extends JsonRpcError {
  /**
   * @param code the JSON-RPC error code (see {@link McpErrorCode})
   * @param message the wire message
   * @param data sent as `error.data` when defined
   */
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.name = 'McpError';
  }
}

/**
 * The client asked for a protocol revision this server does not serve: -32022 with
 * `data: { supported, requested }` (MCP 2026-07-28 basic/versioning.mdx "Version Negotiation").
 */
export class UnsupportedProtocolVersionError extends McpError {
  /** The revisions this server serves, oldest first; sent as `data.supported`. */
  readonly supported: readonly string[];
  /** The revision the client asked for; sent as `data.requested` (cut to 200 characters). */
  readonly requested: string;

  /** @param facts `supported`: the revisions served; `requested`: the one asked for */
  constructor(facts: { readonly supported: readonly string[]; readonly requested: string }) {
    const requested = echo(facts.requested);
    super(McpErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: "${requested}"`, { supported: [...facts.supported], requested });
    this.name = 'UnsupportedProtocolVersionError';
    this.supported = facts.supported;
    this.requested = requested;
  }
}

/**
 * "This resource does not exist", thrown by a resource or resource template handler. The server answers
 * `resources/read` with the revision's resource-not-found error ({@link resourceNotFoundCode}): -32002 through
 * 2025-11-25, -32602 from 2026-07-28, always with `data: { uri }` (MCP 2025-11-25 and 2026-07-28
 * server/resources.mdx "Error Handling"). Any other exception from a resource handler is answered -32603
 * "Internal error" with none of its text. Thrown from a tool handler it is a failure of the tool like any other.
 *
 * @example
 * server.resourceTemplate('notes://{id}', { name: 'note' }, async (uri, { id }) => {
 *   const note = await db.note(String(id));
 *   if (note === undefined) throw new ResourceNotFoundError(uri);
 *   return { contents: [{ uri, mimeType: 'text/plain', text: note.body }] };
 * });
 */
export class ResourceNotFoundError extends McpError {
  /** The URI that was not found; sent as `error.data.uri` (cut to 200 characters on the wire). */
  readonly uri: string;

  /**
   * @param uri the URI that was not found (usually the one the handler was called with)
   * @param options `cause`: the underlying failure, kept for logs and never sent
   */
  constructor(uri: string, options?: { cause?: unknown }) {
    super(McpErrorCode.ResourceNotFound, `Resource not found: ${JSON.stringify(uri)}`, { uri });
    this.name = 'ResourceNotFoundError';
    this.uri = uri;
    if (options !== undefined && 'cause' in options) this.cause = options.cause;
  }
}

/**
 * The JSON-RPC code of "resource not found" in `revision`, read from `REVISION_FEATURES`: -32002 through
 * 2025-11-25 (and for a revision this package does not know, or none); -32602 Invalid params from 2026-07-28
 * (MCP 2026-07-28 server/resources.mdx "Error Handling").
 */
export function resourceNotFoundCode(revision: string | undefined): number {
  return isProtocolRevision(revision) ? REVISION_FEATURES[revision].resourceNotFoundCode : McpErrorCode.ResourceNotFound;
}

/** The wire error for "resource `uri` not found" in `revision` (see {@link resourceNotFoundCode}). */
export function resourceNotFound(uri: string, revision: string | undefined): McpError {
  return new McpError(resourceNotFoundCode(revision), `Resource not found: "${echo(uri)}"`, { uri: echo(uri) });
}

/**
 * A handler asked the client for something it did not declare the capability for (`ctx.sample()` without
 * `sampling`, `ctx.elicit()` without `elicitation`, `ctx.listRoots()` without `roots`). Raised locally, before
 * anything is sent (MCP 2025-11-25 basic/lifecycle.mdx "Operation"). On the wire it is -32021 with
 * `data: { requiredCapabilities }` from 2026-07-28 (MCP 2026-07-28 basic/index.mdx "Error Codes"); in the
 * legacy era, escaping a tool handler, it is an `isError: true` tool result naming the capability.
 */
export class MissingClientCapabilityError extends McpError {
  /** The client capabilities that were needed, e.g. `{ sampling: {} }`; sent as `data.requiredCapabilities`. */
  readonly requiredCapabilities: Readonly<Record<string, unknown>>;

  /** @param requiredCapabilities the capabilities needed, each as the object a client would declare (`{}`) */
  constructor(requiredCapabilities: Readonly<Record<string, unknown>>) {
    // An extension is named by its id (`extensions: { "io.modelcontextprotocol/tasks": {} }`), a capability by its key.
    const names = Object.entries(requiredCapabilities)
      .flatMap(([name, value]) => (name === 'extensions' && isRecord(value) && Object.keys(value).length > 0 ? Object.keys(value).map((id) => `the "${echo(id)}" extension`) : [`"${echo(name)}"`]))
      .join(', ');
    super(McpErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${names}`, { requiredCapabilities });
    this.name = 'MissingClientCapabilityError';
    this.requiredCapabilities = requiredCapabilities;
  }
}

/**
 * The client answered a server → client request (`sampling/createMessage`, `elicitation/create`, `roots/list`)
 * with an error. A local error: handler code sees this instead of the received wire error, so rethrowing it
 * never relays the client's answer as the server's own (escaping a tool handler it is a generic tool failure).
 */
export class ClientRequestError extends Error {
  /** The JSON-RPC code the client answered with. */
  readonly code: number;
  /** The method of the request the client refused. */
  readonly method: string;
  /** The error the client sent, as a typed {@link McpError}. */
  declare readonly cause: McpError;

  /** @param facts `method`: the request sent; `error`: the error object the client answered with */
  constructor(facts: { readonly method: string; readonly error: JsonRpcErrorObject }) {
    const cause = mcpErrorFromWire(facts.error);
    super(`Client request failed: "${facts.method}" was answered with error ${cause.code}: "${echo(cause.message)}"`, { cause });
    this.name = 'ClientRequestError';
    this.code = cause.code;
    this.method = facts.method;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rebuilds the typed error a received error object describes: -32022 with `data.supported` (an array of
 * strings) → {@link UnsupportedProtocolVersionError}; -32002 with a string `data.uri` →
 * {@link ResourceNotFoundError}; -32021 with an object `data.requiredCapabilities` →
 * {@link MissingClientCapabilityError}; anything else → {@link McpError} with the same code, message and data.
 */
export function mcpErrorFromWire(error: JsonRpcErrorObject): McpError {
  const data: unknown = error.data;
  if (isRecord(data)) {
    if (error.code === McpErrorCode.UnsupportedProtocolVersion && Array.isArray(data.supported) && data.supported.every((v) => typeof v === 'string')) {
      return new UnsupportedProtocolVersionError({ supported: data.supported, requested: typeof data.requested === 'string' ? data.requested : '' });
    }
    if (error.code === McpErrorCode.ResourceNotFound && typeof data.uri === 'string') return new ResourceNotFoundError(data.uri);
    if (error.code === McpErrorCode.MissingRequiredClientCapability && isRecord(data.requiredCapabilities)) {
      return new MissingClientCapabilityError(data.requiredCapabilities);
    }
  }
  return new McpError(error.code, error.message, error.data);
}
