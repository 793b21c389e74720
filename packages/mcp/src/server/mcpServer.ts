/**
 * CONTRACT STUB: McpServer is being implemented; signatures are fixed.
 */
import type { Transport } from '@switchboard/jsonrpc';
import type { Implementation } from '../protocol/types.js';
import type {
  ConnectOptions, McpServerOptions, PromptDefinition, PromptHandler, ResourceDefinition, ResourceHandler,
  ResourceTemplateDefinition, ResourceTemplateHandler, ServerSession, ToolDefinition, ToolHandler,
} from './types.js';

/** A model-visible tool failure: becomes `{ isError: true, content: [{ type: "text", text: message }] }`. */
export declare class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown });
}

/**
 * An MCP server definition: tools, resources, resource templates, prompts and completions registered once
 * and compiled once, served to any number of sessions over any transport.
 */
export declare class McpServer {
  constructor(info: Implementation, options?: McpServerOptions);
  readonly info: Implementation;
  /** Registers a tool; returns a disposer. Sends `notifications/tools/list_changed` to live sessions. */
  tool<Args = Record<string, unknown>>(name: string, definition: ToolDefinition, handler: ToolHandler<Args>): () => void;
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): () => void;
  resourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: ResourceTemplateHandler): () => void;
  prompt(name: string, definition: PromptDefinition, handler: PromptHandler): () => void;
  /** Sends `notifications/resources/updated` to every session subscribed to `uri`. */
  notifyResourceUpdated(uri: string): Promise<void>;
  /** Serves one legacy-era session over `transport` (starts it). */
  connect(transport: Transport, options?: ConnectOptions): Promise<ServerSession>;
  /** Live sessions. */
  readonly sessions: ReadonlySet<ServerSession>;
  /** Closes every session. */
  close(): Promise<void>;
}
