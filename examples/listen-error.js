// @ts-check
/**
 * What an example launcher prints when its HTTP server cannot start listening, shared by the launchers under
 * examples/ so they all say it the same way: one line on stderr and exit code 1, never a stack trace.
 */
import { AddressInUseError } from '@switchboard/mcp/node';

/**
 * The one-line explanation of a failure to listen, or `undefined` when `error` is something else (print that
 * one in full).
 *
 * @param {unknown} error - What `serveHttp` rejected with.
 * @returns {string | undefined} e.g. `port 3000 is in use; pass --port`
 * @example
 * const line = listenFailureLine(error);
 * if (line !== undefined) { process.stderr.write(`demo: ${line}\n`); process.exit(1); }
 */
export function listenFailureLine(error) {
  if (error instanceof AddressInUseError) return `port ${error.port} is in use; pass --port`;
  return undefined;
}
