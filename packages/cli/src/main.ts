#!/usr/bin/env node
/**
 * The `switchboard` executable: the only module that touches the process. It builds the {@link CliIo} (stdout,
 * stderr, environment, terminal width, a line reader on a terminal stdin) and forwards to {@link run}.
 */
import os from 'node:os';
import process from 'node:process';
import { createInterface } from 'node:readline/promises';
import { nodeDoctorEnv } from './doctor/index.js';
import type { CliIo } from './cliIo.js';
import { run } from './run.js';

// A reader that went away (`switchboard list … | head`) is not an error of the command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

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

try {
  process.exitCode = await run(process.argv.slice(2), io);
} finally {
  reader?.close();
}
