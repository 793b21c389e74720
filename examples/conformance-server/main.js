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
import { closeStdioOnSignals, listenFailureLine, parseLaunchArgs } from '../launcher.js';
import { createConformanceServer } from './server.js';

const DEFAULT_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';
/** On SIGINT/SIGTERM, how long (ms) requests in flight may take to be answered before the server closes anyway. */
const SHUTDOWN_DRAIN_MS = 10_000;
const USAGE = 'usage: node examples/conformance-server/main.js [--port N] [--host H] | --stdio';

async function main() {
  const opts = parseLaunchArgs(process.argv.slice(2), { name: 'conformance-server', usage: USAGE, port: DEFAULT_PORT, host: DEFAULT_HOST });
  const server = createConformanceServer();

  if (opts.stdio) {
    const { serveStdio } = await import('@switchboard/mcp/stdio');
    // serveStdio ends the process once the session closes (stdin end-of-file).
    const session = await serveStdio(server);
    closeStdioOnSignals(session, SHUTDOWN_DRAIN_MS);
    return;
  }

  const { serveHttp } = await import('@switchboard/mcp/node');
  const handle = await serveHttp({ server, port: opts.port, host: opts.host });
  process.stderr.write(`conformance-server: Streamable HTTP listening on ${handle.url} (pid ${process.pid})\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      // Graceful: new connections are refused, calls in flight are answered (up to the deadline), then exit 0.
      await handle.close({ drainMs: SHUTDOWN_DRAIN_MS });
      await server.close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGINT', () => { void stop(); });
  process.once('SIGTERM', () => { void stop(); });
}

main().catch((error) => {
  const line = listenFailureLine(error) ?? (error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.stderr.write(`conformance-server: ${line}\n`);
  process.exit(1);
});
