/**
 * What a failed request becomes on the client: the engine's local failures mapped to the typed errors of
 * `protocol/clientErrors.ts`, and wire errors rebuilt as typed MCP errors (`mcpErrorFromWire`), so callers branch
 * on a class and a stable `code`, never on a message.
 */
import { JsonRpcError, JsonRpcLocalError, LocalErrorCode } from '@switchboard/jsonrpc';
import { ConnectionClosedError, McpClientError, RequestAbortedError, RequestTimeoutError, SpawnError, type ConnectionEndFacts } from '../protocol/clientErrors.js';
import { mcpErrorFromWire } from '../protocol/errors.js';

/** How much earlier than `Date.now()` expects it a timer may fire (the event loop's clock is not `Date.now()`'s), in ms. */
const TIMER_SLACK_MS = 2;

/** What {@link clientFailure} needs to know about the request that failed. */
export interface FailedRequest {
  readonly method: string;
  /** The idle budget it was sent with, in ms. */
  readonly timeoutMs: number;
  /** Its hard cap, in ms, when it had one. */
  readonly maxTotalTimeoutMs: number | undefined;
  /** When it was sent (`Date.now()`), to tell the two timeouts apart. */
  readonly sentAt: number;
  /** How the connection ended, when it did. */
  readonly endFacts: ConnectionEndFacts | undefined;
}

/**
 * The typed error for `error`, thrown by a request of the engine: `request_timeout` → {@link RequestTimeoutError},
 * `request_aborted` → {@link RequestAbortedError}, `connection_closed` → {@link ConnectionClosedError} with the
 * transport's end facts (or the transport's {@link SpawnError} when the process ended before writing anything), `send_failed` → its cause when that is a {@link McpClientError} (an HTTP status, an expired
 * session), else a {@link ConnectionClosedError}; a wire error → its typed {@link McpError}; anything else as is.
 */
export function clientFailure(error: unknown, request: FailedRequest): unknown {
  if (error instanceof McpClientError) return error;
  if (error instanceof JsonRpcLocalError) {
    switch (error.code) {
      case LocalErrorCode.RequestTimeout: {
        // The cap ran out when it is shorter than the idle budget (progress only moves the idle deadline later), or
        // when the request is that old; a timer may fire a little before `Date.now()` says its time has come.
        const total = request.maxTotalTimeoutMs;
        const isTotal = total !== undefined && (total < request.timeoutMs || Date.now() - request.sentAt >= total - TIMER_SLACK_MS);
        return new RequestTimeoutError({ method: request.method, timeoutMs: isTotal ? total : request.timeoutMs, total: isTotal });
      }
      case LocalErrorCode.RequestAborted:
        return new RequestAbortedError({ method: request.method, cause: error.cause });
      case LocalErrorCode.SendFailed:
        if (error.cause instanceof McpClientError) return error.cause;
        return new ConnectionClosedError({ ...request.endFacts, what: `request "${request.method}" could not be sent`, cause: error.cause ?? error });
      case LocalErrorCode.ConnectionClosed:
      default:
        // A process that ended before it wrote anything did not start: its transport's end facts are the SpawnError.
        if (request.endFacts instanceof SpawnError) return request.endFacts;
        return new ConnectionClosedError({ ...request.endFacts, what: `request "${request.method}"`, cause: error });
    }
  }
  if (error instanceof JsonRpcError) return mcpErrorFromWire(error.toJSON());
  return error;
}
