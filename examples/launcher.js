// @ts-check
/**
 * What the example launchers under examples/ share, so they parse their arguments and report a failure to listen
 * the same way: `--port N`, `--host H`, `--stdio`, `--help`; a bad argument is one line plus the usage on stderr and
 * exit code 2; a port in use is one line on stderr and exit code 1, never a stack trace.
 */
import process from 'node:process';
import { AddressInUseError } from '@switchboard/mcp/node';

/**
 * Parses a launcher's arguments (`--flag value` or `--flag=value`). On `--help` prints `usage` and exits 0; on a
 * bad argument prints `<name>: <problem>` and `usage` on stderr and exits 2.
 *
 * @param {readonly string[]} argv - The arguments after the script path.
 * @param {{ name: string, usage: string, port: number, host: string }} defaults - The launcher's name (the prefix of
 *   its messages), usage line and default port and host.
 * @returns {{ stdio: boolean, port: number, host: string }}
 */
export function parseLaunchArgs(argv, defaults) {
  /** @param {string} message @returns {never} */
  const fail = (message) => {
    process.stderr.write(`${defaults.name}: ${message}\n${defaults.usage}\n`);
    process.exit(2);
  };
  const opts = { stdio: false, port: defaults.port, host: defaults.host };
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
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
      case '--help': case '-h': process.stderr.write(`${defaults.usage}\n`); process.exit(0); break;
      default: fail(`unknown argument '${arg}'`);
    }
  }
  return opts;
}

/**
 * The one-line explanation of a failure to listen, or `undefined` when `error` is something else (print that
 * one in full).
 *
 * @param {unknown} error - What `serveHttp` rejected with.
 * @returns {string | undefined} e.g. `port 3000 is in use; pass --port`
 * @example
 * const line = listenFailureLine(error);
 * if (line !== undefined) { process.stderr.write(`demo: ${line}\n`); process.exit(1); }
 */
export function listenFailureLine(error) {
  if (error instanceof AddressInUseError) return `port ${error.port} is in use; pass --port`;
  return undefined;
}

/**
 * Stops a stdio session gracefully on SIGINT/SIGTERM: the requests in flight get up to `drainMs` to be answered (a
 * sampling or elicitation answer can still arrive on stdin meanwhile), then the session closes and `serveStdio`
 * exits the process once stdout has taken every answer. A second signal changes nothing.
 *
 * @param {import('@switchboard/mcp/server').ServerSession} session - What `serveStdio` returned.
 * @param {number} drainMs - How long (ms) the requests in flight may take.
 */
export function closeStdioOnSignals(session, drainMs) {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void session.drain(drainMs).then(() => session.close());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * Runs an example server as a command: parses the arguments ({@link parseLaunchArgs}), serves stdio (`--stdio`) or
 * Streamable HTTP on `--host`/`--port`, and on SIGINT/SIGTERM drains the calls in flight for up to `drainMs`, closes
 * the server and exits 0. A failure to start is one line on stderr and exit code 1.
 *
 * @param {object} launcher
 * @param {string} launcher.name - The prefix of its messages.
 * @param {string} launcher.usage - The usage line.
 * @param {number} launcher.port - The default port.
 * @param {string} launcher.host - The default host.
 * @param {number} launcher.drainMs - How long (ms) calls in flight may take on shutdown.
 * @param {() => Promise<import('@switchboard/mcp/server').McpServer>} launcher.createServer - Builds the server.
 * @param {(handle: import('@switchboard/mcp/node').ServeHttpHandle) => string} launcher.listening - What to print on
 *   stderr once the HTTP server listens.
 * @param {() => void | Promise<void>} [launcher.closed] - Called (and awaited) after the server closed (HTTP), before the exit.
 * @param {Omit<import('@switchboard/mcp/node').ServeHttpOptions, 'server' | 'port' | 'host'>} [launcher.http] - Handler
 *   options for HTTP (default: none), e.g. `responseMode`, or the session and event stores of a cluster.
 */
export function runLauncher(launcher) {
  const main = async () => {
    const opts = parseLaunchArgs(process.argv.slice(2), launcher);
    const server = await launcher.createServer();
    if (opts.stdio) {
      const { serveStdio } = await import('@switchboard/mcp/stdio');
      // serveStdio ends the process once the session closes (stdin end-of-file, or a signal after the drain).
      closeStdioOnSignals(await serveStdio(server), launcher.drainMs);
      return;
    }
    const { serveHttp } = await import('@switchboard/mcp/node');
    const handle = await serveHttp({ server, port: opts.port, host: opts.host, ...launcher.http });
    process.stderr.write(launcher.listening(handle));
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      try {
        // Graceful: new sessions are refused, calls in flight are answered (up to the deadline), then exit 0.
        await handle.close({ drainMs: launcher.drainMs });
        await server.close();
        await launcher.closed?.();
      } finally {
        process.exit(0);
      }
    };
    process.once('SIGINT', () => { void stop(); });
    process.once('SIGTERM', () => { void stop(); });
  };
  main().catch((/** @type {unknown} */ error) => {
    const line = listenFailureLine(error) ?? (error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.stderr.write(`${launcher.name}: ${line}\n`);
    process.exit(1);
  });
}
