/**
 * The params and results of the client's operations, as the facade takes and returns them (the wire shapes of
 * MCP 2025-11-25 schema.ts; extra keys the server sends are kept).
 */
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/types.js';

/** Params of the list methods. */
export interface ListParams {
  /** The `nextCursor` of the previous page; absent for the first page. */
  readonly cursor?: string;
}

/** One page of `tools/list`. */
export interface ListToolsResult { readonly tools: readonly Tool[]; readonly nextCursor?: string; readonly _meta?: Record<string, unknown> }
/** One page of `resources/list`. */
export interface ListResourcesResult { readonly resources: readonly Resource[]; readonly nextCursor?: string; readonly _meta?: Record<string, unknown> }
/** One page of `resources/templates/list`. */
export interface ListResourceTemplatesResult { readonly resourceTemplates: readonly ResourceTemplate[]; readonly nextCursor?: string; readonly _meta?: Record<string, unknown> }
/** One page of `prompts/list`. */
export interface ListPromptsResult { readonly prompts: readonly Prompt[]; readonly nextCursor?: string; readonly _meta?: Record<string, unknown> }

/** Params of `tools/call`. */
export interface CallToolParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
}

/** Params of `prompts/get` (argument values are strings, MCP 2025-11-25 server/prompts.mdx). */
export interface GetPromptParams {
  readonly name: string;
  readonly arguments?: Record<string, string>;
}

/** Params of `completion/complete` (MCP 2025-11-25 server/utilities/completion.mdx). */
export interface CompleteParams {
  readonly ref: { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string };
  readonly argument: { readonly name: string; readonly value: string };
  readonly context?: { readonly arguments?: Record<string, string> };
}
