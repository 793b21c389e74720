/**
 * A scripted HTTP MCP server for client tests: `node:http` on 127.0.0.1, port 0. Every request is recorded (method,
 * path, headers, body) before the test's handler answers it, so a test asserts what the client sent and decides
 * each answer: JSON, an SSE stream that ends or is cut, an error status with any body. `legacySession` scripts the
 * parts of a Streamable HTTP session every legacy test needs (MCP 2025-11-25 basic/transports.mdx "Session
 * Management"), and hands the rest to the test.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** One JSON-RPC message as these tests read and write it. */
export type Message = Record<string, unknown>;

/** A request as the fake received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  /** Lower-case header names, as Node gives them. */
  readonly headers: IncomingHttpHeaders;
  /** The body as text (`''` when none). */
  readonly body: string;
  /** The body parsed as JSON, `undefined` when empty or not JSON. */
  readonly json: unknown;
}

/** How the test answers one request; the request is already in {@link FakeHttpServer.requests}. */
export type FakeHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

const WAIT_MS = 10_000;

/** The scripted server. */
export class FakeHttpServer {
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Answers each request; replace it at any time. */
  handler: FakeHandler;

  readonly #server: Server;
  readonly #waiters = new Map<() => void, ReturnType<typeof setTimeout>>();
  #port = 0;

  private constructor(handler: FakeHandler) {
    this.handler = handler;
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = body === '' ? undefined : JSON.parse(body);
        } catch {
          json = undefined;
        }
        const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
        this.requests.push(recorded);
        for (const wake of [...this.#waiters.keys()]) wake();
        Promise.resolve(this.handler(recorded, res)).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`fake handler failed: ${String(error)}`);
        });
      });
    });
  }

  /** Listens on 127.0.0.1, port 0. */
  static async start(handler: FakeHandler): Promise<FakeHttpServer> {
    const fake = new FakeHttpServer(handler);
    fake.#server.listen(0, '127.0.0.1');
    await once(fake.#server, 'listening');
    const address = fake.#server.address();
    if (address === null || typeof address === 'string') throw new Error('fake HTTP server: no port');
    fake.#port = address.port;
    return fake;
  }

  /** The MCP endpoint: `http://127.0.0.1:<port>/mcp`. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/mcp`;
  }

  /** The recorded requests `match` accepts, in order. */
  filter(match: (request: RecordedRequest) => boolean): RecordedRequest[] {
    return this.requests.filter(match);
  }

  /** Resolves once `count` recorded requests satisfy `match`, with them; rejects after 10 s naming `what`. */
  waitFor(match: (request: RecordedRequest) => boolean, what: string, count = 1): Promise<RecordedRequest[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        const seen = this.requests.map((r) => `${r.method} ${r.url} ${r.body}`);
        reject(new Error(`fake HTTP server: no ${what} within ${WAIT_MS} ms; received ${JSON.stringify(seen)}`));
      }, WAIT_MS);
      const check = (): void => {
        const found = this.filter(match);
        if (found.length < count) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(found);
      };
      this.#waiters.set(check, timer);
      check();
    });
  }

  /** Stops listening and cuts every open connection (streams included); waits still open are dropped. */
  async close(): Promise<void> {
    for (const timer of this.#waiters.values()) clearTimeout(timer);
    this.#waiters.clear();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }
}

/** Whether a recorded request is a POST of a JSON-RPC message with this method. */
export function isPost(request: RecordedRequest, method: string): boolean {
  return request.method === 'POST' && (request.json as Message | undefined)?.method === method;
}

/** Answers with `status` and `body` as JSON (`application/json`). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** One SSE event: `id`, `retry` (ms) and `data` (JSON-encoded when not a string), each optional. */
export interface SseEvent {
  readonly id?: string;
  readonly retry?: number;
  readonly data?: unknown;
}

/** An SSE event as text (MCP 2025-11-25 basic/transports.mdx "Streamable HTTP" uses the WHATWG event stream format). */
export function sseEvent(event: SseEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  if (event.data !== undefined) text += `data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n`;
  return `${text}\n`;
}

/** Starts a `200 text/event-stream` answer and writes `events`; the stream stays open (end it, or cut it). */
export function openSse(response: ServerResponse, events: readonly SseEvent[] = [], headers: Record<string, string> = {}): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  for (const event of events) response.write(sseEvent(event));
}

/** Options of {@link legacySession}. */
export interface LegacySessionOptions {
  /** The `Mcp-Session-Id` the fake hands out. @default `'S1'` */
  readonly sessionId?: string;
  /** The `initialize` result's `capabilities`. @default `{ tools: {} }` */
  readonly capabilities?: Message;
  /** Every request the session script does not answer itself. */
  readonly other: FakeHandler;
}

/**
 * A Streamable HTTP session of a session-based revision: `initialize` answered as JSON with `Mcp-Session-Id`,
 * `notifications/initialized` with 202, the listen-only GET (no `Last-Event-ID`) with 405 (the server offers no GET
 * stream, which MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server" allows), DELETE with
 * 200; everything else goes to `options.other`.
 */
export function legacySession(options: LegacySessionOptions): FakeHandler {
  const sessionId = options.sessionId ?? 'S1';
  return (request, response) => {
    const message = request.json as Message | undefined;
    if (isPost(request, 'initialize')) {
      const asked = (message?.params as Message | undefined)?.protocolVersion;
      sendJson(response, 200, {
        jsonrpc: '2.0',
        id: message?.id,
        result: { protocolVersion: asked, capabilities: options.capabilities ?? { tools: {} }, serverInfo: { name: 'fake-http', version: '0' } },
      }, { 'mcp-session-id': sessionId });
      return;
    }
    if (isPost(request, 'notifications/initialized')) {
      response.writeHead(202).end();
      return;
    }
    if (request.method === 'GET' && request.headers['last-event-id'] === undefined) {
      response.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    if (request.method === 'DELETE') {
      response.writeHead(200).end();
      return;
    }
    return options.other(request, response);
  };
}
