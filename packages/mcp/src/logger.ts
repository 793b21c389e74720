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

interface ErrWritable {
  write(text: string): unknown;
  on?(event: 'error', listener: (error: unknown) => void): unknown;
}

/** Streams whose writes failed (the host closed its end: EPIPE); nothing more is written to them. */
const broken = new WeakSet<ErrWritable>();
const guarded = new WeakSet<ErrWritable>();

/**
 * Logging can never take the process down: without an `'error'` listener, a write to a stderr whose reader has
 * gone away (EPIPE) is an uncaught exception. The listener marks the stream broken and later lines are dropped.
 */
function guard(stream: ErrWritable): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on?.('error', () => broken.add(stream));
}

/**
 * A logger writing `name level: message {fields}` lines to stderr. It never throws: when stderr is closed (the
 * host stopped reading it, EPIPE) lines are dropped silently.
 */
export function createStderrLogger(options: StderrLoggerOptions = {}): Logger {
  const min = RANK[options.level ?? 'warn'];
  const name = options.name ?? 'switchboard';
  // Looked up at the first line written: Node makes `process.stderr` on first access (1.8 ms cold when it is a pipe).
  let stderr: ErrWritable | undefined | null = null;
  const write = (level: Level, message: string, fields?: Record<string, unknown>): void => {
    if (RANK[level] < min) return;
    if (stderr === null) {
      stderr = (globalThis as { process?: { stderr?: ErrWritable } }).process?.stderr;
      if (stderr !== undefined) guard(stderr);
    }
    if (stderr === undefined || broken.has(stderr)) return;
    let tail = '';
    if (fields !== undefined) {
      try {
        tail = ' ' + JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v));
      } catch {
        tail = ' [unserializable fields]';
      }
    }
    try {
      stderr.write(`${name} ${level}: ${message}${tail}\n`);
    } catch {
      broken.add(stderr);
    }
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
