/**
 * An HTTP server script of test/fixtures/broken-servers/ started with arguments (the gallery's `startBrokenServer`
 * starts a fixture without any): its URL read from its one stdout line `{"url":"http://127.0.0.1:<port>/mcp"}`,
 * stopped by its own PID.
 */
import { spawn } from 'node:child_process';
import { BROKEN_SERVERS } from './brokenServer.js';
import { stopByPid } from './process.js';
import path from 'node:path';

/** A running HTTP fixture. */
export interface HttpFixture {
  readonly url: string;
  /** Kills it by its PID (SIGKILL). */
  stop(): void;
}

/** Starts `node test/fixtures/broken-servers/<file>.mjs <args>`; rejects when it prints no URL line within 10 s. */
export async function startHttpFixture(file: string, args: readonly string[] = []): Promise<HttpFixture> {
  const child = spawn(process.execPath, [path.join(BROKEN_SERVERS, `${file}.mjs`), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      stopByPid(child);
      reject(new Error(`${file} printed no URL within 10 s; stderr: ${stderr}`));
    }, 10_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      resolve((JSON.parse(out.slice(0, newline)) as { url: string }).url);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${String(code)}) before printing a URL; stderr: ${stderr}`));
    });
  });
  return { url, stop: () => stopByPid(child) };
}
