// Shared plumbing for the benchmark servers: one command-line contract, one heap probe, one ready line.
//
// Every server in this folder is started as
//   node [--expose-gc] bench/servers/<name>.js --stdio | --port <N> [--tools <N>] [--response json|sse] [--mode <m>]
// and, when serving HTTP, prints `BENCH_READY <url>` on stderr once it accepts connections (so `--port 0`
// works). On SIGUSR2 it runs a full GC (when started with --expose-gc) and prints
// `BENCH_HEAP {"heapUsed":…,"external":…,"arrayBuffers":…,"rss":…,"gc":true}` on stderr: the side channel the
// idle-session scenario reads retained heap through, the same for every server.
import http from 'node:http';

/** Parses the shared flags; unknown flags are an error so a typo never silently changes what is measured. */
export function parseArgs(argv = process.argv.slice(2), extra = {}) {
  const opts = {
    stdio: false,
    port: undefined,
    host: '127.0.0.1',
    tools: 1,
    response: undefined, // 'json' | 'sse' (HTTP response mode; server default when undefined)
    mode: undefined, // server-specific: 'stateful' | 'stateless' | 'handler'
    sessionIdleMs: undefined,
    ...extra,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value`);
      return v;
    };
    if (a === '--stdio') opts.stdio = true;
    else if (a === '--port') opts.port = Number(next());
    else if (a === '--tools') opts.tools = Number(next());
    else if (a === '--response') opts.response = next();
    else if (a === '--json') opts.response = 'json';
    else if (a === '--sse') opts.response = 'sse';
    else if (a === '--mode') opts.mode = next();
    else if (a === '--session-idle-ms') opts.sessionIdleMs = Number(next());
    else fail(`unknown flag ${a}`);
  }
  if (opts.stdio === (opts.port !== undefined)) fail('give exactly one of --stdio or --port <N>');
  if (opts.port !== undefined && !(Number.isInteger(opts.port) && opts.port >= 0 && opts.port < 65536)) fail('bad --port');
  if (!(Number.isInteger(opts.tools) && opts.tools >= 1)) fail('bad --tools');
  if (opts.response !== undefined && !['json', 'sse', 'auto'].includes(opts.response)) fail('--response is json, sse or auto (auto: Switchboard only)');
  return opts;
}

function fail(msg) {
  process.stderr.write(`${process.argv[1]}: ${msg}\n`);
  process.exit(2);
}

/** Names of the filler tools registered next to `echo` for the flatness scenario (`--tools N` → N-1 fillers). */
export function fillerToolNames(total) {
  const names = [];
  for (let i = 1; i < total; i++) names.push(`filler_${String(i).padStart(4, '0')}`);
  return names;
}

/** JSON Schema of the echo tool (servers that take zod build the same shape). */
export const ECHO_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    delayMs: { type: 'integer', minimum: 0, maximum: 60000 },
  },
  required: ['text'],
  additionalProperties: false,
};

export const FILLER_INPUT_SCHEMA = {
  type: 'object',
  properties: { value: { type: 'string' }, count: { type: 'integer' } },
  required: ['value'],
};

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGUSR2 → full GC (if exposed) → one `BENCH_HEAP {…}` line on stderr. */
export function installHeapProbe() {
  process.on('SIGUSR2', () => {
    const gc = globalThis.gc;
    if (typeof gc === 'function') {
      gc();
      gc();
    }
    const m = process.memoryUsage();
    process.stderr.write(
      `BENCH_HEAP ${JSON.stringify({ heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss, gc: typeof gc === 'function' })}\n`,
    );
  });
}

/** Announces that an HTTP server accepts connections. */
export function announceReady(url) {
  process.stderr.write(`BENCH_READY ${url}\n`);
}

/**
 * The flags of a server in front of an upstream (servers/proxy.js, servers/raw-relay.js): `--port <N>` and exactly
 * one of `--upstream-stdio` (the echo server, switchboard.js, as its child) or `--upstream-url <URL>`, plus the
 * `extra` value flags it names (their defaults given). Exits 2 with `usage` on anything else.
 * @returns {{ port: number, stdio: boolean, url: string | undefined, extra: Record<string, string> }}
 */
export function parseUpstreamArgs(usage, extra = {}, argv = process.argv.slice(2)) {
  const rest = [...argv];
  const take = (flag) => {
    const at = rest.indexOf(flag);
    if (at === -1) return undefined;
    const [, value] = rest.splice(at, 2);
    return value;
  };
  const url = take('--upstream-url');
  const values = Object.fromEntries(Object.entries(extra).map(([flag, fallback]) => [flag, take(flag) ?? fallback]));
  const stdio = rest.includes('--upstream-stdio');
  if (stdio) rest.splice(rest.indexOf('--upstream-stdio'), 1);
  const port = Number(take('--port') ?? '0');
  if (rest.length > 0 || stdio === (url !== undefined)) fail(usage);
  return { port, stdio, url, extra: values };
}

/** Exits cleanly on SIGTERM/SIGINT (and, for stdio servers, when stdin ends). */
export function installShutdown(close, { stdio = false } = {}) {
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    Promise.resolve()
      .then(close)
      .catch(() => {})
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (stdio) process.stdin.on('end', stop);
}

/** Reads a whole request body as a string (HTTP servers that need the parsed body up front). */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** A JSON-RPC error answer with an HTTP status, as the SDK examples send it. */
export function sendError(res, status, code, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * The SDKs' documented session-map pattern for stateful Streamable HTTP, shared by sdk-v1.js and sdk-v2.js: one
 * transport + server per session, created by `initialize`, found by `Mcp-Session-Id` afterwards.
 * @param {{ createTransport: (onInitialized: (id: string) => void) => any, connect: (transport: any) => Promise<void>,
 *   isInitialize: (body: unknown) => boolean }} sdk
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>}
 */
export function sessionMapHandler({ createTransport, connect, isInitialize }) {
  const transports = new Map();
  return async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'POST') {
      const body = JSON.parse(await readBody(req));
      let transport = sid ? transports.get(sid) : undefined;
      if (!transport) {
        if (sid || !isInitialize(body)) return sendError(res, sid ? 404 : 400, -32000, 'Bad Request: No valid session ID provided');
        transport = createTransport((id) => transports.set(id, transport));
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        await connect(transport);
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    const transport = sid ? transports.get(sid) : undefined;
    if (!transport) return sendError(res, 400, -32000, 'Invalid or missing session ID');
    await transport.handleRequest(req, res);
  };
}

/**
 * Serves `handle` on node:http at `/mcp` (404 elsewhere, 500 on a throw), announces the URL, stops on SIGTERM.
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>} handle
 * @param {{ port: number, host: string }} opts
 * @param {() => void} [onClose]
 */
export function listenMcp(handle, opts, onClose = () => {}) {
  const httpServer = http.createServer((req, res) => {
    if (req.url !== '/mcp') return sendError(res, 404, -32000, 'Not found');
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(opts.port, opts.host, () => announceReady(`http://${opts.host}:${httpServer.address().port}/mcp`));
  installShutdown(() => new Promise((r) => { onClose(); httpServer.closeAllConnections(); httpServer.close(() => r()); }));
}
