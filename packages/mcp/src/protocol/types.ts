/**
 * MCP wire shapes used by the server and client (the subset this package reads or builds). Unknown extra
 * keys are tolerated everywhere the spec allows them.
 *
 * @see MCP 2025-11-25 schema.ts
 */

/** `_meta` object (MCP 2025-11-25 basic/index.mdx "_meta"). */
export type Meta = Record<string, unknown>;

/** Name and version of a client or server (MCP 2025-11-25 schema.ts `Implementation`). */
export interface Implementation {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly Icon[];
}

/** An icon (MCP 2025-11-25 schema.ts `Icon`). */
export interface Icon {
  readonly src: string;
  readonly mimeType?: string;
  readonly sizes?: readonly string[];
  readonly theme?: 'light' | 'dark';
}

/** Client capabilities (MCP 2025-11-25 schema.ts `ClientCapabilities`). */
export interface ClientCapabilities {
  readonly roots?: { readonly listChanged?: boolean };
  readonly sampling?: { readonly context?: object; readonly tools?: object };
  readonly elicitation?: { readonly form?: { readonly applyDefaults?: boolean }; readonly url?: object };
  readonly experimental?: Record<string, object>;
  readonly [key: string]: unknown;
}

/** Server capabilities (MCP 2025-11-25 schema.ts `ServerCapabilities`). */
export interface ServerCapabilities {
  readonly logging?: object;
  readonly completions?: object;
  readonly prompts?: { readonly listChanged?: boolean };
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean };
  readonly tools?: { readonly listChanged?: boolean };
  readonly experimental?: Record<string, object>;
  readonly [key: string]: unknown;
}

/** Logging levels, RFC 5424 order (MCP 2025-11-25 schema.ts `LoggingLevel`). */
export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** One of {@link LOGGING_LEVELS}. */
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/** Content annotations (MCP 2025-11-25 schema.ts `Annotations`). */
export interface Annotations {
  readonly audience?: readonly ('user' | 'assistant')[];
  readonly priority?: number;
  readonly lastModified?: string;
}

/** Text content block. */
export interface TextContent { readonly type: 'text'; readonly text: string; readonly annotations?: Annotations; readonly _meta?: Meta }
/** Image content block (base64 `data`). */
export interface ImageContent { readonly type: 'image'; readonly data: string; readonly mimeType: string; readonly annotations?: Annotations; readonly _meta?: Meta }
/** Audio content block (base64 `data`; 2025-03-26+). */
export interface AudioContent { readonly type: 'audio'; readonly data: string; readonly mimeType: string; readonly annotations?: Annotations; readonly _meta?: Meta }
/** A link to a resource (2025-06-18+). */
export interface ResourceLink { readonly type: 'resource_link'; readonly uri: string; readonly name: string; readonly title?: string; readonly description?: string; readonly mimeType?: string; readonly size?: number; readonly annotations?: Annotations; readonly _meta?: Meta }
/** Resource contents: text or base64 blob (MCP 2025-11-25 schema.ts `TextResourceContents` / `BlobResourceContents`). */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string; readonly _meta?: Meta }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string; readonly _meta?: Meta };
/** An embedded resource content block. */
export interface EmbeddedResource { readonly type: 'resource'; readonly resource: ResourceContents; readonly annotations?: Annotations; readonly _meta?: Meta }
/** Any content block of a tool result or prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Result of `tools/call` (MCP 2025-11-25 schema.ts `CallToolResult`). `content` is required even with `structuredContent`. */
export interface CallToolResult {
  readonly content: readonly ContentBlock[];
  /**
   * The tool's structured output: an object up to 2025-11-25; any JSON value from 2026-07-28 (MCP 2026-07-28
   * server/tools.mdx "Structured Content").
   */
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly _meta?: Meta;
}

/** Tool annotations (hints, 2025-03-26+). */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** A tool as listed by `tools/list` (MCP 2025-11-25 schema.ts `Tool`). */
export interface Tool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
}

/** A resource as listed by `resources/list` (MCP 2025-11-25 schema.ts `Resource`). */
export interface Resource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly annotations?: Annotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
}

/** A resource template (RFC 6570 `uriTemplate`; MCP 2025-11-25 schema.ts `ResourceTemplate`). */
export interface ResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly annotations?: Annotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
}

/** Result of `resources/read`. */
export interface ReadResourceResult { readonly contents: readonly ResourceContents[]; readonly _meta?: Meta }

/** A prompt argument declaration. */
export interface PromptArgument { readonly name: string; readonly title?: string; readonly description?: string; readonly required?: boolean }

/** A prompt as listed by `prompts/list`. */
export interface Prompt {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
}

/** One message of a prompt. */
export interface PromptMessage { readonly role: 'user' | 'assistant'; readonly content: ContentBlock }

/** Result of `prompts/get`. */
export interface GetPromptResult { readonly description?: string; readonly messages: readonly PromptMessage[]; readonly _meta?: Meta }

/** Result of `completion/complete` (at most 100 values). */
export interface CompleteResult {
  readonly completion: { readonly values: readonly string[]; readonly total?: number; readonly hasMore?: boolean };
  readonly _meta?: Meta;
}

/** Sampling message (MCP 2025-11-25 schema.ts `SamplingMessage`). */
export interface SamplingMessage { readonly role: 'user' | 'assistant'; readonly content: TextContent | ImageContent | AudioContent | Record<string, unknown> }

/** Params of `sampling/createMessage` (server → client). */
export interface CreateMessageParams {
  readonly messages: readonly SamplingMessage[];
  readonly maxTokens: number;
  readonly systemPrompt?: string;
  readonly includeContext?: 'none' | 'thisServer' | 'allServers';
  readonly temperature?: number;
  readonly stopSequences?: readonly string[];
  readonly modelPreferences?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly _meta?: Meta;
  readonly [key: string]: unknown;
}

/** Result of `sampling/createMessage`. */
export interface CreateMessageResult {
  readonly role: 'user' | 'assistant';
  readonly content: TextContent | ImageContent | AudioContent | Record<string, unknown>;
  readonly model: string;
  readonly stopReason?: string;
  readonly _meta?: Meta;
  readonly [key: string]: unknown;
}

/** Params of `elicitation/create` (form mode; 2025-06-18+). */
export interface ElicitParams {
  readonly mode?: 'form' | 'url';
  readonly message: string;
  readonly requestedSchema?: Record<string, unknown>;
  readonly url?: string;
  readonly elicitationId?: string;
  readonly _meta?: Meta;
  readonly [key: string]: unknown;
}

/** Result of `elicitation/create`. */
export interface ElicitResult {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, unknown>;
  readonly _meta?: Meta;
}

/** A root (MCP 2025-11-25 schema.ts `Root`). */
export interface Root { readonly uri: string; readonly name?: string; readonly _meta?: Meta }

/** Result of `roots/list`. */
export interface ListRootsResult { readonly roots: readonly Root[]; readonly _meta?: Meta }

/** Result of `initialize` (MCP 2025-11-25 schema.ts `InitializeResult`). */
export interface InitializeResult {
  readonly protocolVersion: string;
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  readonly _meta?: Meta;
}
