/**
 * Raw HTTP helpers for the reliability suite (faults, memory, load): requests through `node:http` so a test can
 * cut a socket mid-response, read SSE events as they arrive, and check whole wire messages.
 */
import http from 'node:http';
import { SseDecoder } from '@switchboard/mcp/client';

export const REVISION = '2025-11-25';

/** One SSE event as sent: its `id` (absent on events without one) and `data` (empty on a priming event). */
export interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/** An open HTTP exchange: the status and headers, events as they arrive, and a way to cut the socket. */
export interface OpenExchange {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly events: SseEvent[];
  /** The whole body once the response ended (SSE or JSON). */
  readonly done: Promise<string>;
  /** Resolves once at least `n` events arrived. */
  waitForEvents(n: number, timeoutMs?: number): Promise<void>;
  /** Destroys the socket (the client disconnects). */
  cut(): void;
}

export interface RequestInit {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly agent?: http.Agent | false;
}

/** Starts a request to `url` and resolves once the response headers arrived. */
export function open(url: string, init: RequestInit = {}): Promise<OpenExchange> {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: init.method ?? 'POST',
      agent: init.agent ?? false,
      headers: {
        accept: 'application/json, text/event-stream',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      res.setEncoding('utf8');
      const events: SseEvent[] = [];
      const waiters = new Set<() => void>();
      let whole = '';
      const decoder = new SseDecoder();
      res.on('data', (chunk: string) => {
        whole += chunk;
        for (const event of decoder.push(chunk)) events.push({ id: event.id === '' ? undefined : event.id, data: event.data });
        for (const w of [...waiters]) w();
      });
      const done = new Promise<string>((resolveDone, rejectDone) => {
        res.once('end', () => resolveDone(whole));
        res.once('error', rejectDone);
        res.once('close', () => resolveDone(whole));
      });
      done.catch(() => {});
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        done,
        waitForEvents(n, timeoutMs = 5000) {
          return new Promise<void>((ok, fail) => {
            const check = (): void => {
              if (events.length < n) return;
              waiters.delete(check);
              clearTimeout(timer);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`Only ${events.length} of ${n} SSE events within ${timeoutMs} ms: ${whole.slice(0, 2000)}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        cut() {
          req.destroy();
        },
      });
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * A request whose whole answer is read: status, headers, the body text, its SSE events, and `messages`: the
 * JSON-RPC messages it carried whichever media type answered (a JSON body, or the SSE events' data).
 */
export async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; events: SseEvent[]; messages: unknown[] }> {
  const ex = await open(url, init);
  const body = await ex.done;
  const json = String(ex.headers['content-type'] ?? '').startsWith('application/json') && ex.status === 200;
  const parsed = json ? (JSON.parse(body) as unknown) : undefined;
  const messages = json ? (Array.isArray(parsed) ? parsed : [parsed]) : messagesOf(ex.events);
  return { status: ex.status, headers: ex.headers, body, events: ex.events, messages };
}

/** Opens a 2025-11-25 session on `url` (initialize, then notifications/initialized); returns its id. */
export async function openSession(url: string, options: { agent?: http.Agent; capabilities?: Record<string, unknown> } = {}): Promise<string> {
  const init = await call(url, {
    agent: options.agent,
    body: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: REVISION, capabilities: options.capabilities ?? {}, clientInfo: { name: 'reliability', version: '0' } },
    },
  });
  const sid = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sid !== 'string') throw new Error(`initialize failed: ${init.status} ${init.body}`);
  const note = await call(url, {
    agent: options.agent,
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    headers: { 'mcp-session-id': sid, 'mcp-protocol-version': REVISION },
  });
  if (note.status !== 202) throw new Error(`notifications/initialized got ${note.status}`);
  return sid;
}

/** The headers of a request inside session `sid`. */
export function inSession(sid: string): Record<string, string> {
  return { 'mcp-session-id': sid, 'mcp-protocol-version': REVISION };
}

/** The JSON-RPC messages of an SSE body (priming events left out). */
export function messagesOf(events: readonly SseEvent[]): unknown[] {
  return events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as unknown);
}

/** A whole HTTP answer, read to its end. */
export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One POST from `localAddress`, its whole answer read. */
/**
 * POSTs `body` as JSON to `/mcp` on 127.0.0.1:`port` from the loopback address `localAddress` (so that tests can
 * play distinct callers) and reads the whole answer. No keep-alive unless an `agent` is given.
 */
export function post(port: number, localAddress: string, body: unknown, headers: Record<string, string> = {}, agent: http.Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path: '/mcp', method: 'POST', localAddress, agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
