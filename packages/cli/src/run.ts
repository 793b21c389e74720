/**
 * The `switchboard` CLI as a pure function: arguments in, exit code and output text out. `main.ts` is the
 * only place that touches the process, so tests call `run` directly (docs/architecture.md "Packages and layers").
 */
import { parseArgs } from 'node:util';
import { LATEST_LEGACY_REVISION, LEGACY_REVISIONS } from '@switchboard/mcp';

/** What a command produced. */
export interface RunResult {
  readonly exitCode: number;
  /** Text for stdout. */
  readonly stdout: string;
  /** Text for stderr. */
  readonly stderr: string;
}

/** The CLI's version, kept equal to the package version by a test. */
export const VERSION = '0.1.0';

const HELP = `switchboard ${VERSION}: the Switchboard MCP toolkit's command line (its version and the revisions it serves, for now)

Usage:
  switchboard help                 show this text
  switchboard version              print the version
  switchboard revisions            list the MCP protocol revisions this build serves

More commands (doctor, call, list, serve, bench) arrive with later releases.
`;

/**
 * Runs the CLI with `argv` (without the node and script paths).
 * @returns exit code 0 on success, 2 on a usage error
 */
export function run(argv: readonly string[]): RunResult {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } } });
  } catch (error) {
    return { exitCode: 2, stdout: '', stderr: `switchboard: ${(error as Error).message}\n\n${HELP}` };
  }
  const [command = 'help', ...rest] = parsed.positionals;
  if (parsed.values.version === true || command === 'version') return { exitCode: 0, stdout: `${VERSION}\n`, stderr: '' };
  if (parsed.values.help === true || command === 'help') return { exitCode: 0, stdout: HELP, stderr: '' };
  if (command === 'revisions' && rest.length === 0) {
    // Only what a server accepts in `initialize`. The stateless 2026-07-28 revision is known (PROTOCOL_REVISIONS)
    // but not served yet: a request of that era gets -32022, an initialize naming it gets 2025-11-25 back.
    const lines = LEGACY_REVISIONS.map((r) => (r === LATEST_LEGACY_REVISION ? `${r} (latest session-based revision)` : r));
    return { exitCode: 0, stdout: lines.join('\n') + '\n', stderr: '' };
  }
  return { exitCode: 2, stdout: '', stderr: `switchboard: unknown command: "${[command, ...rest].join(' ')}"\n\n${HELP}` };
}
