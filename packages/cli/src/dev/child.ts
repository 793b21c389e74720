/**
 * One generation of `switchboard dev`, run in a child process as `switchboard dev-generation <mode> <file>
 * [1|0]` (a hidden command): it imports the server module fresh (every import it makes is loaded anew, since the
 * process is new), serves it, and tells the parent over the IPC channel that it is ready, or why it failed.
 *
 * `stdio`: serves on its own stdin/stdout (the parent relays the host's lines); it ends with its stdin.
 * `http`: serves Streamable HTTP on 127.0.0.1, port 0 (the parent forwards each request it accepts there), with
 * the Host validation the user's bind address calls for (`1`/`0`); it drains and ends when told `stop`, or on the
 * io's signal. Either ends when the parent is gone.
 */
import path from 'node:path';
import { serveHttp } from '@switchboard/mcp/node';
import { serveStdio } from '@switchboard/mcp/stdio';
import { loadServerModule, SERVE_DRAIN_MS } from '../commands/serve.js';
import { importModuleFile } from '../moduleImport.js';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../cliIo.js';
import type { ChildMessage, ParentMessage } from './generationMessages.js';

/** Sends a message; resolves once it was handed to the channel (so that exiting next cannot lose it). */
function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) return resolve();
    process.send(message, () => resolve());
  });
}

/** What a generation is told. */
export interface GenerationOptions {
  readonly io: CliIo;
  readonly mode: 'stdio' | 'http';
  readonly file: string;
  /** Validate `Host` (HTTP; off when the user binds a non-loopback address). @default true */
  readonly protect?: boolean;
}

/**
 * Serves one generation; resolves once it stopped (stdio: once it serves; the process ends with stdin).
 * @throws the module's own import error (as a rejection), after telling the parent: uncaught, Node prints it with
 *   its source location (`file:///…:3` and a caret), which a syntax error's message alone lacks
 */
export async function runGeneration(options: GenerationOptions): Promise<number> {
  const file = path.resolve(options.io.cwd, options.file);
  // The parent gone (it crashed or was killed): nothing can reach this generation any more. The channel itself
  // does not keep the process alive: stdin (stdio) or the listener (HTTP) does.
  process.on('disconnect', () => process.exit(0));
  process.channel?.unref();
  let imported: Record<string, unknown>;
  try {
    // Through the shared loader: a `.ts` module on a Node that cannot strip types goes through the project's tsx,
    // or fails with one line saying what to install (never Node's raw ERR_UNKNOWN_FILE_EXTENSION stack).
    imported = await importModuleFile(file);
  } catch (error) {
    // Our own refusal (a `.ts` file this Node cannot import) is one line; the module's own error keeps its stack.
    if (error instanceof CliError) {
      await send({ type: 'failed', message: error.message });
      return ExitCode.Usage;
    }
    await send({ type: 'failed', message: `Cannot import "${file}": ${error instanceof Error ? error.message : String(error)}` });
    throw error;
  }
  try {
    const server = await loadServerModule(file, options.io, imported);
    if (options.mode === 'stdio') {
      // stdout is the wire from here on.
      await serveStdio(server);
      await send({ type: 'ready' });
      return ExitCode.Ok;
    }
    const handle = await serveHttp({ server, host: '127.0.0.1', port: 0, dnsRebindingProtection: options.protect !== false });
    const stopped = new Promise<void>((resolve) => {
      process.on('message', (message: ParentMessage) => {
        if (message.type === 'stop') resolve();
      });
      options.io.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await send({ type: 'ready', url: handle.url });
    await stopped;
    await handle.close({ drainMs: SERVE_DRAIN_MS });
    process.disconnect?.();
    return ExitCode.Ok;
  } catch (error) {
    await send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return ExitCode.Usage;
  }
}
