/**
 * What a middleware is given: one inbound request or notification ({@link MiddlewareCall}) and the rest of the chain
 * ({@link MiddlewareNext}), and the shape of a middleware itself. The call object reads everything lazily from the
 * request's context, so a middleware that looks at `method` alone costs no envelope read and no `AbortController`.
 */
import type { JsonRpcId, JsonRpcParams, Logger } from '@switchboard/jsonrpc';
import { mcpNameMember } from '../../protocol/paramHeaders.js';
import type { Era } from '../../protocol/revisions.js';
import type { ClientCapabilities, Implementation, Tool } from '../../protocol/types.js';
import { callerKeyOf } from '../callerKey.js';
import { ServerRequestContext } from '../context.js';
import { isRecord } from '../params.js';
import type { RequestContext, ServerSession } from '../types.js';

/**
 * One inbound message as a middleware sees it: the method and params, the facts of its envelope (era, revision,
 * client), who sent it, and the handler's context. Every field is read when asked.
 */
export interface MiddlewareCall {
  /** The method as received (`tools/call`, `notifications/initialized`, …). */
  readonly method: string;
  /** The request id; `undefined` for a notification. */
  readonly id: JsonRpcId | undefined;
  /** Whether the message is a notification (never answered: what the chain returns for it is dropped). */
  readonly isNotification: boolean;
  /**
   * The params the rest of the chain will be given: the received ones, or those an outer middleware passed to
   * `next({ params })`. MCP params are an object (MCP 2025-11-25 schema.ts `Request.params`).
   */
  readonly params: JsonRpcParams | undefined;
  /**
   * What the request names, when its method names something: `params.name` of `tools/call` and `prompts/get`,
   * `params.uri` of `resources/read`, `params.taskId` of `tasks/get|update|cancel` (the member 2026-07-28 mirrors
   * into `Mcp-Name`, MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata Headers"); else `undefined`.
   */
  readonly name: string | undefined;
  /** `tools/call`: the registered tool `name` names (its descriptor: `inputSchema`, `annotations`, …); else `undefined`. */
  readonly tool: Tool | undefined;
  /** `modern` for a request carrying the 2026-07-28 `_meta` envelope, else `legacy` (a session, or `McpServer.handle` without one). */
  readonly era: Era;
  /** The revision it is served at: the envelope's, or the session's negotiated one (`undefined` before `initialize`). */
  readonly revision: string | undefined;
  /** The client's `clientInfo`: the envelope's, or the session's `initialize`. */
  readonly clientInfo: Implementation | undefined;
  /** The client capabilities declared for this request; `{}` when none. */
  readonly clientCapabilities: ClientCapabilities;
  /** The transport's authentication facts (`authInfo` of the message or the connection), untouched. */
  readonly authInfo: unknown;
  /**
   * Who sent it, the key of every per-caller budget: over HTTP the handler's `callerIdentity` (by default
   * `client:<clientId>` when authenticated, else `address:<ip>` after `trustProxy`), else `client:<clientId>` of
   * `authInfo`; `undefined` when nothing names the caller (stdio: one client per process; `McpServer.handle`
   * without transport facts).
   */
  readonly caller: string | undefined;
  /** The legacy-era session it arrived on; `undefined` for a modern-era message and for `McpServer.handle`. */
  readonly session: ServerSession | undefined;
  /** Aborted when the client cancels the request or goes away (reading it may allocate the request's controller). */
  readonly signal: AbortSignal;
  /** The handler's context (what the tool, resource or prompt handler receives as `ctx`). */
  readonly ctx: RequestContext;
  /** The server's logger (its `logger` option; stderr by default). Never stdout. */
  readonly logger: Logger;
}

/** What a middleware may change for the rest of the chain (see {@link MiddlewareNext}). */
export interface MiddlewareChanges {
  /** The params the rest of the chain and the operation are given instead (e.g. coerced `arguments`). */
  readonly params?: JsonRpcParams | undefined;
  /**
   * The signal the rest of the chain and the handler see as `ctx.signal` (e.g. one that also aborts on a deadline).
   * It replaces the request's signal: link it to `call.signal` so a client's cancellation still reaches the handler.
   */
  readonly signal?: AbortSignal;
}

/**
 * Runs the rest of the chain and the operation, and resolves with the result that answers the message (what the
 * inner middlewares and the operation produced), or rejects with the error that would answer it. `changes` are
 * seen by everything inside; without them the call goes on as it is. Call it at most once per middleware run (a
 * second call rejects with `TypeError`).
 */
export type MiddlewareNext = (changes?: MiddlewareChanges) => Promise<unknown>;

/**
 * A middleware: runs around every inbound request and notification it is installed for (see `McpServer.use`).
 * It returns the result that answers the message (usually what `next()` resolved with, possibly changed), or a
 * promise of it. To refuse, throw (or reject with) an `McpError`: it goes on the wire with its code, message and
 * data; any other thrown value is answered -32603 "Internal error" with none of its text (it goes to the logger).
 * Returning without calling `next()` answers the message without running the operation. For a notification the
 * returned value is dropped.
 *
 * @example
 * // Refuse one tool to callers that are not authenticated.
 * server.use({ methods: ['tools/call'] }, (call, next) => {
 *   if (call.name === 'delete_all' && call.authInfo === undefined) throw new McpError(-32602, 'delete_all needs an authenticated caller');
 *   return next();
 * });
 */
export type Middleware = (call: MiddlewareCall, next: MiddlewareNext) => unknown;

/** Which messages a middleware is installed for (see `McpServer.use`). */
export interface MiddlewareFilter {
  /**
   * Exact method names (requests and notifications, e.g. `['tools/call', 'resources/read']`): the middleware runs
   * only for these. @default every method
   */
  readonly methods?: readonly string[];
}

/** What a call needs from its server beyond the request. */
export interface CallHost {
  readonly logger: Logger;
  /** The registered tool named `name`, if any. */
  tool(name: string): Tool | undefined;
}

/** The {@link MiddlewareCall} of one message: a view of the handler context and the params the chain is at. */
export class Call implements MiddlewareCall {
  readonly ctx: ServerRequestContext;
  readonly params: JsonRpcParams | undefined;
  readonly #host: CallHost;

  constructor(ctx: ServerRequestContext, params: JsonRpcParams | undefined, host: CallHost) {
    this.ctx = ctx;
    this.params = params;
    this.#host = host;
  }

  get method(): string {
    return this.ctx.method;
  }

  get id(): JsonRpcId | undefined {
    return this.ctx.id;
  }

  get isNotification(): boolean {
    return this.ctx.id === undefined;
  }

  get name(): string | undefined {
    const member = mcpNameMember(this.ctx.method);
    const params = this.params;
    if (member === undefined || !isRecord(params)) return undefined;
    const value = params[member];
    return typeof value === 'string' ? value : undefined;
  }

  get tool(): Tool | undefined {
    if (this.ctx.method !== 'tools/call') return undefined;
    const name = this.name;
    return name === undefined ? undefined : this.#host.tool(name);
  }

  get era(): Era {
    return this.ctx.facts.era ?? 'legacy';
  }

  get revision(): string | undefined {
    return this.ctx.facts.protocolVersion;
  }

  get clientInfo(): Implementation | undefined {
    return this.ctx.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.ctx.clientCapabilities;
  }

  get authInfo(): unknown {
    return this.ctx.authInfo;
  }

  get caller(): string | undefined {
    return callerKeyOf(this.ctx);
  }

  get session(): ServerSession | undefined {
    return this.ctx.session;
  }

  get signal(): AbortSignal {
    return this.ctx.signal;
  }

  get logger(): Logger {
    return this.#host.logger;
  }

  /** The call the rest of the chain sees after `changes`: new params, and a context whose `signal` is the new one. */
  with(changes: MiddlewareChanges): Call {
    const params = 'params' in changes ? changes.params : this.params;
    const signal = changes.signal;
    if (signal === undefined) return new Call(this.ctx, params, this.#host);
    const ctx = this.ctx;
    // The new context serves the same request over the old one (its facts, channel, session and transport facts),
    // with another signal: the handler's ctx.signal is the one the middleware gave.
    return new Call(new ServerRequestContext(ctx, { id: ctx.id, method: ctx.method, signal }), params, this.#host);
  }
}
