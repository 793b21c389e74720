/**
 * The `switchboard` CLI as a function: arguments and an injected {@link CliIo} in, an exit code out. `main.ts` is
 * the only place that touches the process, so tests call `run` in-process (docs/architecture.md "Packages and
 * layers").
 */
import { CommanderError } from 'commander';
import type { CliIo } from './cliIo.js';
import { buildProgram, commanderExitCode, SERVER_COMMANDS, type ProgramState } from './program.js';

export { VERSION } from './version.js';

/**
 * `explain` takes an unquoted message too (`switchboard explain MCP error -32000: Connection closed`): every word but
 * its own flags is the query, handed to the parser after `--` so that words like `-32000:` are not read as options.
 */
function explainArgs(argv: readonly string[]): readonly string[] {
  const flags: string[] = argv.slice(1).filter((word) => word === '--json' || word === '-h' || word === '--help');
  const words = argv.slice(1).filter((word) => !flags.includes(word) && word !== '--');
  return words.length === 0 ? ['explain', ...flags] : ['explain', ...flags, '--', words.join(' ')];
}

/**
 * Runs the CLI with `argv` (without the node and script paths). For `list`, `call` and `read`, the words after the
 * first `--` are the stdio server's command line.
 * @returns the exit code: 0 done, 1 the command failed (a tool result with `isError`, an error answer), 2 a usage
 *   error or a server that could not be reached or started
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const words = argv[0] === 'explain' ? explainArgs(argv) : argv;
  const split = words.indexOf('--');
  const isServerCommand = SERVER_COMMANDS.has(words[0] ?? '');
  const args = isServerCommand && split >= 0 ? words.slice(0, split) : [...words];
  const command = isServerCommand && split >= 0 ? words.slice(split + 1) : [];
  const state: ProgramState = { exitCode: 0 };
  const program = buildProgram({ io, command, state });
  if (args.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return commanderExitCode(error);
    throw error;
  }
  return state.exitCode;
}
