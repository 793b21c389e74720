/**
 * An `McpClient` connector for a stdio target over the injected {@link DoctorEnv.spawn}, so the doctor's clients
 * run on the same processes it can watch and kill (and tests may inject the spawn). Stdout and stderr are read as
 * `stdioStreams.ts` says (the library's line reader and stderr tail), each line judged by `@switchboard/jsonrpc`'s
 * `parseMessage`: a line that is not JSON-RPC is skipped and told to the logger (the stdio checks report it; the
 * client only needs the messages), as the library's stdio client does (B15). A response over the
 * line limit (64 MiB) is not read; its request ends at once with a local error response ({@link CUT_ANSWER_CODE},
 * `data.truncatedBytes`) instead of waiting for its timeout.
 */
import { ConnectionClosedError, SpawnError } from '@switchboard/mcp/client';
import type { ClientConnector, ClientConnectorOpenOptions, ClientProtocol, ClientTransport, ConnectionEndFacts } from '@switchboard/mcp/client';
import { parseMessage, type Inbound, type InboundSingle } from '@switchboard/jsonrpc';
import { MAX_LINE_BYTES, type RawLine, readStderr, readStdoutLines, stderrTail } from './stdioStreams.js';
import type { DoctorEnv, ProbeProcess } from './types.js';

/** The error code of the response made up for an answer over the line limit (JSON-RPC "Internal error"). */
export const CUT_ANSWER_CODE = -32603;

/** How much of a skipped line the logger is told, in characters. */
const ECHO_CHARS = 200;

/** What {@link doctorStdioConnector} is given. */
export interface DoctorStdioConnectorOptions {
  readonly env: DoctorEnv;
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the process (the doctor's with the target's over it). */
  readonly environment: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Called with every process it starts (the doctor kills them all at the end). */
  readonly onSpawn?: (proc: ProbeProcess) => void;
  /** Passed to {@link ProbeProcess.kill} on close, ms. @default 1000 */
  readonly killGraceMs?: number;
  /**
   * Called with every stdout line that is not a JSON-RPC message (a line over 64 MiB, cut, is not judged): its text,
   * its number on stdout (from 1) and the milliseconds since the process started.
   */
  readonly onNotProtocol?: (seen: { readonly line: string; readonly lineNumber: number; readonly afterMs: number }) => void;
}

/** A member the client may take: not refused by the classifier, and not a malformed response (the client would only log it). */
function usable(item: InboundSingle): boolean {
  return item.kind !== 'invalid' && !(item.kind === 'response' && item.invalid !== undefined);
}

/** A line as a message the client may take (a batch keeps its usable members), or `undefined`: not JSON-RPC. */
function classify(raw: string): Inbound | undefined {
  // parseMessage ignores a leading BOM, and a trailing CR is JSON whitespace (RFC 8259 §2): the line is read leniently.
  const inbound = parseMessage(raw);
  if (inbound.kind !== 'batch') return usable(inbound) ? inbound : undefined;
  const items = inbound.items.filter(usable);
  return items.length === 0 ? undefined : { kind: 'batch', items };
}

class ProbeTransport implements ClientTransport {
  readonly kind = 'stdio' as const;
  onmessage: ClientTransport['onmessage'];
  onerror: ClientTransport['onerror'];
  onclose: ClientTransport['onclose'];
  readonly #process: ProbeProcess;
  readonly #commandLine: string;
  readonly #logger: ClientConnectorOpenOptions['logger'];
  readonly #killGraceMs: number | undefined;
  readonly #onNotProtocol: DoctorStdioConnectorOptions['onNotProtocol'];
  readonly #now: () => number;
  readonly #startedAtMs: number;
  #lineCount = 0;
  readonly #stderr = stderrTail();
  readonly #encoder = new TextEncoder();
  #heard = false;
  #closedByClient = false;
  #exit: { readonly code: number | null; readonly signal: string | null; readonly error?: { readonly code: string; readonly message: string } } | undefined;
  #endFacts: ConnectionEndFacts | undefined;
  #ended: Promise<void> | undefined;

  constructor(parts: {
    readonly process: ProbeProcess;
    readonly commandLine: string;
    readonly logger: ClientConnectorOpenOptions['logger'];
    readonly killGraceMs: number | undefined;
    readonly onNotProtocol: DoctorStdioConnectorOptions['onNotProtocol'];
    readonly now: () => number;
  }) {
    this.#process = parts.process;
    this.#commandLine = parts.commandLine;
    this.#logger = parts.logger;
    this.#killGraceMs = parts.killGraceMs;
    this.#onNotProtocol = parts.onNotProtocol;
    this.#now = parts.now;
    this.#startedAtMs = parts.now();
  }

  get endFacts(): ConnectionEndFacts | undefined {
    return this.#endFacts;
  }

  setProtocol(_protocol: ClientProtocol): void {}

  start(): Promise<void> {
    const stdout = readStdoutLines(this.#process.stdout, { online: (line) => this.#deliver(line) });
    const stderr = readStderr(this.#process.stderr, this.#stderr);
    this.#ended = this.#process.exited.then(async (exit) => {
      this.#exit = exit;
      await Promise.all([stdout, stderr]);
      this.#endFacts = this.#facts();
      this.onclose?.();
    });
    return Promise.resolve();
  }

  #deliver(line: RawLine): void {
    const { raw, truncatedBytes } = line;
    this.#lineCount += 1;
    if (truncatedBytes !== undefined && line.cutId !== undefined) {
      this.#logger.warn(`Did not read a response of ${truncatedBytes} bytes: over the limit of ${MAX_LINE_BYTES} bytes per line`, { pid: this.#process.pid });
      this.#heard = true;
      const message = `The answer was ${truncatedBytes} bytes, over the doctor's limit of ${MAX_LINE_BYTES} bytes per line: not read`;
      this.onmessage?.({ kind: 'response', message: { jsonrpc: '2.0', id: line.cutId, error: { code: CUT_ANSWER_CODE, message, data: { truncatedBytes } } } as never });
      return;
    }
    const message = truncatedBytes === undefined ? classify(raw) : undefined;
    if (message === undefined && truncatedBytes === undefined) this.#onNotProtocol?.({ line: raw, lineNumber: this.#lineCount, afterMs: this.#now() - this.#startedAtMs });
    if (raw.trim() === '') return;
    if (message === undefined) {
      const what = truncatedBytes === undefined ? `"${raw.slice(0, ECHO_CHARS)}"` : `a line of ${truncatedBytes} bytes`;
      this.#logger.warn(`Skipped a stdout line that is not JSON-RPC: ${what}`, { pid: this.#process.pid });
      return;
    }
    this.#heard = true;
    this.onmessage?.(message);
  }

  #facts(): ConnectionEndFacts {
    const exit = this.#exit;
    const facts = { exitCode: exit?.code ?? null, signal: exit?.signal ?? null, stderrTail: this.#stderr.lines };
    if (exit?.error !== undefined) {
      const failure = exit.error.code === 'ENOENT' ? 'not_found' : 'failed';
      return new SpawnError({ command: this.#commandLine, failure, detail: exit.error.message, ...facts });
    }
    if (!this.#heard && !this.#closedByClient) return new SpawnError({ command: this.#commandLine, failure: 'exited', ...facts });
    return { ...facts, reason: this.#closedByClient ? 'the client closed the connection' : 'the server process exited' };
  }

  async send(message: Parameters<ClientTransport['send']>[0]): Promise<void> {
    if (this.#exit !== undefined || this.#closedByClient) throw this.#closedError();
    try {
      await this.#process.write(this.#encoder.encode(`${JSON.stringify(message)}\n`));
    } catch {
      throw this.#closedError();
    }
  }

  #closedError(): Error {
    const facts = this.#endFacts ?? this.#facts();
    if (facts instanceof SpawnError) return facts;
    return new ConnectionClosedError({ ...facts, what: `stdio server "${this.#commandLine.slice(0, ECHO_CHARS)}"` });
  }

  async close(): Promise<void> {
    if (this.#exit === undefined) this.#closedByClient = true;
    await this.#process.kill(this.#killGraceMs);
    await this.#ended;
  }
}

/**
 * A `ClientConnector` (`kind: 'stdio'`) that starts the target with {@link DoctorEnv.spawn} on every `open()`.
 * A process that cannot start or ends before its first message makes the connection end with a `SpawnError`
 * (`not_found`, `failed` or `exited`, with its exit code and stderr tail), as `spawnStdio` does.
 */
export function doctorStdioConnector(options: DoctorStdioConnectorOptions): ClientConnector {
  const commandLine = [options.command, ...options.args].join(' ');
  return {
    kind: 'stdio',
    verdictKey: `stdio:${commandLine}`,
    open: (open) => {
      open.signal?.throwIfAborted();
      const proc = options.env.spawn({ command: options.command, args: options.args, env: options.environment, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
      options.onSpawn?.(proc);
      const now = () => options.env.now();
      return Promise.resolve(new ProbeTransport({ process: proc, commandLine, logger: open.logger, killGraceMs: options.killGraceMs, onNotProtocol: options.onNotProtocol, now }));
    },
  };
}
