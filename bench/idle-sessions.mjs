// What one idle HTTP session costs in heap: N sessions opened through the Web handler in-process (initialize +
// notifications/initialized, nothing after, the session flood an attack run found), heap measured after a full GC before
// and after, then all closed and measured again (the table, the records and the event store must give it back).
//
//   node --expose-gc bench/idle-sessions.mjs [--sessions 5000] [--response sse|json]
//
// Prints one JSON line: KiB per idle session, the heap left after closing, and how many idle sessions fit in
// 256 MiB and 1 GiB of heap at that rate.
import process from 'node:process';
import { parseArgs } from 'node:util';
import { McpServer } from '@switchboard/mcp/server';
import { createMcpHttpHandler } from '@switchboard/mcp/http';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '5000' }, response: { type: 'string', default: 'sse' } } });
const count = Number(values.sessions);
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}
const gc = () => {
  for (let i = 0; i < 3; i++) globalThis.gc();
};

const server = new McpServer({ name: 'idle-sessions', version: '1.0.0' });
server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
const handler = createMcpHttpHandler({ server, responseMode: values.response, maxSessions: count + 1 });
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } } });
const initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

async function open() {
  const res = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: init }));
  await res.text();
  const id = res.headers.get('mcp-session-id');
  const ack = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, body: initialized }));
  await ack.text();
  return id;
}

// Warm up (code, caches), then measure.
for (let i = 0; i < 200; i++) await open();
await handler.close();
const measured = createMcpHttpHandler({ server, responseMode: values.response, maxSessions: count + 1 });
gc();
const before = process.memoryUsage().heapUsed;
const ids = [];
for (let i = 0; i < count; i++) {
  const res = await measured.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: init }));
  await res.text();
  const id = res.headers.get('mcp-session-id');
  const ack = await measured.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, body: initialized }));
  await ack.text();
  ids.push(id);
}
gc();
const open_ = process.memoryUsage().heapUsed;
await measured.close();
ids.length = 0;
gc();
const after = process.memoryUsage().heapUsed;
const kib = (open_ - before) / count / 1024;
process.stdout.write(`${JSON.stringify({
  sessions: count,
  response: values.response,
  kibPerIdleSession: Number(kib.toFixed(2)),
  heapLeftAfterCloseKiB: Math.round((after - before) / 1024),
  fitIn256MiB: Math.floor((256 * 1024) / kib),
  fitIn1GiB: Math.floor((1024 * 1024) / kib),
  node: process.version,
})}\n`);
