/**
 * `switchboard call <target> <tool> --args JSON` (or `call <tool> --args JSON <target>`, the order the tool's
 * users often write): calls one tool with progress and log notifications shown live on
 * stderr, elicitation answered at the terminal, then prints the result (text blocks as text, others summarised,
 * `--json` the raw result). Exit code 1 when the result has `isError: true`.
 */
import { classifyOutcome } from '@switchboard/mcp/analytics';
import { CliError, ExitCode } from '../errors.js';
import { findServer } from '../hostConfigs.js';
import { resolveTarget } from '../target.js';
import type { CliIo } from '../cliIo.js';
import { printToolResult } from '../content.js';
import { reportFailure, withClient, type ServerCommandOptions } from './serverCommand.js';
import { terminalText } from '../terminalText.js';

/** Reads `--args`: a JSON object. @throws CliError `usage` otherwise */
export function parseToolArgs(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError('usage', `Invalid --args: expected a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError('usage', `Invalid --args: expected a JSON object, got "${text}"`);
  return value as Record<string, unknown>;
}

const isUrl = (word: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(word);

function isServerName(word: string, io: CliIo, config: string | undefined): boolean {
  try {
    findServer(word, { io, ...(config === undefined ? {} : { configFile: config }) });
    return true;
  } catch {
    return false;
  }
}

/** What to type, for a message. */
export const CALL_USAGE = 'switchboard call <url | server name> <tool> [--args JSON], or switchboard call <tool> [--args JSON] -- <command>';

/**
 * The target and the tool of `call <first> <second>`, in either order: a URL is the target wherever it stands, and
 * of two plain words the one that names a server in a host configuration is (when only the second does).
 */
export function callWords(first: string | undefined, second: string | undefined, options: { readonly io: CliIo; readonly config?: string }): { readonly target: string | undefined; readonly tool: string | undefined } {
  if (first === undefined || second === undefined) return { target: first, tool: second };
  const swapped = { target: second, tool: first };
  if (isUrl(first)) return { target: first, tool: second };
  if (isUrl(second)) return swapped;
  if (!isServerName(first, options.io, options.config) && isServerName(second, options.io, options.config)) return swapped;
  return { target: first, tool: second };
}

/** Runs the command. */
export async function callCommand(options: ServerCommandOptions & { readonly tool: string | undefined; readonly args: string | undefined }): Promise<number> {
  const { output } = options;
  let args: Record<string, unknown> | undefined;
  try {
    if (options.tool === undefined || options.tool === '') throw new CliError('usage', `Missing tool name: ${CALL_USAGE}`);
    args = parseToolArgs(options.args);
    try {
      resolveTarget(options.spec, options.io);
    } catch (error) {
      // The words were taken for "<target> <tool>" and the target named no server: say what to type.
      if (error instanceof CliError && error.code === 'target_not_found') throw new CliError('target_not_found', `${error.message}. To call a tool: ${CALL_USAGE}`);
      throw error;
    }
  } catch (error) {
    return reportFailure(output, error, true);
  }
  const name = options.tool ?? '';
  return withClient({ ...options, live: true, elicitation: true }, async (client, _target, signal) => {
    if ((client.serverCapabilities as Record<string, unknown>).logging !== undefined) {
      await client.setLoggingLevel('debug', { signal }).catch(() => undefined);
    }
    // The tool's outputSchema is known only from a listing: list first, so structuredContent is checked.
    if ((client.serverCapabilities as Record<string, unknown>).tools !== undefined) await client.listAllTools({ signal }).catch(() => undefined);
    signal.throwIfAborted();
    const result = await client.callTool({ name, ...(args === undefined ? {} : { arguments: args }) }, { signal });
    if (options.json) output.json(result);
    else printToolResult(output, result);
    if (result.isError === true) {
      output.error(`the tool "${terminalText(name)}" returned an error result (isError: true)`);
      // The class in the failure analytics' words (classifyOutcome of @switchboard/mcp/analytics).
      output.note(`  class: ${classifyOutcome({ kind: 'result', isError: true }).class}`);
      return ExitCode.Failure;
    }
    return ExitCode.Ok;
  });
}
