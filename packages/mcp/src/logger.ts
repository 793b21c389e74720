/**
 * The default logger of MCP servers and clients: one line per entry on stderr (never stdout, which is the
 * stdio wire). Hosts inject their own {@link Logger} to route elsewhere.
 */
import type { Logger } from '@switchboard/jsonrpc';

type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** {@link createStderrLogger} options. */
export interface StderrLoggerOptions {
  /** Entries below this level are dropped. @default 'warn' */
  readonly level?: Level;
  /** Prefix of every line. @default 'switchboard' */
  readonly name?: string;
}

/** A logger writing `name level: message {fields}` lines to stderr. */
export function createStderrLogger(options: StderrLoggerOptions = {}): Logger {
  const min = RANK[options.level ?? 'warn'];
  const name = options.name ?? 'switchboard';
  const stderr = (globalThis as { process?: { stderr?: { write(text: string): unknown } } }).process?.stderr;
  const write = (level: Level, message: string, fields?: Record<string, unknown>): void => {
    if (RANK[level] < min || stderr === undefined) return;
    let tail = '';
    if (fields !== undefined) {
      try {
        tail = ' ' + JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v));
      } catch {
        tail = ' [unserializable fields]';
      }
    }
    stderr.write(`${name} ${level}: ${message}${tail}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
