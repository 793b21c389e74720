/**
 * {@link StdioWire}: a stdio server spoken to line by line, raw, for the checks that look at the bytes themselves
 * (a banner, CRLF, a BOM, an answer to a notification, an id echoed with another type). Everything it keeps is
 * bounded: the first {@link MAX_KEPT_LINES} stdout lines (each at most 4 MiB, a longer one cut and flagged) and the
 * last {@link STDERR_TAIL_LINES} stderr lines.
 */
import { LineSplitter, parseLine, TextTail } from './lineSplitter.js';
import type { DoctorEnv, ProbeProcess, StdioLine, StdioWire } from './types.js';

/** The stdout lines a wire keeps; later lines still reach `waitFor` and `request`, but are not kept. */
export const MAX_KEPT_LINES = 10_000;
/** The stderr lines a wire keeps (the last ones). */
export const STDERR_TAIL_LINES = 50;
/** How long stdout may take to end once the process exited, or the exit to come once stdout ended, ms. */
const STDOUT_AFTER_EXIT_MS = 500;

/** What {@link openStdioWire} is given. */
export interface StdioWireOptions {
  readonly env: DoctorEnv;
  /** The process, just spawned; the wire reads its stdout and stderr (nothing else may). */
  readonly process: ProbeProcess;
  /** Aborting ends every wait at once (with `undefined`); the process is not killed (see {@link StdioWire.close}). */
  readonly signal?: AbortSignal;
  /** Passed to {@link ProbeProcess.kill} by `close()`, ms. @default 1000 */
  readonly killGraceMs?: number;
}

interface Waiter {
  readonly match: (line: StdioLine) => boolean;
  readonly resolve: (line: StdioLine | undefined) => void;
}

const encoder = new TextEncoder();

function isResponseTo(id: string | number): (line: StdioLine) => boolean {
  return (line) => {
    const json = line.json;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
    const message = json as Record<string, unknown>;
    return message.id === id && !('method' in message) && ('result' in message || 'error' in message);
  };
}

class ProcessWire implements StdioWire {
  readonly pid: number | undefined;
  readonly startedAtMs: number;
  readonly #env: DoctorEnv;
  readonly #process: ProbeProcess;
  readonly #signal: AbortSignal | undefined;
  readonly #killGraceMs: number | undefined;
  readonly #lines: StdioLine[] = [];
  readonly #stderr = new TextTail(STDERR_TAIL_LINES);
  readonly #waiters = new Set<Waiter>();
  #exit: StdioWire['exit'];
  #ended = false;
  #closing: Promise<void> | undefined;

  constructor(options: StdioWireOptions) {
    this.#env = options.env;
    this.#process = options.process;
    this.#signal = options.signal;
    this.#killGraceMs = options.killGraceMs;
    this.pid = options.process.pid;
    this.startedAtMs = options.env.now();
    this.#signal?.addEventListener('abort', () => this.#wakeAll(), { once: true });
    const stdout = this.#readStdout();
    void this.#readStderr();
    const exited = this.#process.exited.then((exit) => {
      this.#exit = exit;
    });
    // The end of the wire: stdout ended and the exit is known, so a check woken by it can read why. Either may
    // come first; the other is waited for a little (a grandchild may hold stdout open after the exit; a server may
    // close stdout and linger).
    void Promise.race([stdout, exited]).then(async () => {
      await Promise.race([Promise.all([stdout, exited]), this.#env.sleep(STDOUT_AFTER_EXIT_MS).catch(() => {})]);
      this.#end();
    });
  }

  get lines(): readonly StdioLine[] {
    return this.#lines;
  }

  get stderrTail(): readonly string[] {
    return this.#stderr.lines;
  }

  get exit(): StdioWire['exit'] {
    return this.#exit;
  }

  async #readStdout(): Promise<void> {
    const splitter = new LineSplitter();
    try {
      for await (const chunk of this.#process.stdout) for (const line of splitter.push(chunk)) this.#add(line);
    } catch {
      // A stream that fails ends like one that closes.
    }
    for (const line of splitter.end()) this.#add(line);
  }

  async #readStderr(): Promise<void> {
    try {
      for await (const chunk of this.#process.stderr) this.#stderr.push(chunk);
    } catch {
      // As for stdout.
    }
    this.#stderr.end();
  }

  #add(read: { readonly raw: string; readonly truncatedBytes?: number }): void {
    const json = read.truncatedBytes === undefined ? parseLine(read.raw) : undefined;
    const line: StdioLine = { raw: read.raw, atMs: this.#env.now(), ...(json === undefined ? {} : { json }), ...(read.truncatedBytes === undefined ? {} : { truncatedBytes: read.truncatedBytes }) };
    if (this.#lines.length < MAX_KEPT_LINES) this.#lines.push(line);
    for (const waiter of this.#waiters) {
      if (waiter.match(line)) {
        this.#waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#wakeAll();
  }

  #wakeAll(): void {
    for (const waiter of this.#waiters) waiter.resolve(undefined);
    this.#waiters.clear();
  }

  /** Writes text to stdin; a write to a process whose stdin is closed is dropped (the exit says why). */
  async write(text: string): Promise<void> {
    try {
      await this.#process.write(encoder.encode(text));
    } catch {
      // The server closed its stdin or ended: what it did is seen in `exit` and on stdout.
    }
  }

  send(message: unknown): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  waitFor(match: (line: StdioLine) => boolean, options: { readonly timeoutMs: number; readonly fromIndex?: number }): Promise<StdioLine | undefined> {
    for (let i = options.fromIndex ?? 0; i < this.#lines.length; i++) {
      const line = this.#lines[i]!;
      if (match(line)) return Promise.resolve(line);
    }
    if (this.#ended || this.#signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = new AbortController();
      const waiter: Waiter = {
        match,
        resolve: (line) => {
          timer.abort();
          resolve(line);
        },
      };
      this.#waiters.add(waiter);
      this.#env.sleep(options.timeoutMs, timer.signal).then(
        () => {
          if (this.#waiters.delete(waiter)) resolve(undefined);
        },
        () => {},
      );
    });
  }

  async request(message: { readonly id: string | number; readonly method: string; readonly params?: unknown }, timeoutMs: number): Promise<StdioLine | undefined> {
    const fromIndex = this.#lines.length;
    const answer = this.waitFor(isResponseTo(message.id), { timeoutMs, fromIndex });
    await this.send({ jsonrpc: '2.0', ...message });
    return answer;
  }

  close(): Promise<void> {
    this.#closing ??= this.#process.kill(this.#killGraceMs);
    return this.#closing;
  }
}

/** Starts reading a spawned process as a {@link StdioWire}. */
export function openStdioWire(options: StdioWireOptions): StdioWire {
  return new ProcessWire(options);
}
