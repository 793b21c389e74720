/**
 * The demo server (examples/demo/main.js) as a child process, for interop tests with real clients: started over
 * Streamable HTTP on 127.0.0.1 with a port the system picks, stopped by its own PID; and a `fetch` that records
 * what a client sends over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithin, stopByPid } from './process.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The demo's launcher. */
export const DEMO_MAIN = path.join(ROOT, 'examples', 'demo', 'main.js');
/** The demo's `serverInfo`. */
export const DEMO_SERVER_INFO = { name: 'switchboard-demo', version: '1.0.0' };

/** A running demo HTTP server. */
export interface DemoHttp {
  readonly child: ChildProcess;
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for exit 0 (kills it by its PID with SIGKILL if it has not exited within 5 s). */
  stop(): Promise<number | null>;
}

/**
 * Starts `main.js --port 0` (with `options.args` after it, and `options.env` over the environment) and resolves once
 * it printed its URL.
 */
export async function startDemoHttp(options: { readonly args?: readonly string[]; readonly env?: Readonly<Record<string, string>> } = {}): Promise<DemoHttp> {
  const child = spawn(process.execPath, [DEMO_MAIN, '--port', '0', ...(options.args ?? [])], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { stopByPid(child); reject(new Error(`no URL on stderr within 10 s: ${stderr}`)); }, 10_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr);
      if (m && m[2] !== '0' && stderr.includes('Ctrl-C')) { clearTimeout(timer); resolve(m[1]!); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code}: ${stderr}`)); });
  });
  return {
    child,
    url,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      try {
        return await exitWithin(child, 5000);
      } finally {
        stopByPid(child);
      }
    },
  };
}

/** One HTTP request a client sent, and the status and headers of its answer. */
export interface RecordedExchange {
  readonly method: string;
  /** Request headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request body, parsed when it is JSON. */
  readonly body: unknown;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => { record[name] = value; });
  return record;
}

/** A `fetch` that records every exchange in `log` (the answer itself is passed on untouched). */
export function recordingFetch(log: RecordedExchange[]): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await fetch(url, init);
    const text = typeof init?.body === 'string' ? init.body : undefined;
    let body: unknown = text;
    try { body = text === undefined ? undefined : JSON.parse(text); } catch { /* not JSON: kept as text */ }
    log.push({ method: init?.method ?? 'GET', headers: headerRecord(new Headers(init?.headers)), body, status: response.status, responseHeaders: headerRecord(response.headers) });
    return response;
  };
}

/** CPU seconds (user + system, all threads) a process has used, from /proc; undefined where there is no /proc. */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold blanks): state is field 3, utime 14, stime 15 (clock ticks).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The form the demo's execute_sql shows before sending `count` rows (cut off by its limit). */
export const confirmForm = (count: number) => ({
  mode: 'form',
  message: `The query returned ${count} rows (more were cut off by its limit). Send all ${count} rows to the assistant?`,
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Send all rows', description: `Send ${count} rows`, default: true } },
    required: ['confirm'],
  },
});

/** The demo's execute_sql result for the first `count` order ids (limit `count`, so truncated). */
export const orderIds = (count: number) => {
  const value = { columns: ['id'], rows: Array.from({ length: count }, (_, i) => [i + 1]), rowCount: count, truncated: true };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
};
