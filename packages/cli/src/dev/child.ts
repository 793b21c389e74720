/**
 * One generation of `switchboard dev`: a child process that imports the server module fresh (every import it makes
 * is loaded anew, since the process is new) and serves it, then tells the parent over the IPC channel that it is
 * ready (or why it failed to load).
 *
 * `node devChild.js stdio <file>`: serves stdio on its own stdin/stdout (the parent relays the host's lines).
 * `node devChild.js http <file> <protect>`: serves Streamable HTTP on 127.0.0.1, port 0; the parent forwards each
 * request it accepts to that port. `protect` (`1`/`0`) is the Host validation the user's bind address calls for.
 * The child ends when its stdin ends (stdio), when told `stop` (HTTP: after draining), or when the parent is gone.
 */
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import type { ServeHttpHandle } from '@switchboard/mcp/node';
import { serveHttp } from '@switchboard/mcp/node';
import { serveStdio } from '@switchboard/mcp/stdio';
import { loadServerModule, SERVE_DRAIN_MS } from '../commands/serve.js';
import { captureIo } from '../io.js';
import type { ChildMessage, ParentMessage } from './messages.js';

/** Sends a message; resolves once it was handed to the channel (so that exiting next cannot lose it). */
function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) return resolve();
    process.send(message, () => resolve());
  });
}

const [mode, file, protect] = process.argv.slice(2);
if ((mode !== 'stdio' && mode !== 'http') || file === undefined) {
  process.stderr.write('switchboard: devChild.js is started by switchboard dev: devChild.js stdio|http <file> [1|0]\n');
  process.exit(2);
}

// The parent gone (it crashed or was killed): nothing can reach this generation any more. The channel itself does
// not keep the process alive: stdin (stdio) or the listener (HTTP) does.
process.on('disconnect', () => process.exit(0));
process.channel?.unref();

try {
  // Imported here first so that a failure keeps its own error: rethrown uncaught, Node prints it on stderr with its
  // source location (`file:///…:3` and a caret), which a syntax error's message alone lacks.
  await import(pathToFileURL(path.resolve(file)).href);
} catch (error) {
  await send({ type: 'failed', message: `Cannot import "${path.resolve(file)}": ${error instanceof Error ? error.message : String(error)}` });
  throw error;
}

try {
  // The module is in the cache now: this evaluates nothing again, it finds the server.
  const server = await loadServerModule(file, captureIo({ cwd: process.cwd() }));
  if (mode === 'stdio') {
    // stdout is the wire from here on.
    await serveStdio(server);
    await send({ type: 'ready' });
  } else {
    const handle: ServeHttpHandle = await serveHttp({ server, host: '127.0.0.1', port: 0, dnsRebindingProtection: protect !== '0' });
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void handle.close({ drainMs: SERVE_DRAIN_MS }).finally(() => process.exit(0));
    };
    process.on('message', (message: ParentMessage) => {
      if (message.type === 'stop') stop();
    });
    process.once('SIGTERM', stop);
    await send({ type: 'ready', url: handle.url });
  }
} catch (error) {
  await send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 2;
}
