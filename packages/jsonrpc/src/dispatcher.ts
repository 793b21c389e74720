/**
 * Server-side dispatch of requests and notifications to method handlers.
 *
 * @see https://www.jsonrpc.org/specification §4 (Request), §4.1 (Notification), §5 (Response), §5.1 (Error), §6 (Batch)
 */
import { runBatch } from './batch.js';
import { errorResponse, parseMessage, type Inbound, type InboundSingle } from './classify.js';
import { ErrorCode, ErrorMessage, JsonRpcError } from './errors.js';
import { echo, echoId } from './echo.js';
import type { Logger } from './logger.js';
import { neverThrowing, silentLogger } from './logger.js';
import { JSONRPC_VERSION } from './message.js';
import { checkCountOption } from './optionChecks.js';
import { internalError, stringifyReply, successResponse } from './reply.js';
import type {
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
} from './message.js';
import { handlerContext, NEVER_ABORTED, requestOf, type ContextFactory, type ContextRequest, type HandlerContext } from './handlerContext.js';

/**
 * A method handler. Its return value (awaited when it is a promise) is the `result`; `undefined` is sent as
 * `null` (JSON-RPC 2.0 §5: `result` is required on success).
 * Throw {@link JsonRpcError} to answer with a specific error; anything else becomes -32603 with a generic
 * message (the thrown value goes to the logger, never to the wire).
 *
 * `ctx` is the dispatcher context with `id`, `method` and `signal` added: a plain-object context is
 * shallow-copied (`{ ...ctx, id, method, signal }`); any other object becomes the prototype of the handler's
 * context, so its methods and getters stay reachable.
 *
 * @example
 * const add: MethodHandler = (params) => {
 *   const [a, b] = params as [number, number];
 *   return a + b;
 * };
 */
export type MethodHandler<Ctx = unknown> = (
  params: JsonRpcParams | undefined,
  ctx: Ctx & HandlerContext,
) => unknown;

/**
 * Params validation hook, run before the handler. Return `undefined` when the params are acceptable, or a
 * message describing what is wrong: the request is then answered with -32602 "Invalid params" and that
 * message (prefixed with `Invalid params: ` unless it already starts with `Invalid params`), and the handler
 * does not run. A validator that throws is treated like a handler that throws (-32603).
 *
 * @see https://www.jsonrpc.org/specification §5.1 (-32602)
 * @example
 * const validate: ParamsValidator = (params) =>
 *   Array.isArray(params) && params.length === 2 ? undefined : 'expected two numbers';
 */
export type ParamsValidator = (params: JsonRpcParams | undefined) => string | undefined;

/** Per-method registration options. */
export interface MethodOptions {
  /** Runs before the handler; see {@link ParamsValidator}. @default no validation */
  readonly validate?: ParamsValidator;
  /**
   * What the method may be called as. A protocol whose methods are either requests or notifications (MCP)
   * says so here: a request for a `'notification'` method is answered -32601 as if the method did not exist
   * (field bug B07), and a notification for a `'request'` method is ignored without running the handler
   * (JSON-RPC 2.0 §4.1: it is never answered either way). @default 'any'
   */
  readonly kind?: 'request' | 'notification' | 'any';
}

/** {@link Dispatcher} construction options. */
export interface DispatcherOptions<Ctx = unknown> {
  /**
   * Maximum number of members in one batch; a larger batch is refused as a whole with one -32600 error
   * response (not an array), `id: null`, and none of its members runs. A positive integer.
   * @default 100 ({@link DEFAULT_MAX_BATCH_SIZE})
   */
  readonly maxBatchSize?: number;
  /** Where unexpected handler failures (error), and errors of notifications (debug) are reported. @default silentLogger */
  readonly logger?: Logger;
  /**
   * Runs before every request and notification, after method lookup succeeds or fails (so it can refuse
   * even an unknown method, e.g. "not initialized"). Return an error to refuse the message (sent for
   * requests, dropped for notifications); `undefined` lets it through. Used by protocol layers for lifecycle
   * gating. A guard that throws refuses the message with -32603.
   */
  readonly guard?: (message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx) => JsonRpcError | undefined;
  /**
   * Builds each handler's context from the dispatcher context, replacing the default shallow copy
   * (`{ ...ctx, id, method, signal }`). A protocol layer uses it to hand handlers one object of a fixed
   * class with a lazy `signal`. @default the shallow copy
   */
  readonly createContext?: ContextFactory<Ctx>;
}

/** Default for {@link DispatcherOptions.maxBatchSize}. */
export const DEFAULT_MAX_BATCH_SIZE = 100;

/** The prefix of method names reserved for rpc-internal extensions (JSON-RPC 2.0 §4). */
export const RESERVED_METHOD_PREFIX = 'rpc.';

interface MethodEntry<Ctx> {
  readonly handler: MethodHandler<Ctx>;
  readonly validate: ParamsValidator | undefined;
  readonly kind: 'request' | 'notification' | 'any';
}

type Reply = JsonRpcResponse | undefined;

/**
 * Runs in place of a handler call (see {@link Dispatcher.intercept}): it is given the handler the message's method
 * is registered with, the params and the handler's context, and returns what the handler would (a value or a
 * promise; thrown errors and rejections are answered as a handler's). It may call `handler` with other params or
 * another context, once, later, or not at all (its own result then answers the message).
 */
export type HandlerInterceptor<Ctx> = (handler: MethodHandler<Ctx>, params: JsonRpcParams | undefined, ctx: Ctx & HandlerContext) => unknown;

const NOTHING: Promise<undefined> = Promise.resolve(undefined);
/** What `#invoke` answers when the handler returned a thenable (left in `#pending`). */
const PENDING: unique symbol = Symbol('pending');

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Maps method names to handlers (a `Map`, never a plain-object lookup, so `toString`, `constructor` or
 * `__proto__` only ever match a handler registered under that exact name) and produces responses.
 *
 * Behaviour (JSON-RPC 2.0): a request is always answered exactly once; a notification is never answered,
 * even when its method is unknown, its params are invalid or its handler throws (§4.1: those are logged at
 * debug level, a thrown non-{@link JsonRpcError} at error level). Unknown method: -32601 (§5.1). Params
 * refused by the method's validator: -32602. A handler that throws a {@link JsonRpcError} is answered with
 * that error; any other thrown value is answered with -32603 "Internal error" and none of its text (it goes
 * to the logger). Batches (§6): members run concurrently; the reply is an array in input order (even for a
 * batch of one), holding one reply per request and per invalid member; an all-notification batch is answered
 * with nothing; an oversized batch gets one -32600 error response.
 *
 * @example
 * const dispatcher = new Dispatcher();
 * dispatcher.register('subtract', ([a, b]: any) => a - b);
 * const reply = await dispatcher.handleText('{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}', undefined);
 * // '{"jsonrpc":"2.0","id":1,"result":19}'
 */
export class Dispatcher<Ctx = unknown> {
  /** The registered methods. */
  readonly #registered = new Map<string, MethodEntry<Ctx>>();
  /**
   * What dispatch reads: {@link Dispatcher.#registered} itself, or while an interceptor is set a map of the same
   * entries whose handlers go through it (so without one, dispatch is exactly what it was before interceptors).
   */
  #methods: Map<string, MethodEntry<Ctx>> = this.#registered;
  readonly #maxBatchSize: number;
  readonly #logger: Logger;
  readonly #guard: DispatcherOptions<Ctx>['guard'];
  readonly #createContext: ContextFactory<Ctx> | undefined;
  #interceptor: HandlerInterceptor<Ctx> | undefined = undefined;
  /** The thenable of the handler {@link Dispatcher.#invoke} just ran, when it answered {@link PENDING}. */
  #pending: PromiseLike<unknown> | undefined = undefined;

  /**
   * @param options - See {@link DispatcherOptions}.
   * @throws RangeError when `maxBatchSize` is not a positive integer (TypeError when not a number).
   */
  constructor(options: DispatcherOptions<Ctx> = {}) {
    this.#maxBatchSize = checkCountOption('maxBatchSize', options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE);
    this.#logger = neverThrowing(options.logger ?? silentLogger);
    this.#guard = options.guard;
    this.#createContext = options.createContext;
  }

  /** The batch size limit in effect (members). */
  get maxBatchSize(): number {
    return this.#maxBatchSize;
  }

  /**
   * Registers a handler; returns a disposer that removes it (a no-op once the name has been registered again).
   * Replaces an earlier handler of the same name.
   *
   * @param method - The exact method name; any string except those beginning with `rpc.`.
   * @param handler - See {@link MethodHandler}.
   * @param options - See {@link MethodOptions}.
   * @returns A disposer that unregisters this handler.
   * @throws TypeError when `method` begins with `rpc.` (reserved for rpc-internal extensions, JSON-RPC 2.0 §4).
   */
  register(method: string, handler: MethodHandler<Ctx>, options?: MethodOptions): () => void {
    if (typeof method !== 'string') throw new TypeError(`Invalid method name: expected a string, got ${typeof method}`);
    if (method.startsWith(RESERVED_METHOD_PREFIX)) {
      throw new TypeError(`Reserved method name: "${method}" (names beginning with "rpc." are reserved by JSON-RPC 2.0 §4)`);
    }
    if (typeof handler !== 'function') throw new TypeError(`Invalid handler for "${method}": expected a function`);
    const entry: MethodEntry<Ctx> = { handler, validate: options?.validate, kind: options?.kind ?? 'any' };
    this.#registered.set(method, entry);
    if (this.#methods !== this.#registered) this.#methods.set(method, this.#intercepted(entry));
    return () => {
      if (this.#registered.get(method) !== entry) return;
      this.#registered.delete(method);
      this.#methods.delete(method);
    };
  }

  /**
   * Sets (or with `undefined` removes) the one {@link HandlerInterceptor} every handler call then goes through: after
   * the guard, the method lookup (-32601) and the validator (-32602), so a message refused by any of them never
   * reaches it, and with the handler's context already built. Without one, dispatch is what it is without this
   * method: the interceptor is put in front of each handler of the method table while it is set, never tested for
   * per message. A protocol layer uses it for a middleware chain around its methods.
   */
  intercept(interceptor: HandlerInterceptor<Ctx> | undefined): void {
    if (interceptor !== undefined && typeof interceptor !== 'function') throw new TypeError('Invalid interceptor: expected a function or undefined');
    if (interceptor === this.#interceptor) return;
    this.#interceptor = interceptor;
    if (interceptor === undefined) {
      this.#methods = this.#registered;
      return;
    }
    const methods = new Map<string, MethodEntry<Ctx>>();
    for (const [method, entry] of this.#registered) methods.set(method, this.#intercepted(entry));
    this.#methods = methods;
  }

  /** `entry` with its handler called through the interceptor (read at each call, so it is always the current one). */
  #intercepted(entry: MethodEntry<Ctx>): MethodEntry<Ctx> {
    const handler = entry.handler;
    return {
      handler: (params, ctx) => {
        const interceptor = this.#interceptor;
        return interceptor === undefined ? handler(params, ctx) : interceptor(handler, params, ctx);
      },
      validate: entry.validate,
      kind: entry.kind,
    };
  }

  /** Whether a handler is registered for `method` (own entries only). */
  has(method: string): boolean {
    return this.#registered.has(method);
  }

  /**
   * Handles one classified inbound unit. Returns the response to send, an array for a batch, or `undefined`
   * when nothing is to be sent (a notification, an all-notification batch, or a `response` kind which a
   * dispatcher does not handle). An `invalid` unit resolves to its reply. Never rejects.
   *
   * @param inbound - From {@link parseMessage} or {@link classifyValue}.
   * @param ctx - The dispatcher context handed to the guard and (with `id`, `method`, `signal`) to handlers.
   * @param signal - Becomes every handler's `ctx.signal`. @default a signal that never aborts
   * @see https://www.jsonrpc.org/specification §6 (Batch)
   */
  handle(inbound: Inbound, ctx: Ctx, signal?: AbortSignal): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    switch (inbound.kind) {
      case 'request':
      case 'notification':
        return this.dispatch(inbound.message, ctx, signal);
      case 'invalid':
        return Promise.resolve(inbound.reply);
      case 'response':
        return NOTHING;
      case 'batch':
        return this.#handleBatch(inbound.items, ctx, signal);
    }
  }

  /**
   * Handles one request (always answered) or notification (never answered). Never rejects.
   *
   * Order: method lookup, then the guard (a refusal is the answer), then -32601 for an unknown method, then
   * the validator (-32602), then the handler.
   *
   * @param message - A valid request or notification (as classified; ids are not re-validated here).
   * @param ctx - The dispatcher context.
   * @param signal - Becomes the handler's `ctx.signal`. @default a signal that never aborts
   */
  dispatch(message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx, signal?: AbortSignal): Promise<JsonRpcResponse | undefined> {
    const reply = this.dispatchNow(message, ctx, signal === undefined ? undefined : requestOf(message, signal));
    return isThenable(reply) ? reply : reply === undefined ? NOTHING : Promise.resolve(reply);
  }

  /**
   * {@link Dispatcher.dispatch} without the promise when the answer is already known: a synchronous handler's
   * response (or a refusal) is returned as a value, an asynchronous one as a promise that never rejects. A
   * transport loop uses it to send synchronous answers before it reads the next message, which keeps replies
   * in arrival order and saves a promise per request.
   *
   * @param message - A valid request or notification (as classified; ids are not re-validated here).
   * @param ctx - The dispatcher context.
   * @param request - The request being dispatched (its `id` and `method` are the message's); its `signal`, read
   *   only when a handler (or the default context copy) asks for it, becomes the handler's `ctx.signal`.
   *   @default the message's id and method with a signal that never aborts
   * @returns The response (`undefined` for a notification), or a promise of it that never rejects.
   */
  dispatchNow(message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx, request?: ContextRequest): Reply | Promise<Reply> {
    const reply = this.#invoke(message, ctx, request);
    if (reply !== PENDING) return reply;
    const result = this.#pending;
    this.#pending = undefined;
    const method = message.method;
    const id = (message as { readonly id?: JsonRpcId }).id;
    return Promise.resolve(result).then(
      (value) => (id === undefined ? undefined : successResponse(id, value)),
      (error: unknown) => this.#failed(error, method, id),
    );
  }

  /**
   * {@link Dispatcher.dispatchNow} with the answer handed to `request.settle` instead of returned: in this call when it
   * is known at once (a synchronous handler, a refusal), else when the handler's promise settles; exactly once, with
   * the response or `undefined` (a notification), never a rejection. For a transport loop that keeps an object per
   * request anyway (its {@link ContextRequest}): an asynchronous request then costs one promise reaction here instead
   * of the promise `dispatchNow` returns and the caller's own `then` on it.
   *
   * @param message - A valid request or notification (as classified; ids are not re-validated here).
   * @param ctx - The dispatcher context.
   * @param request - The request being dispatched (see {@link Dispatcher.dispatchNow}), which also receives its
   *   answer: `settle` should not throw (what it throws is not caught here).
   */
  dispatchInto(message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx, request: ContextRequest & { settle(reply: JsonRpcResponse | undefined): void }): void {
    const sink = request;
    const reply = this.#invoke(message, ctx, request);
    if (reply !== PENDING) {
      sink.settle(reply);
      return;
    }
    const result = this.#pending;
    this.#pending = undefined;
    const method = message.method;
    const id = (message as { readonly id?: JsonRpcId }).id;
    Promise.resolve(result).then(
      (value) => sink.settle(id === undefined ? undefined : successResponse(id, value)),
      (error: unknown) => {
        let failed: Reply;
        try {
          failed = this.#failed(error, method, id);
        } catch {
          // A logger that throws: the request is still answered.
          failed = id === undefined ? undefined : internalError(id);
        }
        sink.settle(failed);
      },
    );
  }

  /**
   * Runs the guard, the lookup, the validator and the handler: the answer when it is known now, else {@link PENDING}
   * with the handler's thenable left in {@link Dispatcher.#pending} for the caller to take at once.
   */
  #invoke(message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx, request: ContextRequest | undefined): Reply | typeof PENDING {
    const method = message.method;
    const id = (message as { readonly id?: JsonRpcId }).id;
    let entry = this.#methods.get(method);
    if (entry !== undefined && entry.kind !== 'any' && (entry.kind === 'notification') !== (id === undefined)) entry = undefined;
    const guard = this.#guard;
    if (guard !== undefined) {
      let refusal: JsonRpcError | undefined;
      try {
        refusal = guard(message, ctx);
      } catch (error) {
        return this.#failed(error, method, id);
      }
      if (refusal !== undefined) return this.#failed(refusal, method, id);
    }
    if (entry === undefined) {
      if (id === undefined) {
        this.#logger.debug('Notification for an unknown method: ignored', { method: echo(method) });
        return undefined;
      }
      // The method name is client input: quoted in at most MAX_ECHO_CHARS, so the error never costs more than the request.
      return errorResponse(id, { code: ErrorCode.MethodNotFound, message: `${ErrorMessage[ErrorCode.MethodNotFound]}: "${echo(method)}"` });
    }
    const params = message.params;
    let result: unknown;
    try {
      const validate = entry.validate;
      if (validate !== undefined) {
        const problem = validate(params);
        if (problem !== undefined) return this.#invalidParams(problem, method, id);
      }
      const factory = this.#createContext;
      const handlerCtx =
        factory !== undefined
          ? factory(ctx, request ?? { id, method, signal: NEVER_ABORTED })
          : handlerContext(ctx, id, method, request === undefined ? NEVER_ABORTED : request.signal);
      result = entry.handler(params, handlerCtx);
    } catch (error) {
      return this.#failed(error, method, id);
    }
    if (isThenable(result)) {
      this.#pending = result;
      return PENDING;
    }
    return id === undefined ? undefined : successResponse(id, result);
  }

  /**
   * Convenience: {@link parseMessage} + {@link Dispatcher.handle} + {@link stringifyReply}. Returns the reply
   * text, or `undefined` when nothing is to be sent. Never rejects.
   *
   * @param text - One message or batch, as received.
   * @param ctx - The dispatcher context.
   */
  handleText(text: string, ctx: Ctx): Promise<string | undefined> {
    return this.handle(parseMessage(text), ctx).then((reply) =>
      reply === undefined ? undefined : stringifyReply(reply, this.#logger),
    );
  }

  #handleBatch(items: readonly InboundSingle[], ctx: Ctx, signal: AbortSignal | undefined): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    return new Promise((resolve) => {
      runBatch(items, {
        maxBatchSize: this.#maxBatchSize,
        member: (item, slot) => {
          if (item.kind === 'response') {
            slot.settle(undefined);
            return;
          }
          const message = item.message;
          const reply = this.dispatchNow(message, ctx, signal === undefined ? undefined : requestOf(message, signal));
          // dispatchNow never rejects.
          if (isThenable(reply)) void reply.then((response) => slot.settle(response));
          else slot.settle(reply);
        },
        done: resolve,
      });
    });
  }

  #invalidParams(problem: string, method: string, id: JsonRpcId | undefined): Reply {
    if (id === undefined) {
      this.#logger.debug('Notification with invalid params: ignored', { method: echo(method), problem: echo(problem) });
      return undefined;
    }
    const prefix = ErrorMessage[ErrorCode.InvalidParams];
    const message = problem.startsWith(prefix) ? problem : `${prefix}: ${problem}`;
    return errorResponse(id, { code: ErrorCode.InvalidParams, message });
  }

  /** Turns a thrown value (or a guard's refusal) into the reply; never leaks a non-wire error's text. */
  #failed(error: unknown, method: string, id: JsonRpcId | undefined): Reply {
    if (error instanceof JsonRpcError && Number.isInteger(error.code)) {
      if (id === undefined) {
        this.#logger.debug('Notification refused: no reply sent', { method: echo(method), code: error.code, message: echo(error.message) });
        return undefined;
      }
      return { jsonrpc: JSONRPC_VERSION, id, error: error.toJSON() };
    }
    this.#logger.error(`Handler failed: "${echo(method)}"`, { method: echo(method), id: echoId(id), error });
    return id === undefined ? undefined : internalError(id);
  }
}
