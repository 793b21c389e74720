/**
 * The typed local errors of an MCP client connection. A wire error the server answered with is an
 * {@link McpError} (rebuilt by `mcpErrorFromWire`); everything that happened on this side of the wire — the
 * process exited, the request timed out, the HTTP exchange failed, the application aborted — is one of the
 * classes below, each with a stable string `code` ({@link ClientErrorCode}) that callers branch on.
 *
 * They live in `protocol/` because both the client (`client/`) and the client transports (`transports/`)
 * raise them, and neither imports the other's internals.
 */
import { echo } from '@switchboard/jsonrpc';
import type { McpError } from './errors.js';

/** The stable codes of {@link McpClientError}. The first three equal the engine's `LocalErrorCode` values. */
export const ClientErrorCode = {
  /** The connection ended while the request was pending or before it was sent (process exited, stream closed). */
  ConnectionClosed: 'connection_closed',
  /** No response within `timeoutMs` since the send or the last progress, or past `maxTotalTimeoutMs`. */
  RequestTimeout: 'request_timeout',
  /** The caller's `AbortSignal` fired. */
  RequestAborted: 'request_aborted',
  /** Nothing accepted the connection at the server's HTTP address (`ECONNREFUSED`): no server listens there. */
  ConnectionRefused: 'connection_refused',
  /** The server process could not be started, or exited before it answered anything. */
  SpawnFailed: 'spawn_failed',
  /** An HTTP exchange answered with a status and no JSON-RPC response for the request. */
  HttpStatus: 'http_status',
  /** The Streamable HTTP session is gone (HTTP 404 to a request carrying its id); the client re-initializes. */
  SessionExpired: 'session_expired',
  /** No protocol revision both sides speak (or the server answered no probe the spec recognizes). */
  NegotiationFailed: 'negotiation_failed',
  /** The server's result breaks the spec (a malformed result, an unknown `resultType`, content against `outputSchema`). */
  InvalidResult: 'invalid_result',
  /** A list kept returning `nextCursor` past the page budget, or a page repeated itself. */
  PaginationLimit: 'pagination_limit',
  /** A multi round-trip request asked for input more times than `maxInputRounds` allows. */
  InputRoundsExceeded: 'input_rounds_exceeded',
  /** The operation does not exist in the negotiated era or revision, or the server did not advertise it. */
  NotSupported: 'not_supported',
  /** An HTTP answer redirected the client where it does not follow: another origin, or too many redirects. */
  RedirectRefused: 'redirect_refused',
  /** A response exceeded the transport's bound on one message (stdio `maxLineBytes`). */
  ResponseTooLarge: 'response_too_large',
  /** The server asked for authorization (HTTP 401/403) and the client could not obtain a token it accepts. */
  AuthorizationFailed: 'authorization_failed',
} as const;

/** The value of one of {@link ClientErrorCode}'s members. */
export type ClientErrorCodeValue = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/** The base of every local client error: `code` says what happened, `cause` (when set) what it came from. */
export class McpClientError extends Error {
  /** What happened; see {@link ClientErrorCode}. */
  readonly code: ClientErrorCodeValue;

  constructor(code: ClientErrorCodeValue, message: string, options?: { readonly cause?: unknown }) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'McpClientError';
    this.code = code;
  }
}

/** How a connection ended, as far as its transport knows. */
export interface ConnectionEndFacts {
  /** The server process's exit code (`null` when a signal ended it); stdio only. */
  readonly exitCode?: number | null | undefined;
  /** The signal that ended the server process (`'SIGKILL'`); stdio only. */
  readonly signal?: string | null | undefined;
  /** The last lines the server wrote to stderr, oldest first (bounded by the transport); stdio only. */
  readonly stderrTail?: readonly string[] | undefined;
  /** What the transport saw, in a few words (`'stdout closed'`, `'the GET stream failed: 500'`). */
  readonly reason?: string | undefined;
}

function endSuffix(facts: ConnectionEndFacts): string {
  const parts: string[] = [];
  if (facts.reason !== undefined) parts.push(facts.reason);
  if (facts.exitCode !== undefined && facts.exitCode !== null) parts.push(`exit code ${facts.exitCode}`);
  if (facts.signal !== undefined && facts.signal !== null) parts.push(`signal ${facts.signal}`);
  const last = facts.stderrTail?.at(-1);
  if (last !== undefined) parts.push(`last stderr line: "${echo(last)}"`);
  return parts.length === 0 ? '' : `: ${parts.join('; ')}`;
}

/**
 * The connection to the server ended: every pending request fails with this, and so does any later call until
 * the client reconnects. Carries the exit code and last stderr lines when the server was a process.
 */
export class ConnectionClosedError extends McpClientError implements ConnectionEndFacts {
  readonly exitCode: number | null | undefined;
  readonly signal: string | null | undefined;
  readonly stderrTail: readonly string[];
  readonly reason: string | undefined;

  constructor(facts: ConnectionEndFacts & { readonly what?: string; readonly cause?: unknown } = {}) {
    super(ClientErrorCode.ConnectionClosed, `Connection closed${facts.what === undefined ? '' : ` (${facts.what})`}${endSuffix(facts)}`, 'cause' in facts ? { cause: facts.cause } : undefined);
    this.name = 'ConnectionClosedError';
    this.exitCode = facts.exitCode;
    this.signal = facts.signal;
    this.stderrTail = facts.stderrTail ?? [];
    this.reason = facts.reason;
  }
}

/**
 * Nothing accepted the TCP connection to the server's HTTP address: the socket error was `ECONNREFUSED` (on every
 * address the host name resolved to). No server listens there, or it is not started yet; nothing was sent. The
 * HTTP client transports raise it instead of {@link ConnectionClosedError}, since no connection ever existed.
 */
export class ConnectionRefusedError extends McpClientError {
  /** The URL the client tried to reach. */
  readonly url: string;

  constructor(facts: { readonly url: string; readonly cause?: unknown }) {
    super(ClientErrorCode.ConnectionRefused, `Nothing listens at ${echo(facts.url)} (connection refused)`, 'cause' in facts ? { cause: facts.cause } : undefined);
    this.name = 'ConnectionRefusedError';
    this.url = facts.url;
  }
}

/** Why {@link SpawnError} was raised. */
export type SpawnFailure = 'not_found' | 'exited' | 'failed';

/**
 * The server process could not be used: the command was not found (`not_found`), it exited before answering
 * (`exited`, with its exit code and last stderr lines; `detail` says when it closed its stdout or stdin first and
 * had to be stopped), or spawning failed otherwise (`failed`, e.g. EACCES).
 */
export class SpawnError extends McpClientError implements ConnectionEndFacts {
  /** The command as given to the connector (`'npx'`, `'/usr/bin/node'`). */
  readonly command: string;
  /** Why it failed: `not_found`, `exited` or `failed` (the `code` is always `spawn_failed`). */
  readonly failure: SpawnFailure;
  readonly exitCode: number | null | undefined;
  readonly signal: string | null | undefined;
  readonly stderrTail: readonly string[];
  /** Where the command was looked for, or what else explains the failure (`looked up on PATH "/usr/bin:/bin"`). */
  readonly detail: string | undefined;

  constructor(facts: ConnectionEndFacts & { readonly command: string; readonly failure: SpawnFailure; readonly detail?: string; readonly cause?: unknown }) {
    const what = facts.failure === 'not_found' ? 'command not found' : facts.failure === 'exited' ? 'the process exited before answering' : 'spawn failed';
    const detail = facts.detail === undefined ? '' : `: ${facts.detail}`;
    super(ClientErrorCode.SpawnFailed, `Cannot start MCP server "${echo(facts.command)}": ${what}${detail}${endSuffix({ ...facts, reason: undefined })}`, 'cause' in facts ? { cause: facts.cause } : undefined);
    this.name = 'SpawnError';
    this.command = facts.command;
    this.failure = facts.failure;
    this.exitCode = facts.exitCode;
    this.signal = facts.signal;
    this.stderrTail = facts.stderrTail ?? [];
    this.detail = facts.detail;
  }
}

/**
 * An HTTP exchange ended with a status and no JSON-RPC response the client could pair with its request: a 4xx/5xx
 * with an HTML or empty body, or a JSON-RPC error without a usable `id` (field bug B45: `"id": null` and a missing
 * id are both accepted). `error` holds that JSON-RPC error when the body carried one.
 */
export class HttpStatusError extends McpClientError {
  /** The HTTP status (e.g. 400). */
  readonly status: number;
  /** The first bytes of the body as text (at most 1,024 characters), `''` when empty. */
  readonly body: string;
  /** The JSON-RPC error the body carried, typed. */
  readonly error: McpError | undefined;

  constructor(facts: { readonly status: number; readonly body?: string; readonly error?: McpError; readonly what?: string }) {
    const detail = facts.error !== undefined ? `error ${facts.error.code}: "${echo(facts.error.message)}"` : facts.body ? `body "${echo(facts.body)}"` : 'empty body';
    super(ClientErrorCode.HttpStatus, `HTTP ${facts.status}${facts.what === undefined ? '' : ` for ${facts.what}`}: ${detail}`, facts.error === undefined ? undefined : { cause: facts.error });
    this.name = 'HttpStatusError';
    this.status = facts.status;
    this.body = (facts.body ?? '').slice(0, 1024);
    this.error = facts.error;
  }
}

/**
 * The Streamable HTTP server answered 404 to a request carrying a session id: the session is gone (MCP 2025-11-25
 * basic/transports.mdx "Session Management": the client MUST start a new session with a new `initialize` and no
 * session id). The transport forgets the id before raising this, so it is never sent again.
 */
export class SessionExpiredError extends McpClientError {
  /** The session id the server no longer knows. */
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(ClientErrorCode.SessionExpired, `Session expired: the server answered 404 for session "${echo(sessionId)}"`);
    this.name = 'SessionExpiredError';
    this.sessionId = sessionId;
  }
}

/** No response to `method` in time. The pending entry is gone; a late response is dropped quietly. */
export class RequestTimeoutError extends McpClientError {
  /** The method of the request that timed out. */
  readonly method: string;
  /** The budget that ran out, in ms: `timeoutMs` (idle since the send or last progress) or `maxTotalTimeoutMs`. */
  readonly timeoutMs: number;

  constructor(facts: { readonly method: string; readonly timeoutMs: number; readonly total?: boolean; readonly cause?: unknown }) {
    super(ClientErrorCode.RequestTimeout, `Request timed out: "${echo(facts.method)}" got no response within ${facts.timeoutMs} ms${facts.total === true ? ' in total' : ''}`, 'cause' in facts ? { cause: facts.cause } : undefined);
    this.name = 'RequestTimeoutError';
    this.method = facts.method;
    this.timeoutMs = facts.timeoutMs;
  }
}

/** The caller aborted the request (its `AbortSignal` fired); `cause` is the signal's reason. */
export class RequestAbortedError extends McpClientError {
  /** The method of the request that was aborted. */
  readonly method: string;

  constructor(facts: { readonly method: string; readonly cause?: unknown }) {
    super(ClientErrorCode.RequestAborted, `Request aborted: "${echo(facts.method)}"`, 'cause' in facts ? { cause: facts.cause } : undefined);
    this.name = 'RequestAbortedError';
    this.method = facts.method;
  }
}

/**
 * An HTTP answer was a redirect the client does not follow: to another origin (the body — a `tools/call` and its
 * arguments — and the configured headers, an API key say, would go there), a status other than 307/308 (which
 * would change the method and drop the body), or one more than the client follows in a row. `location` is the
 * target as resolved (`''` when the answer named none or the runtime hid it). Code `redirect_refused`.
 */
export class RedirectRefusedError extends McpClientError {
  /** The redirect's status (301, 302, 303, 307, 308; 0 when the runtime hid the redirect). */
  readonly status: number;
  /** The target as resolved against the request's URL; `''` when unknown. */
  readonly location: string;

  constructor(facts: { readonly status: number; readonly location: string; readonly reason: string }) {
    super(ClientErrorCode.RedirectRefused, `Redirect refused: ${facts.status === 0 ? 'a redirect' : `HTTP ${facts.status}`} to "${echo(facts.location || 'an unknown target')}": ${facts.reason}`);
    this.name = 'RedirectRefusedError';
    this.status = facts.status;
    this.location = facts.location;
  }
}

/**
 * A response to a request exceeded the transport's bound on one message (stdio: a stdout line over `maxLineBytes`):
 * it was dropped, and the request it answered (found from the `id` at the head of the line) fails at once instead of
 * waiting out its timeout. Code `response_too_large`.
 */
export class ResponseTooLargeError extends McpClientError {
  /** Bytes of the message read before it was dropped (at least `maxBytes` + 1). */
  readonly bytes: number;
  /** The bound it exceeded, in bytes. */
  readonly maxBytes: number;

  constructor(facts: { readonly bytes: number; readonly maxBytes: number; readonly what: string }) {
    super(ClientErrorCode.ResponseTooLarge, `Response too large: ${facts.what} was over ${facts.maxBytes} bytes (at least ${facts.bytes} read) and was dropped`);
    this.name = 'ResponseTooLargeError';
    this.bytes = facts.bytes;
    this.maxBytes = facts.maxBytes;
  }
}

/**
 * The server asked for authorization (HTTP 401, or 403 `insufficient_scope`) and the client's OAuth flow could not
 * obtain a token it accepts, or refused to go on because the spec says so (an authorization server without PKCE
 * S256 or not on https, metadata naming another resource or issuer, an `iss` that does not match). Code
 * `authorization_failed`; `reason` says which step failed.
 */
export class AuthorizationError extends McpClientError {
  /**
   * Which step failed: `discovery` (no usable metadata), `resource_mismatch`, `issuer_mismatch` (metadata `issuer`),
   * `insecure_endpoint` (an authorization server or one of its endpoints not on https, loopback http excepted),
   * `pkce_unsupported`, `registration` (no way to get a client id), `authorization` (the user-agent step, `state`, an
   * `error` answer), `iss_mismatch` (RFC 9207), `token` (the token endpoint refused), `token_refused` (the server
   * answered 401 to the token a sign-in had just obtained for the same request), `step_up_limit`, `no_authorizer`
   * (a user must sign in and no `authorize` callback was given).
   */
  readonly reason: string;
  /**
   * Reason `token`: the `error` code in the token endpoint's answer (RFC 6749 §5.2: `invalid_grant`, `invalid_client`…;
   * whatever string a failing server put there, up to 100 characters), when the answer was JSON with one. `undefined`
   * otherwise: not reached, timed out, another body, or a failure at another step (the authorization endpoint's
   * `error` is in the message).
   */
  readonly oauthError: string | undefined;
  /**
   * The HTTP status of the token endpoint's answer when the failure is that answer (400 or 401 for a refusal, RFC 6749
   * §5.2; 5xx for a failing server); `undefined` when it was not reached, timed out, or the failure is elsewhere.
   */
  readonly status: number | undefined;

  constructor(facts: { readonly reason: string; readonly message: string; readonly cause?: unknown; readonly oauthError?: string; readonly status?: number }) {
    super(ClientErrorCode.AuthorizationFailed, `Authorization failed (${facts.reason}): ${facts.message}`, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.name = 'AuthorizationError';
    this.reason = facts.reason;
    this.oauthError = facts.oauthError;
    this.status = facts.status;
  }
}
