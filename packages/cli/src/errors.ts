/**
 * The CLI's own failures (typed, with the exit code they end in) and the one line each client failure becomes
 * (read from the error's `code`, never from its class name or message).
 */
import { McpError } from '@switchboard/mcp';
import { classifyOutcome, type OutcomeClass } from '@switchboard/mcp/analytics';
import { McpClientError } from '@switchboard/mcp/client';

/** Exit codes of every command (documented in `--help`). */
export const ExitCode = {
  /** Done; the tool result was not an error. */
  Ok: 0,
  /** The command ran and failed: a tool result with `isError`, an error answer of the server, a bad result. */
  Failure: 1,
  /** A usage error, or the server could not be reached or started. */
  Usage: 2,
} as const;

/** The codes of {@link CliError}. */
export type CliErrorCode = 'usage' | 'target_not_found' | 'config_invalid' | 'write_failed' | 'command_timeout';

/**
 * A failure of the CLI itself: bad arguments or a target it cannot resolve (exit code 2), a file it cannot write (1),
 * a command that did not finish within its `--timeout-ms` (2 while connecting, 1 after).
 */
export class CliError extends Error {
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string) {
    super(message);
    this.name = 'CliError';
    this.code = code;
  }
}

/** One failure as the CLI reports it. */
export interface FailureReport {
  readonly line: string;
  /** A hint for the next step, when there is one. */
  readonly hint?: string;
  readonly exitCode: number;
  /**
   * The request's failure class in the words of the failure analytics (`classifyOutcome` of
   * `@switchboard/mcp/analytics`), when a request to the server failed; `undefined` for the CLI's own failures.
   */
  readonly outcomeClass?: OutcomeClass;
}

/** A server's 403 `insufficient_scope` challenge: the server's URL and the challenge's `scope`. */
export interface ScopeChallenge {
  readonly url: string;
  readonly scope: string;
}

/** What can go in a hint the user may paste into a shell (sh, cmd, PowerShell) inside double quotes: nothing they read. */
const PASTE_SAFE = /^[A-Za-z0-9:/._~%@+=,*-]+$/;

/**
 * The hint for a request refused 403 `insufficient_scope` (MCP 2025-11-25 basic/authorization.mdx "Scope Challenge
 * Handling": the challenge's `scope` names the scopes the request needs): sign in again asking for them. The URL
 * and the scopes come from the server: each is shown only when nothing in it means something to a shell.
 */
export function scopeLoginHint(challenge: ScopeChallenge): string {
  const scopes = challenge.scope.split(/\s+/).filter((s) => s !== '');
  const url = PASTE_SAFE.test(challenge.url) && challenge.url.length <= 300 ? challenge.url : '<url>';
  const safe = scopes.length > 0 && scopes.length <= 20 && scopes.every((s) => s.length <= 200 && PASTE_SAFE.test(s));
  return `the server needs more scope (403 insufficient_scope): switchboard login ${url} --scope "${safe ? scopes.join(' ') : '<the scopes of its WWW-Authenticate challenge>'}", then run this again`;
}

/** What the connect step raised means "could not connect" (exit 2); later, the same codes are failures (exit 1). */
const CONNECT_CODES: ReadonlySet<string> = new Set(['spawn_failed', 'connection_refused', 'connection_closed', 'http_status', 'negotiation_failed', 'request_timeout', 'session_expired', 'authorization_failed']);

/**
 * Turns any error into one line, a hint and an exit code.
 * @param options `connecting`: the error came from connecting (a client error is then exit code 2);
 *   `scopeChallenge`: the server answered a 403 `insufficient_scope` challenge on the way (the hint is then
 *   {@link scopeLoginHint} for the server's error answer or HTTP 403); `timeoutOption`: the option of the running
 *   command that bounds its requests, which a timeout's hint names (default `--timeout-ms`; `--request-timeout-ms`
 *   for `bridge` and `dashboard`; `false` for a command with none, such as `gateway`)
 */
export function describeFailure(error: unknown, options: { readonly connecting: boolean; readonly scopeChallenge?: ScopeChallenge; readonly timeoutOption?: string | false }): FailureReport {
  const timeoutOption = options.timeoutOption ?? '--timeout-ms';
  if (error instanceof CliError) {
    if (error.code === 'command_timeout') {
      const hint = timeoutOption === false ? undefined : `raise ${timeoutOption} (the whole command's budget, in ms)`;
      return { line: error.message, exitCode: options.connecting ? ExitCode.Usage : ExitCode.Failure, outcomeClass: 'timeout', ...(hint === undefined ? {} : { hint }) };
    }
    return { line: error.message, exitCode: error.code === 'write_failed' ? ExitCode.Failure : ExitCode.Usage };
  }
  if (error instanceof McpClientError) {
    const exitCode = options.connecting && CONNECT_CODES.has(error.code) ? ExitCode.Usage : ExitCode.Failure;
    const hints: Partial<Record<string, string>> = {
      spawn_failed: 'run the command by hand to see why it does not start; switchboard explain "Connection closed"',
      connection_refused: 'start the server first, or check the URL\'s host and port',
      connection_closed: 'the server ended the connection; switchboard explain "Connection closed"',
      request_timeout: timeoutOption === false ? 'switchboard explain "Request timed out"' : `raise ${timeoutOption}, or see switchboard explain "Request timed out"`,
      http_status: 'switchboard explain <status> says what the status means',
      negotiation_failed: 'try --era legacy or --era modern',
      session_expired: 'the server forgot the session; run the command again',
      authorization_failed: 'switchboard login <url> signs in again (the stored credentials did not work)',
    };
    const status = (error as { status?: unknown }).status;
    if (error.code === 'http_status' && (status === 401 || status === 403)) hints.http_status = 'the server needs a sign-in: switchboard login <url>, then run this again';
    if (error.code === 'http_status' && status === 403 && options.scopeChallenge !== undefined) hints.http_status = scopeLoginHint(options.scopeChallenge);
    const hint = hints[error.code];
    const outcomeClass = classifyOutcome({ kind: 'client', code: error.code }).class;
    return { line: error.message, exitCode, outcomeClass, ...(hint === undefined ? {} : { hint }) };
  }
  if (error instanceof McpError) {
    // A 403 insufficient_scope answer carries a JSON-RPC error too (-32000 from a Switchboard server): the challenge
    // of that same request says what would help.
    const hint = options.scopeChallenge === undefined ? `switchboard explain ${error.code}` : scopeLoginHint(options.scopeChallenge);
    return { line: `The server answered error ${error.code}: "${error.message}"`, hint, exitCode: ExitCode.Failure, outcomeClass: classifyOutcome({ kind: 'error', code: error.code }).class };
  }
  if (error instanceof SyntaxError || error instanceof TypeError || error instanceof RangeError) {
    return { line: error.message, exitCode: options.connecting ? ExitCode.Usage : ExitCode.Failure };
  }
  return { line: error instanceof Error ? error.message : String(error), exitCode: ExitCode.Failure };
}
