/**
 * Opens an `McpClient` on a resolved target for one command: the era and timeout options of the command line,
 * the server's stderr, progress and log notifications shown live on stderr, the client's own warnings on
 * stderr, elicitation at the terminal. Shared by every command that talks to a server.
 */
import { McpClient } from '@switchboard/mcp/client';
import { terminalElicitation } from './elicitation.js';
import type { CliIo } from './cliIo.js';
import type { Output } from './output.js';
import { connectorFor, type Target } from './target.js';

/** The `--era` values and the client era each one asks for. */
export const ERA_CHOICES = { legacy: 'legacy', modern: 'modern', auto: 'auto' } as const;

/** An `--era` value. */
export type EraChoice = keyof typeof ERA_CHOICES;

/** What the connect step is told. */
export interface ConnectOptions {
  readonly target: Target;
  readonly io: CliIo;
  readonly output: Output;
  /** `--era`. @default 'auto' */
  readonly era?: EraChoice;
  /** `--timeout-ms`: the budget of each request, and of the era probe. @default the client's (60_000) */
  readonly timeoutMs?: number;
  /** Show the server's stderr lines and notifications (progress, logs) on stderr as they come. @default false */
  readonly live?: boolean;
  /** Answer elicitations at the terminal (declared as a capability). @default false */
  readonly elicitation?: boolean;
}

function fieldsText(fields: Record<string, unknown> | undefined): string {
  const error = fields?.error;
  return error instanceof Error ? `: ${error.message}` : '';
}

/**
 * Connects.
 * @throws the client's typed errors (see `McpClient.connect`)
 */
export function openClient(options: ConnectOptions): Promise<McpClient> {
  const { io, output, target } = options;
  const live = options.live === true;
  const dim = output.colors.dim;
  const onstderr = (line: string): void => {
    if (live) output.note(dim(`server stderr: ${line}`));
  };
  const warn = (message: string, fields?: Record<string, unknown>): void => output.note(output.colors.yellow(`client: ${message}${fieldsText(fields)}`));
  const noop = (): void => {};
  return McpClient.connect({
    connector: connectorFor(target, { io, onstderr }),
    clientInfo: { name: 'switchboard-cli', version: '0.1.0' },
    era: ERA_CHOICES[options.era ?? 'auto'],
    reconnect: false,
    logger: { debug: noop, info: noop, warn, error: warn },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs, probeTimeoutMs: Math.min(options.timeoutMs, 5000) }),
    ...(options.elicitation === true ? { onElicitation: terminalElicitation({ io, output }) } : {}),
    ...(live
      ? {
          notifications: {
            progress: (p) => output.note(`${output.colors.cyan('progress')} ${p.progress}${p.total === undefined ? '' : `/${p.total}`}${p.message === undefined ? '' : ` ${p.message}`}`),
            message: (m) => output.note(`${output.colors.cyan(`log ${m.level}`)}${m.logger === undefined ? '' : ` [${m.logger}]`} ${typeof m.data === 'string' ? m.data : JSON.stringify(m.data)}`),
          },
        }
      : {}),
  });
}
