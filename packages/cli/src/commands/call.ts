/**
 * `switchboard call <target> <tool> --args JSON`: calls one tool with progress and log notifications shown live on
 * stderr, elicitation answered at the terminal, then prints the result (text blocks as text, others summarised,
 * `--json` the raw result). Exit code 1 when the result has `isError: true`.
 */
import { CliError, ExitCode } from '../errors.js';
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

/** Runs the command. */
export async function callCommand(options: ServerCommandOptions & { readonly tool: string | undefined; readonly args: string | undefined }): Promise<number> {
  const { output } = options;
  let args: Record<string, unknown> | undefined;
  try {
    if (options.tool === undefined || options.tool === '') throw new CliError('usage', 'Missing tool name: switchboard call <target> <tool> [--args JSON]');
    args = parseToolArgs(options.args);
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
      return ExitCode.Failure;
    }
    return ExitCode.Ok;
  });
}
