/**
 * What every command that talks to a server gets from the command line (the target and the connection options),
 * and the one flow they share: resolve, connect, work, close, and one line per failure.
 */
import type { McpClient } from '@switchboard/mcp/client';
import { openClient, type EraChoice } from '../connect.js';
import { describeFailure, ExitCode } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import type { Output } from '../output.js';
import { resolveTarget, type Target, type TargetSpec } from '../target.js';

/** The options of a server command. */
export interface ServerCommandOptions {
  readonly io: CliIo;
  readonly output: Output;
  readonly spec: TargetSpec;
  readonly era: EraChoice;
  readonly timeoutMs?: number;
  readonly json: boolean;
}

/** Reports a failure on stderr and returns its exit code. */
export function reportFailure(output: Output, error: unknown, connecting: boolean): number {
  const failure = describeFailure(error, { connecting });
  output.error(failure.line);
  if (failure.hint !== undefined) output.note(output.colors.dim(`  hint: ${failure.hint}`));
  return failure.exitCode;
}

/**
 * Resolves the target, connects, runs `work`, closes. A failure before `work` is exit code 2 (could not connect);
 * in `work`, exit code 1.
 */
export async function withClient(
  options: ServerCommandOptions & { readonly live?: boolean; readonly elicitation?: boolean },
  work: (client: McpClient, target: Target) => Promise<number>,
): Promise<number> {
  const { io, output } = options;
  let target: Target;
  let client: McpClient;
  try {
    target = resolveTarget(options.spec, io);
    client = await openClient({
      target,
      io,
      output,
      era: options.era,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.live === undefined ? {} : { live: options.live }),
      ...(options.elicitation === undefined ? {} : { elicitation: options.elicitation }),
    });
  } catch (error) {
    return reportFailure(output, error, true);
  }
  try {
    return await work(client, target);
  } catch (error) {
    return reportFailure(output, error, false);
  } finally {
    await client.close().catch(() => ExitCode.Ok);
  }
}

/** One line naming the server, its era and revision, and the transport. */
export function connectionLine(client: McpClient): string {
  const info = client.serverInfo;
  const name = info === undefined ? 'a server that gave no serverInfo' : `${info.name} ${info.version}`;
  const era = client.era === 'modern' ? 'modern (stateless)' : 'legacy (session)';
  return `${name} · era ${era} · revision ${client.protocolVersion} · ${client.transportKind}`;
}
