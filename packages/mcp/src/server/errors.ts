/**
 * Typed errors a resource handler can throw, and their wire form per revision.
 *
 * @see MCP 2025-11-25 server/resources.mdx "Error Handling"; MCP 2026-07-28 server/resources.mdx "Error Handling"
 */
import { ErrorCode, JsonRpcError } from '@switchboard/jsonrpc';
import { McpErrorCode } from '../protocol/errors.js';
import type { ProtocolRevision } from '../protocol/revisions.js';

/**
 * "This resource does not exist", thrown by a resource or resource template handler. The server answers
 * `resources/read` with the revision's resource-not-found error: -32002 through 2025-11-25, with
 * `data: { uri }` (MCP 2025-11-25 server/resources.mdx "Error Handling"). Any other exception from a resource
 * handler is answered -32603 "Internal error" with none of its text.
 *
 * @example
 * server.resourceTemplate('notes://{id}', { name: 'note' }, async (uri, { id }) => {
 *   const note = await db.note(String(id));
 *   if (note === undefined) throw new ResourceNotFoundError(uri);
 *   return { contents: [{ uri, mimeType: 'text/plain', text: note.body }] };
 * });
 */
export class ResourceNotFoundError extends Error {
  /** The URI that was not found; sent as `error.data.uri`. */
  readonly uri: string;

  /**
   * @param uri the URI that was not found (usually the one the handler was called with)
   * @param options `cause`: the underlying failure, kept for logs and never sent
   */
  constructor(uri: string, options?: { cause?: unknown }) {
    super(`Resource not found: ${JSON.stringify(uri)}`, options);
    this.name = 'ResourceNotFoundError';
    this.uri = uri;
  }
}

/**
 * The JSON-RPC code of "resource not found", by revision: -32002 through 2025-11-25; 2026-07-28 uses -32602
 * Invalid params (MCP 2026-07-28 server/resources.mdx "Error Handling").
 */
const RESOURCE_NOT_FOUND_CODE: Readonly<Record<ProtocolRevision, number>> = {
  '2024-11-05': McpErrorCode.ResourceNotFound,
  '2025-03-26': McpErrorCode.ResourceNotFound,
  '2025-06-18': McpErrorCode.ResourceNotFound,
  '2025-11-25': McpErrorCode.ResourceNotFound,
  '2026-07-28': ErrorCode.InvalidParams,
};

/** The wire error for "resource `uri` not found" in `revision` (-32002 when the revision is unknown). */
export function resourceNotFound(uri: string, revision: string | undefined): JsonRpcError {
  const table = RESOURCE_NOT_FOUND_CODE as Readonly<Record<string, number>>;
  const code = revision !== undefined && Object.hasOwn(table, revision) ? table[revision]! : McpErrorCode.ResourceNotFound;
  return new JsonRpcError(code, `Resource not found: ${JSON.stringify(uri)}`, { uri });
}
