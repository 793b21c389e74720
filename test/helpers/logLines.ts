/**
 * A logger that keeps what it is told, for tests that assert what a client survived with a warning and what it
 * dropped quietly.
 */
import type { Logger } from '@switchboard/jsonrpc';

/** One log call. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** A {@link Logger} with every call kept in `lines`, and the lines at `warn` or `error`. */
export interface LogLines extends Logger {
  readonly lines: LogLine[];
  /** The `warn` and `error` lines. */
  loud(): LogLine[];
  /** The lines whose message or fields (as JSON) contain `text`. */
  mentioning(text: string): LogLine[];
}

export function logLines(): LogLines {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>): void => {
    lines.push({ level, message, fields });
  };
  const text = (line: LogLine): string => {
    try {
      return `${line.message} ${JSON.stringify(line.fields ?? {})}`;
    } catch {
      return line.message;
    }
  };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    loud: () => lines.filter((line) => line.level === 'warn' || line.level === 'error'),
    mentioning: (needle) => lines.filter((line) => text(line).includes(needle)),
  };
}
