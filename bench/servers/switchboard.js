// Switchboard's benchmark server: the `echo` tool on @switchboard/mcp, over stdio or Streamable HTTP.
//
//   node bench/servers/switchboard.js --stdio
//   node bench/servers/switchboard.js --port <N>        Streamable HTTP at http://127.0.0.1:<N>/mcp (legacy sessions)
//   options: --tools <N>            register N-1 filler tools next to echo (flatness scenario)
//            --max-concurrent <N>   McpServer maxConcurrentRequestsPerSession (10k-in-flight scenario)
//            --response json|sse|auto  HTTP response mode (auto: decided per exchange, the default)
//            --session-idle-ms <N>  idle-session reaping (sessionIdleTimeoutMs)
//            --no-event-store       HTTP without SSE resumability (eventStore: null; default: in-memory store)
//   SWITCHBOARD_REDIS_URL set: the stores of @switchboard/redis (examples/launcher.js sharedStoresFromEnv; the cluster rows of
//   bench/cluster.mjs run it so, one instance or three behind nginx via scripts/cluster.mjs); unset: in memory.
//
// `echo` takes { text: string, delayMs?: integer } and returns [{ type: 'text', text }]; `delayMs` holds the
// call open. Works right after `npm ci` (the packages are built by the root `prepare` script).
import { McpServer } from '@switchboard/mcp/server';
import { parseArgs, installHeapProbe, installShutdown, announceReady, fillerToolNames, sleep, ECHO_INPUT_SCHEMA, FILLER_INPUT_SCHEMA } from './_common.js';

const argv = process.argv.slice(2);
let maxConcurrent;
const mc = argv.indexOf('--max-concurrent');
if (mc !== -1) {
  maxConcurrent = Number(argv[mc + 1]);
  argv.splice(mc, 2);
}
const noEventStore = argv.includes('--no-event-store');
if (noEventStore) argv.splice(argv.indexOf('--no-event-store'), 1);
const opts = parseArgs(argv);
installHeapProbe();
// Loaded only for the Redis rows: the raw floor loads no launcher either, and the cold-start row times module loading.
const stores = process.env.SWITCHBOARD_REDIS_URL
  ? await (await import('../../examples/launcher.js')).sharedStoresFromEnv('bench-switchboard', { keyPrefix: 'bench:' })
  : undefined;

const server = new McpServer(
  { name: 'bench-switchboard', version: '1.0.0' },
  { ...(maxConcurrent ? { maxConcurrentRequestsPerSession: maxConcurrent } : {}), ...stores?.serverOptions },
);
server.tool('echo', { description: 'Echoes its text argument', inputSchema: ECHO_INPUT_SCHEMA }, async ({ text, delayMs }) => {
  if (delayMs) await sleep(delayMs);
  return { content: [{ type: 'text', text }] };
});
for (const name of fillerToolNames(opts.tools)) {
  server.tool(name, { description: `Filler ${name}`, inputSchema: FILLER_INPUT_SCHEMA }, async ({ value }) => ({ content: [{ type: 'text', text: value }] }));
}

if (opts.stdio) {
  const { serveStdio } = await import('@switchboard/mcp/stdio');
  const session = await serveStdio(server);
  installShutdown(() => session.close(), { stdio: true });
} else {
  const { serveHttp } = await import('@switchboard/mcp/node');
  const httpOptions = { server, port: opts.port, host: opts.host, ...stores?.httpOptions };
  if (opts.response) httpOptions.responseMode = opts.response;
  if (opts.sessionIdleMs !== undefined) httpOptions.sessionIdleTimeoutMs = opts.sessionIdleMs;
  if (noEventStore) httpOptions.eventStore = null; // no SSE resumability (the SDK rows run without one)
  const handle = await serveHttp(httpOptions);
  announceReady(handle.url);
  installShutdown(async () => {
    await handle.close();
    await server.close();
    await stores?.close();
  });
}
