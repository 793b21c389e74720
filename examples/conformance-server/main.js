#!/usr/bin/env node
// @ts-check
/**
 * Launches the conformance test server.
 *
 *   node examples/conformance-server/main.js [--port N] [--host H]   Streamable HTTP at http://H:N/mcp
 *                                                                   (default 127.0.0.1:3000; URL printed on stderr)
 *   node examples/conformance-server/main.js --stdio                 stdio: stdout carries protocol messages only
 *
 * Diagnostics always go to stderr. SIGINT/SIGTERM stop accepting connections, let the calls in flight finish (up
 * to 10 s), close the server and exit 0. A port already in use is one line on stderr (`conformance-server: port
 * 3000 is in use; pass --port`) and exit code 1.
 */
import process from 'node:process';
import { runLauncher } from '../launcher.js';
import { createConformanceServer } from './server.js';

const DEFAULT_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';
/** On SIGINT/SIGTERM, how long (ms) requests in flight may take to be answered before the server closes anyway. */
const SHUTDOWN_DRAIN_MS = 10_000;
const USAGE = 'usage: node examples/conformance-server/main.js [--port N] [--host H] | --stdio';

runLauncher({
  name: 'conformance-server',
  usage: USAGE,
  port: DEFAULT_PORT,
  host: DEFAULT_HOST,
  drainMs: SHUTDOWN_DRAIN_MS,
  // Every POST answered as SSE: the suites' server-sse-streams-functional check scores only SSE answers (with the
  // default 'auto', quick calls are JSON and the suite reports that check as INFO, "SSE streams optional").
  http: { responseMode: 'sse' },
  createServer: async () => createConformanceServer(),
  listening: (handle) => `conformance-server: Streamable HTTP listening on ${handle.url} (pid ${process.pid})\n`,
});
