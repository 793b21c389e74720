/**
 * On Node, the HTTP client transports' default `fetch` is `nodeFetch` once a Node entry of @switchboard/mcp is loaded
 * (dist/stdio.js, dist/node.js, dist/client-node.js: what `./client` resolves to under Node's `node` condition), and
 * `globalThis.fetch` with the runtime-neutral dist/client.js alone. Each case in a process of its own (the default is
 * module state), against one echo server.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let server: ChildProcess | undefined;
let url = '';

beforeAll(async () => {
  server = spawn(process.execPath, ['bench/servers/switchboard.js', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let err = '';
    server!.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const ready = /BENCH_READY (\S+)/.exec(err);
      if (ready) resolve(ready[1]!);
    });
    server!.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
});

afterAll(() => {
  if (server?.pid !== undefined && server.exitCode === null) process.kill(server.pid);
});

describe('the default fetch of the HTTP client transports', () => {
  /** Runs the fixture after loading `entry`; its stdout, once it exited 0. */
  const callsAfter = (entry: string): string => {
    const run = spawnSync(process.execPath, ['test/fixtures/default-fetch.mjs', entry, url], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(run.error).toBeUndefined();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return run.stdout;
  };

  it.each(['stdio.js', 'node.js', 'client-node.js'])('after %s: nodeFetch (globalThis.fetch is never called)', (entry) => {
    expect(callsAfter(entry)).toBe('globalThis.fetch calls: 0\n');
  });

  it('after client.js alone (the runtime-neutral entry): globalThis.fetch', () => {
    expect(callsAfter('client.js')).toMatch(/^globalThis\.fetch calls: [1-9]\d*\n$/);
  });
});
