/**
 * The listener `switchboard dev --port` keeps for its whole run: it accepts every connection and forwards each
 * request to the generation serving at that moment (its own Streamable HTTP endpoint on 127.0.0.1). Routing is per
 * request, not per connection, so after a reload the very next request goes to the new generation, also on a
 * kept-alive connection: a legacy session of the old one gets 404 there and its client initializes again (MCP
 * 2025-11-25 basic/transports.mdx "Session Management"); a modern request is simply served. A request already
 * forwarded (an SSE stream, a long tool call) stays with the generation that took it until that one has drained.
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from '../errors.js';

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

/**
 * Listens on `host:port` and forwards each request to `upstream()` (the current generation's URL, or `undefined`
 * when none serves: 503).
 * @throws CliError `usage` (as a rejection) when the port is in use or cannot be bound
 */
export async function startForwarder(options: { readonly host: string; readonly port: number; readonly upstream: () => string | undefined }): Promise<Forwarder> {
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((req, res) => {
    const target = options.upstream();
    if (target === undefined) return refuse(res, 503, 'switchboard dev: the server is not running (it exited or failed to load); save a file to start it again');
    const base = new URL(target);
    const upstream = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.url, headers: forwardable(req.headers), agent });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.headers));
      // An SSE answer may carry no event for a while: the client needs its status line and headers now.
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', () => refuse(res, 502, 'switchboard dev: the server generation went away while answering; send the request again'));
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
