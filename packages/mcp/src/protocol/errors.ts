/**
 * MCP error codes and their HTTP statuses, as `as const` tables rather than switch statements.
 *
 * @see MCP 2025-11-25 schema.ts (error codes), basic/transports.mdx; MCP 2026-07-28 basic/index.mdx "Error Codes"
 */
import { ErrorCode, JsonRpcError } from '@switchboard/jsonrpc';

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

/** Re-exported for convenience: MCP's wire errors are JSON-RPC errors. */
export { JsonRpcError as McpError };
