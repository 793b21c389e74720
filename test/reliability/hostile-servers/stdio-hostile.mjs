// A hostile stdio MCP server (2025-11-25, one JSON-RPC message per line). It answers `initialize` and
// `tools/list` properly, then misbehaves on `tools/call` by the tool's name:
// - "huge": answers with one line of `--bytes` bytes (default 1 MiB), its top-level id first;
// - "huge-id-last": the same, the id written after the result;
// - "refused": sends `--count` requests (default 50) the client refuses (an unknown method, sampling and
//   elicitation with no callback, roots with no callback, in turn), then answers the call once every answer came.
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const BYTES = option('bytes', 1024 * 1024);
const COUNT = option('count', 50);
const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const REFUSED = ['hostile/unknown', 'sampling/createMessage', 'elicitation/create', 'roots/list'];
let waiting;

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    write({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile-stdio', version: '0' } } });
  } else if (message.method === 'tools/list') {
    write({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'huge', inputSchema: { type: 'object' } }] } });
  } else if (message.method === 'tools/call') {
    const name = message.params.name;
    const text = 'x'.repeat(BYTES);
    if (name === 'huge') process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"${text}"}]}}\n`);
    else if (name === 'huge-id-last') process.stdout.write(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"${text}"}]},"id":${JSON.stringify(message.id)}}\n`);
    else if (name === 'refused') {
      waiting = { id: message.id, left: COUNT };
      for (let i = 0; i < COUNT; i++) write({ jsonrpc: '2.0', id: `r${i}`, method: REFUSED[i % REFUSED.length], params: {} });
    }
  } else if (!('method' in message) && waiting !== undefined && --waiting.left === 0) {
    write({ jsonrpc: '2.0', id: waiting.id, result: { content: [{ type: 'text', text: 'all refused' }] } });
  }
});
process.stdin.on('end', () => process.exit(0));
