/**
 * The names of the MCP semantic conventions this package emits, and the rules that pick them: span names, the
 * target of a method, `error.type`, and the advised histogram buckets.
 *
 * Source: OpenTelemetry GenAI semantic conventions, `docs/gen-ai/mcp.md` (status Development) of
 * open-telemetry/semantic-conventions-genai as of 2026-08-21, which builds on core semantic conventions v1.41.1 for
 * `error.*`, `rpc.*`, `network.*` and `server.*` ({@link SEMCONV_VERSION}).
 */

/** The core semantic-conventions version the implemented MCP conventions (status Development) refer to. */
export const SEMCONV_VERSION = '1.41.1';

/** Attribute names (mcp.md "Attributes"; core registry for the reused ones). */
export const ATTR = {
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  operationName: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  requestId: 'jsonrpc.request.id',
  statusCode: 'rpc.response.status_code',
  errorType: 'error.type',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** The four histograms (mcp.md "Metrics"); unit seconds. */
export const METRIC = {
  clientOperation: 'mcp.client.operation.duration',
  serverOperation: 'mcp.server.operation.duration',
  clientSession: 'mcp.client.session.duration',
  serverSession: 'mcp.server.session.duration',
} as const;

/** The advised bucket boundaries of every MCP duration histogram, in seconds (mcp.md "Metrics"). */
export const DURATION_BUCKETS_S: readonly number[] = Object.freeze([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);

/** `error.type` of a `CallToolResult` with `isError: true` (mcp.md "Recording errors"). */
export const TOOL_ERROR = 'tool_error';

/** `error.type` when nothing names the failure better (core registry `error.type`). */
export const OTHER_ERROR = '_OTHER';

/**
 * The JSON-RPC codes a server does not count as errors (mcp.md: parse error, invalid request, method not found,
 * invalid params and resource not found are the client's doing): a server span keeps status UNSET and gets no
 * `error.type` for them; `rpc.response.status_code` still names the code.
 */
export const SERVER_NON_ERROR_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32002]);

/** `gen_ai.operation.name` of `tools/call` (mcp.md: `execute_tool`). */
export const EXECUTE_TOOL = 'execute_tool';

/** What a request names and under which attribute: the tool of `tools/call`, the prompt of `prompts/get`. */
export function targetAttribute(method: string): typeof ATTR.toolName | typeof ATTR.promptName | undefined {
  if (method === 'tools/call') return ATTR.toolName;
  if (method === 'prompts/get') return ATTR.promptName;
  return undefined;
}

/** `params.name` when it is a string (the tool or prompt a request names). */
export function nameOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const name = (params as { readonly name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** Whether a result is a `CallToolResult` with `isError: true` (MCP 2025-11-25 server/tools.mdx "Error Handling"). */
export function isToolError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { readonly isError?: unknown }).isError === true;
}

/** The JSON-RPC code of a thrown or received error, when it has one (`McpError`, `JsonRpcError`). */
export function jsonRpcCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { readonly code?: unknown }).code;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}
