/**
 * @switchboard/mcp/server — define an MCP server once, serve it over any transport.
 * @packageDocumentation
 */
export * from './types.js';
export { McpServer, ToolError } from './mcpServer.js';
export { ResourceNotFoundError } from './errors.js';
