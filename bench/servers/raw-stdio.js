// The raw stdio floor: newline-delimited JSON-RPC over stdin/stdout in plain Node, no framework.
// Parse each line, build the exact MCP result by hand, stringify, write. Answers just enough of the
// legacy lifecycle (initialize, notifications/initialized, ping, tools/list, tools/call echo) for the
// load generator; anything else gets -32601. `delayMs` holds a call open (10k-in-flight scenario).
// A tools/call whose `params._meta` names a protocol version is a modern (2026-07-28) request: it needs no
// initialize, and its result also carries `resultType: "complete"` and `_meta` serverInfo (the stateless
// floor of the 2026-07-28 rows). The envelope is read, never validated.
import { parseArgs, installHeapProbe, installShutdown, fillerToolNames, ECHO_INPUT_SCHEMA, FILLER_INPUT_SCHEMA } from './_common.js';

const opts = parseArgs();
if (!opts.stdio) {
  process.stderr.write('raw-stdio.js serves --stdio only (see raw-http.js)\n');
  process.exit(2);
}
installHeapProbe();
installShutdown(() => {}, { stdio: true });

const tools = [{ name: 'echo', description: 'Echoes its text argument', inputSchema: ECHO_INPUT_SCHEMA }];
for (const name of fillerToolNames(opts.tools)) tools.push({ name, description: `Filler ${name}`, inputSchema: FILLER_INPUT_SCHEMA });

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'raw-stdio', version: '1.0.0' } };

const out = process.stdout;
const send = (msg) => out.write(JSON.stringify(msg) + '\n');

function handle(msg) {
  const { id, method, params } = msg;
  if (id === undefined) return; // notification (notifications/initialized, cancelled, …)
  switch (method) {
    case 'tools/call': {
      const args = params && params.arguments;
      if (!params || params.name !== 'echo' || !args || typeof args.text !== 'string') {
        send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params' } });
        return;
      }
      const content = [{ type: 'text', text: args.text }];
      const meta = params._meta;
      const modern = meta !== undefined && meta !== null && meta[PROTOCOL_VERSION_KEY] !== undefined;
      const result = modern ? { resultType: 'complete', content, _meta: SERVER_META } : { content };
      const reply = { jsonrpc: '2.0', id, result };
      if (args.delayMs > 0) setTimeout(send, args.delayMs, reply);
      else send(reply);
      return;
    }
    case 'initialize':
      send({
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: (params && params.protocolVersion) || '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw-stdio', version: '1.0.0' },
        },
      });
      return;
    case 'ping':
      send({ jsonrpc: '2.0', id, result: {} });
      return;
    case 'tools/list':
      send({ jsonrpc: '2.0', id, result: { tools } });
      return;
    default:
      send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let start = 0;
  let nl;
  while ((nl = buf.indexOf('\n', start)) !== -1) {
    const line = buf.slice(start, nl);
    start = nl + 1;
    if (line.length === 0) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    handle(msg);
  }
  buf = start === buf.length ? '' : buf.slice(start);
});
