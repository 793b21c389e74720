/**
 * {@link StdioWire}: a stdio server spoken to line by line, raw, for the checks that look at the bytes themselves
 * (a banner, CRLF, a BOM, an answer to a notification, an id echoed with another type), read as `stdioStreams.ts`
 * says (the library's line reader and stderr tail). Everything it keeps is bounded: the first
 * {@link MAX_KEPT_LINES} stdout lines (each at most 64 MiB, a longer one cut and flagged; at most
 * {@link MAX_KEPT_BYTES} in all, the oldest lines' text dropped first) and the last 50 stderr lines. A response
 * cut at the line limit still ends the `request()` waiting for it (its id is read from the cut line), with the line
 * flagged `truncatedBytes` and no `json`, so the check can say how big the answer was.
 */
import { MAX_LINE_BYTES, parseLine, type RawLine, readStderr, readStdoutLines, stderrTail } from './stdioStreams.js';
import type { DoctorEnv, ProbeProcess, StdioLine, StdioWire } from './types.js';

/** The stdout lines a wire keeps; later lines still reach `waitFor` and `request`, but are not kept. */
export const MAX_KEPT_LINES = 10_000;
/**
 * The most stdout text a wire keeps, in bytes (each line counted by its length on the wire): past it the oldest
 * kept lines lose their text (`raw` becomes `''`, `json` goes, `truncatedBytes` says how long they were).
 */
export const MAX_KEPT_BYTES = 128 * 1024 * 1024;
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
  /** The longest line read whole, bytes. @default MAX_LINE_BYTES (64 MiB) */
  readonly maxLineBytes?: number;
  /** The most stdout text kept, bytes. @default MAX_KEPT_BYTES (128 MiB) */
  readonly maxKeptBytes?: number;
}

interface Waiter {
  readonly match: (line: StdioLine) => boolean;
  /** The id a `request()` waits for: a line cut at the limit with this top-level id ends the wait too. */
  readonly id?: string | number;
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
  readonly #maxLineBytes: number;
  readonly #maxKeptBytes: number;
  /** The wire length of each kept line whose text is still kept, and their sum. */
  readonly #keptSizes: number[] = [];
  #keptBytes = 0;
  /** The first kept line whose text has not been dropped. */
  #oldestWithText = 0;
  readonly #stderr = stderrTail();
  readonly #waiters = new Set<Waiter>();
  #exit: StdioWire['exit'];
  #ended = false;
  #closing: Promise<void> | undefined;

  constructor(options: StdioWireOptions) {
    this.#env = options.env;
    this.#process = options.process;
    this.#signal = options.signal;
    this.#killGraceMs = options.killGraceMs;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#maxKeptBytes = options.maxKeptBytes ?? MAX_KEPT_BYTES;
    this.pid = options.process.pid;
    this.startedAtMs = options.env.now();
    this.#signal?.addEventListener('abort', () => this.#wakeAll(), { once: true });
    const stdout = readStdoutLines(this.#process.stdout, { maxLineBytes: this.#maxLineBytes, online: (line) => this.#add(line) });
    void readStderr(this.#process.stderr, this.#stderr);
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

  #add(read: RawLine): void {
    const json = read.truncatedBytes === undefined ? parseLine(read.raw) : undefined;
    const line: StdioLine = { raw: read.raw, atMs: this.#env.now(), ...(json === undefined ? {} : { json }), ...(read.truncatedBytes === undefined ? {} : { truncatedBytes: read.truncatedBytes }) };
    if (this.#lines.length < MAX_KEPT_LINES) this.#keep(line, read.truncatedBytes ?? encoder.encode(read.raw).length);
    for (const waiter of this.#waiters) {
      if (waiter.match(line) || (read.cutId !== undefined && waiter.id === read.cutId)) {
        this.#waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  }

  /** Keeps a line, dropping the text of the oldest ones while the kept text is over its bound. */
  #keep(line: StdioLine, size: number): void {
    this.#lines.push(line);
    this.#keptSizes.push(size);
    this.#keptBytes += size;
    while (this.#keptBytes > this.#maxKeptBytes && this.#oldestWithText < this.#lines.length - 1) {
      const i = this.#oldestWithText++;
      const old = this.#lines[i]!;
      this.#keptBytes -= this.#keptSizes[i]!;
      this.#lines[i] = { raw: '', atMs: old.atMs, truncatedBytes: this.#keptSizes[i]! };
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
    return this.#wait(match, options);
  }

  #wait(match: (line: StdioLine) => boolean, options: { readonly timeoutMs: number; readonly fromIndex?: number; readonly id?: string | number }): Promise<StdioLine | undefined> {
    for (let i = options.fromIndex ?? 0; i < this.#lines.length; i++) {
      const line = this.#lines[i]!;
      if (match(line)) return Promise.resolve(line);
    }
    if (this.#ended || this.#signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = new AbortController();
      const waiter: Waiter = {
        match,
        ...(options.id === undefined ? {} : { id: options.id }),
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

  /** The response to `message`, or the line cut at the line limit whose top-level id is `message.id` (see the module comment). */
  async request(message: { readonly id: string | number; readonly method: string; readonly params?: unknown }, timeoutMs: number): Promise<StdioLine | undefined> {
    const fromIndex = this.#lines.length;
    const answer = this.#wait(isResponseTo(message.id), { timeoutMs, fromIndex, id: message.id });
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
