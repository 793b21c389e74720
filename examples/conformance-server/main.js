#!/usr/bin/env node
// @ts-check
/**
 * Launches the conformance test server.
 *
 *   node examples/conformance-server/main.js [--port N] [--host H]   Streamable HTTP at http://H:N/mcp
 *                                                                   (default 127.0.0.1:3000; URL printed on stderr)
 *   node examples/conformance-server/main.js --stdio                 stdio: stdout carries protocol messages only
 *
 * Diagnostics always go to stderr. SIGINT/SIGTERM close the server and exit 0. A port already in use is one line
 * on stderr (`conformance-server: port 3000 is in use; pass --port`) and exit code 1.
 */
import process from 'node:process';
import { listenFailureLine } from '../listen-error.js';
import { createConformanceServer } from './server.js';

const DEFAULT_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';
const USAGE = 'usage: node examples/conformance-server/main.js [--port N] [--host H] | --stdio';

/**
 * @param {string[]} argv
 * @returns {{ stdio: boolean, port: number, host: string }}
 */
function parseArgs(argv) {
  const opts = { stdio: false, port: DEFAULT_PORT, host: DEFAULT_HOST };
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') fail(`missing value after ${flag}`);
      return /** @type {string} */ (v);
    };
    switch (flag) {
      case '--stdio': opts.stdio = true; break;
      case '--port': {
        const raw = value();
        const port = Number(raw);
        if (!/^\d+$/.test(raw) || port > 65535) fail(`invalid port '${raw}'`);
        opts.port = port;
        break;
      }
      case '--host': opts.host = value(); break;
      case '--help': case '-h': process.stderr.write(`${USAGE}\n`); process.exit(0); break;
      default: fail(`unknown argument '${arg}'`);
    }
  }
  return opts;
}

/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`conformance-server: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const server = createConformanceServer();

  if (opts.stdio) {
    const { serveStdio } = await import('@switchboard/mcp/stdio');
    // serveStdio ends the process once the session closes (stdin end-of-file).
    const session = await serveStdio(server);
    const stop = () => { void session.close(); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
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
      await handle.close();
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
