#!/usr/bin/env node
/**
 * The `switchboard` executable: the only module that touches the process. It builds the {@link CliIo} (stdout,
 * stderr, environment, terminal width, a line reader on a terminal stdin) and forwards to {@link run}.
 */
import os from 'node:os';
import { createInterface } from 'node:readline/promises';
import { nodeDoctorEnv } from './doctor/index.js';
import type { CliIo } from './cliIo.js';
import { SERVER_COMMANDS } from './program.js';
import { run } from './run.js';
import { SERVE_DRAIN_MS } from './commands/serve.js';

/** The commands that serve until a signal stops them. */
const LONG_RUNNING: ReadonlySet<string> = new Set(['serve', 'dev', 'bridge', 'dashboard']);

// A reader that went away (`switchboard list … | head`) is not an error of the command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

/**
 * How long `serve` and `dev` may take to end once asked to stop, in ms: their drain ({@link SERVE_DRAIN_MS}) and a
 * margin to close; past it the process exits anyway (code 1).
 */
const STOP_DEADLINE_MS = SERVE_DRAIN_MS + 5000;

// The first SIGINT/SIGTERM asks the command to stop (serve and dev drain, for up to SERVE_DRAIN_MS); the second one
// exits at once (code 130 for SIGINT, 143 for SIGTERM: 128 + the signal's number, as a shell reports it).
const stop = new AbortController();
let signalled = false;
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.on(signal, () => {
    if (signalled) process.exit(code);
    signalled = true;
    stop.abort();
    if (LONG_RUNNING.has(process.argv[2] ?? '')) setTimeout(() => process.exit(1), STOP_DEADLINE_MS).unref();
  });
}

const tty = process.stdin.isTTY;
let reader: ReturnType<typeof createInterface> | undefined;
const io: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  home: os.homedir(),
  platform: process.platform,
  signal: stop.signal,
  ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
  color: process.stdout.isTTY && process.env.NO_COLOR === undefined,
  stderrIsTTY: process.stderr.isTTY,
  stderrStream: process.stderr,
  doctorEnv: nodeDoctorEnv(),
  ...(tty
    ? {
        ask: (question: string) => {
          reader ??= createInterface({ input: process.stdin, output: process.stderr });
          return reader.question(question);
        },
      }
    : {}),
};

/** How long the process may take to end by itself once the command is done and its output flushed, in ms. */
const EXIT_GRACE_MS = 200;

/** Resolves once what was written to `stream` so far has been handed to the system (at once if it is gone). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

try {
  process.exitCode = await run(process.argv.slice(2), io);
} finally {
  reader?.close();
}
// A command that talks to a server (list, call, read, doctor, install) is done and has closed its client. A server's
// descendant (a daemonized grandchild) may still hold the pipes to the server open, which would keep the event loop
// alive for ever: once the output is flushed, the process gets a short grace to end by itself, then exits with its
// code. The timer is unref'd, so it never delays a process that ends on its own. (`serve` and `dev` return while
// they serve, so they are left alone.)
if (SERVER_COMMANDS.has(process.argv[2] ?? '')) {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}
// `serve` and `dev` stopped by a signal have drained: the module's own handles (a timer, a socket, a database)
// would keep the process alive for ever, so it exits with the command's code once the output is flushed. (A stdio
// `serve` returned while serving: its session exits the process itself once it drained.)
if (LONG_RUNNING.has(process.argv[2] ?? '') && stop.signal.aborted) {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit();
}
