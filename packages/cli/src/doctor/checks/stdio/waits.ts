/**
 * Waiting on a raw stdio wire so that an ended process is told from a silent one: the wire's `waitFor` returns
 * early once stdout has closed, and the exit status follows a moment later; these waits take that moment.
 */
import type { CheckContext, StdioLine, StdioWire } from '../../types.js';

/** How long the exit status is waited for once stdout has closed, milliseconds. */
export const EXIT_WAIT_MS = 1_000;

/** How much earlier than its timeout a wait must end to count as "stdout closed", milliseconds. */
const EARLY_MS = 50;

/** Waits (bounded by {@link EXIT_WAIT_MS}, the request budget and the signal) until `wire.exit` is set. */
export async function settleExit(ctx: CheckContext, wire: StdioWire): Promise<void> {
  const until = ctx.env.now() + Math.min(EXIT_WAIT_MS, ctx.requestTimeoutMs);
  while (wire.exit === undefined && ctx.env.now() < until && !ctx.signal.aborted) {
    try {
      await ctx.env.sleep(20, ctx.signal);
    } catch {
      return;
    }
  }
}

/**
 * `wire.waitFor`, and when nothing matched before the timeout (stdout closed), the exit status too.
 * @returns the line, or `undefined`; `ended` when the wait ended early because the output ended
 */
export async function waitOrEnd(ctx: CheckContext, wire: StdioWire, wait: { readonly match: (line: StdioLine) => boolean; readonly timeoutMs: number; readonly fromIndex?: number }): Promise<{ readonly line: StdioLine | undefined; readonly ended: boolean }> {
  const startedAt = ctx.env.now();
  const line = await wire.waitFor(wait.match, { timeoutMs: wait.timeoutMs, ...(wait.fromIndex === undefined ? {} : { fromIndex: wait.fromIndex }) });
  if (line !== undefined || ctx.signal.aborted) return { line, ended: false };
  const ended = wire.exit !== undefined || ctx.env.now() - startedAt < wait.timeoutMs - EARLY_MS;
  if (ended) await settleExit(ctx, wire);
  return { line, ended };
}
