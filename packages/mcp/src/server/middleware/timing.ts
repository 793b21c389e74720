/**
 * `timingMiddleware`: one log line per message with what it was, who sent it, how long the rest of the chain and
 * the operation took and how it ended, through the server's injected `Logger` (stderr by default, never stdout).
 */
import { JsonRpcError, echo, echoId, neverThrowing, type Logger } from '@switchboard/jsonrpc';
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import { isRecord } from '../params.js';
import type { Middleware, MiddlewareCall } from './call.js';

/** Options of {@link timingMiddleware}. */
export interface TimingMiddlewareOptions {
  /** Where the lines go. @default the server's logger (`McpServerOptions.logger`) */
  readonly logger?: Logger;
  /** The level of a line for a message that took less than `slowMs`. @default 'info' */
  readonly level?: 'debug' | 'info';
  /** Duration (ms) at or above which the line is a warning. @default 1000 */
  readonly slowMs?: number;
  /** Whether notifications get a line too. @default true */
  readonly notifications?: boolean;
  /** The clock, in milliseconds (tests). @default `performance.now` */
  readonly now?: () => number;
}

/** Default for {@link TimingMiddlewareOptions.slowMs}. */
export const DEFAULT_TIMING_SLOW_MS = 1000;

/** How a message ended, as the line says it. */
function outcomeOf(result: unknown): 'ok' | 'tool error' | 'input required' {
  if (!isRecord(result)) return 'ok';
  if (result.isError === true) return 'tool error';
  return result.resultType === 'input_required' ? 'input required' : 'ok';
}

function fieldsOf(call: MiddlewareCall, durationMs: number): Record<string, unknown> {
  const fields: Record<string, unknown> = { method: echo(call.method) };
  const name = call.name;
  if (name !== undefined) fields.name = echo(name);
  if (!call.isNotification) fields.id = echoId(call.id);
  fields.era = call.era;
  const revision = call.revision;
  if (revision !== undefined) fields.revision = echo(revision);
  const client = call.clientInfo;
  if (client !== undefined) fields.client = echo(`${client.name}/${client.version}`);
  const caller = call.caller;
  if (caller !== undefined) fields.caller = echo(caller);
  // Microseconds are the useful resolution below a millisecond; more digits would be clock noise.
  fields.durationMs = Math.round(durationMs * 1000) / 1000;
  return fields;
}

/**
 * A middleware that logs one line per message once it is answered: `MCP request` (or `MCP notification`) with
 * `method`, `name` (the tool, prompt, resource URI or task the request names), `id`, `era`, `revision`, `client`
 * (`name/version` of its `clientInfo`), `caller` (see `MiddlewareCall.caller`), `durationMs` (the rest of the chain
 * and the operation; put it first to time everything) and `outcome` (`ok`, `tool error` for an `isError` result,
 * `input required`, or `error` with the JSON-RPC `code`: -32603 for an internal failure, whose text stays in the
 * dispatcher's own error line). Client-supplied values are cut to 200 characters. Lines at or above `slowMs` are
 * warnings. Arguments and results are never logged (they may hold secrets).
 *
 * @example
 * server.use(timingMiddleware({ slowMs: 500 }));
 * // stderr: {"level":"info","msg":"MCP request","method":"tools/call","name":"search","id":7,"era":"modern",…,"durationMs":3.172,"outcome":"ok"}
 */
export function timingMiddleware(options: TimingMiddlewareOptions = {}): Middleware {
  const level = options.level ?? 'info';
  if (level !== 'info' && level !== 'debug') throw new TypeError(`Invalid level: expected "info" or "debug", got ${JSON.stringify(level)}`);
  const slowMs = checkMsOption('slowMs', options.slowMs ?? DEFAULT_TIMING_SLOW_MS, { max: Infinity });
  const notifications = options.notifications ?? true;
  const now = options.now ?? (() => performance.now());
  const own = options.logger === undefined ? undefined : neverThrowing(options.logger);
  return (call, next) => {
    if (call.isNotification && !notifications) return next();
    // The server's logger (call.logger) is already wrapped where the server was made.
    const logger = own ?? call.logger;
    const started = now();
    const line = (outcome: Record<string, unknown>): void => {
      const duration = now() - started;
      const fields = { ...fieldsOf(call, duration), ...outcome };
      const message = call.isNotification ? 'MCP notification' : 'MCP request';
      // Logging never fails the message it describes: `neverThrowing` drops a line whose logger throws.
      if (duration >= slowMs) logger.warn(message, fields);
      else logger[level](message, fields);
    };
    return next().then(
      (result) => {
        line(call.isNotification ? { outcome: 'ok' } : { outcome: outcomeOf(result) });
        return result;
      },
      (error: unknown) => {
        const code = error instanceof JsonRpcError && Number.isInteger(error.code) ? error.code : -32603;
        line({ outcome: 'error', code });
        throw error;
      },
    );
  };
}
