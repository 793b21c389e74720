/**
 * The injected logger. Library code never writes to stdout (it is the stdio wire); a host decides where
 * these lines go (the stdio and HTTP entry points default to stderr).
 */
export interface Logger {
  /** Detail for diagnosis (e.g. a notification refused or for an unknown method). */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Normal events. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something the peer did wrong that we survived (e.g. a response with an unknown id). */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** A failure on our side (e.g. a handler threw; `fields.error` carries the thrown value). */
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** A logger that drops everything. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });
