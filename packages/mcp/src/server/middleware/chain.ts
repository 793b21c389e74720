/**
 * The middleware chain of one server (`McpServer.use`): an ordered list of middlewares, each for every method or
 * for the methods of its filter, run around the handler of every inbound request and notification.
 *
 * Where it runs: it is the dispatcher's interceptor (`Dispatcher.intercept` of `@switchboard/jsonrpc`), installed
 * only while at least one middleware is registered, so a server without middleware calls its handlers as before.
 * Everything that judges a message comes first (the transport's checks, the inbound step of `inboundGate.ts`, the
 * method lookup): a refused message never reaches a middleware. Everything that serves it comes after: for a
 * 2026-07-28 request the input round and result decoration of `eras/modern.ts`, then the operation
 * (`features/*`: tool lookup, argument validation, the author's handler). So a middleware sees a 2026-07-28 result
 * as it goes on the wire (`resultType`, the server's identity, cache hints), and a result a middleware makes itself
 * for such a request is completed the same way before it is sent.
 *
 * Order: the first middleware added is the outermost (it runs first on the way in and last on the way out). The
 * list is copied on change: a message keeps the chain it started with, and `use` is allowed at any time, before or
 * after `connect`.
 *
 * Timing: `next()` is a promise, so a message a middleware covers is answered asynchronously even when its handler
 * is synchronous. The handler still runs in the turn the message arrived in when every middleware before it calls
 * `next()` at once (a session's `initialize` is recorded before the next message is judged), but its answer is no
 * longer sent before the next message is dispatched. Only a client that sends requests behind `initialize` before
 * its answer can tell, which MCP 2025-11-25 basic/lifecycle.mdx "Initialization" says a client SHOULD NOT do
 * (pings aside).
 */
import type { Dispatcher, HandlerInterceptor, JsonRpcParams, MethodHandler } from '@switchboard/jsonrpc';
import type { DispatchContext } from '../connection.js';
import type { ServerRequestContext } from '../context.js';
import { Call, type CallHost, type Middleware, type MiddlewareChanges, type MiddlewareFilter, type MiddlewareNext } from './call.js';

interface Entry {
  readonly middleware: Middleware;
  /** The methods it runs for; `undefined`: every method. */
  readonly methods: ReadonlySet<string> | undefined;
}

/** What a {@link MiddlewareChain} is built over. */
export interface MiddlewareChainOptions {
  /** The server's dispatcher: the chain is its interceptor while it holds a middleware. */
  readonly dispatcher: Dispatcher<DispatchContext>;
  readonly host: CallHost;
  /**
   * Completes a result a middleware returned instead of the operation's, for a 2026-07-28 request (`resultType`,
   * the server's identity, cache hints): the server's `ModernEra.decorate`.
   */
  readonly complete: (method: string, result: unknown) => unknown;
}

const NOT_RUN: unique symbol = Symbol('not run');

function checkedFilter(filter: MiddlewareFilter | undefined): ReadonlySet<string> | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter !== 'object' || filter === null) throw new TypeError('Invalid middleware filter: expected an object such as { methods: ["tools/call"] }');
  const methods = filter.methods;
  if (methods === undefined) return undefined;
  if (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string' || m === '')) {
    throw new TypeError('Invalid middleware filter: "methods" must be an array of method names such as ["tools/call"]');
  }
  return new Set(methods);
}

/** One message's walk down the chain: which middleware is next, and what the operation answered. */
class ChainRun {
  /** What the operation resolved with; {@link NOT_RUN} until it did. */
  inner: unknown = NOT_RUN;
  readonly #list: readonly Middleware[];
  readonly #handler: MethodHandler<DispatchContext>;

  constructor(list: readonly Middleware[], handler: MethodHandler<DispatchContext>) {
    this.#list = list;
    this.#handler = handler;
  }

  step(index: number, call: Call): Promise<unknown> {
    const list = this.#list;
    if (index === list.length) return this.#operation(call);
    let called = false;
    const next: MiddlewareNext = (changes?: MiddlewareChanges) => {
      if (called) return Promise.reject(new TypeError(`Middleware ${index + 1} of "${call.method}" called next() twice`));
      called = true;
      if (changes === undefined) return this.step(index + 1, call);
      if (typeof changes !== 'object' || changes === null) return Promise.reject(new TypeError('next(changes): expected an object { params?, signal? }'));
      if (changes.signal !== undefined && !(changes.signal instanceof AbortSignal)) return Promise.reject(new TypeError('next({ signal }): expected an AbortSignal'));
      return this.step(index + 1, call.with(changes));
    };
    try {
      return Promise.resolve(list[index]!(call, next));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #operation(call: Call): Promise<unknown> {
    let out: unknown;
    try {
      out = this.#handler(call.params, call.ctx);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return Promise.resolve(out).then((result) => {
      this.inner = result;
      return result;
    });
  }
}

/** The chain of one server (see the module comment). */
export class MiddlewareChain {
  #entries: readonly Entry[] = [];
  /** The middlewares of each method, worked out at its first message since the last change. */
  #byMethod = new Map<string, readonly Middleware[]>();
  readonly #options: MiddlewareChainOptions;
  readonly #intercept: HandlerInterceptor<DispatchContext>;

  constructor(options: MiddlewareChainOptions) {
    this.#options = options;
    this.#intercept = (handler, params, ctx) => this.#run(handler, params, ctx);
  }

  /** How many middlewares are registered. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Appends `middleware` (innermost so far) for the methods of `filter`.
   * @returns a disposer that removes it (messages already in the chain finish with it)
   * @throws TypeError when `middleware` is not a function or `filter` is malformed
   */
  add(filter: MiddlewareFilter | undefined, middleware: Middleware): () => void {
    if (typeof middleware !== 'function') throw new TypeError('Invalid middleware: expected a function (call, next) => result');
    const entry: Entry = { middleware, methods: checkedFilter(filter) };
    this.#entries = [...this.#entries, entry];
    this.#byMethod = new Map();
    this.#options.dispatcher.intercept(this.#intercept);
    return () => {
      if (!this.#entries.includes(entry)) return;
      this.#entries = this.#entries.filter((e) => e !== entry);
      this.#byMethod = new Map();
      if (this.#entries.length === 0) this.#options.dispatcher.intercept(undefined);
    };
  }

  #listFor(method: string): readonly Middleware[] {
    let list = this.#byMethod.get(method);
    if (list === undefined) {
      // Only registered methods reach the interceptor, so this map is bounded by the method table.
      list = this.#entries.filter((e) => e.methods === undefined || e.methods.has(method)).map((e) => e.middleware);
      this.#byMethod.set(method, list);
    }
    return list;
  }

  #run(handler: MethodHandler<DispatchContext>, params: JsonRpcParams | undefined, ctx: DispatchContext & { readonly method: string }): unknown {
    const list = this.#listFor(ctx.method);
    if (list.length === 0) return handler(params, ctx as Parameters<MethodHandler<DispatchContext>>[1]);
    const call = new Call(ctx as unknown as ServerRequestContext, params, this.#options.host);
    const run = new ChainRun(list, handler);
    const out = run.step(0, call);
    if (call.isNotification || call.era !== 'modern') return out;
    // A 2026-07-28 result a middleware made itself (not the operation's, which is decorated already) is completed
    // like a handler's: every result carries resultType (MCP 2026-07-28 basic/index.mdx "ResultType").
    return out.then((result) => (result === run.inner ? result : this.#options.complete(ctx.method, result)));
  }
}
