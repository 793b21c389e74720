/**
 * Opens an `McpClient` on a resolved target for one command: the era and timeout options of the command line,
 * the server's stderr, progress and log notifications shown live on stderr, the client's own warnings on
 * stderr, elicitation at the terminal. Shared by every command that talks to a server. Every server value printed
 * here goes through `terminalText` (one line each).
 */
import { McpClient } from '@switchboard/mcp/client';
import { anySignal } from './doctor/budget.js';
import { terminalElicitation } from './elicitation.js';
import { pacedResponse } from './pacedBody.js';
import type { CliIo } from './cliIo.js';
import type { Output } from './output.js';
import { connectorFor, type Target } from './target.js';
import { terminalText } from './terminalText.js';

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
  /**
   * The command's deadline: `signal` aborts at it, `at` is when it falls on `performance.now()`'s clock, in ms. HTTP
   * answers are then paced and end by it (pacedBody.ts), a stdio server is shut down in {@link SHUTDOWN_GRACE_MS}
   * steps (so closing fits in the command's close grace), and the client's warnings are dropped once it passed.
   */
  readonly deadline?: { readonly signal: AbortSignal; readonly at: number };
  /** Told the `scope` of each 403 `insufficient_scope` challenge of an HTTP server, `undefined` at each new POST (see `connectorFor`). */
  readonly onScopeChallenge?: (scope: string | undefined) => void;
}

/**
 * Each step of a stdio server's shutdown when a command has a deadline (every server command has), in ms: stdin
 * closed, then SIGTERM after this, then SIGKILL after this again (MCP 2025-11-25 basic/lifecycle.mdx "Shutdown",
 * stdio).
 */
export const SHUTDOWN_GRACE_MS = 500;

/** A `fetch` whose requests abort with the deadline and whose bodies are paced by it. */
function deadlineFetch(deadline: NonNullable<ConnectOptions['deadline']>): typeof globalThis.fetch {
  const paced = {
    now: () => performance.now(),
    expired: () => deadline.signal.aborted || performance.now() >= deadline.at,
    reason: () => new Error('The command\'s time budget (--timeout-ms) is spent'),
  };
  return async (input, init) => {
    const signal = init?.signal == null ? deadline.signal : anySignal([init.signal, deadline.signal]);
    return pacedResponse(await globalThis.fetch(input, { ...init, signal }), paced);
  };
}

function fieldsText(fields: Record<string, unknown> | undefined): string {
  const error = fields?.error;
  return error instanceof Error ? `: ${terminalText(error.message)}` : '';
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
    if (live) output.note(dim(`server stderr: ${terminalText(line)}`));
  };
  // Once the command's time is spent, what the client says of the connection it is dropping is noise.
  const warn = (message: string, fields?: Record<string, unknown>): void => {
    if (options.deadline?.signal.aborted !== true) output.note(output.colors.yellow(`client: ${terminalText(message)}${fieldsText(fields)}`));
  };
  const noop = (): void => {};
  return McpClient.connect({
    connector: connectorFor(target, {
      io,
      onstderr,
      ...(options.onScopeChallenge === undefined ? {} : { onScopeChallenge: options.onScopeChallenge }),
      ...(options.deadline === undefined ? {} : { fetch: deadlineFetch(options.deadline), shutdownGraceMs: SHUTDOWN_GRACE_MS }),
    }),
    clientInfo: { name: 'switchboard-cli', version: '0.1.0' },
    era: ERA_CHOICES[options.era ?? 'auto'],
    // MCP 2025-11-25 basic/transports.mdx "Session Management": a client that gets HTTP 404 to a request carrying
    // its Mcp-Session-Id MUST start a new session with a new InitializeRequest. The library does, and sends the
    // request once more; so does the CLI, once. Nothing else is reconnected: a stdio server that died is reported,
    // never started again behind the user's back.
    reconnect: target.kind === 'http' && target.transport === 'streamable-http' ? { maxAttempts: 1 } : false,
    logger: { debug: noop, info: noop, warn, error: warn },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs, probeTimeoutMs: Math.min(options.timeoutMs, 5000) }),
    ...(options.elicitation === true ? { onElicitation: terminalElicitation({ io, output }) } : {}),
    ...(live
      ? {
          notifications: {
            progress: (p) => output.note(`${output.colors.cyan('progress')} ${terminalText(p.progress)}${p.total === undefined ? '' : `/${terminalText(p.total)}`}${p.message === undefined ? '' : ` ${terminalText(p.message)}`}`),
            message: (m) => output.note(`${output.colors.cyan(`log ${terminalText(m.level)}`)}${m.logger === undefined ? '' : ` [${terminalText(m.logger)}]`} ${terminalText(typeof m.data === 'string' ? m.data : JSON.stringify(m.data))}`),
          },
        }
      : {}),
  });
}
