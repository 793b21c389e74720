/**
 * Public definition types of an MCP server: what an author registers, and the context a handler receives.
 */
import type { Cancellation, JsonRpcId, Transport } from '@switchboard/jsonrpc';
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
  ToolAnnotations,
} from '../protocol/types.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { CachePolicy } from './cachePolicy.js';

/** A JSON Schema (2020-12 by default, MCP 2025-11-25 SEP-1613), as a plain object. */
export type JsonSchema = Record<string, unknown>;

/**
 * A Standard Schema v1 object (zod 4, valibot, arktype…): the official `@standard-schema/spec` 1.1 type,
 * re-exported under the name this package has always used, with its namespace (`StandardSchemaV1.InferOutput`,
 * `StandardSchemaV1.Issue`…). When the object also implements Standard JSON Schema
 * (`~standard.jsonSchema.input(...)`, zod ≥ 4.2) its JSON Schema is advertised in `tools/list`.
 * @see https://standardschema.dev
 */
export type { StandardSchemaV1 } from '@standard-schema/spec';

/** Either a JSON Schema object or a Standard Schema. */
export type SchemaLike = JsonSchema | StandardSchemaV1;

/** Flattens an intersection into one object type (for readable hovers and exact type comparisons). */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The value type a schema describes, as a handler sees it after validation:
 * - a Standard Schema: its *output* type (`StandardSchemaV1.InferOutput`: after transforms and defaults), or
 *   `Fallback` when that is `unknown` (a schema typed only as `StandardSchemaV1`);
 * - a JSON Schema whose root is literally `type: "object"` (written `as const`, or inline in the call, where
 *   the `const` type parameters of {@link McpServer.tool} keep it literal): {@link JsonSchemaType};
 * - any other JSON Schema (e.g. a `Record<string, unknown>`, or an object whose `type` widened to `string`): `Fallback`.
 */
export type InferSchema<S, Fallback = Record<string, unknown>> = S extends StandardSchemaV1
  ? unknown extends StandardSchemaV1.InferOutput<S>
    ? Fallback
    : StandardSchemaV1.InferOutput<S>
  : S extends { readonly type: 'object' }
    ? JsonSchemaType<S>
    : Fallback;

/**
 * The type of the values a literal JSON Schema accepts, for the keywords that shape a type (checked in this
 * order): `const` (its value), `enum` (the union of its values), `anyOf` / `oneOf` (the union of the branches),
 * `type` (one name or an array of names: `string`, `number` and `integer` → `number`, `boolean`, `null`, `array`
 * with `items` → `T[]`, `object` with `properties` and `required` → required and optional properties, plus
 * `additionalProperties`: `false` → none, a schema → an index signature of its type, absent or `true` → an index
 * signature of `unknown`, since the validator accepts extra properties). Anything else (`$ref`, `allOf`,
 * `not`, tuple `items`…) and anything nested deeper than 10 levels is `unknown`: the inference is bounded, so it
 * never reports "excessively deep" and costs little to check.
 */
export type JsonSchemaType<S, Depth extends readonly unknown[] = []> = Depth['length'] extends 10
  ? unknown
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly anyOf: infer L extends readonly unknown[] }
        ? JsonSchemaBranches<L, Depth>
        : S extends { readonly oneOf: infer L extends readonly unknown[] }
          ? JsonSchemaBranches<L, Depth>
          : S extends { readonly type: infer T }
            ? JsonTypeName<S, T extends readonly unknown[] ? T[number] : T, [...Depth, 0]>
            : unknown;

type JsonSchemaBranches<L extends readonly unknown[], Depth extends readonly unknown[]> = {
  [I in keyof L]: JsonSchemaType<L[I], [...Depth, 0]>;
}[number];

/** One `type` name (distributes over a union of names). */
type JsonTypeName<S, T, Depth extends readonly unknown[]> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I } ? (I extends readonly unknown[] ? unknown[] : JsonSchemaType<I, Depth>[]) : unknown[]
          : T extends 'object'
            ? JsonObjectType<S, Depth>
            : unknown;

type JsonObjectType<S, Depth extends readonly unknown[]> = Simplify<
  (S extends { readonly properties: infer P }
    ? {
        -readonly [K in keyof P as K extends JsonRequired<S> ? K : never]: JsonSchemaType<P[K], Depth>;
      } & {
        -readonly [K in keyof P as K extends JsonRequired<S> ? never : K]?: JsonSchemaType<P[K], Depth>;
      }
    : unknown) &
    (S extends { readonly additionalProperties: false }
      ? unknown
      : S extends { readonly additionalProperties: infer A extends object }
        ? { [key: string]: JsonSchemaType<A, Depth> | JsonPropertyValues<S, Depth> }
        : { [key: string]: unknown })
>;

type JsonRequired<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

/** The union of the declared property types (an index signature must admit them). */
type JsonPropertyValues<S, Depth extends readonly unknown[]> = S extends { readonly properties: infer P }
  ? { [K in keyof P]: JsonSchemaType<P[K], Depth> }[keyof P]
  : never;

/**
 * The arguments a tool handler receives for the `inputSchema` type `S` (see {@link InferSchema}). No schema
 * (`undefined`: the default `{ type: "object" }`) gives `Record<string, never>`: no known argument; a schema
 * that may or may not be there (a definition typed as plain {@link ToolDefinition}) gives `Record<string, unknown>`.
 */
export type ToolArgs<S> = [S] extends [undefined]
  ? Record<string, never>
  : undefined extends S
    ? Record<string, unknown>
    : InferSchema<S>;

/**
 * What a tool handler returns for the `outputSchema` type `S`. Without an output schema (or when `S` may be
 * `undefined`, as in a plain {@link ToolDefinition}): any {@link CallToolResult}. With one (MCP 2025-06-18+ server/tools.mdx "Output Schema"): either a success whose
 * `structuredContent` is required and has the schema's type ({@link InferSchema}), or an `isError: true` result,
 * which the server does not check against the schema.
 */
export type ToolResult<S> = undefined extends S
  ? CallToolResult
  :
      | (Omit<CallToolResult, 'structuredContent' | 'isError'> & {
          readonly structuredContent: InferSchema<S>;
          readonly isError?: false | undefined;
        })
      | (CallToolResult & { readonly isError: true });

/** Options of a server → client request issued from a handler. */
export interface ClientRequestOptions {
  /** Legacy era: milliseconds to wait for the client's answer. @default 60_000 */
  readonly timeoutMs?: number;
  /** Legacy era: aborts the request (sends `notifications/cancelled`). Defaults to the handler's own signal. */
  readonly signal?: AbortSignal;
  /**
   * Modern era: the input request's key in `inputRequests` (and of its answer in the retry's `inputResponses`).
   * Keys are unique within a request. @default `elicitation-<n>`, `sampling-<n>` or `roots-<n>`, by call order
   */
  readonly key?: string;
}

/**
 * What a handler receives besides its arguments.
 */
export interface RequestContext {
  /** Aborted when the client cancels the request (`notifications/cancelled`) or the session closes. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation as {@link signal}, heard through plain listeners (`onCancel`) instead of an
   * `AbortSignal`: on a session, reading it makes no signal (on Node 20 a signal with a listener costs several
   * microseconds per request). Give it as a client call's `cancellation` to cancel an upstream call with this
   * request, as the gateway's proxy does.
   */
  readonly cancellation: Cancellation;
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
   * The id of the task this call runs as: a task-capable tool ({@link ToolDefinition.task}) called as a task
   * (2025-11-25 `params.task`; 2026-07-28 a request that declared the tasks extension). With `afterMs`, the id is
   * reserved while the call still runs on its request. `undefined` for a plain call.
   * @see MCP 2025-11-25 basic/utilities/tasks.mdx; the extension `io.modelcontextprotocol/tasks` "Task Creation"
   */
  readonly taskId: string | undefined;
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
   * The handler's own progress across the rounds of a modern-era multi round-trip request (any JSON value):
   * set it before an input request is asked, read it on the retry. Carried in the signed `requestState`, so any
   * instance with the same keys reads it back; `undefined` on a first round. Only on a modern-era `tools/call`,
   * `prompts/get` or `resources/read` (setting it elsewhere throws `TypeError`).
   * @see MCP 2026-07-28 basic/patterns/mrtr.mdx
   */
  requestState: unknown;
  /**
   * Asks the client to sample an LLM (`sampling/createMessage`). On a session (legacy era) it is a request to the
   * client. On a modern-era request (2026-07-28) it is an input request: the call resolves at once when the retry
   * carries its answer, else the request is answered `input_required` and the handler runs again from the start
   * on the retry, so work done before the first such call must be idempotent (MCP 2026-07-28
   * basic/patterns/mrtr.mdx). The same handler serves both eras.
   * @throws MissingClientCapabilityError (-32021, `requiredCapabilities`) when the client did not declare the
   *   `sampling` capability: nothing is sent
   * @throws ClientRequestError when the client answered with an error (`.cause` is that error, `.code` its code)
   * @throws JsonRpcLocalError `request_timeout`, `request_aborted`, `connection_closed`
   */
  sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult>;
  /**
   * Asks the client for user input (`elicitation/create`, 2025-06-18+): a request on a session, an input request
   * on a modern-era request (as for {@link RequestContext.sample}).
   * @throws MissingClientCapabilityError when the client did not declare `elicitation`
   * @throws ClientRequestError when the client answered with an error
   * @throws JsonRpcLocalError as for {@link RequestContext.sample}
   */
  elicit(params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult>;
  /** Asks the client for its roots (`roots/list`), in either era as {@link RequestContext.sample} does. @throws as for {@link RequestContext.sample} */
  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult>;
}

/**
 * A tool registration. `In` and `Out` are the types of its two schemas, inferred by {@link McpServer.tool}:
 * they type the handler's arguments ({@link ToolArgs}) and result ({@link ToolResult}).
 */
export interface ToolDefinition<In extends SchemaLike | undefined = SchemaLike | undefined, Out extends SchemaLike | undefined = SchemaLike | undefined> {
  readonly title?: string;
  readonly description?: string;
  /** Arguments schema. A JSON Schema with `type: "object"` root, or a Standard Schema. @default `{ type: "object" }` */
  readonly inputSchema?: In;
  /** Schema of `structuredContent` (object root; 2025-06-18+). */
  readonly outputSchema?: Out;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
  /**
   * Makes the tool task-capable (`true`, or {@link ToolTaskOptions}); the same handler runs with or without a
   * task. 2025-11-25: the client may call it with `params.task` and then polls `tasks/get` / `tasks/result`
   * (`tools/list` shows `execution.taskSupport`). 2026-07-28: a client that declared the
   * `io.modelcontextprotocol/tasks` extension gets a task (`resultType: "task"`) and polls `tasks/get`.
   * @default not task-capable
   */
  readonly task?: boolean | ToolTaskOptions;
  /**
   * The OAuth scopes a caller needs to use the tool (every one of them). Where the transport authenticates the
   * caller (`ctx.authInfo` an object: the HTTP handler's `auth` option, or authentication facts set upstream), a
   * caller lacking one is refused before dispatch over HTTP (403 `WWW-Authenticate: Bearer
   * error="insufficient_scope", scope="<these scopes>"`, so the client can step up), and the tool is hidden from
   * that caller everywhere else (`tools/list`, tool search, `tools/call` answer it as unknown), like a tool
   * `McpServerOptions.visibility` hides. A caller with no authentication facts (stdio, in memory) is not held
   * to scopes. Not part of the `tools/list` entry.
   * @default none
   * @see MCP 2026-07-28 basic/authorization/index.mdx "Scope Challenge Handling"
   */
  readonly scopes?: readonly string[];
}

/** How a task-capable tool runs as a task (see {@link ToolDefinition.task}). */
export interface ToolTaskOptions {
  /**
   * The tool runs only as a task: 2025-11-25 answers a call without `params.task` with -32601 (MCP 2025-11-25
   * basic/utilities/tasks.mdx "Tool-Level Negotiation"); 2026-07-28 answers a request that did not declare the
   * extension with -32021 and `data.requiredCapabilities.extensions`. Earlier revisions call it plainly.
   * @default false
   */
  readonly required?: boolean;
  /** Milliseconds a task of this tool is kept from its creation (capped by `McpServerOptions.tasks.maxTtlMs`). @default `McpServerOptions.tasks.defaultTtlMs` */
  readonly ttlMs?: number;
  /** The polling interval suggested to clients, in milliseconds. @default `McpServerOptions.tasks.pollIntervalMs` */
  readonly pollIntervalMs?: number;
  /**
   * 2026-07-28: milliseconds the call runs on its request before it becomes a task. Within them the answer goes
   * on the request as usual (a fast result, or `input_required` for a multi round-trip request: input gathered
   * before the task exists); 0 makes the task at once, before the handler runs. 2025-11-25 always makes the task
   * at once (the client asked for one).
   * @default 0
   */
  readonly afterMs?: number;
}

/**
 * A tool handler: `args` are the validated arguments (typed from the `inputSchema` by {@link ToolArgs}); it
 * returns a {@link CallToolResult} (typed from the `outputSchema` by {@link ToolResult}). Throw
 * {@link ToolError} for a failure the model should see (`isError: true` with its message); any other exception
 * is logged and answered with a generic `isError: true` result that carries none of its text.
 */
export type ToolHandler<Args = Record<string, unknown>, Result = CallToolResult> = (
  args: Args,
  ctx: RequestContext,
) => Result | Promise<Result>;

/** A static resource registration: the `resources/list` entry without its `uri` (given separately). */
export interface ResourceDefinition extends Omit<Resource, 'uri'> {
  /**
   * Modern era: the cache hint of this resource's `resources/read` results, over `McpServerOptions.cache` and
   * `cacheByMethod` (MCP 2026-07-28 server/utilities/caching.mdx). Not part of the `resources/list` entry.
   */
  readonly cache?: CachePolicy;
}

/** Reads a static resource. */
export type ResourceHandler = (uri: string, ctx: RequestContext) => ReadResourceResult | Promise<ReadResourceResult>;

/** Completes one argument value: returns candidate values (the server caps them at 100). */
export type CompletionHandler = (
  value: string,
  context: { readonly arguments: Readonly<Record<string, string>> },
) => readonly string[] | Promise<readonly string[]>;

/** A resource template registration (RFC 6570 level 1–4 expressions of the forms the matcher supports). */
export interface ResourceTemplateDefinition extends Omit<ResourceTemplate, 'uriTemplate'> {
  /** Modern era: the cache hint of the `resources/read` results of matching URIs (as {@link ResourceDefinition.cache}). */
  readonly cache?: CachePolicy;
  /** Completions for template variables, by variable name (`completion/complete` with `ref/resource`). */
  readonly complete?: Readonly<Record<string, CompletionHandler>>;
}

/**
 * The variables of the URI template `T`, as the matcher returns them (see {@link McpServer.resourceTemplate}):
 * - `{x}`, `{+x}`, `{#x}`, `{.x}`, `{/x}`, `{;x}` (and each name of a list such as `{x,y}`): `x: string`;
 * - the explode modifier on any of those (`{/segments*}`, `{x*}`): `readonly string[]` (empty when nothing matched);
 * - query expressions `{?a,b}` and `{&c}`: optional `string` (absent when the URI lacks the parameter);
 * - a prefix modifier (`{x:3}`) is dropped from the name.
 * A template without expressions gives `Record<string, never>`; one typed only as `string` gives `Record<string, string | readonly string[]>`.
 */
export type TemplateVariables<T extends string> = string extends T
  ? Record<string, string | readonly string[]>
  : T extends `${string}{${string}}${string}`
    ? Simplify<TemplateParts<T>>
    : Record<string, never>;

/** Splits a template into its `{…}` expressions, intersecting their variables. */
type TemplateParts<T extends string> = T extends `${string}{${infer Expr}}${infer Rest}`
  ? ExpressionVariables<Expr> & TemplateParts<Rest>
  : unknown;

/** The variables of one expression body (the text between the braces). */
type ExpressionVariables<E extends string> = E extends `${'?' | '&'}${infer List}`
  ? { [K in VariableSpecs<List> as VariableName<K>]?: string }
  : E extends `${'+' | '#' | '.' | '/' | ';'}${infer List}`
    ? ListVariables<List>
    : ListVariables<E>;

type ListVariables<List extends string> = {
  [K in VariableSpecs<List> as VariableName<K>]: K extends `${string}*` ? readonly string[] : string;
};

/** The comma-separated specs of a variable list (`a,b*,c:3` → `'a' | 'b*' | 'c:3'`). */
type VariableSpecs<List extends string> = List extends `${infer Head},${infer Tail}` ? Head | VariableSpecs<Tail> : List;

/** A spec's variable name: without the explode modifier or a prefix length. */
type VariableName<Spec extends string> = Spec extends `${infer Name}*`
  ? Name
  : Spec extends `${infer Name}:${string}`
    ? Name
    : Spec;

/** Reads a resource matched by a template; `variables` are the decoded template variables ({@link TemplateVariables}). */
export type ResourceTemplateHandler<Variables = Record<string, string | readonly string[]>> = (
  uri: string,
  variables: Readonly<Variables>,
  ctx: RequestContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

/**
 * A prompt registration. `Args` is the type of its `arguments` list, inferred by {@link McpServer.prompt}
 * (kept literal there): it types the handler's arguments ({@link PromptArgs}).
 */
export interface PromptDefinition<Args extends readonly PromptArgument[] = readonly PromptArgument[]> {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: Args;
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
  /** Completions for arguments, by argument name (`completion/complete` with `ref/prompt`). */
  readonly complete?: Readonly<Record<string, CompletionHandler>>;
}

/**
 * The arguments a prompt handler receives for the argument list type `A`: each declared name, a `string` when
 * `required: true` (checked before the call: -32602), else optional `string | undefined`. No list gives
 * `Record<string, never>`; a list whose names are not literal (`PromptArgument[]`) gives
 * `Record<string, string | undefined>`.
 */
export type PromptArgs<A extends readonly PromptArgument[]> = A extends readonly []
  ? Record<string, never>
  : string extends A[number]['name']
    ? Record<string, string | undefined>
    : Simplify<
        { [K in A[number] as K extends { readonly required: true } ? K['name'] : never]: string } & {
          [K in A[number] as K extends { readonly required: true } ? never : K['name']]?: string | undefined;
        }
      >;

/** Builds a prompt; `args` are the string arguments ({@link PromptArgs}; required ones are checked before the call: -32602). */
export type PromptHandler<Args = Readonly<Record<string, string>>> = (
  args: Args,
  ctx: RequestContext,
) => GetPromptResult | Promise<GetPromptResult>;

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
   * host can let in-flight answers out before it closes the session. `Infinity` waits for the requests alone; a
   * finite wait longer than a timer holds (2^31 - 1 ms) is cut to that.
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
