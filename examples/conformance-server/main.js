#!/usr/bin/env node
// @ts-check
/**
 * Launches the conformance test server.
 *
 *   node examples/conformance-server/main.js [--port N] [--host H]   Streamable HTTP at http://H:N/mcp
 *                                                                   (default 127.0.0.1:3000; URL printed on stderr)
 *   node examples/conformance-server/main.js --stdio                 stdio: stdout carries protocol messages only
 *   … --revisions legacy|modern|all                                 the revisions served (McpServerOptions.revisions):
 *                                                                   the session-based ones, 2026-07-28 only, or every
 *                                                                   one (the default: dual-era); the era bridge's
 *                                                                   conformance runs (scripts/conformance-bridge.mjs)
 *                                                                   put a narrowed server behind `switchboard bridge`
 *
 * With `SWITCHBOARD_REDIS_URL` set, HTTP runs on the stores of `@switchboard/redis` (sessions, SSE events, tasks,
 * used request states, notifications, the cluster bus and leases), so several instances behind a load balancer
 * serve one deployment (or `--redis-url`; `SWITCHBOARD_INSTANCE_ID`, `SWITCHBOARD_REQUEST_STATE_SECRET`: see ../launcher.js;
 * `scripts/conformance.mjs` runs the suites against three of them behind nginx, through `scripts/cluster.mjs`).
 *
 * Diagnostics always go to stderr. SIGINT/SIGTERM stop accepting connections, let the calls in flight finish (up
 * to 10 s), close the server and exit 0. A port already in use is one line on stderr (`conformance-server: port
 * 3000 is in use; pass --port`) and exit code 1.
 */
import { PROTOCOL_REVISIONS, isLegacyRevision, isModernRevision } from '@switchboard/mcp';
import { runLauncher } from '../launcher.js';
import { createConformanceServer } from './server.js';

const DEFAULT_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';
/** On SIGINT/SIGTERM, how long (ms) requests in flight may take to be answered before the server closes anyway. */
const SHUTDOWN_DRAIN_MS = 10_000;
const USAGE = 'usage: node examples/conformance-server/main.js [--port N] [--host H] [--redis-url URL] | --stdio   [--revisions legacy|modern|all]';

/** The revisions of each `--revisions` word (`all`: the server's default, every revision). */
const REVISION_SETS = {
  legacy: PROTOCOL_REVISIONS.filter(isLegacyRevision),
  modern: PROTOCOL_REVISIONS.filter(isModernRevision),
  all: undefined,
};

// `--revisions` is this launcher's own flag: taken out before the shared launcher parses the rest.
const at = process.argv.findIndex((arg) => arg === '--revisions' || arg.startsWith('--revisions='));
/** @type {keyof typeof REVISION_SETS} */
let which = 'all';
if (at >= 0) {
  const arg = /** @type {string} */ (process.argv[at]);
  const word = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : process.argv[at + 1];
  if (word !== 'legacy' && word !== 'modern' && word !== 'all') {
    process.stderr.write(`conformance-server: --revisions takes legacy, modern or all, got '${String(word)}'\n${USAGE}\n`);
    process.exit(2);
  }
  which = word;
  process.argv.splice(at, arg.includes('=') ? 1 : 2);
}
const revisions = REVISION_SETS[which];
runLauncher({
  name: 'conformance-server',
  usage: USAGE,
  port: DEFAULT_PORT,
  host: DEFAULT_HOST,
  drainMs: SHUTDOWN_DRAIN_MS,
  // Every POST answered as SSE: the suites' server-sse-streams-functional check scores only SSE answers (with the
  // default 'auto', quick calls are JSON and the suite reports that check as INFO, "SSE streams optional").
  http: { responseMode: 'sse' },
  redis: true,
  redisKeyPrefix: 'conformance:',
  createServer: async (shared) => createConformanceServer({ ...(revisions === undefined ? {} : { revisions }), ...shared }),
  listening: (handle) => `conformance-server: Streamable HTTP listening on ${handle.url} (pid ${process.pid})\n`,
});
