// The raw HTTP floor: Streamable HTTP (2025-era, session via Mcp-Session-Id) on node:http in plain Node.
// Read the body, parse, build the exact MCP result by hand, stringify, write — as JSON (`--response json`,
// the default) or as a one-event SSE stream (`--response sse`). Sessions are a Map from id to a tiny record
// so the idle-session scenario has a floor too; `--mode stateless` skips them.
// A request whose `params._meta` names a protocol version is a modern (2026-07-28) request: no session is
// looked for or made, the request metadata headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) are parsed
// but not compared, and the tools/call result also carries `resultType: "complete"` and `_meta` serverInfo (the
// stateless floor of the 2026-07-28 rows).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { parseArgs, installHeapProbe, installShutdown, announceReady, fillerToolNames, ECHO_INPUT_SCHEMA, FILLER_INPUT_SCHEMA } from './_common.js';

const opts = parseArgs();
if (opts.stdio) {
  process.stderr.write('raw-http.js serves --port only (see raw-stdio.js)\n');
  process.exit(2);
}
const sse = opts.response === 'sse';
const stateless = opts.mode === 'stateless';
installHeapProbe();

const tools = [{ name: 'echo', description: 'Echoes its text argument', inputSchema: ECHO_INPUT_SCHEMA }];
for (const name of fillerToolNames(opts.tools)) tools.push({ name, description: `Filler ${name}`, inputSchema: FILLER_INPUT_SCHEMA });

const sessions = new Map(); // id → { protocolVersion }
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'raw-http', version: '1.0.0' } };

function reply(res, status, msg, sessionId) {
  const body = JSON.stringify(msg);
  const headers = sse
    ? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
    : { 'content-type': 'application/json' };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  if (sse && status === 200) {
    res.writeHead(200, headers);
    res.end(`event: message\ndata: ${body}\n\n`);
  } else {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
    res.writeHead(status, headers);
    res.end(body);
  }
}

function handle(req, res, body) {
  let msg;
  try {
    msg = JSON.parse(body);
  } catch {
    reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  const { id, method, params } = msg;
  if (method === 'initialize') {
    const sid = stateless ? undefined : randomUUID();
    const protocolVersion = (params && params.protocolVersion) || '2025-11-25';
    if (sid) sessions.set(sid, { protocolVersion });
    reply(res, 200, { jsonrpc: '2.0', id, result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw-http', version: '1.0.0' } } }, sid);
    return;
  }
  const meta = params && params._meta;
  const modern = meta !== undefined && meta !== null && meta[PROTOCOL_VERSION_KEY] !== undefined;
  // A modern request has no session. Its metadata headers are in req.headers (node:http has parsed them all);
  // nothing compares them to the body.
  if (!modern && !stateless) {
    const sid = req.headers['mcp-session-id'];
    if (sid === undefined) return reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } });
    if (!sessions.has(sid)) return reply(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
  }
  if (id === undefined) {
    res.writeHead(202);
    res.end();
    return;
  }
  switch (method) {
    case 'tools/call': {
      const args = params && params.arguments;
      if (!params || params.name !== 'echo' || !args || typeof args.text !== 'string') {
        return reply(res, 200, { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params' } });
      }
      const content = [{ type: 'text', text: args.text }];
      const result = modern ? { resultType: 'complete', content, _meta: SERVER_META } : { content };
      const out = { jsonrpc: '2.0', id, result };
      if (args.delayMs > 0) setTimeout(reply, args.delayMs, res, 200, out);
      else reply(res, 200, out);
      return;
    }
    case 'ping':
      return reply(res, 200, { jsonrpc: '2.0', id, result: {} });
    case 'tools/list':
      return reply(res, 200, { jsonrpc: '2.0', id, result: { tools } });
    default:
      return reply(res, 200, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}

const server = http.createServer((req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404);
    res.end();
    return;
  }
  if (req.method === 'POST') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => handle(req, res, body));
    return;
  }
  if (req.method === 'DELETE' && !stateless) {
    const sid = req.headers['mcp-session-id'];
    res.writeHead(sid !== undefined && sessions.delete(sid) ? 200 : 404);
    res.end();
    return;
  }
  res.writeHead(405, { allow: 'POST' });
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(opts.port, opts.host, () => {
  announceReady(`http://${opts.host}:${server.address().port}/mcp`);
});
installShutdown(() => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }));
