/**
 * Server-side dispatch of requests and notifications to method handlers.
 * CONTRACT STUB — to be implemented (see the issue #2 section 2). Signatures are fixed; bodies are not.
 */
import type { JsonRpcError } from './errors.js';
import type { Inbound } from './parse.js';
import type { Logger } from './logger.js';
import type {
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
} from './types.js';

/** What every handler receives besides its params. */
export interface HandlerContext {
  /** The request id; `undefined` for a notification. */
  readonly id: JsonRpcId | undefined;
  /** The method name as received. */
  readonly method: string;
  /** Aborted when the request is cancelled or the connection closes. */
  readonly signal: AbortSignal;
}

/**
 * A method handler. Its return value (awaited) is the `result`; `undefined` is sent as `null`.
 * Throw {@link JsonRpcError} to answer with a specific error; anything else becomes -32603 with a generic
 * message (the thrown value goes to the logger, never to the wire).
 */
export type MethodHandler<Ctx = unknown> = (
  params: JsonRpcParams | undefined,
  ctx: Ctx & HandlerContext,
) => unknown;

/**
 * Params validation hook, run before the handler. Return `undefined` when the params are acceptable, or a
 * message describing what is wrong: the request is then answered with -32602 "Invalid params" and that
 * message, and the handler does not run.
 */
export type ParamsValidator = (params: JsonRpcParams | undefined) => string | undefined;

/** Per-method registration options. */
export interface MethodOptions {
  /** Runs before the handler; see {@link ParamsValidator}. @default no validation */
  readonly validate?: ParamsValidator;
}

/** {@link Dispatcher} construction options. */
export interface DispatcherOptions<Ctx = unknown> {
  /** Maximum number of members in one batch; a larger batch is refused as a whole with one -32600 error. @default 100 */
  readonly maxBatchSize?: number;
  /** Where unexpected handler failures are reported. @default silentLogger */
  readonly logger?: Logger;
  /**
   * Runs before every request and notification, after method lookup succeeds or fails. Return an error to
   * refuse the message (sent for requests, dropped for notifications); `undefined` lets it through. Used
   * by protocol layers for lifecycle gating.
   */
  readonly guard?: (message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx) => JsonRpcError | undefined;
}

/** Default for {@link DispatcherOptions.maxBatchSize}. */
export const DEFAULT_MAX_BATCH_SIZE = 100;

/** Maps method names to handlers (a `Map`, never a plain-object lookup) and produces responses. */
export declare class Dispatcher<Ctx = unknown> {
  constructor(options?: DispatcherOptions<Ctx>);
  /** Registers a handler; returns a disposer that removes it. Replaces an earlier handler of the same name. */
  register(method: string, handler: MethodHandler<Ctx>, options?: MethodOptions): () => void;
  /** Whether a handler is registered for `method`. */
  has(method: string): boolean;
  /**
   * Handles one classified inbound unit. Returns the response to send, an array for a batch, or `undefined`
   * when nothing is to be sent (a notification, an all-notification batch, or a `response` kind which a
   * dispatcher does not handle).
   */
  handle(inbound: Inbound, ctx: Ctx, signal?: AbortSignal): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>;
  /** Handles one request (always answered) or notification (never answered). */
  dispatch(message: JsonRpcRequest | JsonRpcNotification, ctx: Ctx, signal?: AbortSignal): Promise<JsonRpcResponse | undefined>;
  /** Convenience: parse + handle + stringify. Returns the reply text or `undefined`. */
  handleText(text: string, ctx: Ctx): Promise<string | undefined>;
}
