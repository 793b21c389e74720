/**
 * The listener `switchboard dev --port` keeps for its whole run: it accepts every connection and forwards each
 * request to the generation serving at that moment (its own Streamable HTTP endpoint on 127.0.0.1). Routing is per
 * request, not per connection, so after a reload the very next request goes to the new generation, also on a
 * kept-alive connection. A modern (2026-07-28) request has no session and is simply served there; a legacy session
 * outlives its generation (`dev/httpSessions.ts`: its `initialize` is replayed to the new one, its standalone stream
 * is held here, and the host hears `list_changed`). A request already forwarded (an SSE stream, a long tool call)
 * stays with the generation that took it, which drains before it stops; a request that generation never answered
 * gets a JSON-RPC error from here (-32603, MCP 2025-11-25 basic/index.mdx "Responses": every request gets a
 * response), not a cut connection.
 */
import { createServer, Agent, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_MAX_BODY_BYTES } from '@switchboard/mcp/http';
import { CliError } from '../errors.js';
import { HeldSessions, readCapped, sendTo, type HeldSession, type ListenTap, type Upstream } from './httpSessions.js';
import { EventSplitter, parseMessage, sseMessage, type JsonRpcLike } from './sseEvents.js';

export type { Upstream } from './httpSessions.js';

/** Headers of one hop only (RFC 9110 §7.6.1): never forwarded. */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function forwardable(headers: IncomingMessage['headers']): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** The running listener. */
export interface Forwarder {
  /** The endpoint URL clients use, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly port: number;
  /** A new generation serves: held sessions move to it and hosts are told their lists may have changed. */
  reloaded(): void;
  /** Stops accepting connections and closes those still open. */
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' }).end(`${text}\n`);
}

/** Reads a request body, at most `maxBytes`; `undefined` past it. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.once('end', () => resolve(size <= maxBytes ? Buffer.concat(chunks) : undefined));
    req.once('error', () => resolve(undefined));
  });
}

/** The requests (with an id) of a POST body: one message or a batch (MCP 2025-03-26). */
function requestsOf(body: Buffer | undefined): { readonly messages: JsonRpcLike[]; readonly ids: (string | number)[]; readonly batch: boolean } {
  if (body === undefined || body.length === 0) return { messages: [], ids: [], batch: false };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { messages: [], ids: [], batch: false };
  }
  const messages = (Array.isArray(value) ? value : [value]).filter((m): m is JsonRpcLike => typeof m === 'object' && m !== null);
  const ids = messages.filter((m) => typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')).map((m) => m.id as string | number);
  return { messages, ids, batch: Array.isArray(value) };
}

/** The error for a request a generation took and never answered (MCP 2025-11-25 basic/index.mdx "Responses"). */
function lost(id: string | number, generation: number): unknown {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: `switchboard dev: generation ${generation} ended before it answered; send the request again` } };
}

/** One request to forward. */
interface Forwarding {
  readonly target: Upstream;
  readonly body: Buffer | undefined;
  readonly session: HeldSession | undefined;
  /**
   * A `subscriptions/listen` stream already answered to the host, moved to `target` after a reload (its request sent
   * again): its tap. The host keeps one stream for its subscription across generations.
   */
  readonly handover?: ListenTap;
}

/**
 * Listens on `host:port` and forwards each request to `upstream()` (the current generation, or `undefined` when
 * none serves: 503).
 * @throws CliError `usage` (as a rejection) when the port is in use or cannot be bound
 */
export async function startForwarder(options: { readonly host: string; readonly port: number; readonly upstream: () => Upstream | undefined }): Promise<Forwarder> {
  const agent = new Agent({ keepAlive: true });
  const sessions = new HeldSessions({ agent, upstream: options.upstream, path: '/mcp' });

  /** Forwards one request (its body read) to `target`, the session id rewritten both ways; relays the answer. */
  const forward = async (req: IncomingMessage, res: ServerResponse, to: Forwarding): Promise<void> => {
    const { target, body, session, handover } = to;
    const headers = forwardable(req.headers);
    if (body !== undefined) headers['content-length'] = String(body.length);
    if (session !== undefined) {
      try {
        headers['mcp-session-id'] = await sessions.childId(session, target);
      } catch (error) {
        return refuse(res, 503, `switchboard dev: the session could not be handed over to generation ${target.number} (${(error as Error).message}); send the request again`);
      }
    }
    const { messages, ids, batch } = requestsOf(body);
    const initialize = session === undefined && messages.length === 1 && messages[0]!.method === 'initialize' ? messages[0] : undefined;
    const listen = messages.length === 1 && messages[0]!.method === 'subscriptions/listen' ? messages[0] : undefined;
    if (session !== undefined && messages.some((m) => m.method === 'notifications/initialized')) session.initialized = true;
    const { request, answer: answered } = sendTo(agent, target, { method: req.method ?? 'GET', path: req.url ?? '/mcp', headers, ...(body === undefined ? {} : { body }) });
    res.once('close', () => {
      if (!res.writableFinished) request.destroy();
    });
    let answer: IncomingMessage;
    try {
      answer = await answered;
    } catch {
      if (handover !== undefined) return void res.end();
      if (ids.length === 0) return refuse(res, 502, 'switchboard dev: the server generation went away while answering; send the request again');
      const errors = ids.map((id) => lost(id, target.number));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(batch ? errors : errors[0]));
      return;
    }
    const out = forwardable(answer.headers);
    if (session !== undefined && out['mcp-session-id'] !== undefined) out['mcp-session-id'] = session.id;
    if (session !== undefined && answer.statusCode === 404) sessions.forget(session.id);
    if (session !== undefined && req.method === 'DELETE' && (answer.statusCode ?? 500) < 300) sessions.forget(session.id);
    const sse = answer.headers['content-type']?.includes('text/event-stream') === true;
    if (initialize !== undefined && !sse) {
      // A JSON answer to initialize: relayed as it comes, and read (up to MAX_CAPTURED_BYTES) to learn the server's
      // capabilities; the session is held before the answer ends, so the host's next request finds it.
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      const text = await readCapped(answer, (chunk) => res.write(chunk));
      const id = answer.headers['mcp-session-id'];
      if (answer.statusCode === 200 && typeof id === 'string' && text !== undefined) sessions.open(id, { generation: target.number, body: body!, headers, result: parseMessage(text) });
      res.end();
      return;
    }
    if (handover !== undefined) {
      // The listen stream handed over was refused by the new generation: it ends; its client listens again.
      if (answer.statusCode !== 200 || !sse) return void (answer.resume(), res.end());
    } else {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      // An SSE answer may carry no event for a while: the client needs its status line and headers now.
      res.flushHeaders();
    }
    if (!sse) {
      answer.pipe(res);
      answer.once('error', () => res.destroy());
      return;
    }
    // SSE: relayed event by event, so that a generation that goes away mid-answer leaves whole events and an
    // error for each request it did not answer.
    const unanswered = new Set(ids);
    const listenId = listen !== undefined && (typeof listen.id === 'string' || typeof listen.id === 'number') ? listen.id : undefined;
    const tap = handover ?? (listenId === undefined ? undefined : sessions.listen(res, listenId));
    tap?.moveOn(() => request.destroy());
    const retired = (): boolean => options.upstream()?.number !== target.number;
    const splitter = new EventSplitter();
    let ended = false;
    // A cut answer also closes: handled there.
    answer.on('error', () => undefined);
    answer.setEncoding('utf8');
    answer.on('data', (chunk: string) => {
      // A listen stream's event ids are one generation's: left out (it moves to the next one).
      for (const event of splitter.push(chunk, listenId !== undefined)) {
        const message = event.message;
        if (listenId !== undefined && message !== undefined) {
          tap?.onMessage(message);
          // MCP 2026-07-28 basic/patterns/subscriptions.mdx: one acknowledgement per listen request; the host had it.
          if (handover !== undefined && message.method === 'notifications/subscriptions/acknowledged') continue;
          // The graceful end of a replaced generation's listen stream is not relayed: the stream moves on.
          if (message.method === undefined && message.id === listenId && retired()) continue;
        }
        if (message !== undefined && message.method === undefined && (typeof message.id === 'string' || typeof message.id === 'number')) unanswered.delete(message.id);
        if (message !== undefined && initialize !== undefined && message.id === initialize.id) {
          const id = answer.headers['mcp-session-id'];
          if (answer.statusCode === 200 && typeof id === 'string') sessions.open(id, { generation: target.number, body: body!, headers, result: message });
        }
        res.write(event.text);
      }
      if (splitter.overflowed) res.destroy();
    });
    /** A listen stream of a replaced generation goes on with the current one (its request sent again). */
    const handOver = (): boolean => {
      const next = options.upstream();
      if (tap === undefined || res.destroyed || !retired() || next === undefined) return false;
      void forward(req, res, { target: next, body, session, handover: tap });
      return true;
    };
    answer.once('end', () => {
      ended = true;
      if (!handOver()) res.end();
    });
    answer.once('close', () => {
      if (ended || res.destroyed || handOver()) return;
      for (const id of unanswered) res.write(sseMessage(lost(id, target.number)));
      res.end();
    });
  };

  const server: Server = createServer((req, res) => {
    const target = options.upstream();
    if (target === undefined) return refuse(res, 503, 'switchboard dev: the server is not running (it exited or failed to load); save a file to start it again');
    const sid = req.headers['mcp-session-id'];
    const session = typeof sid === 'string' ? sessions.get(sid) : undefined;
    // The host's standalone stream (a GET without Last-Event-ID: one with it resumes a stream of one generation).
    if (session !== undefined && req.method === 'GET' && req.headers['last-event-id'] === undefined) {
      req.resume();
      void sessions.openStream(session, res, forwardable(req.headers));
      return;
    }
    void readBody(req, DEFAULT_MAX_BODY_BYTES).then((body) => {
      // Past the size every generation refuses anyway (HTTP 413, as the library answers).
      if (body === undefined) return refuse(res, 413, `switchboard dev: the request body is larger than ${DEFAULT_MAX_BODY_BYTES} bytes`);
      return forward(req, res, { target, body: req.method === 'POST' || body.length > 0 ? body : undefined, session });
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    agent.destroy();
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError('usage', code === 'EADDRINUSE' ? `Port ${options.port} on "${options.host}" is in use: pass another --port (0 picks a free one)` : `Cannot listen on "${options.host}" port ${options.port}: ${(error as Error).message}`);
  }
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/mcp`,
    port,
    reloaded: () => sessions.reloaded(),
    close: () =>
      new Promise<void>((resolve) => {
        sessions.close();
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
