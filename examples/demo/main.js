#!/usr/bin/env node
// @ts-check
/**
 * Launches the demo server (`npm start` runs the HTTP form). Either form serves both eras: the session-based
 * revisions (`initialize`) and 2026-07-28 (per-request `_meta`, no session).
 *
 *   node examples/demo/main.js [--port N] [--host H]   Streamable HTTP at http://H:N/mcp (default 127.0.0.1:3000),
 *                                                     2024-11-05 HTTP+SSE at /sse
 *   node examples/demo/main.js --redis-url redis://…   the same, its sessions, events, tasks and notifications in
 *                                                     Redis (or SWITCHBOARD_REDIS_URL): processes on one Redis
 *                                                     serve each other's sessions
 *   node examples/demo/main.js --stdio                 stdio: stdout carries protocol messages only
 *
 * Hosts must call node directly for stdio (npm prints a banner on stdout). Everything else goes to stderr:
 * in HTTP mode the URL and a host configuration snippet. SIGINT/SIGTERM stop accepting connections, let the calls
 * in flight finish (up to 10 s), close the server and exit 0; in stdio mode the server also exits when the host
 * closes its stdin.
 */
import { fileURLToPath } from 'node:url';
import { runLauncher } from '../launcher.js';
import { openDemoDatabase } from './database.js';

const DEFAULT_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';
/** On SIGINT/SIGTERM, how long (ms) requests in flight may take to be answered before the server closes anyway. */
const SHUTDOWN_DRAIN_MS = 10_000;
const USAGE = 'usage: node examples/demo/main.js [--port N] [--host H] [--redis-url URL] | --stdio';
const MAIN_FILE = fileURLToPath(import.meta.url);

/**
 * The `mcpServers` entries a host needs, with absolute paths.
 * @param {string} url the Streamable HTTP endpoint
 */
function hostConfiguration(url) {
  return {
    mcpServers: {
      'switchboard-demo': { command: process.execPath, args: [MAIN_FILE, '--stdio'] },
      'switchboard-demo-http': { type: 'http', url },
    },
  };
}

/** @type {import('./database.js').SqlDatabase | undefined} */
let db;
runLauncher({
  name: 'demo',
  usage: USAGE,
  port: DEFAULT_PORT,
  host: DEFAULT_HOST,
  drainMs: SHUTDOWN_DRAIN_MS,
  redis: true,
  createServer: async (options) => {
    // Start-up: sql.js compiles its WebAssembly in the background while the server module (zod, the MCP
    // server) loads, so the two overlap instead of adding up.
    const opening = openDemoDatabase();
    const [{ createDemoServer }, opened] = await Promise.all([import('./server.js'), opening]);
    db = opened;
    return createDemoServer(opened, options);
  },
  listening: (handle) => [
    `demo: Streamable HTTP listening on ${handle.url} (2024-11-05 HTTP+SSE: ${handle.url.replace(/\/mcp$/, '/sse')}; pid ${process.pid})`,
    'demo: host configuration (stdio, or HTTP while this server runs):',
    JSON.stringify(hostConfiguration(handle.url), null, 2),
    'demo: Ctrl-C stops the server',
    '',
  ].join('\n'),
  closed: () => db?.close(),
});
