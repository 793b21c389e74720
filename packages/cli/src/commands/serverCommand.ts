/**
 * What every command that talks to a server gets from the command line (the target and the connection options),
 * and the one flow they share: resolve, connect, work, close, and one line per failure.
 */
import type { McpClient } from '@switchboard/mcp/client';
import { openClient, type EraChoice } from '../connect.js';
import { CliError, describeFailure, type ScopeChallenge } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import type { Output } from '../output.js';
import { resolveTarget, type Target, type TargetSpec } from '../target.js';
import { terminalText } from '../terminalText.js';

/** The options of a server command. */
export interface ServerCommandOptions {
  readonly io: CliIo;
  readonly output: Output;
  readonly spec: TargetSpec;
  readonly era: EraChoice;
  /**
   * `--timeout-ms`: the budget of the whole command (connect, every request, the output), and of each request
   * within it, in milliseconds. @default {@link DEFAULT_COMMAND_TIMEOUT_MS}
   */
  readonly timeoutMs?: number;
  readonly json: boolean;
}

/** The whole command's budget without `--timeout-ms`, in ms (the client's default request timeout, 60 s). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;

/**
 * How long closing the client may take once the work is done or the budget spent, at most, in ms: room for a stdio
 * server's whole shutdown (stdin closed, SIGTERM, SIGKILL: connect.ts `SHUTDOWN_GRACE_MS` steps) and its last
 * output. It is kept back inside the budget (a quarter of it at most), so that the command as a whole, closing
 * included, ends by `--timeout-ms`; a server still running when it is spent is killed with its process group when
 * the CLI exits (the stdio client's exit hook).
 */
const CLOSE_GRACE_MS = 2000;

/** The part of a `budgetMs` kept back for closing the client: {@link CLOSE_GRACE_MS}, at most a quarter of it. */
export function closeReserveMs(budgetMs: number): number {
  return Math.min(CLOSE_GRACE_MS, Math.floor(budgetMs / 4));
}

/** A promise that rejects with the signal's reason once it aborts (and never otherwise); its rejection is handled. */
function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_resolve, reject) => {
    const fail = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);
  return aborted;
}

/** Resolves after `ms` (an unref'd timer: it never keeps the process alive). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/**
 * Reports a failure on stderr (its text may be the server's: made safe, on one line) and returns its exit code.
 * @param how - `connecting` (see `describeFailure`), or `{ connecting, scopeChallenge, timeoutOption }` with the
 *   server's 403 `insufficient_scope` challenge to the request that failed and the command's timeout option (default
 *   `--timeout-ms`; `false`: none), for the hint.
 */
export function reportFailure(output: Output, error: unknown, how: boolean | { readonly connecting: boolean; readonly scopeChallenge?: ScopeChallenge | undefined; readonly timeoutOption?: string | false | undefined }): number {
  const { connecting, scopeChallenge, timeoutOption } = typeof how === 'boolean' ? { connecting: how, scopeChallenge: undefined, timeoutOption: undefined } : how;
  const failure = describeFailure(error, { connecting, ...(scopeChallenge === undefined ? {} : { scopeChallenge }), ...(timeoutOption === undefined ? {} : { timeoutOption }) });
  output.error(terminalText(failure.line));
  if (failure.outcomeClass !== undefined) output.note(`  class: ${failure.outcomeClass}`);
  if (failure.hint !== undefined) output.note(output.colors.dim(`  hint: ${terminalText(failure.hint)}`));
  return failure.exitCode;
}

/**
 * Resolves the target, connects, runs `work`, closes. A failure before `work` is exit code 2 (could not connect);
 * in `work`, exit code 1. The whole of it is bounded by `timeoutMs`: whatever the server does (progress for ever,
 * an answer that never comes, a connect that hangs), the command reports `command_timeout` by then, and `work`'s
 * `signal` aborts (pass it to requests, check it between output steps) {@link closeReserveMs} before the end, and
 * closing the client gets what is left.
 */
export async function withClient(
  options: ServerCommandOptions & { readonly live?: boolean; readonly elicitation?: boolean },
  work: (client: McpClient, target: Target, signal: AbortSignal) => Promise<number>,
): Promise<number> {
  const { io, output } = options;
  const budgetMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const endsAt = performance.now() + budgetMs;
  const workMs = budgetMs - closeReserveMs(budgetMs);
  const deadline = new AbortController();
  const deadlineAt = performance.now() + workMs;
  const spent = (): CliError => new CliError('command_timeout', `The command did not finish within its budget of ${budgetMs} ms (--timeout-ms)`);
  const timer = setTimeout(() => deadline.abort(spent()), workMs);
  const expired = rejectOnAbort(deadline.signal);
  // A failure once the time is spent is the budget's (a paced HTTP body ends by the clock, before the timer fires).
  const failureOf = (error: unknown): unknown => (!(error instanceof CliError) && performance.now() >= deadlineAt ? spent() : error);
  // The last 403 insufficient_scope challenge of the server, for the failure's hint.
  let scopeChallenge: ScopeChallenge | undefined;
  const report = (error: unknown, connecting: boolean): number => reportFailure(output, failureOf(error), { connecting, scopeChallenge });
  try {
    let target: Target;
    let client: McpClient;
    let connecting: Promise<McpClient> | undefined;
    try {
      target = resolveTarget(options.spec, io);
      connecting = openClient({
        target,
        io,
        output,
        era: options.era,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(options.live === undefined ? {} : { live: options.live }),
        ...(options.elicitation === undefined ? {} : { elicitation: options.elicitation }),
        deadline: { signal: deadline.signal, at: deadlineAt },
        onScopeChallenge: (scope) => {
          scopeChallenge = scope === undefined || target.kind !== 'http' ? undefined : { url: target.url, scope };
        },
      });
      client = await Promise.race([connecting, expired]);
    } catch (error) {
      // A connect still under way when the budget ran out: its client, if it ever comes, is closed.
      connecting?.then((late) => late.close(), () => undefined).catch(() => undefined);
      return report(error, true);
    }
    try {
      return await Promise.race([work(client, target, deadline.signal), expired]);
    } catch (error) {
      return report(error, false);
    } finally {
      await Promise.race([client.close().catch(() => undefined), delay(Math.max(0, Math.min(CLOSE_GRACE_MS, endsAt - performance.now())))]);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** One line naming the server, its era and revision, and the transport (the server's words made safe). */
export function connectionLine(client: McpClient): string {
  const info = client.serverInfo;
  const name = info === undefined ? 'a server that gave no serverInfo' : terminalText(`${info.name} ${info.version}`);
  const era = client.era === 'modern' ? 'modern (stateless)' : 'legacy (session)';
  return `${name} · era ${era} · revision ${terminalText(client.protocolVersion)} · ${client.transportKind}`;
}
