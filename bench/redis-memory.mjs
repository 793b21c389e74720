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
import { connectRedis, RedisEventStore, RedisSessionStore, RedisTaskStore } from '@switchboard/redis';

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
  const sessions = new RedisSessionStore({ redis, keyPrefix: 'm:' });
  await measure('session record', async () => {
    for (let i = 0; i < N; i++) {
      const now = Date.now();
      await sessions.create({ sessionId: crypto.randomUUID(), transport: 'streamable-http', caller: `address:10.0.${i % 50}.1`, createdAt: now, lastActivity: now, phase: 'opened', ttlMs: 1_800_000, streamPrefix: `${crypto.randomUUID().replaceAll('-', '')}.`, protocolVersion: null });
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
} finally {
  await redis.quit();
  child.kill('SIGTERM');
}
