/**
 * The two tools a server in tool-search mode lists instead of its catalog (`McpServerOptions.toolSearch`): a
 * search tool that returns matching tools' full definitions, and a call tool that calls one of them by name. Both
 * sides use these shapes: the server lists them, the doctor counts what such a list costs a model's context.
 *
 * This is Switchboard's convention, not a part of the MCP specification (FastMCP's search transforms list the
 * same pair under the same default names); to the protocol they are ordinary tools (MCP 2025-11-25
 * server/tools.mdx "Tool").
 */
import type { Tool, ToolAnnotations } from './types.js';

/** Default name of the search tool. */
export const DEFAULT_SEARCH_TOOL_NAME = 'search_tools';
/** Default name of the call tool. */
export const DEFAULT_CALL_TOOL_NAME = 'call_tool';
/** Longest `query` the search tool accepts, in UTF-16 units (a regular expression included). */
export const MAX_SEARCH_QUERY_LENGTH = 1000;

/**
 * The search tool's annotations: it reads the server's own catalog and changes nothing (MCP 2025-11-25 schema.ts
 * `ToolAnnotations`: `readOnlyHint` "If true, the tool does not modify its environment"; `openWorldHint` false:
 * "the tool's domain of interaction is closed").
 */
export const SEARCH_TOOL_ANNOTATIONS: ToolAnnotations = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

/** The names of the two tools ({@link toolSearchTools}). */
export interface ToolSearchNames {
  /** @default {@link DEFAULT_SEARCH_TOOL_NAME} */
  readonly search?: string;
  /** @default {@link DEFAULT_CALL_TOOL_NAME} */
  readonly call?: string;
}

/**
 * The search tool and the call tool as `tools/list` shows them (without the call tool's `annotations`, which
 * depend on the tools it reaches): `[search, call]`.
 *
 * - search: `{ query: string, limit?: integer ≥ 1, regex?: boolean }` → the matching tools, best first, as a JSON
 *   array of `tools/list` entries in one text block.
 * - call: `{ name: string, arguments?: object }` → what `tools/call` of that tool answers.
 */
export function toolSearchTools(names: ToolSearchNames = {}): readonly [Tool, Tool] {
  const search = names.search ?? DEFAULT_SEARCH_TOOL_NAME;
  const call = names.call ?? DEFAULT_CALL_TOOL_NAME;
  return [
    {
      name: search,
      description: `Finds this server's tools. Returns the best matches with their full definitions (name, description, inputSchema); call one with ${call}.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: MAX_SEARCH_QUERY_LENGTH, description: 'Words describing the task, e.g. "send an email"; with regex, a regular expression (RE2 syntax) matched against tool and argument names and descriptions' },
          limit: { type: 'integer', minimum: 1, description: 'Most tools returned' },
          regex: { type: 'boolean', description: 'Treat query as a case-insensitive regular expression' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: SEARCH_TOOL_ANNOTATIONS,
    },
    {
      name: call,
      description: `Calls a tool that ${search} found, by its name, with its arguments.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool name' },
          arguments: { type: 'object', description: "The tool's arguments, as its inputSchema describes them" },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  ];
}
