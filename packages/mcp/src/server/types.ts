/**
 * Public definition types of an MCP server: what an author registers, and the context a handler receives.
 */
import type { JsonRpcId, Logger, Transport } from '@switchboard/jsonrpc';
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  GetPromptResult,
  Icon,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Meta,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  ToolAnnotations,
} from '../protocol/types.js';

/** A JSON Schema (2020-12 by default, MCP 2025-11-25 SEP-1613), as a plain object. */
export type JsonSchema = Record<string, unknown>;

/**
 * A Standard Schema v1 object (zod 4, valibot, arktype…). When it also implements Standard JSON Schema
 * (`~standard.jsonSchema.input(...)`, zod ≥ 4.2) its JSON Schema is advertised in `tools/list`.
 * @see https://standardschema.dev
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) =>
      | { readonly value: Output; readonly issues?: undefined }
      | { readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[] }
      | Promise<{ readonly value: Output; readonly issues?: undefined } | { readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[] }>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

/** Either a JSON Schema object or a Standard Schema. */
export type SchemaLike = JsonSchema | StandardSchemaV1;

/** Options of a server → client request issued from a handler. */
export interface ClientRequestOptions {
  /** @default 60_000 */
  readonly timeoutMs?: number;
  /** Aborts the request (sends `notifications/cancelled`). Defaults to the handler's own signal. */
  readonly signal?: AbortSignal;
}

/**
 * What a handler receives besides its arguments.
 */
export interface RequestContext {
  /** Aborted when the client cancels the request (`notifications/cancelled`) or the session closes. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request being handled. */
  readonly requestId: JsonRpcId;
  /** `params._meta` of the request, if any. */
  readonly requestMeta: Meta | undefined;
  /** The negotiated protocol revision. */
  readonly protocolVersion: string;
  /** The capabilities the client declared. */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's `clientInfo`, if known. */
  readonly clientInfo: Implementation | undefined;
  /** Authentication facts from the transport, untouched. */
  readonly authInfo: unknown;
  /** The session (legacy era); `undefined` on stateless requests. */
  readonly session: ServerSession | undefined;
  /**
   * Reports progress with `notifications/progress` when the request carried `_meta.progressToken`;
   * otherwise does nothing. `progress` should increase with each call (MCP 2025-11-25 basic/utilities/progress.mdx).
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends `notifications/message` (MCP 2025-11-25 server/utilities/logging.mdx) when `level` is at or above
   * the level the client set with `logging/setLevel` (no level set: everything is sent).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client to sample an LLM (`sampling/createMessage`).
   * @throws JsonRpcError -32601 when the client did not declare the `sampling` capability; the client's error otherwise
   * @throws JsonRpcLocalError `request_timeout`, `request_aborted`, `connection_closed`
   */
  sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult>;
  /**
   * Asks the client for user input (`elicitation/create`, 2025-06-18+).
   * @throws JsonRpcError -32601 when the client did not declare `elicitation`
   * @throws JsonRpcLocalError as for {@link RequestContext.sample}
   */
  elicit(params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult>;
  /** Asks the client for its roots (`roots/list`). @throws as for {@link RequestContext.sample} */
  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult>;
}

/** A tool registration. */
export interface ToolDefinition {
  readonly title?: string;
  readonly description?: string;
  /** Arguments schema. A JSON Schema with `type: "object"` root, or a Standard Schema. @default `{ type: "object" }` */
  readonly inputSchema?: SchemaLike;
  /** Schema of `structuredContent` (object root; 2025-06-18+). */
  readonly outputSchema?: SchemaLike;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
}

/**
 * A tool handler. Return a {@link CallToolResult}. Throw {@link ToolError} for a failure the model should see
 * (`isError: true` with its message); any other exception is logged and answered with a generic
 * `isError: true` result that carries none of its text.
 */
export type ToolHandler<Args = Record<string, unknown>> = (
  args: Args,
  ctx: RequestContext,
) => CallToolResult | Promise<CallToolResult>;

/** A static resource registration: the `resources/list` entry without its `uri` (given separately). */
export type ResourceDefinition = Omit<Resource, 'uri'>;

/** Reads a static resource. */
export type ResourceHandler = (uri: string, ctx: RequestContext) => ReadResourceResult | Promise<ReadResourceResult>;

/** Completes one argument value: returns candidate values (the server caps them at 100). */
export type CompletionHandler = (
  value: string,
  context: { readonly arguments: Readonly<Record<string, string>> },
) => readonly string[] | Promise<readonly string[]>;

/** A resource template registration (RFC 6570 level 1–4 expressions of the forms the matcher supports). */
export interface ResourceTemplateDefinition extends Omit<ResourceTemplate, 'uriTemplate'> {
  /** Completions for template variables, by variable name (`completion/complete` with `ref/resource`). */
  readonly complete?: Readonly<Record<string, CompletionHandler>>;
}

/** Reads a resource matched by a template; `variables` are the decoded template variables. */
export type ResourceTemplateHandler = (
  uri: string,
  variables: Readonly<Record<string, string | readonly string[]>>,
  ctx: RequestContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

/** A prompt registration. */
export interface PromptDefinition {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
  /** Completions for arguments, by argument name (`completion/complete` with `ref/prompt`). */
  readonly complete?: Readonly<Record<string, CompletionHandler>>;
}

/** Builds a prompt; `args` are the string arguments (required ones are checked before the call: -32602). */
export type PromptHandler = (
  args: Readonly<Record<string, string>>,
  ctx: RequestContext,
) => GetPromptResult | Promise<GetPromptResult>;

/** {@link McpServer} options. */
export interface McpServerOptions {
  /** Free-text instructions returned by `initialize`. */
  readonly instructions?: string;
  /**
   * Extra capabilities to advertise, merged over those derived from what is registered (tools, resources,
   * prompts, completions when any completion handler exists, logging always).
   */
  readonly capabilities?: ServerCapabilities;
  /** Where handler failures and protocol anomalies are reported. @default a logger writing to stderr */
  readonly logger?: Logger;
  /** Page size of the list methods (`tools/list` …). @default 100 */
  readonly pageSize?: number;
  /** Inbound requests handled at once per session. @default 64 */
  readonly maxConcurrentRequestsPerSession?: number;
  /**
   * Check the members of handler results before sending them: content blocks (type and required fields),
   * prompt messages, resource contents (`uri` and `text` or `blob`). A bad result is logged (naming the tool,
   * prompt or resource and the problem) and answered -32603 "Internal error". The outer shape (an object with
   * its `content` / `messages` / `contents` array) and `outputSchema` conformance are checked always.
   * @default true, except when `NODE_ENV` is `"production"`
   */
  readonly checkResults?: boolean;
}

/** Options of {@link McpServer.connect}. */
export interface ConnectOptions {
  /** The session id (Streamable HTTP `Mcp-Session-Id`); stdio sessions have none. */
  readonly sessionId?: string;
  /** Authentication facts, exposed to handlers as `ctx.authInfo`. */
  readonly authInfo?: unknown;
  /** Whether the transport can receive JSON-RPC batches at all (HTTP POST bodies: yes; stdio: yes). @default true */
  readonly batches?: boolean;
}

/** One legacy-era session: a connection that went through (or is going through) `initialize`. */
export interface ServerSession {
  /** The session id given to {@link McpServer.connect}, if any. */
  readonly id: string | undefined;
  /** The negotiated revision; `undefined` before `initialize`. */
  readonly protocolVersion: string | undefined;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  /** Whether `notifications/initialized` arrived. */
  readonly initialized: boolean;
  /** The transport this session runs on. */
  readonly transport: Transport;
  /** Sends a notification to the client. @throws JsonRpcLocalError `connection_closed` */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Sends a request to the client and awaits its result. @throws JsonRpcError, JsonRpcLocalError */
  request<T = unknown>(method: string, params?: Record<string, unknown>, options?: ClientRequestOptions): Promise<T>;
  /**
   * Resolves once no inbound request is being handled, or after `timeoutMs` (whichever comes first), so a
   * host can let in-flight answers out before it closes the session.
   */
  drain(timeoutMs: number): Promise<void>;
  /**
   * Tells the session that the client can send nothing more (stdio: stdin reached end-of-file): pending
   * server → client requests (`ctx.sample`, `ctx.elicit`, …) reject at once with `JsonRpcLocalError`
   * `connection_closed`, so their handlers can still answer before the session closes.
   */
  endOfInput(): void;
  /** Closes the session and its transport; pending requests reject with `JsonRpcLocalError` `connection_closed`. */
  close(): Promise<void>;
  /** Fired once when the session closes. */
  onclose: (() => void) | undefined;
}
