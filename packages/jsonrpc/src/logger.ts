/**
 * The injected logger. Library code never writes to stdout (it is the stdio wire); a host decides where
 * these lines go (the stdio and HTTP entry points default to stderr).
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** A logger that drops everything. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });
