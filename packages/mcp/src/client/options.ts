/**
 * What a client is configured with ({@link McpClientOptions}), what one call may override ({@link RequestOptions}),
 * and what the application's callbacks receive ({@link InputContext}).
 */
import type { Cancellation, Logger } from '@switchboard/jsonrpc';
import type { ProgressParams } from '../protocol/notifications.js';
import type { Era, ProtocolRevision } from '../protocol/revisions.js';
import type { ClientConnector } from '../protocol/transport.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
} from '../protocol/types.js';
import type { ClientInstrumentation } from './instrumentation.js';
import type { SharedResponseStore } from './responseCache.js';
import type { EraVerdictStore } from './verdicts.js';

/** Default of {@link McpClientOptions.timeoutMs} and {@link RequestOptions.timeoutMs}, in ms. */
export const DEFAULT_CLIENT_TIMEOUT_MS = 60_000;

/** How many idle budgets (`timeoutMs`) the default hard cap of a request (`maxTotalTimeoutMs`) is. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_FACTOR = 10;

/**
 * The default hard cap of a request, in ms: {@link DEFAULT_MAX_TOTAL_TIMEOUT_FACTOR} × its idle budget (`Infinity`
 * when the idle budget is). MCP 2025-11-25 basic/lifecycle.mdx "Timeouts": a maximum timeout SHOULD be enforced
 * regardless of progress notifications.
 */
export function defaultMaxTotalTimeoutMs(timeoutMs: number): number {
  return timeoutMs * DEFAULT_MAX_TOTAL_TIMEOUT_FACTOR;
}
/** Default of {@link McpClientOptions.probeTimeoutMs}, in ms. */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
/** Default of {@link McpClientOptions.maxInputRounds}. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;
/** Default of {@link McpClientOptions.maxPages}. */
export const DEFAULT_MAX_PAGES = 100;

/**
 * Default of {@link McpClientOptions.maxListBytes}: 64 MiB, four answers at the transports' default answer bound
 * (16 MiB). A real listing is far below it (10,000 tools of 4 KiB each is 40 MiB), while `maxPages` pages at that
 * bound would be 1.6 GiB of text and several times that in objects.
 */
export const DEFAULT_MAX_LIST_BYTES = 64 * 1024 * 1024;
/** Default of {@link McpClientOptions.reconnect}'s `maxAttempts`. */
export const DEFAULT_RECONNECT_ATTEMPTS = 3;

/** What the application's elicitation, sampling and roots callbacks are told about the question. */
export interface InputContext {
  /** Aborted when the server cancels the question, the request it belongs to ends, or the client closes. */
  readonly signal: AbortSignal;
  /** The era of the connection: `legacy` for a live server → client request on a session, `modern` for an input request. */
  readonly era: Era;
  /** The question's method: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  /** Modern era: the input request's key in `inputRequests` (MCP 2026-07-28 basic/patterns/mrtr.mdx). */
  readonly key?: string;
  /**
   * The task the question belongs to, when the server said: a 2026-07-28 task's input request (the tasks extension
   * "Task Update Requests"), or a 2025-11-25 request tagged with the related-task `_meta` (MCP 2025-11-25
   * basic/utilities/tasks.mdx "Related Task Metadata").
   */
  readonly taskId?: string;
  /**
   * The {@link RequestOptions.tag} of this client's request the question belongs to, when it has one and the
   * question is known to be its: a 2026-07-28 input request (always), or a server → client request that came on
   * that request's own response stream (Streamable HTTP; MCP 2025-11-25 basic/transports.mdx "Sending Messages to
   * the Server"). Over stdio and HTTP+SSE nothing on the wire says which request a question belongs to: `undefined`.
   */
  readonly requestTag?: unknown;
}

/** Answers `elicitation/create` (MCP 2025-11-25 client/elicitation.mdx). A throw answers with an error. */
export type ElicitationHandler = (params: ElicitParams, ctx: InputContext) => Promise<ElicitResult>;
/** Answers `sampling/createMessage` (MCP 2025-11-25 client/sampling.mdx). A throw answers with an error. */
export type SamplingHandler = (params: CreateMessageParams, ctx: InputContext) => Promise<CreateMessageResult>;
/** Answers `roots/list` (MCP 2025-11-25 client/roots.mdx). A throw answers with an error. */
export type ListRootsHandler = (ctx: InputContext) => Promise<ListRootsResult>;

/** `notifications/message` params (MCP 2025-11-25 server/utilities/logging.mdx). */
export interface LogMessageParams {
  readonly level: LoggingLevel;
  readonly logger?: string;
  readonly data: unknown;
  readonly _meta?: Record<string, unknown>;
}

/**
 * Where a `notifications/message` came from: {@link RequestOptions.tag} of this client's request it was sent for,
 * when the transport says (Streamable HTTP: it came on the stream of the POST that carried the request, MCP
 * 2025-11-25 basic/transports.mdx "Sending Messages to the Server"); over stdio and HTTP+SSE, `undefined`.
 */
export interface LogContext {
  readonly requestTag?: unknown;
}

/**
 * Listeners of the server's notifications. Each is called synchronously as the notification arrives; a throw is
 * logged and ignored. Progress also reaches the request it belongs to (its `onprogress`, and its timeout is reset)
 * whether or not `progress` is given here.
 */
export interface ClientNotificationHandlers {
  /** `notifications/message`; `ctx.requestTag`: the tag of the request it was sent for, when known (see {@link LogContext}). */
  readonly message?: (params: LogMessageParams, ctx: LogContext) => void;
  /** `notifications/progress`, for every request. */
  readonly progress?: (params: ProgressParams) => void;
  /** `notifications/tools/list_changed`. */
  readonly toolsListChanged?: () => void;
  /** `notifications/resources/list_changed`. */
  readonly resourcesListChanged?: () => void;
  /** `notifications/prompts/list_changed`. */
  readonly promptsListChanged?: () => void;
  /** `notifications/resources/updated`. */
  readonly resourceUpdated?: (params: { readonly uri: string; readonly [key: string]: unknown }) => void;
  /** Every notification, after the specific listener (if any), with its method and raw params. */
  readonly any?: (method: string, params: unknown) => void;
}

/** Options of one call; each falls back to the client's option of the same name. */
export interface RequestOptions {
  /** Aborting rejects the call with `RequestAbortedError` and cancels it on the server. @default none */
  readonly signal?: AbortSignal;
  /**
   * The same as {@link signal} without an `AbortSignal` (a `Cancellation` of `@switchboard/jsonrpc`; a server
   * handler's `ctx.cancellation` is one): what a proxy gives to link its upstream call to the request it serves
   * without making a signal per call. With both, either one cancels. @default none
   */
  readonly cancellation?: Cancellation;
  /**
   * Idle budget in ms: time without a response or any progress for this request. `Infinity` disables it; `0` times
   * out at once. @default the client's `timeoutMs`
   */
  readonly timeoutMs?: number;
  /**
   * Hard cap in ms from the send, whatever progress arrives (MCP 2025-11-25 basic/lifecycle.mdx "Timeouts": a
   * maximum timeout SHOULD be enforced regardless of progress). `Infinity` disables it.
   * @default the client's `maxTotalTimeoutMs`, else 10 × this request's `timeoutMs`
   */
  readonly maxTotalTimeoutMs?: number;
  /** Called with each `notifications/progress` of this request. @default none */
  readonly onprogress?: (progress: ProgressParams) => void;
  /** Merged into the request's `params._meta`, after the protocol fields (the progress token stays the client's). @default none */
  readonly meta?: Record<string, unknown>;
  /**
   * Any value of the application's, handed back as {@link InputContext.requestTag} with each question the server asks
   * for this request and as {@link LogContext.requestTag} with each log it sends for it, when the wire says so (see
   * there), so a client making several requests at once can tell which one a question or a log belongs to. Never
   * sent. @default none
   */
  readonly tag?: unknown;
}

/** Options of {@link McpClient.connect}. */
export interface McpClientOptions {
  /** How to reach the server: `spawnStdio(…)`, `streamableHttp(…)`, `httpSse(…)`, or `inMemoryConnector(server)` in tests. */
  readonly connector: ClientConnector;
  /**
   * Sees each request begin and end, and may add trace context to its `params._meta` (see `client/instrumentation.ts`;
   * `@switchboard/otel` provides one). @default none (nothing is called or allocated for it)
   */
  readonly instrumentation?: ClientInstrumentation | undefined;
  /** This client's name and version. @default `{ name: 'switchboard-client', version: <package version> }` */
  readonly clientInfo?: Implementation;
  /** The capabilities declared. @default derived from the callbacks given (`elicitation`, `sampling`, `roots`) */
  readonly capabilities?: ClientCapabilities;
  /** Answers the server's elicitations (live requests on a session, or 2026-07-28 input requests). @default none (-32601) */
  readonly onElicitation?: ElicitationHandler;
  /** Answers the server's sampling requests. @default none (-32601) */
  readonly onSampling?: SamplingHandler;
  /** Answers the server's `roots/list`. @default none (-32601) */
  readonly onListRoots?: ListRootsHandler;
  /** Listeners of the server's notifications. @default none */
  readonly notifications?: ClientNotificationHandlers;
  /**
   * Which era to speak: `auto` probes and falls back (MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility"),
   * `modern` refuses a legacy server, `legacy` starts with `initialize`. @default 'auto'
   */
  readonly era?: 'auto' | 'modern' | 'legacy';
  /** Speak exactly this revision, without probing; a refusal is a `NegotiationError`. @default none */
  readonly pin?: ProtocolRevision;
  /** Where era verdicts are kept. @default one process-wide `InMemoryEraVerdictStore` */
  readonly verdictStore?: EraVerdictStore;
  /** How long the `server/discover` probe may stay unanswered before the server is taken as legacy, in ms. @default 5_000 */
  readonly probeTimeoutMs?: number;
  /** Idle budget of every request in ms, reset by any progress for it; `Infinity` disables it, `0` times out at once. @default 60_000 */
  readonly timeoutMs?: number;
  /**
   * Hard cap of every request in ms from the send, which progress notifications cannot extend (MCP 2025-11-25
   * basic/lifecycle.mdx "Timeouts": implementations SHOULD always enforce a maximum timeout, regardless of
   * progress). Past it the request fails with `RequestTimeoutError` (`total: true`) and is cancelled. `Infinity`
   * disables it.
   * @default 10 × the request's `timeoutMs` (10 minutes with the default `timeoutMs`)
   */
  readonly maxTotalTimeoutMs?: number;
  /** Rounds a 2026-07-28 multi round-trip request may ask for input. @default 8 */
  readonly maxInputRounds?: number;
  /** Pages the `listAll…` helpers read before `PaginationLimitError`. @default 100 */
  readonly maxPages?: number;
  /**
   * Size of the items the `listAll…` helpers gather before `PaginationLimitError` (stop `max_bytes`, the items read
   * attached), counted as the length of their JSON text (UTF-16 code units: bytes for ASCII). Bounds memory where
   * `maxPages` alone does not: a server whose pages are large and whose cursor never ends.
   * @default 64 MiB ({@link DEFAULT_MAX_LIST_BYTES})
   */
  readonly maxListBytes?: number;
  /**
   * The 2026-07-28 response cache (`ttlMs` / `cacheScope`): `maxEntries` bounds this client's own cache (LRU);
   * `store` is where `public` results are also kept for other clients of the same server. `false` disables it.
   * @default `{ maxEntries: 256 }`, no shared store
   */
  readonly cache?: false | { readonly maxEntries?: number; readonly store?: SharedResponseStore };
  /** Respawn a dead process / re-initialize an expired session. @default `{ maxAttempts: 3 }` */
  readonly reconnect?: false | { readonly maxAttempts?: number };
  /** Where the client reports what it survived. @default `createStderrLogger()` (stderr, never stdout) */
  readonly logger?: Logger;
}
