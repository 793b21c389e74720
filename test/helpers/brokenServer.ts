/**
 * The broken-servers gallery (test/fixtures/broken-servers/): a fixture started by file and transport as the
 * doctor's target. A stdio fixture is only a target (`node <file>.mjs`, or its `command` as is: the doctor starts it,
 * as often as it needs);
 * an HTTP fixture is started here, its URL read from its one stdout line `{"url":"http://127.0.0.1:<port>/mcp"}`,
 * and stopped by its own PID (SIGTERM, then SIGKILL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DoctorTarget, DoctorTransport } from '../../packages/cli/src/doctor/types.js';
import { exitWithin, stopByPid } from './process.js';

/** The gallery's folder. */
export const BROKEN_SERVERS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'broken-servers');
/** How long an HTTP fixture may take to print its URL, ms. */
const URL_WAIT_MS = 10_000;
/** How long an HTTP fixture may take to exit on SIGTERM before SIGKILL, ms. */
const STOP_WAIT_MS = 3_000;

/** The path of a fixture (`file` as in the manifest, without `.mjs`). */
export function fixturePath(file: string): string {
  return path.join(BROKEN_SERVERS, `${file}.mjs`);
}

/** A fixture ready to be diagnosed. */
export interface BrokenServer {
  readonly target: DoctorTarget;
  /** The HTTP fixture's process (none for stdio: the doctor starts those). */
  readonly child?: ChildProcess;
  /** What the HTTP fixture wrote on stderr so far. */
  stderr(): string;
  /** Stops the HTTP fixture by its PID (a no-op for stdio). */
  stop(): Promise<void>;
}

/** Starts a fixture (HTTP) or names it (stdio). @throws Error when an HTTP fixture prints no URL line in time */
export async function startBrokenServer(fixture: { readonly file: string; readonly transport: DoctorTransport; readonly command?: readonly string[] }): Promise<BrokenServer> {
  const file = fixturePath(fixture.file);
  if (fixture.transport === 'stdio') {
    const [command, ...args] = fixture.command ?? [process.execPath, file];
    return { target: { transport: 'stdio', command: command!, args }, stderr: () => '', stop: () => Promise.resolve() };
  }
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      stopByPid(child);
      reject(new Error(`Fixture "${fixture.file}" ${why}: stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr)}`));
    };
    const timer = setTimeout(() => fail(`printed no URL line within ${URL_WAIT_MS} ms`), URL_WAIT_MS);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      try {
        const { url: found } = JSON.parse(stdout.slice(0, newline)) as { url?: unknown };
        if (typeof found !== 'string') throw new Error('no url');
        clearTimeout(timer);
        resolve(found);
      } catch {
        fail('printed a first line that is not {"url": …}');
      }
    });
    child.once('exit', (code) => fail(`exited with ${String(code)}`));
  });
  return {
    target: { transport: 'http', url },
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      try {
        await exitWithin(child, STOP_WAIT_MS);
      } catch {
        stopByPid(child);
      }
    },
  };
}
