/**
 * The stdio transport, client side: spawns the MCP server as a child process and speaks newline-delimited
 * JSON-RPC on its stdin and stdout.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "stdio": the client launches the server as a subprocess; messages are
 *   newline-delimited and MUST NOT contain embedded newlines; the server MUST NOT write anything to stdout that
 *   is not a valid MCP message; it MAY write to stderr, which the client SHOULD NOT take for errors.
 * @see MCP 2026-07-28 basic/transports/stdio.mdx: the same framing; on shutdown the client closes the server's
 *   stdin, waits, then escalates (SIGTERM, SIGKILL).
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import {
  DEFAULT_MAX_JSON_DEPTH,
  encodeNdjson,
  NdjsonDecoder,
  oversizedLineId,
  parseMessage,
  type Inbound,
  type JsonRpcMessage,
  type Logger,
  type NdjsonEvent,
} from '@switchboard/jsonrpc';
import { createStderrLogger } from '../../logger.js';
import { ConnectionClosedError, ResponseTooLargeError, SpawnError, type ConnectionEndFacts } from '../../protocol/clientErrors.js';
import { echo, neverThrowing } from '@switchboard/jsonrpc';
import type { ClientConnector, ClientConnectorOpenOptions, ClientProtocol, ClientTransport } from '../../protocol/transport.js';
import { StderrTail } from './stderrTail.js';
import { childEnv, settle, type Settings, type SpawnStdioOptions } from './spawnOptions.js';
import { groupGone, guardGroup, notFoundDetail, signalGroup, spawnGroup } from './processGroup.js';

/** How long the shutdown waits, after SIGKILL, for the group to be gone (a zombie can make it look alive). */
const KILL_WAIT_MS = 1000;
/** How long stdout and stderr may take, once the group is gone, to deliver what is left and end. */
const STREAMS_AFTER_EXIT_MS = 1000;
/** A skipped stdout line is warned about for the first few, then once per this many. */
const SKIP_WARN_FIRST = 5;
const SKIP_WARN_EVERY = 100;

/**
 * Messages at least this long (UTF-16 units) are written at once; shorter ones are joined with the other sends of
 * the same event-loop turn into one write at `setImmediate`. Measured in bench/: writing the first of a turn at once
 * and the rest at `process.nextTick`, as the server transport does, cost the client about 7k more instructions per
 * call at C=1 (bench/client-instructions.mjs); writing it at once when the turn before sent only one line (commit
 * e1f7dc6) did not move the gateway's added p50 at C=1 beyond noise (bench/gateway.mjs --fresh, 8 repetitions,
 * -5 and +12 µs), so the simpler rule stays.
 */
const DIRECT_WRITE_CHARS = 8192;
/** The joined lines are written as soon as they reach this many UTF-16 units (64 KiB of ASCII). */
const MAX_OUTBOX_CHARS = 65_536;

const RESOLVED: Promise<void> = Promise.resolve();
const ignore = (): void => {};

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Why the connection ended, as far as this side saw it first. */
type EndTrigger = 'client' | 'exit' | 'stdout' | 'stdin';

/**
 * A {@link ClientConnector} that spawns the server on every `open()` (the client opens again to reconnect after
 * the process died). `verdictKey` is `stdio:` + the command line (`stdio:npx -y some-server`).
 *
 * @throws TypeError, RangeError when an option is invalid (at once, not on `open()`)
 * @example
 * const client = await McpClient.connect({ connector: spawnStdio({ command: 'node', args: ['server.js'] }) });
 */
export function spawnStdio(options: SpawnStdioOptions): ClientConnector {
  const settings = settle(options);
  return {
    kind: 'stdio',
    verdictKey: `stdio:${settings.commandLine}`,
    open: (open) => StdioClientTransport.spawn(options, open),
  };
}

/**
 * The client's stdio transport: one spawned server process, led in a process group of its own, and the pipes
 * to it. Made by {@link StdioClientTransport.spawn} (or a {@link spawnStdio} connector's `open()`).
 *
 * - **stdout**: bytes are split into lines by `NdjsonDecoder` (a message split across chunks or two in one chunk,
 *   B17; CRLF; a BOM; a line over `maxLineBytes` skipped up to the next newline, B16). A line that is not JSON-RPC
 *   (a banner, B15) is skipped, never delivered; the first five are each warned about, then one warning per 100.
 *   Blank lines are skipped silently. A batch keeps its valid members.
 * - **stderr**: see {@link SpawnStdioOptions.stderr}; the tail is {@link StdioClientTransport.stderrTail}.
 * - **The end**: `onclose` fires once, after the process and its group are gone, with {@link endFacts} set. If the
 *   server ended before writing any message, `endFacts` is the {@link SpawnError} (`failure: 'exited'`, exit code,
 *   stderr tail) the first request should fail with, and `send` rejects with it.
 */
export class StdioClientTransport implements ClientTransport {
  readonly kind = 'stdio' as const;
  onmessage: ClientTransport['onmessage'];
  onerror: ClientTransport['onerror'];
  onclose: ClientTransport['onclose'];
  onresponselost: ClientTransport['onresponselost'];
  readonly #settings: Settings;
  readonly #logger: Logger;
  readonly #child: ChildProcess;
  readonly #pid: number;
  readonly #stdin: Writable;
  readonly #stdout: Readable;
  readonly #decoder: NdjsonDecoder;
  readonly #tail: StderrTail | undefined;
  readonly #unguard: () => void;
  #protocol: ClientProtocol | undefined;
  #started = false;
  /** A JSON-RPC message came from stdout. */
  #heard = false;
  #skipped = 0;
  #exit: { readonly code: number | null; readonly signal: string | null } | undefined;
  readonly #exited: Promise<void>;
  #markExited: () => void = ignore;
  readonly #stdoutEnd: Promise<void>;
  #markStdoutEnd: () => void = ignore;
  #trigger: EndTrigger | undefined;
  /** SIGTERM was sent: an exit after it is not the server's own. */
  #signalled = false;
  /** The process exited before any signal of ours (the group may still have had to be signalled after). */
  #exitedOnItsOwn = false;
  #ending: Promise<void> | undefined;
  #endFacts: ConnectionEndFacts | undefined;
  /** While stdin is backed up: settles `true` on its `'drain'`, `false` when the connection ends first. */
  #drain: Promise<boolean> | undefined;
  #settleDrain: (drained: boolean) => void = ignore;
  /** The lines sent this event-loop turn and not written yet, written together by {@link #flush}. */
  #outbox = '';
  /** A `setImmediate` for {@link #flush} is pending (one per turn that queued a line). */
  #flushScheduled = false;

  /**
   * Spawns the server and resolves once the process runs (its `'spawn'` event); it has not answered anything yet.
   * @param options - What to run; see {@link SpawnStdioOptions}.
   * @param open - `logger` (default: a stderr logger) gets skipped stdout lines and, at debug, stderr lines;
   *   aborting `signal` before the process runs kills it.
   * @throws SpawnError `not_found` (ENOENT: `detail` says whether the command was looked up on PATH, and which
   *   PATH) or `failed` (EACCES and the like), code `spawn_failed`
   * @throws TypeError, RangeError when an option is invalid; the signal's reason when aborted
   */
  static async spawn(options: SpawnStdioOptions, open: Partial<ClientConnectorOpenOptions> = {}): Promise<StdioClientTransport> {
    const settings = settle(options);
    const signal = open.signal;
    signal?.throwIfAborted();
    const env = childEnv(settings);
    const child = spawnGroup({ command: settings.command, args: settings.args, env, cwd: settings.cwd, stderr: settings.stderr === 'capture' ? 'pipe' : settings.stderr });
    try {
      await new Promise<void>((resolve, reject) => {
        const done = (error?: Error): void => {
          child.off('spawn', done);
          child.off('error', done);
          signal?.removeEventListener('abort', aborted);
          if (error === undefined) resolve();
          else reject(error);
        };
        const aborted = (): void => {
          signalGroup(child, 'SIGKILL');
          child.kill('SIGKILL');
          done((signal?.reason as Error | undefined) ?? new Error('Aborted'));
        };
        child.once('spawn', done);
        child.once('error', done);
        signal?.addEventListener('abort', aborted, { once: true });
      });
    } catch (error) {
      if (signal?.aborted === true) throw error;
      const cause = error as NodeJS.ErrnoException;
      if (cause.code === 'ENOENT') {
        throw new SpawnError({ command: settings.commandLine, failure: 'not_found', detail: await notFoundDetail({ command: settings.command, env, cwd: settings.cwd }), cause });
      }
      throw new SpawnError({ command: settings.commandLine, failure: 'failed', detail: cause.message, cause });
    }
    return new StdioClientTransport({ settings, child, logger: neverThrowing(open.logger ?? createStderrLogger()) });
  }

  private constructor(parts: { readonly settings: Settings; readonly child: ChildProcess; readonly logger: Logger }) {
    const { settings, child, logger } = parts;
    this.#settings = settings;
    this.#child = child;
    this.#logger = logger;
    this.#pid = child.pid!;
    this.#stdin = child.stdin!;
    this.#stdout = child.stdout!;
    this.#decoder = new NdjsonDecoder({ maxLineBytes: settings.maxLineBytes });
    this.#unguard = guardGroup(this.#pid);
    this.#exited = new Promise((resolve) => (this.#markExited = resolve));
    this.#stdoutEnd = new Promise((resolve) => (this.#markStdoutEnd = resolve));
    child.on('exit', (code, signal) => {
      this.#exit = { code, signal };
      this.#exitedOnItsOwn = !this.#signalled;
      this.#markExited();
      void this.#end('exit');
    });
    child.on('error', (error) => this.#logger.warn(`Stdio server "${echo(settings.commandLine)}": ${error.message}`, { pid: this.#pid }));
    // EPIPE: the server died (its exit follows) or closed its stdin while running. Either way nothing more reaches it
    // (no request, no cancellation, no answer to its own requests): the connection ends, as when it closes stdout.
    this.#stdin.on('error', (error) => {
      this.#logger.debug(`Writing to the stdio server failed: ${error.message}`, { pid: this.#pid });
      void this.#end('stdin');
    });
    if (settings.stderr === 'capture') {
      const online = settings.onstderr ?? ((line: string) => this.#logger.debug(`Stdio server stderr: ${line}`, { pid: this.#pid }));
      const tail = new StderrTail({ maxLines: settings.maxStderrLines, online });
      this.#tail = tail;
      const stderr = child.stderr!;
      stderr.on('data', (chunk: Buffer) => tail.push(chunk));
      stderr.on('end', () => tail.end());
      stderr.on('error', ignore);
    }
  }

  /** The server process's PID, also the id of its process group. */
  get pid(): number {
    return this.#pid;
  }

  /** The last stderr lines so far, oldest first (empty unless `stderr` is `'capture'`). */
  get stderrTail(): readonly string[] {
    return this.#tail?.lines ?? [];
  }

  /** The era and revision the client set (stdio needs no headers; kept for inspection). */
  get protocol(): ClientProtocol | undefined {
    return this.#protocol;
  }

  /**
   * How the connection ended, set just before `onclose`: exit code, signal, stderr tail and `reason` (`'the server
   * process exited'`, `'stdout closed'` when the server closed stdout and had to be signalled, `'the server closed its
   * stdin'` when a write found the pipe closed and the server had to be signalled, `'the client closed the
   * connection'`). A {@link SpawnError} when the server ended before its first message. A send rejected while the
   * connection was ending carries the facts known then (the server may still exit by itself before the end).
   */
  get endFacts(): ConnectionEndFacts | undefined {
    return this.#endFacts;
  }

  setProtocol(protocol: ClientProtocol): void {
    this.#protocol = protocol;
  }

  /** Starts reading stdout. @throws Error when called twice */
  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error('StdioClientTransport already started'));
    this.#started = true;
    const stdout = this.#stdout;
    stdout.on('data', (chunk: Buffer) => {
      for (const event of this.#decoder.push(chunk)) this.#deliver(event);
    });
    stdout.on('end', () => {
      for (const event of this.#decoder.end()) this.#deliver(event);
      this.#markStdoutEnd();
      void this.#end('stdout');
    });
    stdout.on('error', (error) => {
      this.#logger.debug(`Reading the stdio server's stdout failed: ${error.message}`, { pid: this.#pid });
      this.#markStdoutEnd();
      void this.#end('stdout');
    });
    return RESOLVED;
  }

  /**
   * Writes one message (or batch) as one line on the server's stdin; the short lines sent in one event-loop turn go
   * out in one write at the end of the turn (`setImmediate`), one syscall for many requests under load. Resolves at
   * once, or while the pipe is backed up (backpressure), once it drained.
   * @throws ConnectionClosedError (code `connection_closed`) once the process exited or the connection is closing;
   *   the {@link SpawnError} of {@link endFacts} when the server ended before its first message
   * @throws TypeError when the message has no JSON form
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    if (this.#ending !== undefined || this.#exit !== undefined) return Promise.reject(this.#closedError());
    let line: string;
    try {
      line = encodeNdjson(message);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new TypeError(String(error)));
    }
    if (line.length >= DIRECT_WRITE_CHARS) {
      // A large message goes on its own: gluing it to others would only cost a copy.
      this.#flush();
      this.#write(line);
    } else {
      this.#outbox += line;
      if (this.#outbox.length >= MAX_OUTBOX_CHARS) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    }
    const drain = this.#drain;
    if (drain === undefined) return RESOLVED;
    return drain.then((drained) => {
      if (!drained) throw this.#closedError();
    });
  }

  /**
   * Writes to stdin; once the pipe is backed up, sends wait for its `'drain'` (backpressure). Nothing once stdin is
   * destroyed (the pipe broke: the connection's end follows), where a write would wait for a `'drain'` never coming.
   */
  #write(text: string): void {
    if (this.#stdin.destroyed) return;
    if (this.#stdin.write(text) || this.#drain !== undefined) return;
    this.#drain = new Promise<boolean>((resolve) => {
      this.#settleDrain = resolve;
      this.#stdin.once('drain', () => {
        this.#drain = undefined;
        resolve(true);
      });
    });
  }

  /** Writes what the sends of this event-loop turn queued, in one `write` (one syscall instead of one each). */
  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const text = this.#outbox;
    if (text === '') return;
    this.#outbox = '';
    this.#write(text);
  };

  /**
   * Shuts the server down and resolves once it is gone (idempotent): closes its stdin, waits up to
   * `shutdownGraceMs` for the whole process group to exit, then SIGTERMs the group, waits again, then SIGKILLs it.
   * `onclose` has fired when this resolves.
   */
  close(): Promise<void> {
    return this.#end('client');
  }

  #end(trigger: EndTrigger): Promise<void> {
    this.#trigger ??= trigger;
    this.#ending ??= this.#shutDown();
    return this.#ending;
  }

  async #shutDown(): Promise<void> {
    const stdin = this.#stdin;
    // What was sent before close() (a notifications/cancelled, say) still goes out, before the end of stdin.
    this.#flush();
    if (!stdin.destroyed && !stdin.writableEnded) stdin.end();
    const grace = this.#settings.shutdownGraceMs;
    if (!(await this.#gone(grace))) {
      this.#signalled = true;
      signalGroup(this.#child, 'SIGTERM');
      if (!(await this.#gone(grace))) {
        signalGroup(this.#child, 'SIGKILL');
        await this.#gone(KILL_WAIT_MS);
      }
    }
    // What the server wrote before it exited is still in the pipes: deliver it before saying the connection ended.
    const streams = [this.#started ? this.#stdoutEnd : RESOLVED, this.#child.stderr === null ? RESOLVED : streamEnd(this.#child.stderr)];
    await Promise.race([Promise.all(streams), sleep(STREAMS_AFTER_EXIT_MS)]);
    this.#stdout.destroy();
    this.#child.stderr?.destroy();
    stdin.destroy();
    this.#unguard();
    this.#settleDrain(false);
    this.#endFacts = this.#facts();
    this.onclose?.();
  }

  /** Waits up to `ms` for the process to exit and its group to be empty ({@link groupGone}); whether it happened. */
  #gone(ms: number): Promise<boolean> {
    return groupGone({ pid: this.#pid, exited: () => this.#exit !== undefined, exit: this.#exited }, ms);
  }

  #reason(): string {
    const trigger = this.#trigger;
    if (trigger === 'client') return 'the client closed the connection';
    // A closed pipe is the reason while the process runs on, or when it had to be signalled; not when it exited by
    // itself (even if a child of it kept the group alive until signalled).
    if (trigger === 'stdout' && !this.#exitedOnItsOwn) return 'stdout closed';
    if (trigger === 'stdin' && !this.#exitedOnItsOwn) return 'the server closed its stdin';
    return 'the server process exited';
  }

  #facts(): ConnectionEndFacts {
    const exit = this.#exit;
    const facts = { exitCode: exit?.code ?? null, signal: exit?.signal ?? null, stderrTail: this.stderrTail };
    if (!this.#heard && this.#trigger !== 'client') {
      // A server that closed a pipe before its first message and ran on had to be stopped: the detail says so.
      const pipe = this.#exitedOnItsOwn ? undefined : this.#trigger === 'stdout' ? 'stdout' : this.#trigger === 'stdin' ? 'stdin' : undefined;
      return new SpawnError({ command: this.#settings.commandLine, failure: 'exited', ...facts, ...(pipe === undefined ? {} : { detail: `it closed its ${pipe} and was stopped` }) });
    }
    return { ...facts, reason: this.#reason() };
  }

  #closedError(): Error {
    const facts = this.#endFacts ?? this.#facts();
    if (facts instanceof SpawnError) return facts;
    return new ConnectionClosedError({ ...facts, what: `stdio server "${echo(this.#settings.commandLine)}"` });
  }

  #deliver(event: NdjsonEvent): void {
    if (event.kind === 'oversized') {
      this.#skip(`a line longer than ${this.#settings.maxLineBytes} bytes`);
      // The response it holds is lost: the request it answers fails now, with the size, instead of at its timeout.
      const id = oversizedLineId(event);
      if (id !== undefined) {
        const maxBytes = this.#settings.maxLineBytes;
        this.onresponselost?.(id, new ResponseTooLargeError({ bytes: event.bytes, maxBytes, what: `the stdout line answering request ${JSON.stringify(id)}` }));
      }
      return;
    }
    const inbound = parseMessage(event.text, { maxDepth: DEFAULT_MAX_JSON_DEPTH });
    let message: Inbound = inbound;
    if (inbound.kind === 'invalid') {
      this.#skip(`"${echo(event.text)}"`);
      return;
    }
    if (inbound.kind === 'batch') {
      const items = inbound.items.filter((item) => item.kind !== 'invalid');
      if (items.length < inbound.items.length) this.#skip(`members of the batch "${echo(event.text)}"`);
      if (items.length === 0) return;
      message = { kind: 'batch', items };
    }
    this.#heard = true;
    this.onmessage?.(message);
  }

  /** A stdout line that is not JSON-RPC (B15): warned about for the first few, then once per 100. */
  #skip(what: string): void {
    const count = ++this.#skipped;
    if (count <= SKIP_WARN_FIRST) this.#logger.warn(`Skipped a stdout line that is not JSON-RPC: ${what}`, { pid: this.#pid });
    else if (count % SKIP_WARN_EVERY === 0) this.#logger.warn(`Skipped ${count} stdout lines that are not JSON-RPC so far; the latest: ${what}`, { pid: this.#pid });
  }
}

/** Resolves once the stream ended, closed or failed. */
function streamEnd(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return RESOLVED;
  return new Promise((resolve) => {
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
}
