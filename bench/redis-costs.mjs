// Redis memory per session, per stored event and per task of @switchboard/redis (plain Node, built packages):
//
//   node bench/redis-memory.mjs            1000 of each against a redis-server started here (127.0.0.1, a free port,
//                                          no persistence), stopped by its PID; prints bytes per item
//
// Each figure is the growth of Redis's `used_memory` (INFO memory) over N items ÷ N, indexes included: a session is
// its record hash plus its entries in the activity, caller and expiry indexes; an event is one member of its stream's
// sorted set (a notifications/message of about 120 bytes of JSON) with its share of the session keys; a task is
// working, with its indexes, then completed with a 100-byte result. Needs the Debian package redis-server.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import process from 'node:process';
import { silentLogger } from '@switchboard/jsonrpc';
import { serveHttp } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { connectRedis, RedisEventStore, RedisSessionStore, RedisTaskStore, redisStores } from '@switchboard/redis';

const N = 1000;
if (spawnSync('redis-server', ['--version']).status !== 0) {
  console.error('redis-memory: install redis-server (Debian: apt-get install redis-server)');
  process.exit(0);
}
const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = probe.address();
    probe.close(() => resolve(p));
  });
});
const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const redis = connectRedis({ url: `redis://127.0.0.1:${port}` });
try {
  await redis.ping();
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
  const measure = async (name, fill) => {
    const before = await used();
    await fill();
    const after = await used();
    console.log(`${name}: ${Math.round((after - before) / N)} bytes each (${N} items)`);
  };
  // The MCP state a cluster writes into each record (what the SDK v1 client declares, a log level, a subscription).
  const STATE = {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'claude-ai', version: '0.1.0' },
    clientCapabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
    serverCapabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
    logLevelRank: 0,
    subscriptions: ['file:///project/README.md'],
    initializeRequestId: 0,
    initialized: true,
  };
  const sessions = new RedisSessionStore({ redis, keyPrefix: 'm:' });
  await measure('session record (with its MCP state)', async () => {
    for (let i = 0; i < N; i++) {
      const now = Date.now();
      await sessions.create({ sessionId: crypto.randomUUID(), transport: 'streamable-http', caller: `address:10.0.${i % 50}.1`, createdAt: now, lastActivity: now, phase: 'opened', ttlMs: 1_800_000, streamPrefix: `${crypto.randomUUID().replaceAll('-', '')}.`, protocolVersion: '2025-11-25', state: STATE });
    }
  });
  sessions.close();
  const events = new RedisEventStore({ redis, keyPrefix: 'm:' });
  const message = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(60) } };
  await measure('stored event (10 sessions, one stream each)', async () => {
    for (let i = 0; i < N; i++) await events.storeEvent(`session${i % 10}token.1`, message, JSON.stringify(message).length);
  });
  const tasks = new RedisTaskStore({ redis, keyPrefix: 'm:' });
  await measure('completed task', async () => {
    for (let i = 0; i < N; i++) {
      await tasks.create({ taskId: crypto.randomUUID(), ttlMs: 3_600_000, owner: `session-${i % 20}`, caller: `address:${i % 20}` });
    }
    const { tasks: all } = await tasks.list();
    for (const task of all) await tasks.update(task.taskId, { status: 'completed', result: { content: [{ type: 'text', text: 'y'.repeat(60) }] } });
  });
  await commandsPerRequest(`redis://127.0.0.1:${port}`);
} finally {
  await redis.quit();
  child.kill('SIGTERM');
}

/** Redis commands per request of each kind, through serveHttp on redisStores. */
async function commandsPerRequest(url) {
  const stores = redisStores({ url, keyPrefix: 'c:' });
  await stores.ready;
  const server = new McpServer({ name: 'cost', version: '1' }, { ...stores.serverOptions, logger: silentLogger });
  server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  server.tool('logs', {}, async (_args, ctx) => {
    await ctx.log('info', 'one');
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const http = await serveHttp({ server, ...stores.httpOptions, logger: silentLogger });
  const endpoint = `http://127.0.0.1:${http.port}/mcp`;
  const post = async (body, headers) => {
    const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    await res.text();
    return res;
  };
  const legacy = { 'mcp-protocol-version': '2025-11-25' };
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, legacy);
  const session = { ...legacy, 'mcp-session-id': init.headers.get('mcp-session-id') };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } };
  const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
  let sent = 0;
  let writes = 0;
  const send = stores.redis.sendCommand;
  stores.redis.sendCommand = function counted(...args) {
    sent++;
    return send.apply(this, args);
  };
  // What goes out on the socket at once: one write per command, or one per batch when commands are pipelined.
  const socket = stores.redis.stream;
  const write = socket.write;
  socket.write = function counted(...args) {
    writes++;
    return write.apply(this, args);
  };
  const commands = () => Promise.resolve(sent);
  const rounds = 200;
  const kinds = [
    ['2025-11-25 session tools/call (JSON answer)', (i) => post({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }, session)],
    ['2025-11-25 session tools/call with one log (SSE answer: 2 events)', (i) => post({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'logs', arguments: {} } }, session)],
    ['2026-07-28 tools/call (no session)', (i) => post({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: modernMeta } }, modern)],
  ];
  for (const [name, request] of kinds) {
    const before = await commands();
    const writesBefore = writes;
    for (let i = 0; i < rounds; i++) await request(i);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the touches are not awaited by the handler
    const after = await commands();
    console.log(`${name}: ${((after - before) / rounds).toFixed(2)} Redis commands, ${((writes - writesBefore) / rounds).toFixed(2)} socket writes per request`);
  }
  await http.close();
  await stores.close();
}
