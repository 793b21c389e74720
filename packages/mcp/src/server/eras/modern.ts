/**
 * The modern-era rules (2026-07-28) in one place: a request's facts come from its own `_meta` envelope (no
 * session, nothing inferred from earlier requests), every result carries `resultType` and the server's identity,
 * cacheable results carry `ttlMs` and `cacheScope`, `server/discover` answers what `initialize` used to, and
 * `tools/call`, `prompts/get` and `resources/read` may answer `input_required` (multi round-trip requests, see
 * `inputRound.ts`) with a signed `requestState`.
 *
 * @see MCP 2026-07-28 basic/index.mdx "Per-request protocol fields", "ResultType"; server/discover.mdx;
 *   server/utilities/caching.mdx; basic/patterns/mrtr.mdx
 */
import { JsonRpcError, type JsonRpcParams, type MethodHandler } from '@switchboard/jsonrpc';
import { SERVER_INFO_META_KEY } from '../../protocol/envelope.js';
import { TASKS_EXTENSION } from '../../protocol/inbound.js';
import type { Implementation, ServerCapabilities } from '../../protocol/types.js';
import type { ProtocolRevision } from '../../protocol/revisions.js';
import type { CapabilityCache } from '../capabilities.js';
import { checkCachePolicy, type CachePolicy } from '../cachePolicy.js';
import { CACHEABLE_METHODS, type CacheableMethod } from '../../protocol/methods.js';
import type { DispatchContext } from '../connection.js';
import type { ServerRequestContext } from '../context.js';
import { InputRequiredSignal, InputRound, type CarriedState } from '../inputRound.js';
import { invalidParams, isRecord } from '../params.js';
import { RequestStateError, RequestStateErrorCode, type OpenedRequestState } from '../requestState.js';
import type { RequestStateStore } from '../../stores/requestStateStore.js';

/** The methods that may answer `input_required` (MCP 2026-07-28 basic/patterns/mrtr.mdx "Supported Requests"). */
const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Methods whose results the server builds itself, fresh per request (decorated in place). */
const BUILT_HERE: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** The cache fields of a cacheable method's results (from the server's cache policy). */
interface CacheFields {
  readonly ttlMs: number;
  readonly cacheScope: 'public' | 'private';
}

/** What the decoration of one method's results needs to know of it (one per wrapped method). */
interface MethodRules {
  readonly method: string;
  /** The server builds the method's results itself, fresh per request: they are decorated in place. */
  readonly builtHere: boolean;
  /** The cache fields of its results, when it is cacheable. */
  readonly cache: CacheFields | undefined;
}

/** The -32602 detail of a replayed `requestState`. */
const USED_STATE = '"requestState" was already used: a request state continues one retry only';

/** What a `requestState` is bound to (see `RequestStateCodec`). */
export interface RequestStateBinding {
  readonly method: string;
  readonly params: unknown;
  readonly principal?: string;
}

/** Seals and opens `requestState` tokens (the server's `RequestStateCodec`). */
export interface RequestStateSealer {
  issue(payload: unknown, binding: RequestStateBinding): Promise<string>;
  /**
   * The payload, expiry and id of an authentic state.
   * @throws Error (rejection) when the token is tampered with, expired, or bound to something else
   */
  openState(token: string, binding: RequestStateBinding): Promise<OpenedRequestState>;
}

/** What the modern-era rules need from their server. */
export interface ModernEraOptions {
  readonly info: Implementation;
  readonly capabilities: CapabilityCache;
  readonly servedRevisions: readonly ProtocolRevision[];
  readonly cache: CachePolicy | undefined;
  readonly cacheByMethod: Partial<Record<CacheableMethod, CachePolicy>> | undefined;
  readonly requestState: RequestStateSealer;
  /** The record of used states: each is redeemed once. */
  readonly usedStates: RequestStateStore;
  /** Whether a task-capable tool exists (the tasks extension is then advertised). */
  readonly tasks: () => boolean;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

const AUTH_SUBJECT_KEYS = ['sub', 'subject', 'userId'] as const;

/**
 * Who a request is from, for binding its `requestState` (MCP 2026-07-28 basic/patterns/mrtr.mdx "Security
 * Considerations": bind the state to the principal). With authentication (`ctx.authInfo` an object): its client
 * and subject (`clientId`, and `sub`, `subject` or `userId`, here or in `authInfo.extra`), so two users of one
 * client app are two principals; when it names neither, the access token itself. Without: the client's
 * self-reported name, which binds nothing a client cannot claim (single use is what protects such a state). The
 * prefixes keep the kinds apart: a client naming itself after an authenticated principal is not that principal.
 */
function requestStatePrincipal(authInfo: unknown, clientName: string | undefined): string {
  if (isRecord(authInfo)) {
    const extra = isRecord(authInfo.extra) ? authInfo.extra : undefined;
    const clientId = typeof authInfo.clientId === 'string' ? authInfo.clientId : null;
    let subject: string | null = null;
    for (const key of AUTH_SUBJECT_KEYS) {
      const value = authInfo[key] ?? extra?.[key];
      if (typeof value === 'string') {
        subject = value;
        break;
      }
    }
    if (clientId !== null || subject !== null) return `auth:${JSON.stringify([clientId, subject])}`;
    if (typeof authInfo.token === 'string') return `token:${authInfo.token}`;
  }
  return `client-info:${clientName ?? ''}`;
}

function policyValue(policy: CachePolicy | undefined): { readonly ttlMs: number; readonly cacheScope: 'public' | 'private' } {
  return { ttlMs: policy?.ttlMs ?? 0, cacheScope: policy?.scope ?? 'private' };
}

/** The modern-era rules of one server (see the module comment). */
export class ModernEra {
  readonly #options: ModernEraOptions;
  /** `_meta` of a result that has none of its own: the server's identity (one frozen object). */
  readonly #meta: Readonly<Record<string, unknown>>;
  readonly #cache: ReadonlyMap<string, CacheFields>;

  /** @throws RangeError when a cache policy's `ttlMs` is not an integer ≥ 0 */
  constructor(options: ModernEraOptions) {
    this.#options = options;
    this.#meta = Object.freeze({ [SERVER_INFO_META_KEY]: options.info });
    const cache = new Map<string, CacheFields>();
    checkCachePolicy(options.cache, 'the server');
    for (const method of CACHEABLE_METHODS) {
      checkCachePolicy(options.cacheByMethod?.[method], `"${method}"`);
      cache.set(method, Object.freeze(policyValue({ ...options.cache, ...options.cacheByMethod?.[method] })));
    }
    this.#cache = cache;
  }

  /** `server/discover` (MCP 2026-07-28 server/discover.mdx): the served revisions, capabilities and instructions. */
  discover(): Record<string, unknown> {
    const { capabilities, servedRevisions } = this.#options;
    const result: Record<string, unknown> = {
      supportedVersions: [...servedRevisions].reverse(),
      capabilities: this.capabilities(capabilities.capabilities),
    };
    const instructions = capabilities.instructions;
    if (instructions !== undefined) result.instructions = instructions;
    return result;
  }

  /**
   * The capabilities a modern-era client is told of: the legacy-era `tasks` capability is not one (tasks are an
   * extension from 2026-07-28), and the tasks extension is advertised when a task-capable tool exists.
   */
  capabilities(current: ServerCapabilities): ServerCapabilities {
    const { tasks: _legacyTasks, ...rest } = current as ServerCapabilities & { tasks?: unknown };
    if (!this.#options.tasks()) return rest;
    const extensions = isRecord(rest.extensions) ? rest.extensions : {};
    return { ...rest, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  }

  /**
   * Wraps the handler of request `method` for both eras: a legacy-era request runs it as it is; a modern-era one
   * gets its input round (for `tools/call`, `prompts/get`, `resources/read`), and its result decorated.
   */
  wrap(method: string, handler: MethodHandler<DispatchContext>): MethodHandler<DispatchContext> {
    const inputs = INPUT_METHODS.has(method);
    // What the result's decoration needs to know of the method, looked up once here rather than per request.
    const rules: MethodRules = { method, builtHere: BUILT_HERE.has(method), cache: this.#cache.get(method) };
    return (params, ctx) => {
      const call = ctx as unknown as ServerRequestContext;
      if (call.facts.era !== 'modern') return handler(params, ctx);
      if (!inputs) return this.#settle(rules, call, handler(params, ctx));
      const p = isRecord(params) ? params : undefined;
      call.requestParams = p;
      const token = p?.requestState;
      if (token === undefined) {
        const answers = p?.inputResponses;
        // No answers: the round is opened only if the handler asks for input (most never do).
        if (answers === undefined) call.roundOnDemand = true;
        else call.round = new InputRound({ inputResponses: answers, carried: undefined, clientCapabilities: call.clientCapabilities });
        return this.#run(rules, call, handler, params);
      }
      if (typeof token !== 'string') throw invalidParams('"requestState" must be a string');
      return this.#options.requestState.openState(token, this.#binding(method, p, call)).then(
        async (opened) => {
          // The answers are checked against what the state says was asked before anything else (a bad answer
          // leaves the state unused, so the client may send a corrected one); -32602 InvalidInputResponseError.
          const round = new InputRound({ inputResponses: p?.inputResponses, carried: opened.value as CarriedState, clientCapabilities: call.clientCapabilities });
          // MCP 2026-07-28 basic/patterns/mrtr.mdx "Security Considerations": single use is enforced server-side.
          // Claimed before the handler runs, so two retries racing with one state cannot both continue.
          if (!(await this.#options.usedStates.claim(opened.id, opened.expiresAt))) throw invalidParams(USED_STATE);
          call.round = round;
          return this.#run(rules, call, handler, params);
        },
        (error: unknown) => {
          // Not the client's fault (no Web Crypto on this runtime): an internal error, its text kept here.
          if (!(error instanceof RequestStateError)) throw error;
          // MCP 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements": state that fails verification is rejected.
          throw invalidParams('"requestState" is not valid for this request (tampered with, expired, or issued for another request)');
        },
      );
    };
  }

  /** Decorates a complete modern-era result: `resultType`, the server's identity, and cache fields when cacheable. */
  decorate(method: string, result: unknown): Record<string, unknown> {
    return this.#decorate(result, { method, builtHere: BUILT_HERE.has(method), cache: this.#cache.get(method) });
  }

  /** {@link ModernEra.decorate} with what it needs of the method already looked up (`wrap` does it once per method). */
  #decorate(result: unknown, rules: MethodRules): Record<string, unknown> {
    const r = isRecord(result) ? result : {};
    const own = r._meta;
    const meta = isRecord(own) ? { ...own, ...this.#meta } : this.#meta;
    const resultType = typeof r.resultType === 'string' ? r.resultType : 'complete';
    let out: Record<string, unknown>;
    if (rules.builtHere && !Object.isFrozen(r)) {
      // A result the server built itself (the lists, server/discover) is completed in place.
      out = r;
      out.resultType = resultType;
      out._meta = meta;
    } else {
      // A handler's result is copied: it may be shared or frozen. The two fields lead the literal and are set again
      // after the spread (which may have brought the result's own): on V8 this is one fast clone, where `{ ...r,
      // resultType, _meta }` (a clone, then two new properties) measured ≈ 2 µs per result on Node 20.
      out = { resultType, _meta: meta, ...r };
      out.resultType = resultType;
      out._meta = meta;
    }
    const policy = out.resultType === 'complete' ? rules.cache : undefined;
    if (policy !== undefined) {
      if (typeof out.ttlMs !== 'number') out.ttlMs = policy.ttlMs;
      if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = policy.cacheScope;
    }
    return out;
  }

  #binding(method: string, params: Record<string, unknown> | undefined, call: ServerRequestContext): RequestStateBinding {
    return { method, params: params ?? {}, principal: requestStatePrincipal(call.authInfo, call.clientInfo?.name) };
  }

  /** Runs the handler of an input-capable request (`call` is its context) and settles its outcome. */
  // eslint-disable-next-line @typescript-eslint/max-params
  #run(rules: MethodRules, call: ServerRequestContext, handler: MethodHandler<DispatchContext>, params: JsonRpcParams | undefined): unknown {
    let out: unknown;
    try {
      out = handler(params, call);
    } catch (error) {
      return this.#failed(rules, call, error);
    }
    if (!isThenable(out)) return this.#settle(rules, call, out);
    return out.then(
      (result) => this.#settle(rules, call, result),
      (error: unknown) => this.#failed(rules, call, error),
    );
  }

  #settle(rules: MethodRules, call: ServerRequestContext, out: unknown): unknown {
    if (isThenable(out)) return out.then((result) => this.#settle(rules, call, result));
    const round = call.round;
    if (round?.invalid !== undefined) throw round.invalid;
    if (round !== undefined && round.pending) return this.#inputRequired(rules, call, round);
    const result = this.#decorate(out, rules);
    // MCP 2026-07-28 server/utilities/caching.mdx: the result of a retry (it carried inputResponses or
    // requestState) MUST NOT be cached.
    const p = call.requestParams;
    if (result.ttlMs !== undefined && p !== undefined && (p.inputResponses !== undefined || p.requestState !== undefined)) {
      result.ttlMs = 0;
      result.cacheScope = 'private';
    }
    return result;
  }

  #failed(rules: MethodRules, call: ServerRequestContext, error: unknown): unknown {
    const round = call.round;
    if (round?.invalid !== undefined) throw round.invalid;
    if (round !== undefined && round.pending) return this.#inputRequired(rules, call, round);
    if (error instanceof InputRequiredSignal) throw new JsonRpcError(-32603, 'Internal error');
    throw error;
  }

  /**
   * The `input_required` answer of a round: its input requests and the signed state for the retry; or, when one of
   * the round's input requests needs a capability the client did not declare, that -32021 at once (asking the
   * others first would only lead to it on the retry). A handler that caught that refusal and asked nothing else
   * answers as it chose.
   */
  async #inputRequired(rules: MethodRules, call: ServerRequestContext, round: InputRound): Promise<Record<string, unknown>> {
    if (round.refusal !== undefined) throw round.refusal;
    const params = call.requestParams;
    // MCP 2026-07-28 basic/patterns/mrtr.mdx: the state is bound to the method, the params, the principal and an expiry.
    let requestState: string;
    try {
      requestState = await this.#options.requestState.issue(round.carried(), this.#binding(rules.method, params, call));
    } catch (error) {
      // The answers carried between rounds outgrew the state's size limit: the client's answers were too large.
      if (error instanceof RequestStateError && error.code === RequestStateErrorCode.TooLarge) {
        throw invalidParams(`the answers carried to the next round exceed the request state limit: ${error.message}`);
      }
      throw error;
    }
    return { resultType: 'input_required', inputRequests: round.inputRequests, requestState, _meta: this.#meta };
  }
}
