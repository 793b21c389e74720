/**
 * What the client interop tests share: the servers of this folder as child processes (HTTP ones started here and
 * stopped by their own PID; stdio ones spawned by the client under test), the event record a server writes
 * (`INTEROP_RECORD`, see common.mjs), a logger that keeps what the client logged, and a connector that records
 * every message the client sent and received.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonRpcMessage, Logger } from '@switchboard/jsonrpc';
import type { ClientConnector, ClientTransport } from '@switchboard/mcp/client';
import { exitWithin, stopByPid } from '../helpers/process.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVERS_DIR = path.join(ROOT, 'test', 'interop-servers');
/**
 * The preload that binds a host-less `listen(port)` to 127.0.0.1 (the conformance runner's); with
 * {@link LOOPBACK_ANNOUNCE} in the environment it prints the bound port.
 */
export const LOOPBACK_PRELOAD = path.join(ROOT, 'scripts', 'conformance-shim', 'loopback.cjs');
/** The environment that makes {@link LOOPBACK_PRELOAD} print `INTEROP_LISTENING http://127.0.0.1:<port>` on stderr. */
export const LOOPBACK_ANNOUNCE = { LOOPBACK_ANNOUNCE: 'INTEROP_LISTENING' } as const;

/** The first of these packages that is not installed (its absence skips a test), or undefined when all are. */
export function missingPackage(...names: readonly string[]): string | undefined {
  return names.find((name) => !existsSync(path.join(ROOT, 'node_modules', ...name.split('/'), 'package.json')));
}

/** One line of a server's event record. */
export interface ServerEvent {
  readonly event: 'started' | 'began' | 'cancelled' | 'finished';
  readonly pid: number;
  readonly transport?: string;
  readonly tool?: string;
  readonly reason?: string;
}

/** The events one server process (or its successors after a restart) recorded, read from its INTEROP_RECORD file. */
export class EventRecord {
  readonly file: string;

  constructor(dir: string, name: string) {
    this.file = path.join(dir, `${name}.jsonl`);
  }

  events(): ServerEvent[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as ServerEvent);
  }

  /** The PIDs of every `started` event, in order. */
  startedPids(): number[] {
    return this.events().filter((e) => e.event === 'started').map((e) => e.pid);
  }

  /** Resolves with the first event `match` accepts, or rejects after `timeoutMs` with what was recorded. */
  async waitFor(match: (event: ServerEvent) => boolean, timeoutMs = 5000): Promise<ServerEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events().find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms; recorded: ${JSON.stringify(this.events())}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** A temporary folder for event records, removed by `remove()`. */
export function scratch(): { record(name: string): EventRecord; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-interop-'));
  return { record: (name) => new EventRecord(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running HTTP server process. */
export interface HttpServerProcess {
  readonly child: ChildProcess;
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  stderr(): string;
  /** SIGTERM, then SIGKILL by its PID if it has not exited within 5 s. */
  stop(): Promise<void>;
}

/** How to start one HTTP server: node arguments, extra environment, and the stderr line that gives its URL. */
export interface HttpServerLaunch {
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Group 1 is the endpoint URL. @default the `INTEROP_READY <url>` line of common.mjs */
  readonly ready?: RegExp;
  /** Appended to the URL the ready line gives (server-everything's preload prints the origin only). @default '' */
  readonly path?: string;
}

/** Starts `node <args>` and resolves once its stderr gave the URL (rejects after 15 s or on exit). */
export async function startHttpServer(launch: HttpServerLaunch): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [...launch.args], { cwd: ROOT, env: { ...process.env, ...launch.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const ready = launch.ready ?? /INTEROP_READY (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      stopByPid(child);
      reject(new Error(`no ready line within 15 s: ${stderr}`));
    }, 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = ready.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(`${m[1]!}${launch.path ?? ''}`);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before it was ready: ${stderr}`));
    });
  });
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      try {
        await exitWithin(child, 5000);
      } catch {
        stopByPid(child);
      }
    },
  };
}

/** One line a client logged. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

/** A logger that keeps every line (nothing is printed). */
export function capturingLogger(): Logger & { readonly lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const at = (level: LoggedLine['level']) => (message: string, fields?: Record<string, unknown>) => {
    lines.push(fields === undefined ? { level, message } : { level, message, fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** What a recording connector saw, across every transport it opened (reconnections included). */
export interface WireLog {
  /** Messages the client sent, in order. */
  readonly sent: JsonRpcMessage[];
  /** Messages the transport delivered to the client, in order (as classified by the transport). */
  readonly received: unknown[];
  /** How many transports were opened (1 + reconnections). */
  opened: number;
}

function record(transport: ClientTransport, log: WireLog): ClientTransport {
  log.opened += 1;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    log.sent.push(...(Array.isArray(message) ? (message as JsonRpcMessage[]) : [message as JsonRpcMessage]));
    return send(message, options);
  };
  // The listener the client sets is wrapped to record each message once, also when the client chains listeners
  // (reads the current one and sets another that calls it).
  let listener: ClientTransport['onmessage'];
  let depth = 0;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => listener,
    set: (fn: ClientTransport['onmessage']) => {
      listener =
        fn &&
        ((message, extra) => {
          if (depth++ === 0) log.received.push(message);
          try {
            fn(message, extra);
          } finally {
            depth -= 1;
          }
        });
    },
  });
  return transport;
}

/** Wraps a connector so every transport it opens records its traffic in `log`. */
export function recordingConnector(inner: ClientConnector, log: WireLog): ClientConnector {
  const openHttpSse = inner.openHttpSse?.bind(inner);
  return {
    kind: inner.kind,
    verdictKey: inner.verdictKey,
    open: async (options) => record(await inner.open(options), log),
    ...(openHttpSse && { openHttpSse: async (options: Parameters<typeof openHttpSse>[0]) => record(await openHttpSse(options), log) }),
  };
}

/** One HTTP request a client sent: its headers (names in lower case) and its JSON body. */
export interface SentHttpRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: any;
}

/** A `fetch` that keeps the headers and body of every request in `log`, and passes the request on. */
export function headerRecordingFetch(log: SentHttpRequest[]): typeof fetch {
  return (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    let body: unknown;
    try {
      body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    } catch {
      body = init?.body;
    }
    log.push({ method: init?.method ?? 'GET', headers, body });
    return fetch(input, init);
  };
}

/** A fresh, empty wire log. */
export function wireLog(): WireLog {
  return { sent: [], received: [], opened: 0 };
}

/** The requests of `log.sent` with this method. */
export function sentRequests(log: WireLog, method: string): Array<{ id: string | number; method: string; params?: Record<string, any> }> {
  return log.sent.filter((m: any) => m.method === method && m.id !== undefined) as any;
}

/** The notifications of `log.sent` with this method. */
export function sentNotifications(log: WireLog, method: string): Array<{ method: string; params?: Record<string, any> }> {
  return log.sent.filter((m: any) => m.method === method && m.id === undefined) as any;
}
