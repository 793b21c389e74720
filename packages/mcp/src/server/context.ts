/**
 * The context of one request, built by the dispatcher for every message and handed to tool, resource and
 * prompt handlers as `ctx`. It works over a per-request {@link RequestFacts} (what is known about the client)
 * and a {@link ClientChannel} (how to reach it), never over a session: the same class serves a session-era
 * connection and a request answered by `McpServer.handle` alone. Methods live on the prototype and the
 * AbortSignal is made only when `signal` is read, so a request costs one small object.
 */
import { cancellationOf, JsonRpcError, type Cancellation, type ContextRequest, type JsonRpcId, type TransportMessageExtra } from '@switchboard/jsonrpc';
import { ClientRequestError, MissingClientCapabilityError } from '../protocol/errors.js';
import { LOGGING_LEVEL_RANK, missingClientCapability, progressParams, PROGRESS_METHOD } from '../protocol/notifications.js';
import { REVISION_FEATURES, isLegacyRevision } from '../protocol/revisions.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Meta,
} from '../protocol/types.js';
import type { ClientChannel } from './channel.js';
import type { Connection, DispatchContext } from './connection.js';
import type { RequestFacts } from './requestFacts.js';
import { InputRound } from './inputRound.js';
import { checkInputResponse } from './inputResponses.js';
import type { ClientRequestOptions, RequestContext, ServerSession } from './types.js';

/**
 * `object[key]`, unless it is found only on `Object.prototype`: a polluted realm gives no request a progress token.
 * The prototype chain is walked only when `Object.prototype` has `key`.
 */
function notInherited<T extends object, K extends keyof T & string>(object: T, key: K): T[K] | undefined {
  if (!(key in Object.prototype)) return object[key];
  for (let at: object | null = object; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at) as object | null) {
    if (Object.hasOwn(at, key)) return object[key];
  }
  return undefined;
}

/** The {@link RequestContext} implementation (see the module comment). */
export class ServerRequestContext implements RequestContext, DispatchContext {
  /** `params._meta` of the request, set by the method handler that reads the params. */
  requestMeta: Meta | undefined = undefined;
  /**
   * Modern era, `tools/call`, `prompts/get`, `resources/read`: this request's input round (`inputRound.ts`), once
   * opened (see {@link ServerRequestContext.openRound}).
   */
  round: InputRound | undefined = undefined;
  /**
   * Whether this request may open an input round when its handler first asks for input or writes `requestState`
   * (a modern-era `tools/call`, `prompts/get` or `resources/read` that carried neither answers nor a state: most
   * requests never ask, and make no round).
   */
  roundOnDemand = false;
  /** Modern era, the same methods: the request's params (its `requestState` is bound to them). */
  requestParams: Record<string, unknown> | undefined = undefined;
  readonly #dispatch: DispatchContext;
  readonly #request: ContextRequest;
  #cancellation: Cancellation | undefined = undefined;

  /**
   * @param dispatch the message's dispatcher context
   * @param request the request's `id`, `method` and its signal (read lazily: the controller is made only then)
   */
  constructor(dispatch: DispatchContext, request: ContextRequest) {
    this.#dispatch = dispatch;
    this.#request = request;
  }

  get id(): JsonRpcId | undefined {
    return this.#request.id;
  }

  get method(): string {
    return this.#request.method;
  }

  get facts(): RequestFacts {
    return this.#dispatch.facts;
  }

  get channel(): ClientChannel {
    return this.#dispatch.channel;
  }

  get connection(): DispatchContext['connection'] {
    return this.#dispatch.connection;
  }

  get arrivedOn(): Connection | undefined {
    return this.#dispatch.arrivedOn;
  }

  get extra(): TransportMessageExtra | undefined {
    return this.#dispatch.extra;
  }

  get session(): ServerSession | undefined {
    return this.#dispatch.connection;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get cancellation(): Cancellation {
    // A request with only a signal (an HTTP exchange, an in-process call) is heard through it, once per context.
    return this.#request.cancellation ?? (this.#cancellation ??= cancellationOf(this.#request.signal));
  }

  get requestId(): JsonRpcId {
    return this.id as JsonRpcId;
  }

  get authInfo(): unknown {
    const d = this.#dispatch;
    return d.extra?.authInfo ?? d.facts.authInfo ?? d.connection?.authInfo;
  }

  get protocolVersion(): string {
    return this.#dispatch.facts.protocolVersion ?? 'unknown';
  }

  get clientCapabilities(): ClientCapabilities {
    return this.#dispatch.facts.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#dispatch.facts.clientInfo;
  }

  /** Not a task: see {@link RequestContext.taskId} (a task's context answers its id). */
  get taskId(): string | undefined {
    return undefined;
  }

  get requestState(): unknown {
    return this.round?.state;
  }

  set requestState(value: unknown) {
    const round = this.openRound();
    if (round === undefined) throw new TypeError('requestState exists only on a modern-era tools/call, prompts/get or resources/read request');
    round.state = value;
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    // MCP 2025-11-25 basic/utilities/progress.mdx: only when the request carried a progressToken.
    const meta = this.requestMeta;
    const metaToken = meta === undefined ? undefined : notInherited(meta, 'progressToken');
    const token = typeof metaToken === 'string' || typeof metaToken === 'number' ? metaToken : notInherited(this.#dispatch.facts, 'progressToken');
    if (token === undefined) return Promise.resolve();
    // `message` on progress exists from 2025-03-26 (changelog).
    const revision = this.#dispatch.facts.protocolVersion;
    const withMessage = message !== undefined && (revision === undefined || !isLegacyRevision(revision) || REVISION_FEATURES[revision].progressMessage);
    const params = progressParams({ progressToken: token, progress, total, message: withMessage ? message : undefined });
    return this.#dispatch.channel.notify(PROGRESS_METHOD, params, { relatedRequestId: this.requestId });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const rank = LOGGING_LEVEL_RANK.get(level);
    if (rank === undefined) return Promise.reject(new TypeError(`Unknown logging level: "${String(level)}"`));
    // MCP 2025-11-25 server/utilities/logging.mdx: only messages at or above the level set by logging/setLevel.
    if (rank < this.#dispatch.facts.logLevelRank) return Promise.resolve();
    const params: Record<string, unknown> = logger === undefined ? { level, data } : { level, logger, data };
    return this.#dispatch.channel.notify('notifications/message', params, { relatedRequestId: this.requestId });
  }

  sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult> {
    return this.#clientRequest('sampling/createMessage', params, options);
  }

  elicit(params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult> {
    return this.#clientRequest('elicitation/create', params, options);
  }

  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult> {
    return this.#clientRequest('roots/list', undefined, options);
  }

  /**
   * The request's input round: the one it has, or a fresh one (no answers, nothing carried) when it may open one
   * on demand; `undefined` when it may not (see {@link ServerRequestContext.roundOnDemand}).
   */
  openRound(): InputRound | undefined {
    if (this.round === undefined && this.roundOnDemand) {
      this.round = new InputRound({ inputResponses: undefined, carried: undefined, clientCapabilities: this.clientCapabilities });
    }
    return this.round;
  }

  #clientRequest<T>(method: string, params: object | undefined, options: ClientRequestOptions | undefined): Promise<T> {
    if (this.#dispatch.facts.era === 'modern') {
      // MCP 2026-07-28 basic/patterns/mrtr.mdx: no server → client request exists; it is an input request of the result.
      const round = this.openRound();
      if (round === undefined) {
        return Promise.reject(new TypeError(`${method} is asked for only from a modern-era tools/call, prompts/get or resources/read handler`));
      }
      return round.ask<T>(method, params as Record<string, unknown> | undefined, options?.key);
    }
    // MCP 2025-11-25 basic/lifecycle.mdx "Operation": only use capabilities the client declared.
    const missing = missingClientCapability(this.#dispatch.facts.clientCapabilities, method);
    if (missing !== undefined) return Promise.reject(new MissingClientCapabilityError({ [missing]: {} }));
    const sent = params as Record<string, unknown> | undefined;
    return this.#dispatch.channel
      .request<T>(method, sent, {
        relatedRequestId: this.requestId,
        timeoutMs: options?.timeoutMs,
        signal: options?.signal ?? this.signal,
      })
      .then(
        (result) => {
          // The same check as a modern-era answer (inputResponses.ts): the handler gets a well-formed result or
          // InvalidInputResponseError, never a malformed object.
          checkInputResponse({ method, params: sent }, result);
          return result;
        },
        (error: unknown) => {
          // The client's error answer is its own, not ours to relay: handler code sees a local, typed error.
          throw error instanceof JsonRpcError ? new ClientRequestError({ method, error: error.toJSON() }) : error;
        },
      );
  }
}
