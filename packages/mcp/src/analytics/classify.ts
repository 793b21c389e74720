/**
 * The failure classes of MCP requests and the one pure function that assigns them ({@link classifyOutcome}).
 * Everything that reports how a request ended in Switchboard's words uses it: the failure analytics
 * (`createAnalytics`), the CLI's `class:` line, and the OpenTelemetry instrumentation's `error.type`.
 *
 * It lives in a file of its own, importing nothing but the engine's types, so any of them can reuse it without
 * pulling in the analytics store.
 */
import type { RequestOutcome } from '@switchboard/jsonrpc';

/**
 * How one request ended, in one word:
 *
 * | class | meaning |
 * |---|---|
 * | `ok` | a result that is not an `isError` tool result |
 * | `tool_error` | a `tools/call` result with `isError: true` (the tool ran and failed) |
 * | `protocol_error` | a JSON-RPC error response (its `code` is kept) |
 * | `refused` | turned away before dispatch: an HTTP status (Origin/Host, auth, a missing session id, admission; its JSON-RPC code kept when the body had one), rate limit (code 429) |
 * | `era_mismatch` | -32022 unsupported protocol version, or a request of an era the server does not serve |
 * | `timeout` | no answer in time |
 * | `cancelled` | cancelled by the caller (`notifications/cancelled`, an aborted signal) |
 * | `transport` | the connection closed or broke while the request was pending, or it could not be sent |
 */
export type OutcomeClass = 'ok' | 'tool_error' | 'protocol_error' | 'refused' | 'era_mismatch' | 'timeout' | 'cancelled' | 'transport';

/** Every {@link OutcomeClass}, in the order snapshots list them. */
export const OUTCOME_CLASSES: readonly OutcomeClass[] = Object.freeze(['ok', 'tool_error', 'protocol_error', 'refused', 'era_mismatch', 'timeout', 'cancelled', 'transport']);

/**
 * What is known about how a request ended: the engine's {@link RequestOutcome} (`result`, `error` with its code,
 * `local` with the engine's local code, `cancelled`, `timeout`), a result with its `isError` flag, or one of the
 * facts only a transport or a client knows.
 *
 * - `{ kind: 'result', isError }`: a result; `isError: true` is a tool error.
 * - `{ kind: 'refused', status?, code? }`: turned away before dispatch (HTTP `status` when there is one; `code`, the
 *   JSON-RPC error code of the refusal's body, when it had one: kept in the class's `code`).
 * - `{ kind: 'era_unserved' }`: a request of an era the server does not serve (a legacy `initialize` to a
 *   modern-only server, a modern request to a legacy-only one), however the server answered it.
 * - `{ kind: 'client', code }`: a local client failure, by its `McpClientError` code (`request_timeout`,
 *   `connection_closed`, `http_status`, `negotiation_failed`, …).
 */
export type OutcomeFacts =
  | RequestOutcome
  | { readonly kind: 'result'; readonly isError?: boolean | undefined }
  | { readonly kind: 'refused'; readonly status?: number | undefined; readonly code?: number | undefined }
  | { readonly kind: 'era_unserved' }
  | { readonly kind: 'client'; readonly code: string };

/** A request's class, and the JSON-RPC code when it ended in an error response. */
export interface ClassifiedOutcome {
  readonly class: OutcomeClass;
  /** The JSON-RPC error code (`protocol_error`, `era_mismatch` and `refused` when the refusal was an error response). */
  readonly code?: number;
}

/**
 * -32022: the client asked for a revision the server does not serve (MCP 2026-07-28 basic/index.mdx "Error
 * Codes": "-32022 UnsupportedProtocolVersion").
 */
export const UNSUPPORTED_PROTOCOL_VERSION_CODE = -32022;
/**
 * 429: the code `rateLimitMiddleware` refuses with (`RATE_LIMITED_CODE` of `@switchboard/mcp/server`, repeated here
 * so this file imports nothing but the engine's types).
 */
const RATE_LIMITED = 429;

const OK: ClassifiedOutcome = Object.freeze({ class: 'ok' });
const TOOL_ERROR: ClassifiedOutcome = Object.freeze({ class: 'tool_error' });
const TIMEOUT: ClassifiedOutcome = Object.freeze({ class: 'timeout' });
const CANCELLED: ClassifiedOutcome = Object.freeze({ class: 'cancelled' });
const TRANSPORT: ClassifiedOutcome = Object.freeze({ class: 'transport' });
const REFUSED: ClassifiedOutcome = Object.freeze({ class: 'refused' });
const ERA_MISMATCH: ClassifiedOutcome = Object.freeze({ class: 'era_mismatch' });

/** A JSON-RPC error code's class. */
function errorClass(code: number): ClassifiedOutcome {
  if (code === UNSUPPORTED_PROTOCOL_VERSION_CODE) return { class: 'era_mismatch', code };
  if (code === RATE_LIMITED) return { class: 'refused', code };
  return { class: 'protocol_error', code };
}

/** A local code's class (the engine's `LocalErrorCode` values are a subset of the client's codes). */
function localClass(code: string): ClassifiedOutcome {
  switch (code) {
    case 'request_timeout':
      return TIMEOUT;
    case 'request_aborted':
      return CANCELLED;
    case 'http_status':
    case 'redirect_refused':
      return REFUSED;
    case 'negotiation_failed':
    case 'not_supported':
      return ERA_MISMATCH;
    default:
      // connection_closed, send_failed, connection_refused, spawn_failed, session_expired, response_too_large,
      // invalid_result and every code added later: nothing usable came back over the connection.
      return TRANSPORT;
  }
}

/**
 * The one class of a request's ending. Pure: the same facts always give the same class, and nothing is read but
 * `facts`. Never throws (an unknown `kind` is `transport`: something ended the request that no answer explains).
 *
 * @example
 * classifyOutcome({ kind: 'result', isError: true }); // { class: 'tool_error' }
 * classifyOutcome({ kind: 'error', code: -32602 });   // { class: 'protocol_error', code: -32602 }
 * classifyOutcome({ kind: 'local', code: 'connection_closed' }); // { class: 'transport' }
 */
export function classifyOutcome(facts: OutcomeFacts): ClassifiedOutcome {
  switch (facts.kind) {
    case 'result':
      return 'isError' in facts && facts.isError === true ? TOOL_ERROR : OK;
    case 'error':
      return errorClass(facts.code);
    case 'local':
    case 'client':
      return localClass(facts.code);
    case 'cancelled':
      return CANCELLED;
    case 'timeout':
      return TIMEOUT;
    case 'refused':
      return 'code' in facts && typeof facts.code === 'number' ? { class: 'refused', code: facts.code } : REFUSED;
    case 'era_unserved':
      return ERA_MISMATCH;
    default:
      return TRANSPORT;
  }
}
