/**
 * The request metadata headers a Streamable HTTP client sends with a 2026-07-28 message: `Mcp-Method`, `Mcp-Name`
 * and the `Mcp-Param-*` headers of a `tools/call` (from the tool's `x-mcp-header` annotations), each value encoded
 * with {@link encodeHeaderValue}. The mirror image of the server's check (`modernLadder.ts`).
 *
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata Headers", "Custom Headers from Tool Parameters"
 */
import type { JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { encodeHeaderValue, mcpNameMember, paramValueAt, PARAM_HEADER_PREFIX, type ParamHeader } from '../../../protocol/paramHeaders.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers of one modern-era message.
 * @param message - The request or notification being sent.
 * @param paramHeaders - The compiled annotations of the tool a `tools/call` names, when known.
 * @returns Header names as the spec writes them, values encoded (a `null` or absent argument has no header).
 * @example
 * modernHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sql', arguments: { region: 'eu' } } },
 *   [{ header: 'Region', field: 'mcp-param-region', path: ['region'], type: 'string' }])
 * // { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'sql', 'Mcp-Param-Region': 'eu' }
 */
export function modernHeaders(message: JsonRpcRequest | JsonRpcNotification, paramHeaders: readonly ParamHeader[] | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'Mcp-Method': message.method };
  const params = isRecord(message.params) ? message.params : undefined;
  const key = mcpNameMember(message.method);
  const name = key === undefined ? undefined : params?.[key];
  if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name);
  if (paramHeaders !== undefined && message.method === 'tools/call') {
    const args = params?.arguments;
    for (const spec of paramHeaders) {
      const value = paramValueAt(args, spec.path);
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        headers[`${PARAM_HEADER_PREFIX}${spec.header}`] = encodeHeaderValue(value);
      }
      // null, absent, or not a scalar: no header (the server checks the arguments against the schema).
    }
  }
  return headers;
}
