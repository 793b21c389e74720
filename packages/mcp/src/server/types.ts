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
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { NotificationBus } from '../stores/notificationBus.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { CachePolicy, CacheableMethod } from './eras/modern.js';
import type { RequestStateOptions } from './requestState.js';
import type { TaskStore } from '../stores/taskStore.js';

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

/** Task limits and defaults of a server ({@link McpServerOptions.tasks}). */
export interface ServerTaskOptions {
  /** Tasks live (started, not final) at once in this process; one more is refused (2025-11-25: -32603 `TaskLimitError`) or, on 2026-07-28, the call runs on its request. @default 1000 */
  readonly maxLiveTasks?: number;
  /** Milliseconds a task is kept from its creation when its tool names none. @default 3,600,000 (1 h) */
  readonly defaultTtlMs?: number;
  /** The most milliseconds a task is kept, whatever the tool or a 2025-11-25 client's `params.task.ttl` ask. @default 86,400,000 (24 h) */
  readonly maxTtlMs?: number;
  /** The polling interval suggested to clients, in milliseconds. @default 1000 */
  readonly pollIntervalMs?: number;
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

/** {@link McpServer} options. */
export interface McpServerOptions {
  /** Free-text instructions returned by `initialize`. */
  readonly instructions?: string;
  /**
   * Extra capabilities to advertise, merged over those derived from what is registered (tools, resources,
   * prompts, completions when any completion handler exists, logging always).
   *
   * A session's capabilities are the ones its `initialize` advertised, for its whole life: a method of a
   * capability it was not told about stays -32601 even if a primitive is registered later, and it never gets that
   * list's `list_changed` notification. A server that registers tools, prompts or resources only after clients
   * connect declares them here up front; `listChanged: true` then tells clients to re-list when they appear.
   * @default derived from what is registered when each session initializes
   * @see MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation"
   * @example
   * // No tools yet: they are loaded from a plugin directory after start-up.
   * const server = new McpServer({ name: 'plugins', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
   * // tools/list answers { tools: [] } until the plugins register; then sessions get notifications/tools/list_changed.
   */
  readonly capabilities?: ServerCapabilities;
  /** Where handler failures and protocol anomalies are reported. @default a logger writing to stderr */
  readonly logger?: Logger;
  /** Page size of the list methods (`tools/list` …), a positive integer. @default 100 */
  readonly pageSize?: number;
  /** Inbound requests handled at once per session, a positive integer. @default 64 */
  readonly maxConcurrentRequestsPerSession?: number;
  /**
   * Requests per session that may wait for a slot before the transport stops reading (stdio pauses stdin, so a
   * client that pipelines thousands of calls fills the pipe, not the server's memory). @default 1024
   */
  readonly maxQueuedRequestsPerSession?: number;
  /**
   * Distinct URIs one session may be subscribed to at once (`resources/subscribe`; subscribing again to a URI
   * the session holds does not count). One more is refused with -32602 `Invalid params: too many
   * subscriptions: …` and `data: { uri, maxSubscriptionsPerSession }` (the URI cut to 200 characters); the
   * session keeps what it has. A positive integer.
   *
   * The default is far above what a host subscribes to (one URI per open document or watched file), and with
   * {@link McpServerOptions.maxSubscriptionUriLength} it bounds a session's subscription set to about 8 MiB
   * of ASCII URIs (16 MiB at worst), in line with the SSE event store's 16 MiB per session.
   * @default 1000
   * @see MCP 2025-11-25 server/resources.mdx "Subscriptions"
   */
  readonly maxSubscriptionsPerSession?: number;
  /**
   * Longest URI (UTF-16 units) `resources/subscribe` accepts. A longer one is refused with -32602
   * `Invalid params: "uri" is too long to subscribe to: …` and `data: { uri, maxSubscriptionUriLength }` (the URI
   * cut to 200 characters) and is not stored. A positive integer.
   *
   * The default is the length past which resource templates never match (`resources/read` of a longer URI can
   * only hit a static resource), and the request-line length RFC 9110 §4.1 asks HTTP software to support at
   * least (8000 octets), so a URI that works anywhere on the web fits.
   * @default 8192
   * @see MCP 2025-11-25 server/resources.mdx "Subscriptions"
   */
  readonly maxSubscriptionUriLength?: number;
  /**
   * The subscribed URIs of all sessions together, in UTF-16 units: past it `resources/subscribe` of a new URI is
   * -32602 with `data: { uri, maxSubscriptionCharsTotal }` (per-session caps times `maxSessions` alone would allow
   * gigabytes). Released as sessions unsubscribe or close. @default 16,777,216 (about 32 MiB)
   */
  readonly maxSubscriptionCharsTotal?: number;
  /**
   * Modern era: most `subscriptions/listen` streams open at once on this server; past it a new one is -32602.
   * Each stream's `resourceSubscriptions` obey `maxSubscriptionsPerSession` and `maxSubscriptionUriLength`, and all
   * open streams' URIs together a budget of `maxSubscriptionCharsTotal` of their own. On stdio each open stream
   * holds one of the connection's `maxConcurrentRequestsPerSession` slots.
   * @default 10,000
   */
  readonly maxListenStreams?: number;
  /**
   * Check the members of handler results before sending them: content blocks (type and required fields),
   * prompt messages, resource contents (`uri` and `text` or `blob`). A bad result is logged (naming the tool,
   * prompt or resource and the problem) and answered -32603 "Internal error". The outer shape (an object with
   * its `content` / `messages` / `contents` array) and `outputSchema` conformance are checked always.
   * @default true, except when `NODE_ENV` is `"production"`
   */
  readonly checkResults?: boolean;
  /**
   * Carries list-changed and resource-updated events from this server to its connections; a shared bus
   * carries them between instances. @default a new `InMemoryNotificationBus`
   */
  readonly bus?: NotificationBus;
  /**
   * The revisions served. A server that serves legacy and modern revisions is dual-era: a request carrying the
   * 2026-07-28 `_meta` envelope is served statelessly, an `initialize` opens a session, on every transport at
   * once. Without a legacy revision, `initialize` is refused with -32022 naming the supported versions (and HTTP
   * answers GET and DELETE 405); without a modern one, a modern request is -32022.
   * @default every revision of `PROTOCOL_REVISIONS` (dual-era)
   * @see MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility"
   */
  readonly revisions?: readonly ProtocolRevision[];
  /**
   * Modern era: the cache hint (`ttlMs`, `cacheScope`) of every cacheable result (`server/discover`, the four
   * lists, `resources/read`) unless `cacheByMethod` or the resource sets its own.
   * @default `{ ttlMs: 0, scope: 'private' }`
   * @see MCP 2026-07-28 server/utilities/caching.mdx
   */
  readonly cache?: CachePolicy;
  /** Modern era: the cache hint of one cacheable method, over {@link McpServerOptions.cache}. */
  readonly cacheByMethod?: Partial<Record<CacheableMethod, CachePolicy>>;
  /**
   * Modern era: how `requestState` of multi round-trip requests is signed (and, optionally, encrypted). Give every
   * instance behind one endpoint the same keys so any of them can serve a retry.
   * @default a `RequestStateCodec` with a random key of this process
   * @see MCP 2026-07-28 basic/patterns/mrtr.mdx
   */
  readonly requestState?: RequestStateOptions;
  /** Where tasks are kept (a shared store lets any instance answer for any task). @default a new `InMemoryTaskStore` */
  readonly taskStore?: TaskStore;
  /** Task limits and defaults. */
  readonly tasks?: ServerTaskOptions;
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
