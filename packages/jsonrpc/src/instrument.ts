/**
 * The instrumentation hook of the {@link Peer}: where tracing (OpenTelemetry spans) and failure analytics see
 * every inbound and outbound request begin and end. Runtime-neutral; the engine depends on no tracing library.
 *
 * The contract is synchronous: `onInboundRequest` / `onOutboundRequest` are called when the request begins and
 * return the `end` callback the engine calls exactly once, synchronously, when it ends — so a synchronous
 * handler's answer still goes out before the next inbound message is read. Without an instrumentation the engine
 * calls and allocates nothing for it.
 */
import { JsonRpcError, JsonRpcLocalError, LocalErrorCode, type LocalErrorCodeValue } from './errors.js';
import { echo, echoId } from './echo.js';
import type { Logger } from './logger.js';
import type { JsonRpcId, JsonRpcResponse } from './message.js';

/**
 * The request an instrumentation hook is told about. The engine may pass the request message itself; only
 * `id` and `method` are promised, and the object must not be modified.
 */
export interface RequestInfo {
  /** The request id (for an outbound request, the id this peer chose). */
  readonly id: JsonRpcId;
  /** The method name. */
  readonly method: string;
}

/**
 * How a request ended.
 *
 * - `result`: a success response was sent (inbound) or received (outbound).
 * - `error`: an error response was sent or received; `code` is its JSON-RPC error code (JSON-RPC 2.0 §5.1).
 * - `local`: it failed here without a response: `code` is the {@link LocalErrorCode} (`connection_closed` when
 *   the connection closed first, `send_failed` when the request or its response could not be handed to the
 *   transport).
 * - `cancelled`: an outbound request was aborted through its `signal`, or an inbound one was cancelled with
 *   {@link Peer.cancelInbound} (no response is sent for it).
 * - `timeout`: an outbound request got no response within `timeoutMs` or `maxTotalTimeoutMs`.
 */
export type RequestOutcome =
  | { readonly kind: 'result' }
  | { readonly kind: 'error'; readonly code: number }
  | { readonly kind: 'local'; readonly code: LocalErrorCodeValue }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'timeout' };

/** Called exactly once, synchronously, when the request ends. A throw is logged and ignored. */
export type RequestEnd = (outcome: RequestOutcome) => void;

/**
 * Hooks that see each request begin and end (option {@link PeerOptions.instrumentation}). Each hook is called when
 * the request begins and may return the {@link RequestEnd} to call when it ends (`undefined`: not interested).
 * A hook that throws is logged and the request goes on unobserved.
 *
 * @example
 * const instrumentation: Instrumentation = {
 *   onInboundRequest(info) {
 *     const started = performance.now();
 *     return (outcome) => record(info.method, outcome.kind, performance.now() - started);
 *   },
 * };
 */
export interface Instrumentation {
  /**
   * An inbound request arrived (before it waits for a concurrency slot); its end is the response handed to the
   * transport, its cancellation, or the connection closing. @default none
   */
  readonly onInboundRequest?: ((info: RequestInfo) => RequestEnd | undefined) | undefined;
  /** An outbound request is about to be sent; its end is the settling of its promise. @default none */
  readonly onOutboundRequest?: ((info: RequestInfo) => RequestEnd | undefined) | undefined;
}

/** The outcomes that carry no detail, shared so that ending a request allocates nothing. */
export const OUTCOME_RESULT: RequestOutcome = Object.freeze({ kind: 'result' });
/** See {@link OUTCOME_RESULT}. */
export const OUTCOME_CANCELLED: RequestOutcome = Object.freeze({ kind: 'cancelled' });
/** See {@link OUTCOME_RESULT}. */
export const OUTCOME_TIMEOUT: RequestOutcome = Object.freeze({ kind: 'timeout' });

/** Calls a begin hook; a throw is logged and the request goes on unobserved. */
export function beginRequest(
  hook: (info: RequestInfo) => RequestEnd | undefined,
  info: RequestInfo,
  logger: Logger,
): RequestEnd | undefined {
  try {
    return hook(info);
  } catch (error) {
    logger.error('Instrumentation failed: request begin', { id: echoId(info.id), method: echo(info.method), error });
    return undefined;
  }
}

/** Calls an end callback; a throw is logged and ignored. */
export function endRequest(end: RequestEnd, outcome: RequestOutcome, logger: Logger): void {
  try {
    end(outcome);
  } catch (error) {
    logger.error('Instrumentation failed: request end', { outcome: outcome.kind, error });
  }
}

/** The outcome of a response sent or received. */
export function responseOutcome(response: JsonRpcResponse): RequestOutcome {
  return 'error' in response ? { kind: 'error', code: response.error.code } : OUTCOME_RESULT;
}

/** The outcome of an outbound request that failed with `error`. */
export function failureOutcome(error: Error): RequestOutcome {
  if (error instanceof JsonRpcError) return { kind: 'error', code: error.code };
  if (error instanceof JsonRpcLocalError) {
    if (error.code === LocalErrorCode.RequestTimeout) return OUTCOME_TIMEOUT;
    if (error.code === LocalErrorCode.RequestAborted) return OUTCOME_CANCELLED;
    return { kind: 'local', code: error.code };
  }
  return { kind: 'local', code: LocalErrorCode.SendFailed };
}
