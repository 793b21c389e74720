/**
 * The injected logger. Library code never writes to stdout (it is the stdio wire); a host decides where
 * these lines go (the stdio and HTTP entry points default to stderr). A method that throws loses its line and
 * nothing else: every entry point wraps the logger it is given with {@link neverThrowing}.
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

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** Loggers that cannot throw: {@link silentLogger} and what {@link neverThrowing} returned. */
const safe = new WeakSet<Logger>([silentLogger]);

/**
 * The host's logger, made safe to call from any path: a line whose logger throws is dropped, and the request, the
 * transport or the connection that was reporting something carries on. Logging never takes a process down.
 *
 * Every entry point that accepts a {@link Logger} passes it through here once. A logger this function returned, or
 * {@link silentLogger}, comes back as it is.
 *
 * @param logger - The host's logger.
 * @returns A frozen logger whose four methods call `logger`'s own (with `logger` as `this`) and swallow what they throw,
 *   or the rejection of the promise (any thenable) they return.
 * @example
 * const logger = neverThrowing(hostLogger); // hostLogger.warn may throw: logger.warn never does
 * new Peer({ transport, logger });
 */
export function neverThrowing(logger: Logger): Logger {
  if (safe.has(logger)) return logger;
  const wrapped = {} as Record<(typeof LEVELS)[number], Logger['debug']>;
  for (const level of LEVELS) {
    wrapped[level] = (message, fields) => {
      try {
        // `void` accepts a promise: an async method's rejection is the same failure as a throw (any thenable, one of
        // another realm included: Promise.resolve adopts it, and a `then` that throws rejects it).
        const returned: unknown = logger[level](message, fields);
        if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(returned).then(undefined, noop);
      } catch {
        // The host's logger failed: this line is dropped.
      }
    };
  }
  Object.freeze(wrapped);
  safe.add(wrapped);
  return wrapped;
}
