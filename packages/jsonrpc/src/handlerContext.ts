/**
 * What a method handler receives besides its params: the dispatcher context with the message's `id`, `method` and
 * an AbortSignal added ({@link HandlerContext}), the request it is built for ({@link ContextRequest}), and how it is
 * built: by a protocol layer's {@link ContextFactory}, or else by the default shallow copy.
 *
 * @see https://www.jsonrpc.org/specification §4 (Request: `id`, `method`), §4.1 (Notification: no `id`)
 */
import type { Cancellation } from './cancellation.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from './message.js';

/** What every handler receives besides its params, merged into the dispatcher context `Ctx`. */
export interface HandlerContext {
  /** The request id; `undefined` for a notification (JSON-RPC 2.0 §4.1). */
  readonly id: JsonRpcId | undefined;
  /** The method name as received. */
  readonly method: string;
  /**
   * Aborted when the request is cancelled or the connection closes. When {@link Dispatcher.dispatch} is called
   * without a signal, this is a shared signal that never aborts.
   */
  readonly signal: AbortSignal;
}

/**
 * The request (or notification) a handler context is built for: what {@link ContextFactory} and
 * {@link Dispatcher.dispatchNow} receive. `signal` may be a getter that creates the request's AbortController
 * on first read (an `AbortController` per request is measurable on a hot path, and most handlers never look at
 * it): an implementation should keep this object and read `signal` only when a handler asks for it.
 */
export interface ContextRequest {
  /** The request id; `undefined` for a notification (JSON-RPC 2.0 §4.1). */
  readonly id: JsonRpcId | undefined;
  /** The method name as received. */
  readonly method: string;
  /** Aborted when the request is cancelled or the connection closes; reading it may allocate (see above). */
  readonly signal: AbortSignal;
  /**
   * The same cancellation heard without an `AbortSignal` (see {@link Cancellation}): a peer's inbound request has
   * one; `undefined` where the request has only a signal (a caller's `dispatch(…, signal)`).
   */
  readonly cancellation?: Cancellation;
}

/**
 * Builds the context a handler receives (see {@link DispatcherOptions.createContext}) from the dispatcher
 * context and the {@link ContextRequest}. Keep `request` and read `request.signal` lazily (e.g. from a getter)
 * so the AbortSignal stays unallocated until a handler asks for it.
 */
export type ContextFactory<Ctx> = (ctx: Ctx, request: ContextRequest) => Ctx & HandlerContext;

/** A signal that never aborts, shared by every dispatch that is given none. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** The {@link ContextRequest} of a message dispatched with a caller's signal. */
export function requestOf(message: JsonRpcRequest | JsonRpcNotification, signal: AbortSignal): ContextRequest {
  return { id: (message as { readonly id?: JsonRpcId }).id, method: message.method, signal };
}

/** Builds the handler context: the dispatcher context plus `id`, `method` and `signal`. */
// Positional on purpose: called per message without a context factory, where an options object would be one more allocation.
// eslint-disable-next-line @typescript-eslint/max-params
export function handlerContext<Ctx>(
  ctx: Ctx,
  id: JsonRpcId | undefined,
  method: string,
  signal: AbortSignal,
): Ctx & HandlerContext {
  if (typeof ctx !== 'object' || ctx === null) return { id, method, signal } as Ctx & HandlerContext;
  const proto: unknown = Object.getPrototypeOf(ctx);
  if (proto === Object.prototype || proto === null) return { ...ctx, id, method, signal };
  return Object.create(ctx, {
    id: { value: id, enumerable: true },
    method: { value: method, enumerable: true },
    signal: { value: signal, enumerable: true },
  }) as Ctx & HandlerContext;
}
